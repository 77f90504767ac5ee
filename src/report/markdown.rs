//! Markdown: [`StudentReport`] / [`ClassReport`] → text, through the minijinja templates in
//! `report-templates/` (compiled into the binary), and [`ClassReport`] → `grades.csv`.
//!
//! Every figure of marks goes through [`crate::score::format`] (the `marks` filter), so the
//! reports, the CSV and the terminal show one number format. Every text from a student or a
//! suite goes through a filter of [`text`]'s markdown building blocks for the place it lands
//! in (`code`, `cell_code`, `cell`, `prose`, `fence`, `student_link`), so that none of it is live.

use std::collections::BTreeMap;

use minijinja::{context, Environment, Value};
use serde::Serialize;

use crate::build::BuildVerdict;
use crate::results::model::{ClassReport, StudentReport};
use crate::results::text;
use crate::score;
use crate::suite::LeftOut;
use crate::verdict::Verdict;

const STUDENT_TEMPLATE: &str = include_str!("../../report-templates/student.md.j2");
const SUMMARY_TEMPLATE: &str = include_str!("../../report-templates/summary.md.j2");

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.add_filter("marks", |marks: f64| score::format(marks));
    // Every text a report does not write itself goes through one of these, for the place it
    // lands in (see `text`): a student's name, output and build log, and a suite's texts.
    env.add_filter("code", |value: String| text::code_span(&value));
    env.add_filter("cell_code", |value: String| text::table_code_span(&value));
    env.add_filter("cell", |value: String| text::table_cell(&value));
    env.add_filter("prose", |value: String| text::prose(&value));
    env.add_filter("fence", |value: String, info: String| text::fence(&value, &info));
    env.add_filter("student_link", |student: String| super::student_link(&student));
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
        groups => report.parts.iter().map(|part| (part.id.as_str(), part.groups())).collect::<BTreeMap<_, _>>(),
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

/// What the summary says of the LMS round trip ([`super::roster::LmsNotes`]): who handed in
/// late, and, with a roster, who on it handed nothing in, who has no marks yet, and which
/// submissions are no one's on it. Empty when there is nothing to say.
pub fn lms_sections(notes: &super::roster::LmsNotes) -> String {
    let mut out = String::new();
    let late: Vec<String> = notes.late.iter().map(|student| format!("- {}\n", text::prose(student))).collect();
    if !late.is_empty() {
        out.push_str(&format!("\n## Handed in late (as the LMS says)\n\n{}", late.concat()));
    }
    let Some(roster) = &notes.roster else { return out };
    let lines = |notes: &[super::roster::RosterNote]| -> String {
        let line = |n: &super::roster::RosterNote| {
            format!("- {} ({}): {}\n", text::prose(&n.student), text::prose(&n.id), text::prose(&n.what))
        };
        notes.iter().map(line).collect()
    };
    out.push_str(&format!(
        "\n## Roster\n\n{} of the {} on the roster ({}) handed in.\n",
        roster.handed_in,
        text::count(roster.on_roster, "student"),
        text::prose(&roster.path)
    ));
    if !roster.absent.is_empty() {
        out.push_str(&format!("\n### On the roster, nothing handed in\n\n{}", lines(&roster.absent)));
    }
    if !roster.blank.is_empty() {
        out.push_str(&format!("\n### On the roster, handed in, no marks yet\n\n{}", lines(&roster.blank)));
    }
    if !roster.not_on_roster.is_empty() {
        let strangers: Vec<String> = roster
            .not_on_roster
            .iter()
            .map(|student| format!("- {}: not in canvas.csv; enter its marks by hand\n", text::prose(student)))
            .collect();
        out.push_str(&format!("\n### Handed in, not on the roster\n\n{}", strangers.concat()));
    }
    out
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

/// The gradebook: a header `student,<part ids...>,total`, then one row per submission in name
/// order, every figure in the one format of marks (`9.63`). A submission whose marks do not
/// stand (marking stopped before it, or the harness could not judge a test) has no figure: its
/// parts are blank and its total says why (`not marked`, `not judged (harness error)`).
pub fn grades_csv(class: &ClassReport) -> String {
    let mut out = String::from("student");
    for id in &class.part_ids {
        out.push(',');
        out.push_str(&csv_field(id));
    }
    out.push_str(",total\n");
    for standing in class.standings() {
        out.push_str(&csv_field(standing.student()));
        match standing.marks() {
            Some(report) => {
                for part in &report.parts {
                    out.push_str(&format!(",{}", score::format(part.score)));
                }
                out.push_str(&format!(",{}\n", score::format(report.score)));
            }
            // No figure, never a 0: the parts blank, the total says why.
            None => out.push_str(&format!("{},{}\n", ",".repeat(class.part_ids.len()), standing.label())),
        }
    }
    out
}

/// Quotes a CSV field when it needs it (RFC 4180). A text a spreadsheet would take for a
/// formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return: a student named
/// `=HYPERLINK(…)`) gets a `'` in front, OWASP's rule, so that it is shown, never evaluated;
/// a format control (a direction override) is shown as `\u{…}`.
/// The marks are numbers written by bhgrade and never pass through here.
pub fn csv_field(field: &str) -> String {
    // Shown, not obeyed: a direction override would reverse what a plain-text reader sees.
    let field = text::format_controls_shown(field);
    let field =
        if field.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{field}") } else { field.to_string() };
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::{ClassHeader, HarnessProblem, ProblemKind, Unmarked};
    use pulldown_cmark::{Event, Options, Parser, Tag};

    /// Everything markdown, HTML or a terminal would act on, in one text.
    const HOSTILE: &str =
        "```\n# Heading\n<script>alert(1)</script>\n| a | b |\n\x1b[31m ![i](j) [x](y) *e* ~~s~~ `t` <b>&amp; - 1. \\";

    /// A report whose every text that does not come from bhgrade itself is `text`.
    fn report(text: &str) -> StudentReport {
        let test = serde_json::json!({
            "id": text, "kind": text, "instance": text, "instance_label": "Puzzle", "visible": true,
            "verdict": "wrong_answer", "verdict_label": "wrong answer", "explanation": format!("it printed `{text}`"),
            "wall_ms": 1, "cpu_ms": 1, "peak_rss_kb": 1024, "score": 0.0, "max_score": 1.0, "command": text,
            "reproduce": text, "instance_text": text, "ran": true, "expected": text,
            "expected_detail": format!("{text}!"), "input": text, "first_line": text, "stderr_tail": text,
            "diff": text
        });
        let environment = serde_json::json!({
            "bhgrade_version": "0", "machine": text, "cores": 2, "load_average": "0", "jobs": 1,
            "cores_per_run": 1, "marked_at": "now", "limits": text, "launch_env": text, "isolation": []
        });
        serde_json::from_value(serde_json::json!({
            "student": text, "suite": text, "suite_title": text, "score": 0.0, "max_score": 1.0,
            "build": { "verdict": "build_failed", "detail": text, "log_tail": text, "wall_ms": 1 },
            "parts": [{ "id": text, "title": text, "score": 0.0, "max_score": 1.0, "passed": 0, "tests": [test] }],
            "check_table": [{ "task": text, "done": text }], "environment": environment
        }))
        .expect("a student report")
    }

    fn class(text: &str) -> ClassReport {
        let student = report(text);
        let header = ClassHeader {
            suite: text.into(),
            suite_title: text.into(),
            suite_digest: String::new(),
            part_ids: vec![text.into()],
            max_score: 1.0,
        };
        let problems = vec![HarnessProblem::new(text, ProblemKind::NotPrepared, text)];
        let environment = student.environment.clone();
        let unmarked = vec![Unmarked { student: text.into(), lms: None }];
        let mut class = ClassReport::new(header, vec![student], environment, problems, unmarked);
        class.distrusted_results = vec![text.into()];
        class
    }

    /// The markdown's structure: every element but its text and code, and links without where
    /// they point.
    fn skeleton(markdown: &str) -> Vec<String> {
        Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH)
            .filter(|e| !matches!(e, Event::Text(_) | Event::Code(_)))
            .map(|e| match e {
                Event::Start(Tag::Link { .. }) => "a link".to_string(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// What the markdown shows as text and code.
    fn shown(markdown: &str) -> String {
        let mut out = String::new();
        for event in Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
            if let Event::Text(t) | Event::Code(t) = event {
                out.push_str(&t);
            }
        }
        out
    }

    /// A class of three: `marked` (its marks stand), `broken` (a test the harness could not
    /// judge) and `stopped` (marking was stopped before it).
    fn class_of_three() -> ClassReport {
        let mut marked = report("marked");
        marked.score = 0.5;
        marked.parts[0].score = 0.5;
        let mut broken = report("broken");
        broken.parts[0].tests[0].verdict = crate::verdict::Verdict::HarnessError;
        let header = ClassHeader {
            suite: "s".into(),
            suite_title: "S".into(),
            suite_digest: String::new(),
            part_ids: vec!["p1".into(), "p2".into()],
            max_score: 1.0,
        };
        let environment = marked.environment.clone();
        marked.parts.push(marked.parts[0].clone());
        let stopped = vec![Unmarked { student: "stopped".into(), lms: None }];
        ClassReport::new(header, vec![marked, broken], environment, Vec::new(), stopped)
    }

    #[test]
    fn a_gradebook_lists_every_submission_and_gives_marks_only_where_they_stand() {
        let class = class_of_three();
        assert_eq!(
            grades_csv(&class),
            "student,p1,p2,total\nbroken,,,not judged (harness error)\nmarked,0.50,0.50,0.50\nstopped,,,not marked\n"
        );
        let canvas = crate::report::export::canvas::gradebook(&class, None);
        let rows: Vec<&str> = canvas.lines().skip(2).collect();
        assert_eq!(rows, ["broken,,,broken,,", "marked,,,marked,,0.50", "stopped,,,stopped,,"], "{canvas}");
        // Gradescope has no blank: a submission not judged gets no results file at all.
        let gradescope = |student: usize| crate::report::export::gradescope::to_json(&class.students[student]);
        assert!(gradescope(0).is_none() && gradescope(1).is_some(), "broken has none, marked has one");
    }

    #[test]
    fn hostile_text_leaves_every_report_as_it_is_for_plain_text() {
        type Render = fn(&str) -> String;
        let renders: [(&str, Render); 3] = [
            ("student", |t| student(&report(t), None).expect("renders")),
            ("feedback", |t| crate::report::feedback::student(&report(t), None).expect("renders")),
            ("summary", |t| summary(&class(t)).expect("renders")),
        ];
        for (name, render) in renders {
            let (plain, hostile) = (render("plain"), render(HOSTILE));
            assert_eq!(skeleton(&hostile), skeleton(&plain), "{name}:\n{hostile}");
            assert!(!hostile.contains('\x1b'), "{name}: a raw escape byte:\n{hostile}");
            // Shown, not dropped: as printed in fences (the summary has none), as text elsewhere.
            let text = shown(&hostile);
            let printed = "```\n# Heading\n<script>alert(1)</script>\n| a | b |\n\\x1b[31m";
            assert!(name == "summary" || text.contains(printed), "{name}: {text}");
            assert!(text.contains("# Heading↵<script>alert(1)</script>↵| a | b |↵\\x1b[31m ![i](j)"), "{name}: {text}");
        }
    }

    #[test]
    fn a_student_link_points_at_their_report() {
        let markdown = summary(&class("a b(c)<d>%")).expect("renders");
        assert!(markdown.contains("| [a b(c)\\<d>%](students/a%20b%28c%29%3Cd%3E%25.md) |"), "{markdown}");
    }
}
