//! JUnit XML: a [`ClassReport`] → the `<testsuites>` file CI servers and test dashboards read
//! (Jenkins, GitLab, GitHub test reporters). One `<testsuite>` per student and part, named
//! `STUDENT.PART`; one `<testcase>` per test, named by its id, with its CPU time. An accepted
//! test passes; a harness error is an `<error>` (not the student's fault); a test not run is
//! `<skipped>`; every other verdict is a `<failure>` whose text is the test's output.
//!
//! This is the marker's file: every test in full, hidden ones too.

use super::test_output;
use crate::report::model::{ClassReport, PartReport, TestReport};
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

/// Counts of a set of tests: (tests, failures, errors, skipped, seconds).
fn counts<'a>(tests: impl Iterator<Item = &'a TestReport>) -> (usize, usize, usize, usize, f64) {
    tests.fold((0, 0, 0, 0, 0.0), |(n, f, e, s, time), t| {
        let (df, de, ds) = match outcome(t.verdict) {
            Outcome::Passed => (0, 0, 0),
            Outcome::Failure => (1, 0, 0),
            Outcome::Error => (0, 1, 0),
            Outcome::Skipped => (0, 0, 1),
        };
        (n + 1, f + df, e + de, s + ds, time + t.cpu_ms as f64 / 1000.0)
    })
}

/// [`ClassReport`] → JUnit XML.
pub fn xml(class: &ClassReport) -> String {
    let all = class.students.iter().flat_map(|s| s.parts.iter().flat_map(|p| &p.tests));
    let (n, failures, errors, skipped, time) = counts(all);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">\n",
        escape(&class.suite)
    ));
    for student in &class.students {
        for part in &student.parts {
            suite(&mut out, &student.student, part, &class.environment.marked_at);
        }
    }
    out.push_str("</testsuites>\n");
    out
}

/// One student's part as a `<testsuite>`.
fn suite(out: &mut String, student: &str, part: &PartReport, timestamp: &str) {
    let name = escape(&format!("{student}.{}", part.id));
    let (n, failures, errors, skipped, time) = counts(part.tests.iter());
    out.push_str(&format!(
        "  <testsuite name=\"{name}\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\" timestamp=\"{}\">\n",
        escape(timestamp.trim_end_matches('Z'))
    ));
    for test in &part.tests {
        let head = format!(
            "    <testcase name=\"{}\" classname=\"{name}\" time=\"{:.3}\"",
            escape(&test.id),
            test.cpu_ms as f64 / 1000.0
        );
        let message = escape(&test.verdict_label);
        let kind = escape(test.verdict.name());
        let body = escape(&test_output(test));
        match outcome(test.verdict) {
            Outcome::Passed => out.push_str(&format!("{head}/>\n")),
            Outcome::Failure => out.push_str(&format!(
                "{head}>\n      <failure message=\"{message}\" type=\"{kind}\">{body}</failure>\n    </testcase>\n"
            )),
            Outcome::Error => out.push_str(&format!(
                "{head}>\n      <error message=\"{message}\" type=\"{kind}\">{body}</error>\n    </testcase>\n"
            )),
            Outcome::Skipped => out.push_str(&format!(
                "{head}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                escape(&test.explanation)
            )),
        }
    }
    out.push_str("  </testsuite>\n");
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
    use super::escape;

    #[test]
    fn markup_and_forbidden_characters_are_escaped() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;?");
    }
}
