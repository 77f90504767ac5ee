//! `bhref --game superpuzz` against its contract (`docs/superpuzz.md`): a generated deal, its
//! shortest win (the same length by both oracles, and checked), the weighted search's longer or
//! equal win, `CHECK`, and deals that are not Superpuzz's.

use assert_cmd::Command;
use bhref::gaps::check::check;
use bhref::gaps::model::Variant;
use bhref::gaps::parse::{parse_layout, read_integers};

fn superpuzz(args: &[&str], stdin: &str) -> (i32, String, String) {
    let output = Command::cargo_bin("bhref")
        .unwrap()
        .args(["--game", "superpuzz"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

/// The number of moves of a `1 c g ...` line that wins `deal`.
fn winning_moves(deal: &str, line: &str) -> usize {
    let layout = parse_layout("deal", deal).unwrap();
    let integers = read_integers(line);
    assert_eq!(integers.first(), Some(&1), "{line}");
    assert!(check(&layout, Variant::Common, &integers[1..]).is_solution(), "{line}");
    (integers.len() - 1) / 2
}

#[test]
fn a_generated_deal_has_one_shortest_length_by_both_oracles_and_checks() {
    let (code, deal, _) = superpuzz(&["GEN", "3"], "");
    assert_eq!(code, 0);
    assert!(deal.starts_with("6 4\n"), "{deal}");
    assert_eq!(superpuzz(&["GEN", "3", "6"], "").1, deal);
    let (_, shortest, _) = superpuzz(&["SOLVE"], &deal);
    let (_, breadth_first, _) = superpuzz(&["SOLVE", "--oracle", "bfs"], &deal);
    let (_, weighted, _) = superpuzz(&["SOLVE", "--weighted", "1.8"], &deal);
    let best = winning_moves(&deal, &shortest);
    assert_eq!(winning_moves(&deal, &breadth_first), best);
    assert!(winning_moves(&deal, &weighted) >= best);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deal.txt");
    std::fs::write(&path, &deal).unwrap();
    let moves = shortest.trim_start_matches("1 ");
    assert_eq!(superpuzz(&["CHECK", path.to_str().unwrap()], moves).1, "true\n");
    let short: Vec<&str> = moves.split_whitespace().collect();
    let one_short = short[..short.len() - 2].join(" ");
    assert_eq!(superpuzz(&["CHECK", path.to_str().unwrap()], &one_short).1, "false\n");
}

#[test]
fn a_deal_that_is_not_4_suits_of_6_to_8_ranks_is_refused_naming_it() {
    let (code, out, err) = superpuzz(&["SOLVE"], "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("a Superpuzz deal has 4 suits of 6, 7 or 8 ranks"), "{err}");
    let (code, _, err) = superpuzz(&["GEN", "1", "9"], "");
    assert_eq!(code, 2);
    assert!(err.contains("expected a width of 6, 7 or 8"), "{err}");
}

#[test]
fn stats_reports_the_share_the_lengths_the_weighted_excess_and_the_oracles_agreement() {
    let (code, out, err) = superpuzz(&["stats", "--deals", "6", "--weighted", "1.8", "--oracle", "--threads", "2"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("deals: 6 (GEN 1..6 6 4)\n"), "{out}");
    for line in ["solvable: ", "optimal moves: mean ", "cpu per deal: median ", "weighted best-first (mu 1.8)"] {
        assert!(out.contains(line), "{line}: {out}");
    }
    assert!(out.contains("breadth-first oracle: same answer and length on 6 of 6 deals"), "{out}");
    let won = out.split("solvable: ").nth(1).and_then(|rest| rest.split(',').next()).expect("the solvable count");
    assert!(out.contains(&format!("wins the checker accepts: {won} of {won} deals\n")), "{out}");
}

/// The held-out oracle (`superpuzz_oracle.py`: Python, written from the rules text alone, its
/// own deals and its own breadth-first search) agrees with `SOLVE` on every deal it deals,
/// won and lost alike.
#[test]
fn a_held_out_oracle_agrees_with_solve_on_deals_it_deals_itself() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bhref/superpuzz_oracle.py");
    let bhref = assert_cmd::cargo::cargo_bin("bhref");
    let output = std::process::Command::new("python3")
        .args([script, "--bhref", bhref.to_str().unwrap(), "--deals", "12", "--seed", "2026", "--width", "6"])
        .output()
        .expect("python3 runs (CI installs it)");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{out}{}", String::from_utf8_lossy(&output.stderr));
    let summary = out.lines().last().unwrap_or_default();
    assert_eq!(summary, "agreed on 12 of 12 deals: 11 won, 1 with no win", "{out}");
}
