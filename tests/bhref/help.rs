//! `bhref`'s clap layer: `--version` and `--help` on every command of both games, what each
//! command's help says it prints, clap's errors as `bhref: ` messages with status 2, and GEN
//! refusing counts the parser would refuse instead of allocating them.
//!
//! Input: command lines. Output: exit statuses, standard output and standard error.
//! `tests/cli.rs` and `tests/lbs_cli.rs` cover the contract itself.

use std::time::{Duration, Instant};

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("bhref").unwrap().args(args).write_stdin("").output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

/// Every command line that names a command, with the words its help must show: Black Hole's
/// (the default), then Late Binding's.
const COMMANDS: &[(&[&str], &[&str])] = &[
    (&["CHECK"], &["usage: bhref CHECK", "<PUZZLE>", "[SOLUTION]", "--explain", "`true` or `false`", "Exit status"]),
    (&["CHECKWORM"], &["usage: bhref CHECKWORM", "<PUZZLE>", "--explain", "`true` or `false`", "worm hole"]),
    (
        &["SOLVE"],
        &[
            "usage: bhref SOLVE",
            "<PUZZLE>",
            "--stats",
            "--nodes",
            "--time-limit",
            "1 p c p c",
            "0              no solution",
            "-1",
        ],
    ),
    (&["SOLVEWORM"], &["usage: bhref SOLVEWORM", "--stats", "1 p c p c", "-1"]),
    (&["GEN"], &["usage: bhref GEN <SEED> [CARDS] [RANKS] [SUITS] [PILES]", "[default: 51]", "1000000"]),
    (&["stats"], &["usage: bhref stats", "--deals", "--seed", "--budget-nodes", "wormhole", "[default: 1000]"]),
    (
        &["--game", "latebinding", "CHECK"],
        &[
            "usage: bhref --game latebinding CHECK",
            "<LAYOUT>",
            "[SOLUTION]",
            "--explain",
            "n c1 d1",
            "`true` or `false`",
        ],
    ),
    (&["--game", "latebinding", "GRACECHECK"], &["usage: bhref --game latebinding GRACECHECK", "grace", "--explain"]),
    (&["--game", "latebinding", "CHECKGRACE"], &["usage: bhref --game latebinding GRACECHECK", "grace"]),
    (
        &["--game", "latebinding", "SOLVE"],
        &["usage: bhref --game latebinding SOLVE", "[LAYOUT]", "--stats", "-1", "status 3", "standard input"],
    ),
    (&["--game", "latebinding", "GRACESOLVE"], &["usage: bhref --game latebinding GRACESOLVE", "grace", "-1"]),
    (&["--game", "latebinding", "SOLVEGRACE"], &["usage: bhref --game latebinding GRACESOLVE", "grace"]),
    (
        &["--game", "latebinding", "GEN"],
        &["usage: bhref --game latebinding GEN <SEED> [PILES] [RANKS] [SUITS]", "[default: 17]"],
    ),
];

#[test]
fn every_command_has_a_version() {
    let version = format!("bhref {}\n", env!("CARGO_PKG_VERSION"));
    for flag in ["--version", "-V"] {
        assert_eq!(run(&[flag]), (0, version.clone(), String::new()));
        assert_eq!(run(&["--game", "latebinding", flag]), (0, version.clone(), String::new()));
        for (command, _) in COMMANDS {
            let args = [command, &[flag][..]].concat();
            assert_eq!(run(&args), (0, version.clone(), String::new()), "{args:?}");
        }
    }
}

#[test]
fn every_command_explains_itself_and_its_output() {
    for (command, words) in COMMANDS {
        for flag in ["--help", "-h"] {
            let args = [command, &[flag][..]].concat();
            let (code, out, err) = run(&args);
            assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
            assert!(out.starts_with("usage: "), "{args:?}: {out}");
            // The short help is the summary; the long one says everything listed.
            if flag == "--help" {
                for word in *words {
                    assert!(out.contains(word), "{args:?} does not say {word:?}:\n{out}");
                }
            }
        }
    }
    // `bhref help COMMAND` is `bhref COMMAND --help`.
    assert_eq!(run(&["help", "SOLVE"]).1, run(&["SOLVE", "--help"]).1);
    assert_eq!(run(&["--game", "latebinding", "help", "GEN"]).1, run(&["--game", "latebinding", "GEN", "--help"]).1);
}

#[test]
fn the_top_level_help_lists_each_game_and_its_commands() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    for word in ["CHECK", "CHECKWORM", "SOLVEWORM", "GEN", "stats", "--game", "--version", "Exit status", "p c p c"] {
        assert!(out.contains(word), "{word}:\n{out}");
    }
    assert!(!out.contains("GRACESOLVE"), "{out}");
    let (code, out, _) = run(&["--game", "latebinding", "--help"]);
    assert_eq!(code, 0);
    for word in ["GRACECHECK", "CHECKGRACE", "SOLVEGRACE", "n c1 d1", "status 3"] {
        assert!(out.contains(word), "{word}:\n{out}");
    }
    assert!(!out.contains("CHECKWORM") && !out.contains("bhref stats"), "{out}");
    // A bare `bhref` prints its help on standard error with status 2, as it always did.
    let (code, out, err) = run(&[]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("usage: bhref") && err.contains("Commands in full"), "{err}");
}

/// A help of flags the command ignores would mislead: `--explain` is a check's, the budget a
/// solve's. Both are still accepted everywhere, as they always were.
#[test]
fn each_command_shows_only_the_flags_it_uses_but_accepts_them_all() {
    let check = run(&["CHECK", "--help"]).1;
    assert!(check.contains("--explain") && !check.contains("--nodes") && !check.contains("--stats"), "{check}");
    let solve = run(&["--game", "latebinding", "SOLVE", "--help"]).1;
    assert!(!solve.contains("--explain") && solve.contains("--nodes"), "{solve}");
    let dir = tempfile::tempdir().unwrap();
    let puzzle = dir.path().join("p.txt");
    std::fs::write(&puzzle, "13 4 1\n1\n2 -1\n").unwrap();
    let puzzle = puzzle.to_string_lossy().into_owned();
    assert_eq!(run(&["SOLVE", &puzzle, "--explain", "--nodes", "9", "--nodes", "100"]).1, "1 0 2\n");
    let (code, out, _) = run(&["CHECK", &puzzle, "--stats", "--time-limit", "1", "--explain", "--explain"]);
    assert_eq!((code, out.as_str()), (0, "false\nafter 0 moves were played, 1 card is left in play\n"));
}

#[test]
fn usage_errors_are_bhref_messages_with_status_2() {
    for (args, says) in [
        (&["check", "p.txt"][..], "tip: the commands are upper-case words: 'CHECK'"),
        (&["--game", "latebinding", "solvegrace"], "'SOLVEGRACE'"),
        (&["--game", "latebinding", "CHECKWORM", "p.txt"], "unrecognized subcommand 'CHECKWORM'"),
        (&["--game", "chess", "GEN", "1"], "[possible values: blackhole, latebinding, gaps, superpuzz]"),
        (&["SOLVE", "p.txt", "--nodes", "many"], "--nodes <N>': expected a whole number, not `many`"),
        (&["SOLVE", "p.txt", "--time-limit", "-3"], "expected a number of seconds"),
        (&["GEN", "x"], "the seed must be an integer"),
        (&["stats", "--game", "chess"], "[possible values: blackhole, wormhole, both]"),
        (&["stats", "--deals", "-1"], "--deals <N>"),
    ] {
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.starts_with("bhref: ") && err.contains(says), "{args:?}: {err}");
    }
}

/// Issue 13: `GEN` with 10^9 piles allocated 24 GB and aborted. What the parser would refuse as
/// a puzzle is refused at once, saying why; the largest it accepts is still generated.
#[test]
fn gen_refuses_what_the_parser_would_refuse_instead_of_allocating_it() {
    for (args, says) in [
        (
            &["GEN", "1", "51", "13", "4", "1000000000"][..],
            "expected at most 1000000, as a puzzle has at most 1000000 piles",
        ),
        (&["GEN", "1", "51", "13", "4", "1000001"], "(the parser refuses more)"),
        (&["GEN", "1", "51", "13", "4", "-5"], "expected a whole number from 1 to 1000000, not `-5`"),
        (&["GEN", "1", "51", "13", "4", "0"], "'[PILES]': expected at least 1"),
        (&["GEN", "1", "51", "100000", "100000"], "100000 ranks * 100000 suits = 10000000000 cards is too large"),
        (&["GEN", "1", "51", "1000001"], "'[RANKS]': expected at most 1000000"),
        (&["--game", "latebinding", "GEN", "1", "5", "2000", "2000"], "a layout's deck has at most 1000000 cards"),
        (&["--game", "latebinding", "GEN", "1", "5", "0"], "'[RANKS]': expected at least 1"),
    ] {
        let started = Instant::now();
        let (code, out, err) = run(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.starts_with("bhref: ") && err.contains(says), "{args:?}: {err}");
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", started.elapsed());
    }
    let (code, out, _) = run(&["GEN", "1", "3", "13", "4", "1000000"]);
    assert_eq!((code, out.lines().count()), (0, 2 + 1_000_000));
    // Late Binding's row holds at most the deck's cards, whatever P is: the header shows P as
    // the starter does, and nothing is allocated for it.
    let (code, out, _) = run(&["--game", "latebinding", "GEN", "1", "1000000000", "2", "1"]);
    assert_eq!((code, out.lines().next()), (0, Some("2 1 1000000000")));
}
