//! `bhref --game gaps` against the contract of `docs/gaps.md`: the paper's Figure 1 and the
//! win the docs give for it, generated deals, the common variant, the second oracle, `stats`, and
//! bad layouts.
//!
//! Input: layouts and solutions in temporary files or on standard input. Output: pass/fail on
//! first lines, messages on standard error and exit statuses.

use assert_cmd::Command;
use bhref::gaps::check::check;
use bhref::gaps::model::Variant;
use bhref::gaps::parse::{parse_layout, read_integers};

/// The paper's Figure 1 (4 suits of 4 ranks), as `suites/gaps/instances/figure-1.txt` holds it.
const FIGURE: &str = "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n";
/// The 17-move win `docs/gaps.md` gives for it.
const PAPER_LINE: &str = "8 19 12 17 4 13 3 7 11 12 14 16 7 9 2 1 6 6 4 8 12 13 15 17 16 18 3 2 7 7 4 3 8 8\n";

fn gaps(args: &[&str], stdin: &str) -> (i32, String, String) {
    let output =
        Command::cargo_bin("bhref").unwrap().args(["--game", "gaps"]).args(args).write_stdin(stdin).output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Asserts that `line` is `1` and a win of `layout` under `variant`.
fn assert_wins(variant: Variant, layout: &str, line: &str) {
    let layout = parse_layout("layout", layout).unwrap();
    let integers = read_integers(line);
    assert_eq!(integers.first(), Some(&1), "{line}");
    assert!(check(&layout, variant, &integers[1..]).is_solution(), "{line}");
}

#[test]
fn check_takes_the_papers_line_from_stdin_or_a_file_and_explains_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let figure = file(&dir, "figure.txt", FIGURE);
    assert_eq!(gaps(&["CHECK", &figure], PAPER_LINE), (0, "true\n".into(), String::new()));
    let line = file(&dir, "line.sol", PAPER_LINE);
    assert_eq!(gaps(&["CHECK", &figure, &line], "").1, "true\n");
    let (code, out, _) = gaps(&["CHECK", &figure, "--explain"], "8 13\n");
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "false\nmove 1 (card 8 into position 13) is illegal: only card 4, the next card of the suit of card 3 on the gap's left, may go there\n"
    );
    assert_eq!(gaps(&["CHECKCOMMON", &figure], PAPER_LINE).1, "true\n");
}

#[test]
fn solve_prints_a_checked_win_or_zero_by_either_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let figure = file(&dir, "figure.txt", FIGURE);
    for oracle in ["search", "bfs"] {
        let (code, out, err) = gaps(&["SOLVE", &figure, "--oracle", oracle], "");
        assert_eq!(code, 0, "{err}");
        assert_wins(Variant::Basic, FIGURE, out.trim_end());
    }
    let stuck = file(&dir, "stuck.txt", "3 2\n1 2 3 0\n4 6 0 5\n");
    assert_eq!(gaps(&["SOLVE", &stuck], "").1, "0\n");
    assert_eq!(gaps(&["SOLVECOMMON", &stuck, "--oracle", "bfs"], "").1, "0\n");
    // The oracle's `--stats` count the positions it met: all of them, or more than its cap.
    let counted = gaps(&["SOLVECOMMON", &stuck, "--oracle", "bfs", "--stats"], "").1;
    assert_eq!(counted, "0\npositions: 1, every one reachable\n");
    let capped = gaps(&["SOLVE", &figure, "--oracle", "bfs", "--nodes", "2", "--stats"], "").1;
    assert_eq!(capped, "-1\npositions: more than 2\n");
    // From standard input, and with the budget too small to decide.
    let (code, out, _) = gaps(&["SOLVE", "--nodes", "2", "--stats"], FIGURE);
    assert_eq!(code, 0);
    assert!(out.starts_with("-1\nnodes: 2\n"), "{out}");
}

#[test]
fn gen_deals_a_seed_that_both_variants_decide() {
    let (code, deal, _) = gaps(&["GEN", "1", "5", "4"], "");
    assert_eq!(code, 0);
    assert_eq!(deal.lines().count(), 5);
    assert_eq!(gaps(&["GEN", "1", "5", "4"], "").1, deal, "the same seed, the same deal");
    let (_, common, _) = gaps(&["SOLVECOMMON"], &deal);
    assert_wins(Variant::Common, &deal, common.trim_end());
    assert_eq!(gaps(&["SOLVE"], &deal).1, "0\n", "GEN 1 5 4 has a common-variant win only");
    let (code, _, err) = gaps(&["GEN", "1", "1", "4"], "");
    assert_eq!(code, 2);
    assert!(err.contains("2 to 100 ranks"), "{err}");
}

#[test]
fn bad_layouts_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = file(&dir, "bad.txt", "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 x\n");
    let (code, out, err) = gaps(&["SOLVE", &bad], "");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with(&format!("bhref: {bad}:5:11: expected row 3, column 4")), "{err}");
}

#[test]
fn stats_prints_every_figure_it_was_asked_for() {
    let (code, out, err) = gaps(
        &[
            "stats",
            "--deals",
            "30",
            "--ranks",
            "5",
            "--variant",
            "common",
            "--full",
            "--probes",
            "1,10",
            "--threads",
            "1",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    for part in [
        "Gaps, common variant: 30 deals (GEN 1 5 4 to GEN 30 5 4), 1 threads",
        "winnable: ",
        "95% Wilson interval",
        "CPU median",
        "full search, positions per deal: mean",
        "random play, at most 10 probes: ",
        "peak memory: ",
    ] {
        assert!(out.contains(part), "{part}:\n{out}");
    }
}

/// The deals `stats` could not win are named, each `0` with the breadth-first oracle's word on
/// it (`--confirm`), and `--time-limit` leaves a deal undecided once its search passes it.
#[test]
fn stats_names_the_deals_it_did_not_win_and_has_the_oracle_confirm_each_zero() {
    let args =
        ["stats", "--variant", "common", "--deals", "12", "--ranks", "5", "--confirm", "100000", "--threads", "1"];
    let (code, out, err) = gaps(&args, "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("proved unwinnable 1; undecided 0\nproved unwinnable: GEN 5\n"), "{out}");
    let confirmed = "confirmed by the breadth-first oracle (at most 100000 positions): 1 of 1; beyond its cap: none; \
                     contradicted (the oracle wins): none\n";
    assert!(out.contains(confirmed), "{out}");
    let (code, out, err) =
        gaps(&["stats", "--variant", "common", "--deals", "3", "--time-limit", "0", "--threads", "1"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("proved unwinnable 0; undecided 3\nundecided: GEN 1, 2, 3\n"), "{out}");
    let (code, out, err) = gaps(&["stats", "--time-limit", "soon"], "");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("expected a number of seconds"), "{err}");
}

/// The paper's Table 2 through the command line: block search against a full depth-first search
/// on the basic variant; the common variant has no block search, and saying so is a usage error.
#[test]
fn stats_reports_the_block_search_beside_the_full_search_of_the_basic_variant() {
    let (code, out, err) = gaps(&["stats", "--deals", "12", "--ranks", "6", "--blocks", "--threads", "1"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("block search (Table 2), 12 deals both counted in full (12 agree on the win)"), "{out}");
    for part in ["DFS positions mean", "blocks mean", "block size", ", R ", "(DFS / blocks "] {
        assert!(out.contains(part), "{part}:\n{out}");
    }
    let (code, out, err) = gaps(&["stats", "--blocks", "--variant", "common"], "");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("--blocks is the basic variant's block search"), "{err}");
    let (code, out, err) = gaps(&["stats", "--blocks", "--suits", "9", "--ranks", "2"], "");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("--blocks takes at most 8 suits"), "{err}");
    assert!(err.ends_with(", not 9\n"), "{err}");
}
