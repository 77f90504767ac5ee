//! The 2022 practical through the same harness: the Late Binding fixtures (real Java
//! submissions, each with one known defect; see fixtures/lbs-submissions/README.md) marked with
//! the bundled `suites/lbs-2022`, every verdict asserted.

use bhgrade::verdict::Verdict;

use crate::expectations::{check_readme, mark_fixtures, student_report};
use crate::support::{copy_tree, repo};

/// Each fixture's row in its README is written from its `expected.yaml`.
#[test]
fn the_readme_says_what_each_fixtures_data_says() {
    check_readme(&repo().join("fixtures/lbs-submissions"), "## The fixtures", "| `", |name, expectation| {
        format!("| `{name}` | {} | {} |", expectation.defect, expectation.effect)
    });
}

#[test]
fn every_late_binding_fixture_gets_the_verdicts_of_its_defect() {
    let dir = tempfile::tempdir().unwrap();
    // The bundled suite with the hard groups' minute cut to 3 s of CPU: the fixture without a
    // visited set still runs out on them, and a test costs little.
    let suite = dir.path().join("suite");
    copy_tree(&repo().join("suites/lbs-2022"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let quick = yaml.replace("cpu_seconds: 60 }", "cpu_seconds: 3 }");
    assert_ne!(yaml, quick, "the suite has hard groups");
    std::fs::write(suite.join("suite.yaml"), quick).unwrap();
    let (fixtures, out) = mark_fixtures(dir.path(), &repo().join("fixtures/lbs-submissions"), &suite, 9);
    let mut mismatches = Vec::new();
    for (name, (_, expectation)) in &fixtures {
        let report = student_report(&out, name);
        // Cut to 3 s, a hard test may also run out of time for a slow defective solver on a
        // slow machine: that says nothing about the defect, so it stands for either verdict
        // (how many of them a search with no visited set gets through is the machine's business;
        // the one that fixture must run out on is listed in its data as `time_limit`).
        let timed_out = |id: &str, verdict: Verdict| id.contains("/hard-") && verdict == Verdict::TimeLimit;
        mismatches.extend(expectation.differences(name, &report, timed_out));
        // A test that gives the layout on standard input is reproduced that way.
        let example_stdin = report["parts"][1]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|test| test["id"] == "part2/example-stdin")
            .unwrap();
        let reproduce = example_stdin["reproduce"].as_str().unwrap();
        assert!(reproduce.ends_with(r#" java LBSMain SOLVE < "$SUITE"/instances/example-1.txt"#), "{reproduce}");
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    assert!(grades.lines().any(|line| line == "correct,11.00,6.00,3.00,20.00"), "{grades}");
}
