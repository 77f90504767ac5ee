//! Credit by quality (issue 44), through the real CLI: `fixtures/quality-submissions` marked with
//! `fixtures/suites/quality`, whose Gaps deals' fewest moves the reference proved. A shortest
//! answer earns all of a test's marks, a valid longer one less and more than nothing, an invalid
//! one nothing, and no longer answer more than a shorter one.

use crate::support::{bhgrade, repo};

/// Each student's tests by id: (verdict, score, max score, the report's test).
fn tests(out: &std::path::Path, student: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join(format!("students/{student}.json"))).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    report["parts"].as_array().unwrap().iter().flat_map(|part| part["tests"].as_array().unwrap().clone()).collect()
}

#[test]
fn credit_follows_a_solutions_length_and_never_rewards_a_longer_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = bhgrade()
        .args(["mark", "--quiet", "--suite"])
        .arg(repo().join("fixtures/suites/quality"))
        .arg("--out")
        .arg(&out)
        .arg(repo().join("fixtures/quality-submissions"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let [fewest, longer, invalid] = ["fewest-moves", "reference-moves", "one-move-missing"].map(|s| tests(&out, s));
    for id in ["shortest/seed-2", "shortest/seed-7"] {
        let find = |tests: &[serde_json::Value]| tests.iter().find(|t| t["id"] == id).unwrap().clone();
        let (fewest, longer, invalid) = (find(&fewest), find(&longer), find(&invalid));
        let score = |test: &serde_json::Value| test["score"].as_f64().unwrap();
        let max = fewest["max_score"].as_f64().unwrap();
        assert_eq!((fewest["verdict"].as_str(), score(&fewest)), (Some("accepted"), max), "{fewest}");
        assert_eq!(longer["verdict"], "accepted");
        assert!(0.0 < score(&longer) && score(&longer) < max, "{longer}");
        assert_eq!((invalid["verdict"].as_str(), score(&invalid)), (Some("wrong_answer"), 0.0), "{invalid}");
        assert!(score(&fewest) >= score(&longer) && score(&longer) >= score(&invalid));
        assert_eq!(fewest["quality"]["measured"], fewest["quality"]["best"]);
        assert!(invalid["quality"].is_null(), "an invalid answer is not measured: {invalid}");
    }
    // The verdict says what was measured, and the report shows it beside the best.
    let seed_2 = longer.iter().find(|t| t["id"] == "shortest/seed-2").unwrap();
    let explanation = seed_2["explanation"].as_str().unwrap();
    assert!(explanation.starts_with("valid, 23 moves; the best is 16 moves: 0.80 of the marks"), "{explanation}");
    let report = std::fs::read_to_string(out.join("students/reference-moves.md")).unwrap();
    assert!(report.contains("| `shortest/seed-2` | 23 moves | 16 moves | 0.80 |"), "{report}");
    // The class page shows the part's spread: two answers at the best, two within half again,
    // two not valid.
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    let row = "<tr><td>Fewest moves</td><td>2</td><td>0</td><td>2</td><td>0</td><td>0</td><td>2</td></tr>";
    assert!(page.contains(row), "{page}");
}

/// The floor check fails a suite whose constant answers earn marks, and passes each bundled
/// suite, whose groups leave them nothing (they earned 54.6%, 54.9% and 55.9% before).
#[test]
fn the_floor_check_holds_every_bundled_suite_and_fails_one_without_groups() {
    for suite in bhgrade::suite::bundled::names() {
        let suite = suite.as_str();
        let output = bhgrade().args(["suite", "floor"]).arg(repo().join("suites").join(suite)).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{suite}: {stdout}{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(stdout.matches("% |").count(), 4, "a row per program: {suite}: {stdout}");
        let dir = tempfile::tempdir().unwrap();
        crate::support::copy_tree(&repo().join("suites").join(suite), dir.path());
        let yaml = std::fs::read_to_string(dir.path().join("suite.yaml")).unwrap();
        let ungrouped: String =
            yaml.lines().filter(|line| !line.trim_start().starts_with("group:")).map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.path().join("suite.yaml"), ungrouped).unwrap();
        let output = bhgrade().args(["suite", "floor"]).arg(dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{suite} without groups: {stderr}");
        assert!(stderr.contains("programs that never read their input earn more than"), "{stderr}");
    }
}

/// The held-out check: the four programs that answer every check with a constant and every solve
/// with a constant (`fixtures/constant-answers`), built and run for real, earn at most 5% of
/// each bundled suite, as the floor check computes without running them.
#[test]
fn programs_that_never_read_their_input_earn_at_most_five_percent_of_each_bundled_suite() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    let programs = [("true", "0"), ("true", "-1"), ("false", "0"), ("false", "-1")];
    for (check, solve) in programs {
        let submission = class.join(format!("check-{check}-solve{solve}"));
        crate::support::copy_tree(&repo().join("fixtures/constant-answers"), &submission);
        std::fs::write(submission.join("src/answers.txt"), format!("{check} {solve}\n")).unwrap();
    }
    for suite in bhgrade::suite::bundled::names() {
        let suite = suite.as_str();
        let out = dir.path().join(suite);
        let output = bhgrade()
            .args(["mark", "--quiet", "--suite"])
            .arg(repo().join("suites").join(suite))
            .arg("--out")
            .arg(&out)
            .arg(&class)
            .output()
            .unwrap();
        assert!(output.status.success(), "{suite}: {}", String::from_utf8_lossy(&output.stderr));
        let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
        let mut rows = grades.lines().skip(1).peekable();
        assert!(rows.peek().is_some(), "{grades}");
        for row in rows {
            let cells: Vec<&str> = row.split(',').collect();
            let total: f64 = cells.last().unwrap().parse().unwrap();
            let text = std::fs::read_to_string(out.join(format!("students/{}.json", cells[0]))).unwrap();
            let report: serde_json::Value = serde_json::from_str(&text).unwrap();
            let max = report["max_score"].as_f64().unwrap();
            // Every run answered: the marks are the program's, not a crash's.
            assert!(
                crate::support::verdicts(&report).values().all(|v| matches!(
                    v,
                    bhgrade::verdict::Verdict::Accepted
                        | bhgrade::verdict::Verdict::WrongAnswer
                        | bhgrade::verdict::Verdict::GaveUp
                )),
                "{suite} {}: {report}",
                cells[0]
            );
            assert!(total <= 0.05 * max, "{suite}: {row} earns more than 5% of {max}");
        }
        assert_eq!(grades.lines().count(), 1 + programs.len(), "{grades}");
    }
}
