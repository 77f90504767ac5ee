//! A third game through the same harness: the Gaps fixtures (real Java submissions, each with one
//! known defect; see fixtures/gaps-submissions/README.md) marked with the bundled `suites/gaps`,
//! every verdict asserted, and the suite held to its reference (`regen --check`, `--verify`).

use crate::expectations::{check_readme, mark_fixtures, student_report};
use crate::support::{bhgrade, repo};

/// Each fixture's row in its README is written from its `expected.yaml`.
#[test]
fn the_readme_says_what_each_gaps_fixtures_data_says() {
    check_readme(&repo().join("fixtures/gaps-submissions"), "## The fixtures", "| `", |name, expectation| {
        format!("| `{name}` | {} | {} |", expectation.defect, expectation.effect)
    });
}

#[test]
fn every_gaps_fixture_gets_the_verdicts_of_its_defect() {
    let dir = tempfile::tempdir().unwrap();
    let suite = repo().join("suites/gaps");
    let (fixtures, out) = mark_fixtures(dir.path(), &repo().join("fixtures/gaps-submissions"), &suite, 4);
    let mut mismatches = Vec::new();
    for (name, (_, expectation)) in &fixtures {
        mismatches.extend(expectation.differences(name, &student_report(&out, name), |_, _| false));
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    assert!(grades.lines().any(|line| line == "correct,10.00,10.00,10.00,30.00"), "{grades}");
}

/// The bundled suite is what its reference says, and every `0` in it is confirmed by the second
/// oracle (a breadth-first walk that shares no search code with the solver).
#[test]
fn the_gaps_suite_is_up_to_date_and_its_zeros_are_confirmed() {
    let suite = repo().join("suites/gaps");
    let check = bhgrade().args(["regen", "--check", "--suite"]).arg(&suite).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let verify = bhgrade().args(["regen", "--verify", "--suite"]).arg(&suite).output().unwrap();
    let stdout = String::from_utf8_lossy(&verify.stdout);
    assert!(verify.status.success(), "{stdout}{}", String::from_utf8_lossy(&verify.stderr));
    let zeros = stdout.lines().filter(|line| line.contains("| 0 | confirmed: a breadth-first walk met all")).count();
    assert!(zeros >= 10, "{stdout}");
    assert!(!stdout.contains("refuted") && !stdout.contains("undecided"), "{stdout}");
}
