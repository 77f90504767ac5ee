//! Marks every fixture submission once and checks each verdict, the class files and a report's
//! text. Each fixture has one known defect (see fixtures/submissions/README.md); the suite must
//! catch exactly it.

use std::collections::BTreeMap;

use crate::support::{marked, repo};

/// Every test of the bundled suite.
const TESTS: [&str; 11] = [
    "part1/valid-solution",
    "part1/one-move-short",
    "part2/handout-simple",
    "part2/handout-unsolvable",
    "part2/empty-layout",
    "part2/standard-deal",
    "part3/bh-solution-is-wh-solution",
    "part3/worm-solution",
    "part3/card-left-in-worm-hole",
    "part3/handout-worm",
    "part3/standard-deal-worm",
];

const SOLVES: [&str; 4] = ["part2/handout-simple", "part2/handout-unsolvable", "part2/empty-layout", "part2/standard-deal"];
const SOLVEWORMS: [&str; 2] = ["part3/handout-worm", "part3/standard-deal-worm"];

/// A fixture's expected build verdict, the verdict of most of its tests, and the exceptions.
struct Expectation {
    student: &'static str,
    build: &'static str,
    usual: &'static str,
    exceptions: Vec<(&'static str, &'static str)>,
}

fn expectations() -> Vec<Expectation> {
    let all = |student, usual| Expectation { student, build: "ok", usual, exceptions: vec![] };
    let except = |student, exceptions| Expectation { student, build: "ok", usual: "accepted", exceptions };
    let solve_tests = |verdict| SOLVES.iter().chain(&SOLVEWORMS).map(move |t| (*t, verdict)).collect::<Vec<_>>();
    vec![
        all("correct", "accepted"),
        all("build-not-executable", "accepted"),
        all("output-quirks", "accepted"),
        all("stale-classes", "accepted"),
        all("crashes", "runtime_error"),
        except("check-always-true", vec![("part1/one-move-short", "wrong_answer"), ("part3/card-left-in-worm-hole", "wrong_answer")]),
        except("check-one-short", vec![("part1/one-move-short", "wrong_answer")]),
        except("worm-card-left", vec![("part3/card-left-in-worm-hole", "wrong_answer")]),
        except("solve-empty-zero", vec![("part2/empty-layout", "wrong_answer")]),
        except("invalid-moves", SOLVES.iter().filter(|t| **t != "part2/handout-unsolvable").map(|t| (*t, "wrong_answer")).collect()),
        except("always-gives-up", solve_tests("gave_up")),
        except("never-ends", solve_tests("time_limit")),
        Expectation { student: "does-not-compile", build: "build_failed", usual: "not_run", exceptions: vec![] },
        Expectation { student: "no-build-script", build: "no_build_script", usual: "not_run", exceptions: vec![] },
    ]
}

fn verdicts(report: &serde_json::Value) -> BTreeMap<String, String> {
    report["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .flat_map(|part| part["tests"].as_array().expect("tests"))
        .map(|test| (test["id"].as_str().unwrap().to_string(), test["verdict"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn every_fixture_gets_exactly_its_verdicts() {
    let marked = marked();
    assert_eq!(marked.status, 0, "bhgrade mark failed: {}", marked.stderr);
    let mut problems = Vec::new();
    for expectation in expectations() {
        let report = marked.json(expectation.student);
        let build = report["build"]["verdict"].as_str().unwrap_or_default();
        if build != expectation.build {
            problems.push(format!("{}: build {build}, expected {}", expectation.student, expectation.build));
        }
        let got = verdicts(&report);
        for test in TESTS {
            let want = expectation.exceptions.iter().find(|(id, _)| *id == test).map_or(expectation.usual, |(_, v)| v);
            let actual = got.get(test).map_or("missing", String::as_str);
            if actual != want {
                problems.push(format!("{} {test}: {actual}, expected {want}", expectation.student));
            }
        }
    }
    assert!(problems.is_empty(), "verdicts differ:\n{}", problems.join("\n"));
}

#[test]
fn the_correct_submission_gets_full_marks() {
    let report = marked().json("correct");
    assert_eq!(report["score"], report["max_score"]);
    assert_eq!(report["max_score"], 20.0);
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
        assert!(summary.contains(&format!("[{student}]({student}.md)")), "{student} missing from summary");
    }
}

#[test]
fn a_wrong_answer_report_explains_the_failure() {
    let report = marked().text("check-one-short.md");
    insta::with_settings!({filters => vec![
        (r"\d+ ms", "[ms]"),
        (r"\d+ MiB \|", "[MiB] |"),
        (r"\| Marked \|.*", "| Marked | [redacted]"),
        (r"\| Machine \|.*", "| Machine | [redacted]"),
        (r"\| Isolation \|.*", "| Isolation | [redacted]"),
        (r"/[^ `]*/suite/", "[suite]/"),
    ]}, {
        insta::assert_snapshot!(report);
    });
}

#[test]
fn a_build_failure_shows_the_compiler_output() {
    let report = marked().text("does-not-compile.md");
    assert!(report.contains("did not build"), "{report}");
    assert!(report.contains("error"), "the javac error is shown: {report}");
}
