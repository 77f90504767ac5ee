//! stacscheck trees run unchanged: the fixture tree's build, test, info and prog scripts (an
//! ancestor build, a `.in` read through `/dev/stdin`, a timeout) get stacscheck's results, with
//! bhgrade's verdicts, limits and reports.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{bhgrade, copy_tree, repo};

fn verdicts(out: &Path, student: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(out.join(format!("{student}.json"))).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    report["parts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["tests"].as_array().unwrap().clone())
        .map(|t| (t["id"].as_str().unwrap().to_string(), t["verdict"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn the_whole_tree_passes_the_correct_submission_but_for_the_timeout() {
    let out = tempfile::tempdir().unwrap();
    let output = bhgrade()
        .arg("stacscheck")
        .arg(repo().join("fixtures/stacscheck/Tests"))
        .arg(repo().join("fixtures/submissions/correct"))
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let got = verdicts(out.path(), "correct");
    let expected: BTreeMap<String, String> = [
        ("build-all", "accepted"),
        ("Part1/prog-check-01Solved", "accepted"),
        ("Part1/prog-check-02Illegal", "accepted"),
        ("Part2/build-extra", "accepted"),
        ("Part2/test-solve-check", "accepted"),
        ("Part2/info-files", "accepted"),
        ("Part2/prog-solve-01Solvable", "accepted"),
        ("Part2/prog-solve-02Unsolvable", "accepted"),
        ("Part2/Slow/prog-slow-01Sleep", "time_limit"),
    ]
    .into_iter()
    .map(|(id, verdict)| (id.to_string(), verdict.to_string()))
    .collect();
    assert_eq!(got, expected);
    let markdown = std::fs::read_to_string(out.path().join("correct.md")).unwrap();
    assert!(markdown.contains("wall-clock time ran out"), "{markdown}");
}

#[test]
fn a_class_marked_against_one_part_fails_exactly_the_buggy_checker() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    copy_tree(&repo().join("fixtures/submissions/correct"), &class.join("good"));
    copy_tree(&repo().join("fixtures/submissions/check-always-true"), &class.join("trusting"));
    copy_tree(&repo().join("fixtures/submissions/does-not-compile"), &class.join("broken"));
    let out = dir.path().join("out");
    let output = bhgrade()
        .args(["mark", "--jobs", "2", "--stacscheck"])
        .arg(repo().join("fixtures/stacscheck/Tests/Part1"))
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let all = |verdict: &str| -> BTreeMap<String, String> {
        ["build-all", "Part1/prog-check-01Solved", "Part1/prog-check-02Illegal"]
            .into_iter()
            .map(|id| (id.to_string(), verdict.to_string()))
            .collect()
    };
    assert_eq!(verdicts(&out, "good"), all("accepted"));
    let mut trusting = all("accepted");
    trusting.insert("Part1/prog-check-02Illegal".into(), "wrong_answer".into());
    assert_eq!(verdicts(&out, "trusting"), trusting);
    let mut broken = all("not_run");
    broken.insert("build-all".into(), "wrong_answer".into());
    assert_eq!(verdicts(&out, "broken"), broken);
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    assert_eq!(grades, "student,root,Part1,total\nbroken,0,0,0\ngood,1,2,3\ntrusting,1,1,2\n");
}
