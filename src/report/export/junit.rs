//! JUnit XML: a [`ClassReport`] → the `<testsuites>` file CI servers and test dashboards read
//! (Jenkins, GitLab, GitHub test reporters). One `<testsuite>` per student and part, named
//! `STUDENT.PART`; one `<testcase>` per test, named by its id, with its CPU time. An accepted
//! test passes; a harness error is an `<error>` (not the student's fault); a test not run is
//! `<skipped>`; every other verdict is a `<failure>` whose text is the test's output. A
//! submission that did not build has, per part, one failed case `PART/build` with the build's
//! output instead of its tests.
//!
//! This is the marker's file: every test in full, hidden ones too.

use super::test_output;
use crate::build::BuildVerdict;
use crate::results::model::{BuildSection, ClassReport, PartReport, TestReport};
use crate::verdict::Verdict;

/// How a verdict appears in JUnit.
enum Outcome {
    Passed,
    Failure,
    Error,
    Skipped,
}

fn outcome(verdict: Verdict) -> Outcome {
    match verdict {
        Verdict::Accepted => Outcome::Passed,
        Verdict::HarnessError => Outcome::Error,
        Verdict::NotRun => Outcome::Skipped,
        Verdict::TimeLimit
        | Verdict::MemoryLimit
        | Verdict::RuntimeError
        | Verdict::OutputLimit
        | Verdict::NoOutput
        | Verdict::FormatError
        | Verdict::WrongAnswer
        | Verdict::GaveUp => Outcome::Failure,
    }
}

/// One `<testcase>`: its name, CPU seconds, outcome, and the outcome's message, type and text.
struct Case {
    name: String,
    seconds: f64,
    outcome: Outcome,
    message: String,
    kind: String,
    text: String,
}

impl Case {
    fn of_test(part: &PartReport, test: &TestReport) -> Case {
        let outcome = outcome(test.verdict);
        let message = match outcome {
            Outcome::Skipped => test.explanation.clone(),
            Outcome::Passed | Outcome::Failure | Outcome::Error => test.verdict_label.clone(),
        };
        Case {
            name: test.id.clone(),
            seconds: test.cpu_ms as f64 / 1000.0,
            outcome,
            message,
            kind: test.verdict.name().to_string(),
            text: test_output(part, test),
        }
    }

    /// A part of a submission that did not build: one failed case saying why, with the build's
    /// output, rather than a row of skipped tests a dashboard would show as green.
    fn of_failed_build(build: &BuildSection, part: &PartReport) -> Case {
        Case {
            name: format!("{}/build", part.id),
            seconds: build.wall_ms as f64 / 1000.0,
            outcome: Outcome::Failure,
            message: format!("{}: none of the part's {} tests could run", build.verdict.label(), part.tests.len()),
            kind: build.verdict.name().to_string(),
            text: build.explained(),
        }
    }
}

/// What a `<testsuite>` or `<testsuites>` counts: tests, failures, errors, skipped, seconds.
#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    seconds: f64,
}

impl Counts {
    fn add(&mut self, case: &Case) {
        self.tests += 1;
        self.seconds += case.seconds;
        match case.outcome {
            Outcome::Passed => {}
            Outcome::Failure => self.failures += 1,
            Outcome::Error => self.errors += 1,
            Outcome::Skipped => self.skipped += 1,
        }
    }

    fn sum(&mut self, other: &Counts) {
        self.tests += other.tests;
        self.failures += other.failures;
        self.errors += other.errors;
        self.skipped += other.skipped;
        self.seconds += other.seconds;
    }
}

/// [`ClassReport`] → JUnit XML. `<testsuites>` carries only what the Jenkins JUnit schema
/// (`junit-10.xsd`) allows there: name, time, tests, failures, errors.
pub fn xml(class: &ClassReport) -> String {
    let mut body = String::new();
    let mut total = Counts::default();
    for student in &class.students {
        for part in &student.parts {
            let build_failed = match student.build.verdict {
                BuildVerdict::Ok => false,
                BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => true,
            };
            // A submission the harness could not prepare has no build of its own to blame: its
            // tests are harness errors, shown as such.
            let harness_failed = part.tests.iter().any(|test| test.verdict == Verdict::HarnessError);
            let cases: Vec<Case> = match build_failed && !harness_failed {
                true => vec![Case::of_failed_build(&student.build, part)],
                false => part.tests.iter().map(|test| Case::of_test(part, test)).collect(),
            };
            total.sum(&suite(
                &mut body,
                &format!("{}.{}", student.student, part.id),
                &cases,
                &class.environment.marked_at,
            ));
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">\n",
        escape(&class.suite),
        total.tests,
        total.failures,
        total.errors,
        total.seconds
    ));
    out.push_str(&body);
    out.push_str("</testsuites>\n");
    out
}

/// One student's part as a `<testsuite>` of `cases`; returns its counts.
fn suite(out: &mut String, name: &str, cases: &[Case], timestamp: &str) -> Counts {
    let name = escape(name);
    let mut counts = Counts::default();
    cases.iter().for_each(|case| counts.add(case));
    out.push_str(&format!(
        "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\" timestamp=\"{}\">\n",
        counts.tests,
        counts.failures,
        counts.errors,
        counts.skipped,
        counts.seconds,
        escape(timestamp.trim_end_matches('Z'))
    ));
    for case in cases {
        let head =
            format!("    <testcase name=\"{}\" classname=\"{name}\" time=\"{:.3}\"", escape(&case.name), case.seconds);
        let (message, kind, text) = (escape(&case.message), escape(&case.kind), escape(&case.text));
        match case.outcome {
            Outcome::Passed => out.push_str(&format!("{head}/>\n")),
            Outcome::Failure => out.push_str(&format!(
                "{head}>\n      <failure message=\"{message}\" type=\"{kind}\">{text}</failure>\n    </testcase>\n"
            )),
            Outcome::Error => out.push_str(&format!(
                "{head}>\n      <error message=\"{message}\" type=\"{kind}\">{text}</error>\n    </testcase>\n"
            )),
            Outcome::Skipped => {
                out.push_str(&format!("{head}>\n      <skipped message=\"{message}\"/>\n    </testcase>\n"))
            }
        }
    }
    out.push_str("  </testsuite>\n");
    counts
}

/// Text → XML character data or an attribute value: markup escaped, and every character XML 1.0
/// does not allow (most control characters, unpaired surrogates' stand-ins) replaced by `?`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_forbidden_characters_are_escaped() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;?");
    }

    /// A class of one student whose build section and tests' verdicts are given.
    fn class_of(build: &str, verdicts: &[&str]) -> ClassReport {
        let tests: Vec<serde_json::Value> = verdicts
            .iter()
            .enumerate()
            .map(|(i, verdict)| {
                serde_json::json!({
                    "id": format!("p/t{i}"), "kind": "check", "instance": "", "verdict": verdict,
                    "verdict_label": verdict, "explanation": "", "wall_ms": 0, "cpu_ms": 0, "peak_rss_kb": 0,
                    "score": 0.0, "max_score": 1.0, "command": "", "expected": "", "expected_detail": "",
                    "input": null, "first_line": "", "stderr_tail": ""
                })
            })
            .collect();
        let environment = serde_json::json!({
            "bhgrade_version": "0", "machine": "m", "cores": 2, "load_average": "0", "jobs": 1,
            "cores_per_run": 1, "marked_at": "now", "limits": "", "launch_env": "", "isolation": []
        });
        let student = serde_json::json!({
            "student": "s", "suite": "t", "suite_title": "T", "score": 0.0, "max_score": 1.0,
            "build": {"verdict": build, "detail": "javac said no", "log_tail": "X.java:1: error: ';' expected", "wall_ms": 5},
            "parts": [{"id": "p", "title": "P", "score": 0.0, "max_score": 1.0, "passed": 0, "tests": tests}],
            "check_table": [], "environment": environment
        });
        serde_json::from_value(serde_json::json!({
            "suite": "t", "suite_title": "T", "part_ids": ["p"], "max_score": 1.0, "students": [student],
            "environment": environment, "harness_problems": [], "incomplete": []
        }))
        .unwrap()
    }

    #[test]
    fn a_failed_build_is_one_failure_with_the_compilers_words_and_a_harness_failure_is_errors() {
        let failed = xml(&class_of("build_failed", &["not_run", "not_run", "not_run"]));
        assert_eq!(failed.matches("<testcase ").count(), 1, "{failed}");
        assert!(failed.contains("<testcase name=\"p/build\"") && failed.contains("error: &apos;;&apos; expected"));
        assert!(!failed.contains("<skipped"), "{failed}");
        let unprepared = xml(&class_of("build_failed", &["harness_error", "harness_error"]));
        assert_eq!(
            unprepared.matches("<error ").count(),
            2,
            "the harness's failure is never the student's: {unprepared}"
        );
        assert!(!unprepared.contains("<failure"), "{unprepared}");
    }
}
