//! Markdown: [`StudentReport`] / [`ClassReport`] → text, through the minijinja templates in
//! `report-templates/` (compiled into the binary), and [`ClassReport`] → `grades.csv`.

use std::collections::BTreeMap;

use minijinja::{context, Environment};

use super::model::{ClassReport, StudentReport};

const STUDENT_TEMPLATE: &str = include_str!("../../report-templates/student.md.j2");
const SUMMARY_TEMPLATE: &str = include_str!("../../report-templates/summary.md.j2");

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.add_template("student.md", STUDENT_TEMPLATE).expect("the bundled student template parses");
    env.add_template("summary.md", SUMMARY_TEMPLATE).expect("the bundled summary template parses");
    env
}

/// A student's markdown report.
pub fn student(report: &StudentReport) -> Result<String, minijinja::Error> {
    environment().get_template("student.md")?.render(context! { r => report })
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
    environment().get_template("summary.md")?.render(context! { c => class, counts => counts })
}

/// The gradebook: a header `student,<part ids...>,total`, then one row per student.
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
            out.push_str(&format!(",{}", part.score));
        }
        out.push_str(&format!(",{}\n", student.score));
    }
    out
}

/// Quotes a CSV field when it needs it (RFC 4180).
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}
