//! `bhgrade regen` and suite validation: the bundled suite is what the reference says (what CI
//! checks), regeneration is deterministic and rebuilds everything it owns, `--check` names every
//! difference, and an invalid suite is refused on load, naming the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{bhgrade, copy_tree, repo};

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn regen(suite: &Path, check: bool) -> Run {
    let mut command = bhgrade();
    command.args(["regen", "--suite"]).arg(suite);
    if check {
        command.arg("--check");
    }
    let output = command.output().unwrap();
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A copy of the bundled suite to change.
fn bundled_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    copy_tree(&repo().join("suites/cs3105-p1"), &suite);
    (dir, suite)
}

/// Every file under `dir` and its text, by path relative to `dir`.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let name = entry.path().strip_prefix(dir).unwrap().display().to_string();
            (name, std::fs::read_to_string(entry.path()).unwrap())
        })
        .collect()
}

#[test]
fn the_bundled_suite_is_up_to_date_with_the_reference() {
    let run = regen(&repo().join("suites/cs3105-p1"), true);
    assert_eq!(run.status, 0, "run `bhgrade regen` and commit the result:\n{}", run.stderr);
    assert!(run.stderr.contains("up to date"), "{}", run.stderr);
}

/// The fixture suites the tests mark with are the reference's too (their stored hardness feeds
/// the reports and the class page); `ambiguous`, `bad-derive` and `duplicate` are invalid on
/// purpose, and the tests below show each refused.
#[test]
fn every_valid_fixture_suite_is_up_to_date_with_the_reference() {
    for name in ["tiny", "timing", "hostile", "quality"] {
        let run = regen(&repo().join("fixtures/suites").join(name), true);
        assert_eq!(run.status, 0, "run `bhgrade regen --suite fixtures/suites/{name}`:\n{}", run.stderr);
    }
}

/// The same for the 2022 practical's suite (Late Binding Solitaire, `game: latebinding`), named
/// as a bundled suite is (`regen` finds it in the clone as every command does).
#[test]
fn the_late_binding_suite_is_up_to_date_with_the_reference() {
    let run = regen(Path::new("lbs-2022"), true);
    assert_eq!(run.status, 0, "run `bhgrade regen --suite suites/lbs-2022` and commit the result:\n{}", run.stderr);
    assert!(run.stderr.contains("up to date"), "{}", run.stderr);
}

#[test]
fn regen_rebuilds_what_it_owns_and_a_second_run_changes_nothing() {
    let (_dir, suite) = bundled_copy();
    let bundled = tree(&suite);
    std::fs::write(suite.join("expected.json"), "{ not json").unwrap();
    std::fs::remove_dir_all(suite.join("derived")).unwrap();
    std::fs::remove_file(suite.join("instances/2488-51-13-4-17.txt")).unwrap();
    std::fs::create_dir_all(suite.join("derived/part9")).unwrap();
    std::fs::write(suite.join("derived/part9/gone.sol"), "0 1\n").unwrap();

    let first = regen(&suite, false);
    assert_eq!(first.status, 0, "{}", first.stderr);
    assert!(first.stderr.contains("wrote instances/2488-51-13-4-17.txt"), "{}", first.stderr);
    assert!(first.stderr.contains("wrote derived/part1/wrong-card.sol"), "{}", first.stderr);
    assert!(first.stderr.contains("removed derived/part9/gone.sol"), "{}", first.stderr);
    assert!(first.stdout.contains("| part2/hard-unsolvable | solve | 0 |"), "{}", first.stdout);
    assert_eq!(tree(&suite), bundled, "regen rebuilt the bundled suite exactly");

    let second = regen(&suite, false);
    assert_eq!(second.status, 0, "{}", second.stderr);
    assert!(!second.stderr.contains("wrote") && !second.stderr.contains("removed"), "{}", second.stderr);
    assert_eq!(tree(&suite), bundled);
}

#[test]
fn check_names_every_difference_and_changes_nothing() {
    let (_dir, suite) = bundled_copy();
    let path = suite.join("expected.json");
    let mut expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    expected["tests"]["part2/standard-unsolvable"]["answer"] = "1".into();
    expected["tests"]["part2/standard-deal"]["nodes"] = 1.into();
    expected["tests"]["part9/gone"] = expected["tests"]["part2/standard-deal"].clone();
    std::fs::write(&path, expected.to_string()).unwrap();
    std::fs::write(suite.join("derived/part1/wrong-card.sol"), "0 1\n").unwrap();
    std::fs::remove_file(suite.join("derived/part3/worm-hole-full.sol")).unwrap();
    std::fs::write(suite.join("derived/part1/stale.sol"), "0 1\n").unwrap();
    let solution = suite.join("solutions/handout-simple.sol");
    std::fs::write(&solution, "1 2  2 3  0 4  3 5\n").unwrap();
    let instance = suite.join("instances/7-15-2-8-4.txt");
    let deal = std::fs::read_to_string(&instance).unwrap();
    std::fs::write(&instance, deal.replacen("-1", "-1 ", 1)).unwrap();
    let before = tree(&suite);

    let run = regen(&suite, true);
    assert_eq!(run.status, 1, "{}", run.stderr);
    for needle in [
        "test part2/standard-unsolvable: the stored answer `1` is not the reference's `0`",
        "test part2/standard-deal: the reference now needs",
        "test part9/gone: expected.json has an answer for a test the suite lacks",
        "test part1/wrong-card: derived/part1/wrong-card.sol is not the solution its rule now derives",
        "test part1/wrong-card: its puzzle or solution changed",
        "test part3/worm-hole-full: its derived solution derived/part3/worm-hole-full.sol is missing",
        "derived/part1/stale.sol: no test derives this file",
        "test part1/valid-handout: its puzzle or solution changed",
        "test part3/bh-solution-is-wh-solution: its puzzle or solution changed",
        "test part2/two-ranks-unsolvable: instances/7-15-2-8-4.txt is named after the generator but holds another puzzle",
        "run `bhgrade regen",
    ] {
        assert!(run.stderr.contains(needle), "lacks {needle:?}:\n{}", run.stderr);
    }
    assert!(
        !run.stderr.contains("part3/worm-hole-full: its puzzle"),
        "a missing file is reported once:\n{}",
        run.stderr
    );
    assert_eq!(tree(&suite), before, "--check changes nothing");

    // regen itself refuses to overwrite an instance that is not what its name says.
    let refused = regen(&suite, false);
    assert_eq!(refused.status, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("bhref GEN 7 15 2 8 4"), "{}", refused.stderr);
}

/// Loads a suite as marking does (`bhgrade test --all` on an empty folder), returning status
/// and standard error; an invalid suite stops before any submission is looked at.
fn load(suite: &Path) -> (i32, String) {
    let submission = tempfile::tempdir().unwrap();
    let output = bhgrade().args(["test", "--all", "--suite"]).arg(suite).arg(submission.path()).output().unwrap();
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn a_check_whose_answer_turns_on_input_after_a_win_is_refused_naming_it() {
    let suite = repo().join("fixtures/suites/ambiguous");
    let check = regen(&suite, true);
    for (status, stderr) in [load(&suite), (check.status, check.stderr)] {
        assert_eq!(status, 2, "{stderr}");
        assert!(stderr.contains("test part1/extra-after-win: ambiguous test"), "{stderr}");
        assert!(stderr.contains("ruling 2"), "{stderr}");
    }
}

#[test]
fn identical_tests_are_refused_naming_both() {
    let (status, stderr) = load(&repo().join("fixtures/suites/duplicate"));
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("test part3/same-puzzle-other-file is identical to test part2/handout-simple"), "{stderr}");
}

#[test]
fn a_derive_rule_that_cannot_apply_is_named_by_regen() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("bad-derive");
    copy_tree(&repo().join("fixtures/suites/bad-derive"), &suite);
    let (status, stderr) = load(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("test part1/valid: its derived solution derived/part1/valid.sol is missing"), "{stderr}");
    let run = regen(&suite, false);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stderr.contains("test part1/wrong-card: derive rule `wrong-card` does not apply"), "{}", run.stderr);
}

#[test]
fn a_suite_naming_an_unknown_rule_or_both_sources_is_refused_with_a_position() {
    for (from, to, needle) in [
        ("derive: wrong-card", "derive: wrong-cards", "unknown derive rule `wrong-cards`; expected one of: reference,"),
        (
            "derive: not-adjacent-first",
            "derive: not-adjacent-first\n        solution: solutions/empty.sol",
            "either a `solution` file or a `derive` rule",
        ),
        ("kind: solve\n", "kind: solve\n        derive: reference\n", "a `solve` test takes no `derive`"),
    ] {
        let (_dir, suite) = bundled_copy();
        let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
        let edited = yaml.replacen(from, to, 1);
        assert_ne!(yaml, edited, "{from}");
        std::fs::write(suite.join("suite.yaml"), edited).unwrap();
        let (status, stderr) = load(&suite);
        assert_eq!(status, 2, "{stderr}");
        assert!(stderr.contains(needle) && stderr.contains("suite.yaml:"), "{needle}: {stderr}");
    }
}

fn verify(suite: &Path, mutant: bool) -> Run {
    let mut command = bhgrade();
    command.args(["regen", "--verify", "--suite"]).arg(suite);
    if mutant {
        command.env("BHREF_TEST_MUTANT", "no-worm-entries");
    }
    let output = command.output().unwrap();
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn the_bundled_suite_s_answers_are_confirmed_by_the_second_oracle() {
    let run = verify(&repo().join("suites/cs3105-p1"), false);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("21 of 21 solve tests confirmed in"), "{}", run.stderr);
    let unsat = run.stdout.lines().filter(|line| line.contains("confirmed: the SAT model is unsatisfiable")).count();
    assert_eq!(unsat, 8, "every stored 0 is confirmed by SAT:\n{}", run.stdout);
    // A row per solve test, each with its time in seconds.
    let rows: Vec<&str> = run.stdout.lines().filter(|line| line.starts_with("| part")).collect();
    assert_eq!(rows.len(), 21, "{}", run.stdout);
    assert!(rows.iter().all(|row| row.trim_end_matches(" |").rsplit("| ").next().unwrap().parse::<f64>().is_ok()));
}

#[test]
fn a_game_without_a_second_oracle_is_said_to_be_unverified() {
    let run = verify(&repo().join("suites/lbs-2022"), false);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stderr.contains("solve tests not verified: the game has no second oracle"), "{}", run.stderr);
}

/// A suite of two tests on a deal that Black Hole cannot solve and Worm Hole can only through
/// the worm hole.
fn worm_only_suite(dir: &Path) -> PathBuf {
    let suite = dir.join("worm-only");
    std::fs::create_dir_all(suite.join("instances")).unwrap();
    let deal = "instances/2488-51-13-4-17.txt";
    std::fs::copy(repo().join("suites/cs3105-p1").join(deal), suite.join(deal)).unwrap();
    let yaml = format!(
        "name: worm-only\ntitle: \"Worm only\"\ngame: blackhole\nlaunch: [java, BHMain]\nparts:\n  - id: p\n    weight: 1\n    \
         tests:\n      - id: black\n        kind: solve\n        puzzle: {deal}\n      - id: worm\n        kind: solveworm\n        puzzle: {deal}\n"
    );
    std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    suite
}

#[test]
fn a_broken_search_s_zero_is_refused_by_verify_naming_the_test() {
    let dir = tempfile::tempdir().unwrap();
    let suite = worm_only_suite(dir.path());
    assert_eq!(regen(&suite, false).status, 0);
    let sound = verify(&suite, false);
    assert_eq!(sound.status, 0, "{}\n{}", sound.stdout, sound.stderr);
    assert!(sound.stderr.contains("2 of 2 solve tests confirmed"), "{}", sound.stderr);

    // The mutant search never moves a card into the worm hole: it calls the Worm Hole deal
    // unsolvable, and a regen with it stores that 0.
    let mut broken = bhgrade();
    broken.args(["regen", "--suite"]).arg(&suite).env("BHREF_TEST_MUTANT", "no-worm-entries");
    assert!(broken.output().unwrap().status.success());
    let expected = std::fs::read_to_string(suite.join("expected.json")).unwrap();
    assert!(expected.contains("\"answer\": \"0\"") && !expected.contains("\"answer\": \"1\""), "{expected}");
    let refused = verify(&suite, true);
    assert_eq!(refused.status, 1, "{}\n{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.contains("test p/worm: the stored answer `0` is refuted: the SAT model has a solution"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("1 stored answer refused"), "{}", refused.stderr);
    assert!(!refused.stderr.contains("test p/black"), "{}", refused.stderr);
    // The sound reference sees the stored answers as out of date, and verifies nothing.
    let stale = verify(&suite, false);
    assert_eq!(stale.status, 1, "{}", stale.stderr);
    assert!(stale.stderr.contains("not verified: out of date"), "{}", stale.stderr);
    assert!(stale.stdout.is_empty(), "{}", stale.stdout);
}

/// `suites/README.md`'s table of each bundled suite says what its `suite.yaml` and
/// `expected.json` hold: per part, kind and group (`, hard`: a CPU limit above the suite's
/// least), the tests, the samples among them and the range of the reference's search nodes.
#[test]
fn the_suites_readme_tables_say_what_the_bundled_suites_hold() {
    let readme = std::fs::read_to_string(repo().join("suites/README.md")).unwrap();
    for name in bhgrade::suite::bundled::names() {
        let dir = repo().join("suites").join(&name);
        let suite = bhgrade::suite::load_definition(&dir).unwrap();
        let stored = bhgrade::suite::ExpectedFile::read(&dir).unwrap();
        let least = suite.tests().map(|t| t.limits.cpu).min().unwrap();
        let mut held: std::collections::BTreeMap<String, (usize, usize, u64, u64)> = Default::default();
        for test in suite.tests() {
            let part = test.id.split_once('/').unwrap().0;
            let group = format!("{part} | {}{}", test.kind, if test.limits.cpu > least { ", hard" } else { "" });
            let nodes = stored.tests[&test.id].nodes;
            let entry = held.entry(group).or_insert((0, 0, u64::MAX, 0));
            *entry = (entry.0 + 1, entry.1 + usize::from(test.visible), entry.2.min(nodes), entry.3.max(nodes));
        }
        let section =
            readme.split(&format!("## The bundled suite `{name}`")).nth(1).unwrap().split("\n## ").next().unwrap();
        let number = |text: &str| text.trim().replace(',', "").parse::<u64>().unwrap();
        let mut said = std::collections::BTreeMap::new();
        for row in section.lines().filter(|l| l.starts_with("| part") && !l.starts_with("| part |")) {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
            let (tests, samples) = cells[2].trim_end_matches(')').split_once(" (").unwrap();
            let (low, high) = cells[4].split_once(" – ").unwrap_or((cells[4], cells[4]));
            let counts = (number(tests) as usize, number(samples) as usize, number(low), number(high));
            said.insert(format!("{} | {}", cells[0].trim(), cells[1].trim()), counts);
        }
        assert_eq!(said, held, "suites/README.md's table of {name} (tests, samples, least and most nodes)");
    }
}

/// The help and the suite format's documentation speak of every game the reference holds, and
/// no longer of suites built into bhgrade (none is, so that no hidden test reaches a student).
#[test]
fn the_help_and_the_suite_format_name_every_game() {
    let help = String::from_utf8(bhgrade().arg("--help").output().unwrap().stdout).unwrap();
    let format = std::fs::read_to_string(repo().join("suites/README.md")).unwrap();
    let game_line = format.lines().find(|line| line.starts_with("game:")).expect("suite.yaml's game: line");
    for game in bhref::games::names() {
        assert!(help.lines().any(|line| line.trim_start().starts_with(game)), "{game} in bhgrade --help:\n{help}");
        assert!(game_line.contains(game), "{game} in suites/README.md's `game:` line: {game_line}");
        assert!(format.contains(&format!("(`game: {game}`)")) || game == "blackhole", "a section for {game}");
    }
    for command in ["mark", "test", "regen"] {
        let help = bhgrade().args([command, "--help"]).output().unwrap().stdout;
        let help = String::from_utf8(help).unwrap();
        assert!(!help.contains("built into bhgrade ("), "bhgrade {command} --help: {help}");
    }
}
