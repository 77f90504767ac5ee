//! Student feedback: a marker's [`StudentReport`] → `feedback/STUDENT.md`, a report a marker can
//! hand to the student. Visible tests are shown in full; a hidden test only by its name, kind,
//! verdict and marks, because its puzzle, input, expected answer, the reference's solution,
//! the program's output and even the explanation of a wrong answer would give it away.
//!
//! The hidden tests are stripped from the report itself before it is rendered ([`redact`]), so
//! no template change can leak them. A hidden test's name can give it away too
//! (`bh-unsolvable-standard`), so it is shown by the public name its suite gives it, else by a
//! neutral label: `part1 hidden 3`, the third hidden test of part `part1`.

use super::markdown;
use crate::results::model::{StudentReport, TestReport};
use crate::suite::LeftOut;

/// The report with every hidden test reduced to what a student may see of it.
pub fn redact(report: &StudentReport) -> StudentReport {
    let mut redacted = report.clone();
    for part in &mut redacted.parts {
        let groups = shown_groups(&part.id, &part.tests);
        for (index, test) in part.tests.iter_mut().filter(|test| !test.visible).enumerate() {
            let label = test.public_name.clone().unwrap_or_else(|| format!("{} hidden {}", part.id, index + 1));
            let group = test.group.as_ref().map(|group| groups[group].clone());
            *test = TestReport { group, ..hidden(test, label) };
        }
    }
    redacted
}

/// How each group of a part is named to students: by its name when it holds a visible test
/// (the student's copy of the suite names it so), else by a neutral label, `part1 hidden group
/// 2`, since the suite may have named it after a hidden test.
fn shown_groups(part: &str, tests: &[TestReport]) -> std::collections::HashMap<String, String> {
    let mut shown = std::collections::HashMap::new();
    for test in tests.iter().filter(|test| test.visible) {
        if let Some(group) = &test.group {
            shown.insert(group.clone(), group.clone());
        }
    }
    let mut hidden_groups = 0;
    for test in tests.iter().filter(|test| !test.visible) {
        if let Some(group) = test.group.as_ref().filter(|group| !shown.contains_key(*group)) {
            hidden_groups += 1;
            shown.insert(group.clone(), format!("{part} hidden group {hidden_groups}"));
        }
    }
    shown
}

/// A hidden test as a student sees it: a label, its kind, verdict and marks, nothing else.
fn hidden(test: &TestReport, label: String) -> TestReport {
    TestReport {
        verdict_label: test.verdict_label.clone(),
        score: test.score,
        max_score: test.max_score,
        ..TestReport::new(label, test.kind.clone(), String::new(), test.verdict)
    }
}

/// [`StudentReport`] → the student's feedback in markdown.
pub fn student(report: &StudentReport, left_out: Option<&LeftOut>) -> Result<String, minijinja::Error> {
    markdown::render_student(&redact(report), left_out, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    #[test]
    fn a_hidden_test_keeps_only_its_name_verdict_and_marks() {
        let mut test =
            TestReport::new("p/t".into(), "check".into(), "instances/secret.txt".into(), Verdict::WrongAnswer);
        test.input = Some("1 2 3 4".into());
        test.expected = "secret answer".into();
        test.expected_detail = "secret detail".into();
        test.explanation = "secret why".into();
        test.first_line = "`said-so`".into();
        test.stderr_tail = "trace".into();
        test.reproduce = "printf '%s' '1 2 3 4' | java BHMain CHECK \"$SUITE\"/instances/secret.txt".into();
        test.command = "java BHMain CHECK /x/instances/secret.txt".into();
        test.instance_text = Some("13 4 17".into());
        test.score = 0.0;
        test.max_score = 0.69;
        let shown = hidden(&test, "p hidden 1".into());
        let json = serde_json::to_string(&shown).unwrap();
        for secret in ["secret", "1 2 3 4", "said-so", "trace", "13 4 17", "BHMain"] {
            assert!(!json.contains(secret), "{secret} in {json}");
        }
        assert_eq!((shown.id.as_str(), shown.verdict, shown.max_score), ("p hidden 1", Verdict::WrongAnswer, 0.69));
    }

    #[test]
    fn hidden_tests_are_labelled_by_part_and_place_unless_named() {
        use crate::results::model::PartReport;
        let test = |id: &str, visible: bool, public_name: Option<&str>| TestReport {
            visible,
            public_name: public_name.map(str::to_string),
            ..TestReport::new(id.into(), "check".into(), String::new(), Verdict::Accepted)
        };
        let part = PartReport {
            id: "part1".into(),
            title: "Part 1".into(),
            score: 0.0,
            max_score: 0.0,
            passed: 0,
            group_scoring: None,
            tests: vec![
                test("part1/sample", true, None),
                test("part1/one-move-short", false, None),
                test("part1/bh-unsolvable-standard", false, Some("an unsolvable deal")),
                test("part1/wrong-card", false, None),
            ],
        };
        let report: StudentReport = serde_json::from_value(serde_json::json!({
            "student": "s", "suite": "t", "suite_title": "T", "score": 0.0, "max_score": 0.0,
            "build": {"verdict": "ok", "detail": "", "log_tail": "", "wall_ms": 0},
            "parts": [part], "check_table": [],
            "environment": {
                "bhgrade_version": "0", "machine": "m", "cores": 2, "load_average": "0", "jobs": 1,
                "cores_per_run": 1, "marked_at": "now", "limits": "", "launch_env": "", "isolation": []
            }
        }))
        .unwrap();
        let ids: Vec<String> = redact(&report).parts[0].tests.iter().map(|t| t.id.clone()).collect();
        assert_eq!(ids, ["part1/sample", "part1 hidden 1", "an unsolvable deal", "part1 hidden 3"]);
    }
}
