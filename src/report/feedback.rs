//! Student feedback: a marker's [`StudentReport`] → `feedback/STUDENT.md`, a report a marker can
//! hand to the student. Visible tests are shown in full; a hidden test only by its name, kind,
//! verdict and marks, because its puzzle, input, expected answer, the reference's solution,
//! the program's output and even the explanation of a wrong answer would give it away.
//!
//! The hidden tests are stripped from the report itself before it is rendered ([`redact`]), so
//! no template change can leak them.

use super::markdown::{self, LeftOut};
use super::model::{StudentReport, TestReport};

/// The report with every hidden test reduced to what a student may see of it.
pub fn redact(report: &StudentReport) -> StudentReport {
    let mut redacted = report.clone();
    for test in redacted.parts.iter_mut().flat_map(|p| p.tests.iter_mut()) {
        if !test.visible {
            *test = hidden(test);
        }
    }
    redacted
}

/// A hidden test as a student sees it: name, kind, verdict and marks, nothing else.
fn hidden(test: &TestReport) -> TestReport {
    TestReport {
        verdict_label: test.verdict_label.clone(),
        score: test.score,
        max_score: test.max_score,
        ..TestReport::new(test.id.clone(), test.kind.clone(), String::new(), test.verdict)
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
        let shown = hidden(&test);
        let json = serde_json::to_string(&shown).unwrap();
        for secret in ["secret", "1 2 3 4", "said-so", "trace", "13 4 17", "BHMain"] {
            assert!(!json.contains(secret), "{secret} in {json}");
        }
        assert_eq!((shown.id.as_str(), shown.verdict, shown.max_score), ("p/t", Verdict::WrongAnswer, 0.69));
    }
}
