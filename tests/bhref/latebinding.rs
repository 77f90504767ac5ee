//! `bhref --game latebinding` against the students' contract and every example of
//! `late-binding.md`.
//!
//! Input: the doc's example layouts and solutions (in temporary files or on standard input),
//! and bad command lines and layouts. Output: pass/fail on first lines, the lines asked for by
//! flags, messages on standard error and exit statuses. `--game blackhole` (the default) is
//! checked only for staying the default; `tests/cli.rs` covers it.

use assert_cmd::Command;
use bhref::latebinding::check::check;
use bhref::latebinding::model::Variant;
use bhref::latebinding::parse::{parse_layout, read_integers};

/// The doc's first worked example: `3 4 0 5 1 5 0` solves it.
const EXAMPLE: &str = "3 2 4\n1 4 2 5\n";
/// The second: two moves of distance 3.
const DISTANCE_THREE: &str = "3 2 5\n1 2 3 4 5\n";
/// The third: no plain solution, `1 5 0` with grace.
const GRACE_ONLY: &str = "3 2 2\n1 5\n";

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let output = Command::cargo_bin("bhref").unwrap().args(args).write_stdin(stdin).output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

/// Runs `bhref --game latebinding ARGS`.
fn lbs(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut all = vec!["--game", "latebinding"];
    all.extend_from_slice(args);
    run(&all, stdin)
}

/// A temporary directory holding `name` with `text`; returns (the directory, the file's path).
fn file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let path = path.to_string_lossy().into_owned();
    (dir, path)
}

/// The first line of a successful solve.
fn solve_line(command: &str, layout: &str) -> String {
    let (code, out, err) = lbs(&[command], layout);
    assert_eq!(code, 0, "{command}: {err}");
    out.lines().next().unwrap_or_default().to_string()
}

fn assert_solves(variant: Variant, layout_text: &str, line: &str) {
    let layout = parse_layout("layout", layout_text).unwrap();
    let report = check(&layout, variant, &read_integers(line));
    assert!(report.is_solution(), "{line}: {}", report.finding);
    assert_eq!(line.split(' ').next(), Some((layout.row.len() - 1).to_string().as_str()));
}

#[test]
fn check_accepts_the_documented_solutions_from_stdin_or_a_file() {
    let (_dir, example) = file("example.txt", EXAMPLE);
    assert_eq!(lbs(&["CHECK", &example], "3 4 0 5 1 5 0\n"), (0, "true\n".into(), String::new()));
    let (_dir2, solution) = file("solution.txt", "  3 4 0\n5 1\r\n5 0 7 7 then text");
    assert_eq!(lbs(&["CHECK", &example, &solution], "garbage").1, "true\n");
    assert_eq!(lbs(&["CHECK", "-", &solution], EXAMPLE).1, "true\n");
    let (_dir3, three) = file("three.txt", DISTANCE_THREE);
    assert_eq!(lbs(&["CHECK", &three], "4 4 0 5 0 2 0 3 0").1, "true\n");
    for wrong in ["3 4 0 5 1", "2 4 0 5 1", "3 4 1 5 1 5 0", "-1", "", "x", "3 4 0 5 2 5 0"] {
        assert_eq!(lbs(&["CHECK", &example], wrong).1, "false\n", "{wrong}");
    }
}

#[test]
fn grace_is_checked_by_both_spellings_and_rejected_by_check() {
    let (_dir, grace_only) = file("grace.txt", GRACE_ONLY);
    assert_eq!(lbs(&["CHECK", &grace_only], "1 5 0").1, "false\n");
    for command in ["GRACECHECK", "CHECKGRACE"] {
        assert_eq!(lbs(&[command, &grace_only], "1 5 0").1, "true\n", "{command}");
        // The grace move goes onto pile 0 only, and only once.
        assert_eq!(lbs(&[command, &grace_only], "1 1 0").1, "false\n", "{command}");
    }
    let (_dir2, example) = file("example.txt", EXAMPLE);
    // A plain solution is a grace solution.
    assert_eq!(lbs(&["GRACECHECK", &example], "3 4 0 5 1 5 0").1, "true\n");
}

#[test]
fn explain_names_the_failing_move() {
    let (_dir, example) = file("example.txt", EXAMPLE);
    let (_, out, _) = lbs(&["CHECK", &example, "--explain"], "3 4 0 5 1 5 0");
    assert_eq!(out, "true\nthe moves solve the layout\n");
    let (_, out, _) = lbs(&["CHECK", &example, "--explain"], "3 4 0 2 0");
    assert_eq!(out, "false\nmove 2 (card 2 onto 0): card 2 (at position 1) and card 4 share neither rank nor suit\n");
    let (_, out, _) = lbs(&["CHECK", &example, "--explain"], "1 4 0");
    assert_eq!(out, "false\nafter 1 move was played, 3 piles are left, not 1\n");
    let (_, out, _) = lbs(&["CHECK", &example, "--explain"], "4 4 0 5 1");
    assert_eq!(out, "false\nthe solution announces 4 moves but gives only 2\n");
}

#[test]
fn solve_prints_a_checked_solution_or_minus_one() {
    for command in ["SOLVE", "GRACESOLVE", "SOLVEGRACE"] {
        let variant = if command == "SOLVE" { Variant::Plain } else { Variant::Grace };
        assert_solves(variant, EXAMPLE, &solve_line(command, EXAMPLE));
        assert_solves(variant, DISTANCE_THREE, &solve_line(command, DISTANCE_THREE));
    }
    assert_eq!(solve_line("SOLVE", GRACE_ONLY), "-1");
    assert_eq!(solve_line("GRACESOLVE", GRACE_ONLY), "1 5 0");
    assert_eq!(solve_line("SOLVEGRACE", GRACE_ONLY), "1 5 0");
    assert_eq!(solve_line("SOLVE", "13 4 1\n7\n"), "0");
    // The layout from a file, from `-`, or from standard input when omitted.
    let (_dir, example) = file("example.txt", EXAMPLE);
    let (code, out, _) = lbs(&["SOLVE", &example], "");
    assert_eq!(code, 0);
    assert_solves(Variant::Plain, EXAMPLE, out.lines().next().unwrap());
    let (_, out, _) = lbs(&["SOLVE", "-"], EXAMPLE);
    assert_solves(Variant::Plain, EXAMPLE, out.lines().next().unwrap());
}

#[test]
fn solve_flags_and_an_undecided_solve() {
    let (code, out, _) = lbs(&["SOLVE", "--stats"], EXAMPLE);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!((code, lines.len()), (0, 4), "{out}");
    assert!(lines[1].starts_with("nodes: ") && lines[2].starts_with("time: ") && lines[3].starts_with("peak memo: "));
    // One node cannot decide a 24-pile layout, and the reference never prints `-1` for "don't
    // know": that would claim there is no solution.
    let hard = bhref::latebinding::generate::generate(34, 24, 10, 6);
    let (code, out, err) = lbs(&["SOLVE", "--nodes", "1"], &hard);
    assert_eq!((code, out.as_str()), (3, ""));
    assert!(err.starts_with("bhref: undecided: the budget ran out"), "{err}");
    let (code, out, _) = lbs(&["SOLVE", "--time-limit", "30"], &hard);
    assert_eq!((code, out.lines().next()), (0, Some("-1")));
}

#[test]
fn gen_prints_the_starters_layout() {
    assert_eq!(lbs(&["GEN", "1", "5", "3", "2"], ""), (0, "3 2 5\n4 5 1 3 2 \n".into(), String::new()));
    let default = "13 4 17\n18 12 50 4 19 1 11 9 43 31 30 8 3 32 49 2 37 \n";
    assert_eq!(lbs(&["GEN", "1"], "").1, default);
    assert_eq!(lbs(&["GEN", "1", "17", "13", "4"], "").1, default);
    let family = lbs(&["GEN", "16", "24", "8", "3"], "").1;
    assert_eq!(parse_layout("gen", &family).unwrap().row.len(), 24);
    assert_eq!(run(&["--game=latebinding", "GEN", "1"], "").1, default);
}

#[test]
fn bad_layouts_and_usage_errors_exit_2_without_output() {
    let (_dir, duplicate) = file("dup.txt", "3 2 3\n1 4\n4\n");
    let (code, out, err) = lbs(&["CHECK", &duplicate], "0");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("bhref: ") && err.contains("dup.txt:3:1: expected card 3 of 3"), "{err}");
    let (code, _, err) = lbs(&["SOLVE"], "3 2 0\n");
    assert_eq!(code, 2);
    assert!(err.contains("-:1:5: expected the number of piles P"), "{err}");
    for args in [
        &[][..],
        &["FROB"],
        &["CHECK"],
        &["CHECK", "-"],
        &["CHECK", "/no/such/layout.txt"],
        &["SOLVE", "a", "b"],
        &["SOLVE", "--nodes"],
        &["SOLVE", "--time-limit", "soon"],
        &["SOLVE", "--frobnicate"],
        &["CHECKWORM", "x"],
        &["GEN"],
        &["GEN", "x"],
        &["GEN", "1", "5", "0", "2"],
        &["GEN", "1", "5", "100000", "100000"],
        &["GEN", "1", "2", "3", "4", "5"],
    ] {
        let (code, out, err) = lbs(args, "");
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("bhref: ") && !err.contains("panicked"), "{args:?}: {err}");
    }
    for args in [&["--game"][..], &["--game", "chess", "GEN", "1"], &["--game=", "GEN", "1"]] {
        let (code, out, err) = run(args, "");
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.starts_with("bhref: "), "{args:?}: {err}");
    }
}

#[test]
fn help_and_the_default_game() {
    let (code, out, _) = lbs(&["--help"], "");
    assert_eq!(code, 0);
    assert!(out.contains("GRACESOLVE") && out.contains("GEN seed [piles=17] [ranks=13] [suits=4]"), "{out}");
    assert!(run(&["--help"], "").1.contains("--game latebinding"));
    // Black Hole stays the default, with or without `--game blackhole`.
    assert_eq!(run(&["--game", "blackhole", "GEN", "1"], "").1, run(&["GEN", "1"], "").1);
    assert!(run(&["GEN", "1"], "").1.starts_with("13 4 17\n1\n"));
}
