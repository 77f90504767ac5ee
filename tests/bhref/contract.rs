//! The `bhref` binary against the students' command-line contract.
//!
//! Input: the fixture puzzles under `fixtures/puzzles`, solutions on standard input or in
//! temporary files, and bad command lines. Output: pass/fail on first lines, extra lines asked for
//! by flags, messages on standard error and exit statuses. The SOLVE tests need the solver.

use std::path::PathBuf;

use assert_cmd::Command;
use bhref::blackhole::check::{check, Finding};
use bhref::blackhole::model::Game;
use bhref::blackhole::parse::{parse_puzzle, read_integers};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/puzzles")
}

fn good(name: &str) -> String {
    fixtures().join("good").join(name).to_string_lossy().into_owned()
}

fn bhref() -> Command {
    Command::cargo_bin("bhref").unwrap()
}

/// Runs bhref and returns (exit status, stdout, stderr).
fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let output = bhref().args(args).write_stdin(stdin).output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

/// `small.txt`: 13 ranks, 4 suits, hole 1; pile 0 = 3 under 2, pile 1 empty, pile 2 = 4.
const SMALL_SOLUTION: &str = "0 2 0 3 2 4\n";

#[test]
fn help_and_usage_errors() {
    for flag in ["--help", "-h"] {
        let (code, out, _) = run(&[flag], "");
        assert_eq!(code, 0);
        assert!(out.contains("bhref CHECK PUZZLE [SOLUTION]"), "{out}");
    }
    let (code, out, _) = run(&["CHECK", "--help"], "");
    assert_eq!((code, out.starts_with("usage:")), (0, true));
    let small = good("small.txt");
    for args in [
        &[][..],
        &["FROB"],
        &["check", &small],
        &["CHECK"],
        &["CHECK", &small, "sol", "extra"],
        &["SOLVE"],
        &["SOLVE", &small, "more"],
        &["SOLVE", &small, "--nodes"],
        &["SOLVE", &small, "--nodes", "many"],
        &["SOLVE", &small, "--time-limit", "-3"],
        &["SOLVE", &small, "--frobnicate"],
        &["CHECK", "-"],
        &["CHECK", "/no/such/puzzle.txt"],
        &["GEN"],
        &["GEN", "x"],
        &["GEN", "1", "51", "13", "4", "0"],
        &["GEN", "1", "51", "0", "4", "17"],
        &["GEN", "1", "51", "100000", "100000", "17"],
        &["GEN", "1", "2", "3", "4", "5", "6"],
    ] {
        let (code, out, err) = run(args, "");
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("bhref: ") || err.starts_with("usage:"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (_, _, err) = run(&["CHECK", "/no/such/puzzle.txt"], "");
    assert!(err.starts_with("bhref: cannot read /no/such/puzzle.txt"), "{err}");
}

#[test]
fn check_reads_the_solution_from_stdin_or_a_file() {
    let small = good("small.txt");
    assert_eq!(run(&["CHECK", &small], SMALL_SOLUTION), (0, "true\n".into(), String::new()));
    assert_eq!(run(&["CHECK", &small], "0 2 0 3\n").1, "false\n");
    assert_eq!(run(&["CHECK", &small], "").1, "false\n");
    let dir = tempfile::tempdir().unwrap();
    let solution = dir.path().join("solution.txt");
    std::fs::write(&solution, "0 2\n0 3\r\n2 4 and then some text").unwrap();
    let solution = solution.to_string_lossy().into_owned();
    assert_eq!(run(&["CHECK", &small, &solution], "junk").1, "true\n");
    let puzzle_text = std::fs::read_to_string(&small).unwrap();
    assert_eq!(run(&["CHECK", "-", &solution], &puzzle_text).1, "true\n");
}

#[test]
fn explain_prints_the_finding_on_the_second_line() {
    let small = good("small.txt");
    let (_, out, _) = run(&["CHECK", &small, "--explain"], SMALL_SOLUTION);
    assert_eq!(out, "true\nthe moves solve the puzzle\n");
    let (_, out, _) = run(&["CHECK", &small, "--explain"], "0 2 2 4");
    assert_eq!(
        out,
        "false\nmove 2 (pile 2, card 4): card 4 is not adjacent in rank to 2, the card in the black hole\n"
    );
    let (_, out, _) = run(&["CHECK", "--explain", &small], "0 2 0 3 2 4 1 1");
    assert_eq!(out, "true\nthe puzzle is solved after move 3, but 2 more integers follow\n");
}

#[test]
fn checkworm_allows_worm_moves_and_check_does_not() {
    let small = good("small.txt");
    let worm = "2 -4 0 2 0 3 -1 4";
    assert_eq!(run(&["CHECKWORM", &small], worm).1, "true\n");
    assert_eq!(run(&["CHECK", &small], worm).1, "false\n");
    let (_, out, _) = run(&["CHECKWORM", &small, "--explain"], "2 -4 0 2 0 3");
    assert_eq!(out, "false\nafter 3 moves the piles are empty but card 4 is left in the worm hole\n");
}

/// Every bad fixture: status 2, nothing on stdout, and `bhref: ` + the `.err` file on stderr (run
/// from the fixture's directory so that the message names the bare file name).
#[test]
fn bad_puzzles_are_reported_with_file_line_and_column() {
    let dir = fixtures().join("bad");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "txt") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expected = std::fs::read_to_string(path.with_extension("err")).unwrap();
        for command in ["CHECK", "CHECKWORM", "SOLVE", "SOLVEWORM"] {
            let output = bhref().current_dir(&dir).args([command, &name]).write_stdin("0 1").output().unwrap();
            assert_eq!(output.status.code(), Some(2), "{command} {name}");
            assert!(output.stdout.is_empty());
            assert_eq!(String::from_utf8_lossy(&output.stderr), format!("bhref: {}\n", expected.trim_end()));
        }
        count += 1;
    }
    assert!(count >= 6);
}

#[test]
fn puzzles_that_are_not_utf8_are_reported_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.txt");
    std::fs::write(&path, b"13 4 1\n1 \xe9 -1\n").unwrap();
    let (code, out, err) = run(&["CHECK", &path.to_string_lossy()], "");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains(":2:3: expected a card (1 to 52) or -1 to end pile 0"), "{err}");
}

#[test]
fn gen_prints_the_starters_layout() {
    let expected = std::fs::read_to_string(good("1-51-13-4-17.txt")).unwrap();
    let (code, out, _) = run(&["GEN", "1"], "");
    assert_eq!((code, out.as_str()), (0, expected.as_str()));
    assert_eq!(run(&["GEN", "1", "51", "13", "4", "17"], "").1, expected);
    let small = run(&["GEN", "7", "5", "3", "2", "2"], "").1;
    let puzzle = parse_puzzle("gen", &small).unwrap();
    assert_eq!((puzzle.hole, puzzle.cards_in_piles()), (1, 5));
}

// ---------------------------------------------------------------------------------------------
// These need the solver (`solve.rs`).

/// The first line of a SOLVE and the lines after it.
fn solve_first_line(command: &str, puzzle: &str, extra: &[&str]) -> (String, Vec<String>) {
    let mut args = vec![command, puzzle];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args, "");
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines().map(str::to_string);
    (lines.next().unwrap_or_default(), lines.collect())
}

fn assert_solves(game: Game, puzzle_path: &str, line: &str) {
    let puzzle = parse_puzzle(puzzle_path, &std::fs::read_to_string(puzzle_path).unwrap()).unwrap();
    let tokens: Vec<&str> = line.split(' ').collect();
    assert_eq!(tokens[0], "1", "{line}");
    let integers = read_integers(&tokens[1..].join(" "));
    assert_eq!(integers.len(), tokens.len() - 1, "{line}");
    assert_eq!(check(&puzzle, game, &integers).finding, Finding::Solved, "{line}");
}

#[test]
fn solve_prints_a_checked_solution_or_zero() {
    // Both oracles: the search and the SAT model answer in the same format.
    for oracle in [["--oracle", "search"], ["--oracle", "sat"]] {
        for (command, game) in [("SOLVE", Game::BlackHole), ("SOLVEWORM", Game::WormHole)] {
            for name in ["small.txt", "one-rank-crlf.txt", "trailing-comment.txt", "1-51-13-4-17.txt"] {
                let path = good(name);
                let (line, rest) = solve_first_line(command, &path, &oracle);
                assert!(rest.is_empty());
                assert_solves(game, &path, &line);
            }
            for name in ["empty-piles.txt", "no-piles.txt"] {
                assert_eq!(solve_first_line(command, &good(name), &oracle).0, "1");
            }
        }
        // 5 and 1 are not adjacent, and without a worm hole nothing else can be played.
        let dir = tempfile::tempdir().unwrap();
        let stuck = dir.path().join("stuck.txt");
        std::fs::write(&stuck, "13 4 1\n1\n5 -1\n").unwrap();
        assert_eq!(solve_first_line("SOLVE", &stuck.to_string_lossy(), &oracle).0, "0");
        assert_eq!(solve_first_line("SOLVEWORM", &stuck.to_string_lossy(), &oracle).0, "0");
        assert_eq!(solve_first_line("SOLVE", &good("one-card.txt"), &oracle).0, "1 0 2");
    }
}

#[test]
fn the_sat_oracle_prints_its_formula_and_takes_no_node_budget() {
    let path = good("small.txt");
    let (_, rest) = solve_first_line("SOLVE", &path, &["--oracle", "sat", "--stats", "--time-limit", "30"]);
    assert_eq!(rest.len(), 3, "{rest:?}");
    assert!(rest[0].starts_with("variables: ") && rest[1].starts_with("clauses: ") && rest[2].starts_with("time: "));
    let (code, out, err) = run(&["SOLVE", &path, "--oracle", "sat", "--nodes", "5"], "");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("--nodes limits the search"), "{err}");
    let (code, _, err) = run(&["SOLVE", &path, "--oracle", "minisat"], "");
    assert_eq!(code, 2);
    assert!(err.contains("search") && err.contains("sat"), "{err}");
    // The formula grows with the square of the cards: a large generalised deal is refused.
    let (code, large, _) = run(&["GEN", "1", "600", "100", "7", "30"], "");
    assert_eq!(code, 0);
    let (code, out, err) = run(&["SOLVE", "-", "--oracle", "sat"], &large);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("600 cards in piles; the SAT model is built for at most 500"), "{err}");
}

#[test]
fn solve_stats_and_budget_flags() {
    // Solvable: a plain depth-first search finds a solution in about 20,000 nodes.
    let path = good("1-51-13-4-17.txt");
    let (line, rest) = solve_first_line("SOLVE", &path, &["--stats"]);
    assert_solves(Game::BlackHole, &path, &line);
    assert_eq!(rest.len(), 3, "{rest:?}");
    assert!(rest[0].starts_with("nodes: ") && rest[1].starts_with("time: ") && rest[2].starts_with("peak memo: "));
    // One node cannot reach the end of a 51-card solution.
    assert_eq!(solve_first_line("SOLVE", &path, &["--nodes", "1"]).0, "-1");
    let (line, _) = solve_first_line("SOLVE", &path, &["--time-limit", "30"]);
    assert_ne!(line, "-1");
    let puzzle_text = std::fs::read_to_string(&path).unwrap();
    let (code, out, _) = run(&["SOLVE", "-"], &puzzle_text);
    assert_eq!(code, 0);
    assert_solves(Game::BlackHole, &path, out.lines().next().unwrap());
}
