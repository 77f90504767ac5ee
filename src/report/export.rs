//! Exports: reports → the files other tools read. Each reads the same
//! [`StudentReport`](crate::results::model::StudentReport) /
//! [`ClassReport`](crate::results::model::ClassReport) every reporter reads; none knows how
//! marking happened.
//!
//! - [`gradescope`]: a student → Gradescope's autograder `results.json`;
//! - [`junit`]: a class → JUnit XML (CI servers, test dashboards);
//! - [`prairielearn`]: a student → PrairieLearn's external-grader results JSON;
//! - [`canvas`]: a class → a gradebook CSV with a points-possible row that Canvas imports.
//!
//! Whatever a student may see of a hidden test (Gradescope, PrairieLearn) is taken from the
//! report redacted by [`super::feedback::redact`]: name, verdict and marks only.

pub mod canvas;
pub mod gradescope;
pub mod junit;
pub mod prairielearn;

use crate::results::model::{PartReport, TestReport};
use crate::score;

/// A test's result as plain text for a reader that shows one block per test: the verdict,
/// why, and (when the report has them) what was expected, what came out and how to run it.
/// A redacted hidden test has only its verdict and marks, so that is all it says.
pub fn test_output(part: &PartReport, test: &TestReport) -> String {
    let mut lines = vec![format!(
        "{}: {} ({} / {} marks)",
        test.id,
        test.verdict_label,
        score::format(test.score),
        score::format(test.max_score)
    )];
    lines.extend(group_line(part, test));
    if !test.visible {
        lines.push("Hidden test: only its verdict and marks are shown.".into());
        return lines.join("\n");
    }
    let mut push = |label: &str, text: &str| {
        if !text.is_empty() {
            lines.push(format!("{label}: {text}"));
        }
    };
    push("Why", &test.explanation);
    push(&test.instance_label, &test.instance);
    push("Solution given on standard input", test.input.as_deref().unwrap_or(""));
    push("Expected", &test.expected);
    push("First line of output", &test.first_line);
    if !test.reproduce.is_empty() && test.verdict != crate::verdict::Verdict::Accepted {
        lines.push(format!("Run it yourself from src/, with SUITE set to the suite's folder:\n{}", test.reproduce));
    }
    if !test.stderr_tail.is_empty() {
        lines.push(format!("Standard error (end):\n{}", test.stderr_tail));
    }
    lines.join("\n")
}

/// What a test's group earned, and which of its tests cost it its marks: `Group g (2 tests,
/// each earns the lowest credit any of them earned): 0.00 / 1.38 marks; not accepted: p/a`.
fn group_line(part: &PartReport, test: &TestReport) -> Option<String> {
    let name = test.group.as_ref()?;
    let group = part.groups().into_iter().find(|group| &group.name == name)?;
    let rule = match part.group_scoring {
        Some(score::GroupScoring::AllOrNothing) => "its marks are earned only when every test of it is accepted",
        Some(score::GroupScoring::Minimum) | None => "each earns the lowest credit any of them earned",
    };
    let mut line = format!(
        "Group {name} ({} tests, {rule}): {} / {} marks",
        group.tests.len(),
        score::format(group.score),
        score::format(group.max_score)
    );
    if !group.not_accepted.is_empty() {
        line.push_str(&format!("; not accepted: {}", group.not_accepted.join(", ")));
    }
    Some(line)
}
