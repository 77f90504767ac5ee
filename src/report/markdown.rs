//! Markdown: [`StudentReport`] / [`ClassReport`] → text, through the minijinja templates in
//! `report-templates/` (compiled into the binary), and [`ClassReport`] → `grades.csv`.
//!
//! Every figure of marks goes through [`crate::score::format`] (the `marks` filter), so the
//! reports, the CSV and the terminal show one number format.

use std::collections::BTreeMap;

use minijinja::{context, Environment, Value};
use serde::Serialize;

use super::model::{ClassReport, StudentReport};
use super::text;
use crate::build::BuildVerdict;
use crate::score;
use crate::verdict::Verdict;

const STUDENT_TEMPLATE: &str = include_str!("../../report-templates/student.md.j2");
const SUMMARY_TEMPLATE: &str = include_str!("../../report-templates/summary.md.j2");

/// What a report made of some of a suite's tests left out (`bhgrade test` without `--all`),
/// so that it can say its marks are not the whole story.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LeftOut {
    /// Hidden tests not run, and the marks they are worth.
    pub hidden_tests: usize,
    pub hidden_marks: f64,
    /// Visible tests not asked for (`--part`, `--only`), and the marks they are worth.
    pub other_tests: usize,
    pub other_marks: f64,
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.add_filter("marks", |marks: f64| score::format(marks));
    env.add_function("count", |n: usize, noun: String| text::count(n, &noun));
    env.add_template("student.md", STUDENT_TEMPLATE).expect("the bundled student template parses");
    env.add_template("summary.md", SUMMARY_TEMPLATE).expect("the bundled summary template parses");
    env
}

/// A student's markdown report for the marker: every test in full.
pub fn student(report: &StudentReport, left_out: Option<&LeftOut>) -> Result<String, minijinja::Error> {
    render_student(report, left_out, false)
}

/// [`StudentReport`] → markdown; `feedback` picks the student's version of the template (the
/// report must already be redacted: see [`super::feedback`]).
pub(super) fn render_student(
    report: &StudentReport,
    left_out: Option<&LeftOut>,
    feedback: bool,
) -> Result<String, minijinja::Error> {
    let visible_count = report.parts.iter().map(|p| p.tests.len()).sum::<usize>();
    environment().get_template("student.md")?.render(context! {
        r => report,
        feedback => feedback,
        left_out => left_out.map(Value::from_serialize),
        visible_count => visible_count,
        same_stderr => same_stderr(report),
    })
}

/// For each test whose standard error is the same as an earlier test's, that earlier test: a
/// crashing program's stack trace is shown once, not once per test.
fn same_stderr(report: &StudentReport) -> BTreeMap<&str, &str> {
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    let mut same = BTreeMap::new();
    for test in report.parts.iter().flat_map(|p| &p.tests).filter(|t| !t.stderr_tail.is_empty()) {
        match first.get(test.stderr_tail.as_str()) {
            Some(earlier) => {
                same.insert(test.id.as_str(), *earlier);
            }
            None => {
                first.insert(test.stderr_tail.as_str(), test.id.as_str());
            }
        }
    }
    same
}

/// A test that students fail, for the class summary.
#[derive(Serialize)]
struct Failed<'a> {
    id: &'a str,
    visible: bool,
    failed: usize,
}

/// The class summary in markdown.
pub fn summary(class: &ClassReport) -> Result<String, minijinja::Error> {
    let counts: BTreeMap<&str, String> = class
        .students
        .iter()
        .map(|s| {
            let text: Vec<String> =
                s.verdict_counts().iter().map(|(verdict, n)| format!("{n} {}", verdict.label())).collect();
            (s.student.as_str(), text.join(", "))
        })
        .collect();
    let built: Vec<&StudentReport> = class.students.iter().filter(|s| s.build.verdict == BuildVerdict::Ok).collect();
    environment().get_template("summary.md")?.render(context! {
        c => class,
        counts => counts,
        built => built.len(),
        failed => most_failed(&built, 10),
    })
}

/// The `limit` tests the most built submissions did not pass, most first (ties in test order).
fn most_failed<'a>(built: &[&'a StudentReport], limit: usize) -> Vec<Failed<'a>> {
    let Some(first) = built.first() else { return Vec::new() };
    let mut failed: Vec<Failed<'a>> = first
        .parts
        .iter()
        .flat_map(|p| &p.tests)
        .map(|test| Failed {
            id: &test.id,
            visible: test.visible,
            failed: built
                .iter()
                .flat_map(|s| s.parts.iter().flat_map(|p| &p.tests))
                .filter(|t| t.id == test.id && t.verdict != Verdict::Accepted)
                .count(),
        })
        .filter(|f| f.failed > 0)
        .collect();
    failed.sort_by_key(|f| std::cmp::Reverse(f.failed));
    failed.truncate(limit);
    failed
}

/// The gradebook: a header `student,<part ids...>,total`, then one row per student, every
/// figure in the one format of marks (`9.63`).
pub fn grades_csv(class: &ClassReport) -> String {
    let mut out = String::from("student");
    for id in &class.part_ids {
        out.push(',');
        out.push_str(&csv_field(id));
    }
    out.push_str(",total\n");
    for student in &class.students {
        out.push_str(&csv_field(&student.student));
        for part in &student.parts {
            out.push_str(&format!(",{}", score::format(part.score)));
        }
        out.push_str(&format!(",{}\n", score::format(student.score)));
    }
    out
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}
