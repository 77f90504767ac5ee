//! PrairieLearn: a [`StudentReport`] → the external grader's results JSON (`gradable`, a
//! `score` from 0 to 1, `message`, `output`, and per test `name`, `description`, `points`,
//! `max_points`, `message`, `output`). Students see every test PrairieLearn lists, so hidden
//! tests come from the redacted report: name, verdict and marks only.

use serde::Serialize;

use super::test_output;
use crate::report::feedback;
use crate::results::model::StudentReport;

/// The whole results file.
#[derive(Debug, Serialize)]
pub struct Results {
    /// False only when the submission could not be graded at all (the harness failed).
    pub gradable: bool,
    /// The fraction of the marks earned, 0 to 1.
    pub score: f64,
    pub message: String,
    pub output: String,
    pub tests: Vec<PrairieTest>,
}

/// One test as PrairieLearn lists it.
#[derive(Debug, Serialize)]
pub struct PrairieTest {
    pub name: String,
    pub description: String,
    pub points: f64,
    pub max_points: f64,
    pub message: String,
    pub output: String,
}

/// [`StudentReport`] → PrairieLearn's results.
pub fn results(report: &StudentReport) -> Results {
    let shown = feedback::redact(report);
    let tests = shown
        .parts
        .iter()
        .flat_map(|part| part.tests.iter().map(move |test| (part, test)))
        .map(|(part, test)| PrairieTest {
            name: test.id.clone(),
            description: format!("{} ({}, {})", part.title, test.kind, if test.visible { "visible" } else { "hidden" }),
            points: test.score,
            max_points: test.max_score,
            message: test.verdict_label.clone(),
            output: test_output(part, test),
        })
        .collect();
    let score = if report.max_score > 0.0 { report.score / report.max_score } else { 0.0 };
    Results {
        gradable: !report.has_harness_error(),
        score,
        message: format!("{} / {} marks", crate::score::format(report.score), crate::score::format(report.max_score)),
        output: format!("build: {}", report.build.explained()),
        tests,
    }
}

/// [`StudentReport`] → the text of the results file.
pub fn to_json(report: &StudentReport) -> String {
    serde_json::to_string_pretty(&results(report)).expect("results serialise")
}
