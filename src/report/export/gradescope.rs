//! Gradescope: a [`StudentReport`] → the autograder's `results.json` (Gradescope's
//! "Autograder Specifications": a total `score`, and per test `name`, `score`, `max_score`,
//! `status`, `output` and `visibility`). A suite's visible tests are `visible`, its hidden ones
//! `hidden`, and a hidden test's output says only its verdict.

use serde::Serialize;

use super::test_output;
use crate::report::feedback;
use crate::results::model::StudentReport;
use crate::verdict::Verdict;

/// The whole `results.json`.
#[derive(Debug, Serialize)]
pub struct Results {
    pub score: f64,
    pub max_score: f64,
    pub output: String,
    /// When students see the results: at once, as `bhgrade test` shows them.
    pub visibility: &'static str,
    /// The autograder's own standard output (bhgrade's progress) is the staff's.
    pub stdout_visibility: &'static str,
    pub tests: Vec<GradescopeTest>,
}

/// One test as Gradescope lists it.
#[derive(Debug, Serialize)]
pub struct GradescopeTest {
    pub name: String,
    pub number: String,
    pub score: f64,
    pub max_score: f64,
    /// `passed` or `failed` (Gradescope colours the test by it).
    pub status: &'static str,
    pub output: String,
    /// `visible` (a suite's sample) or `hidden`.
    pub visibility: &'static str,
}

/// [`StudentReport`] → Gradescope's results.
pub fn results(report: &StudentReport) -> Results {
    let shown = feedback::redact(report);
    let mut tests = Vec::new();
    for (p, part) in shown.parts.iter().enumerate() {
        for (t, test) in part.tests.iter().enumerate() {
            tests.push(GradescopeTest {
                name: test.id.clone(),
                number: format!("{}.{}", p + 1, t + 1),
                score: test.score,
                max_score: test.max_score,
                status: status(test.verdict),
                output: test_output(part, test),
                visibility: if test.visible { "visible" } else { "hidden" },
            });
        }
    }
    let output = match report.build.verdict {
        crate::build::BuildVerdict::Ok => format!("{}: built", report.suite_title),
        crate::build::BuildVerdict::BuildFailed
        | crate::build::BuildVerdict::BuildTimeout
        | crate::build::BuildVerdict::NoBuildScript => {
            format!(
                "The submission did not build ({}), so no test was run.\n{}",
                report.build.detail, report.build.log_tail
            )
        }
    };
    Results {
        score: report.score,
        max_score: report.max_score,
        output,
        visibility: "visible",
        stdout_visibility: "hidden",
        tests,
    }
}

/// Gradescope's status of a verdict: only an accepted answer passes.
fn status(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Accepted => "passed",
        Verdict::HarnessError
        | Verdict::TimeLimit
        | Verdict::MemoryLimit
        | Verdict::RuntimeError
        | Verdict::OutputLimit
        | Verdict::NoOutput
        | Verdict::FormatError
        | Verdict::WrongAnswer
        | Verdict::GaveUp
        | Verdict::NotRun => "failed",
    }
}

/// [`StudentReport`] → the text of `results.json`; none for a submission some of whose tests
/// the harness could not judge: Gradescope has no way to say "not graded" but a missing file
/// (its autograder then fails, and is run again), and any score would be a wrong one.
pub fn to_json(report: &StudentReport) -> Option<String> {
    let judged = !report.has_harness_error();
    judged.then(|| serde_json::to_string_pretty(&results(report)).expect("results serialise"))
}
