//! Marks every fixture submission once with the full bundled suite and checks each verdict, the
//! class files and a report's text. Each fixture has one known defect, and its `expected.yaml`
//! says what the suite must make of it (the README's list is checked against them). Also marks the reference
//! itself, `bhref`, as a submission: it must get full marks.

use std::path::{Path, PathBuf};

use bhgrade::verdict::Verdict;

use crate::expectations::{check_readme, fixtures_in};
use crate::support::{mark_command, marked, quick_suite, repo, verdicts};

/// Each fixture's line in its README is written from its `expected.yaml`.
#[test]
fn the_readme_says_what_each_fixtures_data_says() {
    check_readme(
        &repo().join("fixtures/submissions"),
        "One line per fixture: its defect, then the verdict each test kind must get.",
        "- **",
        |name, expectation| format!("- **{name}**: {} → {}", expectation.defect, expectation.effect),
    );
}

#[test]
fn every_fixture_gets_exactly_its_verdicts() {
    let marked = marked();
    assert_eq!(marked.status, 0, "bhgrade mark failed: {}", marked.stderr);
    let fixtures = fixtures_in(&repo().join("fixtures/submissions"));
    let mut problems = Vec::new();
    for (student, (_, expectation)) in &fixtures {
        problems.extend(expectation.differences(student, &marked.json(student), |_, _| false));
    }
    assert_eq!(fixtures.len(), 14, "{:?}", fixtures.keys());
    assert!(problems.is_empty(), "verdicts differ:\n{}", problems.join("\n"));
}

#[test]
fn the_correct_submission_gets_full_marks() {
    let report = marked().json("correct");
    assert_eq!(report["score"], report["max_score"]);
    assert_eq!(report["max_score"], 20.0);
}

/// The reference's own binary, a binary of this package beside `bhgrade`.
fn bhref_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_bhref"))
}

#[test]
fn the_reference_marked_as_a_submission_gets_full_marks() {
    let dir = tempfile::tempdir().unwrap();
    let suite = quick_suite(dir.path());
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let launch = format!("command: [{:?}]", bhref_binary().display().to_string());
    let rewritten = yaml.replace("command: [java, BHMain]", &launch);
    assert_ne!(yaml, rewritten, "the suite launches java BHMain");
    std::fs::write(suite.join("suite.yaml"), rewritten).unwrap();
    let submissions = dir.path().join("submissions");
    let src = submissions.join("bhref/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("build.sh"), "true\n").unwrap();
    let out = dir.path().join("out");
    let output = mark_command(&suite, &out, &submissions).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = read_json(&out.join("students/bhref.json"));
    let not_accepted: Vec<_> =
        verdicts(&report).into_iter().filter(|(_, verdict)| *verdict != Verdict::Accepted).collect();
    assert!(not_accepted.is_empty(), "{not_accepted:?}");
    assert_eq!(report["score"], 20.0);
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_submission_in_the_folder_is_in_the_class_files() {
    let marked = marked();
    let csv = marked.text("grades.csv");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("student,part1,part2,part3,total"));
    let students: Vec<&str> = lines.map(|line| line.split(',').next().unwrap()).collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(repo().join("fixtures/submissions"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(students, on_disk);
    let summary = marked.text("summary.md");
    for student in &on_disk {
        assert!(summary.contains(&format!("[{student}](students/{student}.md)")), "{student} missing from summary");
    }
}

#[test]
fn a_wrong_answer_report_explains_the_failure() {
    let report = marked().text("students/check-one-short.md");
    insta::with_settings!({filters => vec![
        (r"\d+ ms", "[ms]"),
        (r"\d+ MiB \|", "[MiB] |"),
        (r"\| Marked \|.*", "| Marked | [redacted]"),
        (r"\| Machine \|.*", "| Machine | [redacted]"),
        (r"\| Isolation \|.*", "| Isolation | [redacted]"),
        (r"/[^ `]*/suite/", "[suite]/"),
        // A derived solution is the reference solver's: it changes when the solver's search does.
        (r"`[-0-9 ]{60,}`", "`[derived solution]`"),
    ]}, {
        insta::assert_snapshot!(report);
    });
}

#[test]
fn a_build_failure_shows_the_compiler_output() {
    let report = marked().text("students/does-not-compile.md");
    assert!(report.contains("did not build"), "{report}");
    assert!(report.contains("error"), "the javac error is shown: {report}");
}
