//! Bad input gets a clear error naming the file, line and column, and exit status 2.

use std::path::Path;

use crate::support::{bhgrade, quick_suite};

fn mark_with_suite(suite: &Path) -> (i32, String) {
    let out = tempfile::tempdir().unwrap();
    let output = bhgrade()
        .args(["mark", "--suite"])
        .arg(suite)
        .arg("--out")
        .arg(out.path())
        .arg(crate::support::repo().join("fixtures/submissions"))
        .output()
        .unwrap();
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

fn edit_suite(edit: impl FnOnce(String) -> String) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = quick_suite(dir.path());
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    std::fs::write(suite.join("suite.yaml"), edit(yaml)).unwrap();
    (dir, suite)
}

/// The 1-based line of the edited suite file that holds `text` first (so that a test names the
/// position it expects without counting the bundled suite's lines).
fn line_of(suite: &std::path::Path, text: &str) -> usize {
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    1 + yaml.lines().position(|line| line.contains(text)).unwrap_or_else(|| panic!("no `{text}` in the suite"))
}

#[test]
fn an_unknown_key_is_named_with_its_line_and_column() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replace("gave_up_credit: 0.25", "gave_up_credit: 0.25\ncolour: blue"));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("suite.yaml:"), "{stderr}");
    assert!(stderr.contains("colour"), "{stderr}");
}

#[test]
fn a_misspelt_key_gets_a_guess_and_its_position_once() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replacen("    weight: 11", "    wieght: 11", 1));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    let line = line_of(&suite, "wieght: 11");
    assert!(stderr.contains(&format!("suite.yaml:{line}:5: unknown key `wieght`; did you mean `weight`?")), "{stderr}");
    assert!(!stderr.contains(&format!("line {line}")), "the position is printed once: {stderr}");
}

#[test]
fn a_check_test_cannot_take_its_puzzle_on_standard_input() {
    let (_dir, suite) = edit_suite(|yaml| {
        yaml.replacen("        kind: check\n", "        kind: check\n        puzzle_via: stdin\n", 1)
    });
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    let line = line_of(&suite, "puzzle_via: stdin");
    let wanted = format!("suite.yaml:{line}:21: a `check` test reads its candidate solution on standard input");
    assert!(stderr.contains(&wanted), "{stderr}");
}

#[test]
fn a_yes_is_not_a_boolean() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replace("visible: false", "visible: yes"));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("suite.yaml:") && stderr.contains("invalid boolean"), "{stderr}");
    assert!(!stderr.contains(" column "), "the position is printed once: {stderr}");
}

#[test]
fn a_missing_puzzle_is_named() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replace("instances/empty-layout.txt", "instances/nowhere.txt"));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("nowhere.txt"), "{stderr}");
    let line = stderr.split("suite.yaml:").nth(1).expect("a position");
    assert!(line.split(':').next().unwrap().parse::<u32>().is_ok(), "{stderr}");
}

#[test]
fn an_unknown_kind_lists_the_known_ones() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replacen("kind: solveworm", "kind: solvewurm", 1));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("solvewurm") && stderr.contains("checkworm"), "{stderr}");
}

#[test]
fn an_expected_answer_that_disagrees_with_the_reference_is_refused() {
    let (_dir, suite) = edit_suite(|yaml| yaml);
    let path = suite.join("expected.json");
    let json = std::fs::read_to_string(&path).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["tests"]["part2/handout-unsolvable"]["answer"] = "1".into();
    std::fs::write(&path, value.to_string()).unwrap();
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("part2/handout-unsolvable") && stderr.contains("disagrees"), "{stderr}");
}

#[test]
fn a_missing_expected_answer_is_refused() {
    let (_dir, suite) = edit_suite(|yaml| yaml);
    std::fs::remove_file(suite.join("expected.json")).unwrap();
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("no expected answer") && stderr.contains("regen"), "{stderr}");
}

#[test]
fn a_changed_puzzle_makes_the_expected_answer_stale() {
    let (_dir, suite) = edit_suite(|yaml| yaml);
    std::fs::write(suite.join("instances/empty-layout.txt"), "13 4 1\n1\n2 -1\n").unwrap();
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    // The first test on that puzzle is Part 1's empty solution on it.
    assert!(stderr.contains("part1/empty-solution-empty-layout") && stderr.contains("changed"), "{stderr}");
}

#[test]
fn help_explains_the_commands() {
    let output = bhgrade().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    for word in ["mark", "test", "regen", "Exit status", "Examples"] {
        assert!(text.contains(word), "--help lacks {word}: {text}");
    }
}

#[test]
fn two_parts_with_one_id_are_refused_naming_the_second() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replace("  - id: part2\n", "  - id: part1\n"));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let second = 1 + yaml.lines().enumerate().filter(|(_, l)| *l == "  - id: part1").nth(1).unwrap().0;
    let wanted = format!("suite.yaml:{second}:");
    assert!(stderr.contains(&wanted) && stderr.contains("duplicate part id `part1`"), "{stderr}");
}

#[test]
fn a_limit_that_is_no_number_is_named_by_its_key() {
    let (_dir, suite) = edit_suite(|yaml| yaml.replace("wall_seconds: 120", "wall_seconds: three"));
    let (status, stderr) = mark_with_suite(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains(&format!("suite.yaml:{}:", line_of(&suite, "wall_seconds: three"))), "{stderr}");
    assert!(stderr.contains("`wall_seconds` must be a number, not `three`"), "{stderr}");
}

/// Every marking command's help gives every exit status it can end with.
#[test]
fn each_marking_command_s_help_gives_its_exit_statuses() {
    for (command, own) in
        [("mark", "0 every submission was marked"), ("test", "1 one was not"), ("stacscheck", "1 one did not")]
    {
        let output = bhgrade().args([command, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
        for status in
            [own, "2 bad input", "3 the harness itself failed", "130 stopped by Ctrl-C", "143 stopped by SIGTERM"]
        {
            assert!(text.contains(status), "{command} --help lacks `{status}`: {text}");
        }
    }
}

/// `--suite` takes a suite's `suite.yaml` as its folder, and says what it wants of any other
/// file rather than "no such suite folder".
#[test]
fn a_suites_own_yaml_names_its_folder_and_another_file_is_refused_saying_why() {
    let correct = crate::support::repo().join("fixtures/submissions/correct");
    let tiny = crate::support::repo().join("fixtures/suites/tiny");
    let score_line = |suite: &Path| {
        let output = bhgrade().args(["test", "--quiet"]).arg(&correct).arg("--suite").arg(suite).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(score_line(&tiny.join("suite.yaml")), score_line(&tiny));
    assert_eq!(score_line(&tiny), "correct: 2.00 / 2.00\n");
    let other = tiny.join("expected.json");
    let (status, stderr) = mark_with_suite(&other);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("is a file, not a suite: give the suite's folder, or the suite.yaml in it"), "{stderr}");
}
