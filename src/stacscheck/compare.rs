//! stacscheck's pass rules: a finished run's exit status and output (+ the `.out` file) →
//! pass, or a [`Failure`] saying why.
//!
//! The comparison of a prog run ([`compare`]) is stacscheck's: stdout with stderr appended
//! after it (byte for byte, so a last stdout line without a newline runs into stderr's first
//! line, as it does in stacscheck), then each line's trailing whitespace stripped (so CRLF
//! equals LF), then every line that is left empty dropped wherever it is, then an exact
//! comparison. "Whitespace" is what Python's `str.rstrip()` strips: ASCII whitespace,
//! `\x1c`–`\x1f` and the Unicode spaces.
//!
//! One deliberate difference: stacscheck decodes the output as UTF-8, replacing invalid bytes
//! with U+FFFD, before comparing, so outputs that differ only in invalid bytes compare equal.
//! Here the bytes themselves are compared, and shown escaped (`\xff`) in the diff.

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, DiffTag};

use crate::results::text::escape_bytes;
use crate::sandbox::Exit;

/// What a script is, from its name's prefix; also the order within a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// `build*.sh`: must exit 0; a failure skips the rest of its folder and everything below.
    Build,
    /// `test*.sh`: passes when it exits 0.
    Test,
    /// `info*.sh`: always passes; its output is for the reader.
    Info,
    /// `prog*.sh`: its stdout then stderr, normalised, must equal a `.out` file, normalised.
    Prog,
}

impl StepKind {
    /// In the order stacscheck runs them within a folder.
    pub const ALL: [StepKind; 4] = [StepKind::Build, StepKind::Test, StepKind::Info, StepKind::Prog];

    /// The name prefix that makes a `.sh` file a script of this kind.
    pub fn prefix(self) -> &'static str {
        match self {
            StepKind::Build => "build",
            StepKind::Test => "test",
            StepKind::Info => "info",
            StepKind::Prog => "prog",
        }
    }

    pub(super) fn of_script(name: &[u8]) -> Option<StepKind> {
        if !name.ends_with(b".sh") {
            return None;
        }
        StepKind::ALL.into_iter().find(|kind| name.starts_with(kind.prefix().as_bytes()))
    }
}

/// Lines of each side that go into a [`Mismatch::diff`]; past this the diff says it stopped.
/// Bounding it keeps the diff cheap (Myers is quadratic at worst) and deterministic.
pub const MAX_DIFF_LINES: usize = 1000;

/// Lines of context around each change in a [`Mismatch::diff`].
const CONTEXT: usize = 3;

/// Why a finished run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A build or test did not exit 0.
    ExitStatus(Exit),
    /// A prog run's output differs from its `.out` file.
    Mismatch(Mismatch),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::ExitStatus(exit) => write!(f, "ended with {}, expected exit status 0", exit.describe()),
            Failure::Mismatch(mismatch) => mismatch.fmt(f),
        }
    }
}

/// How a prog run's normalised output differs from the normalised `.out` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based number, among the normalised lines, of the first line that differs.
    pub line: usize,
    /// That line of the `.out` file, escaped for display; `None` when the expected output has
    /// fewer lines.
    pub expected_line: Option<String>,
    /// That line of the output, escaped; `None` when the output has fewer lines.
    pub actual_line: Option<String>,
    /// A unified diff (`--- expected`, `+++ actual`) of the normalised texts, lines escaped.
    pub diff: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |line: &Option<String>| match line {
            Some(text) => format!("`{text}`"),
            None => "nothing".to_string(),
        };
        write!(
            f,
            "output differs at line {} (blank lines not counted): expected {}, got {}",
            self.line,
            show(&self.expected_line),
            show(&self.actual_line)
        )
    }
}

/// stacscheck's rule for a run that finished: `build*` and `test*` must exit 0, `info*`
/// always passes, `prog*` must match `expected` (ignored for the other kinds) whatever its
/// exit status. Limits (time, memory, output) are the caller's to check first.
pub fn judge(kind: StepKind, exit: Exit, stdout: &[u8], stderr: &[u8], expected: &[u8]) -> Result<(), Failure> {
    match kind {
        StepKind::Build | StepKind::Test if exit.success() => Ok(()),
        StepKind::Build | StepKind::Test => Err(Failure::ExitStatus(exit)),
        StepKind::Info => Ok(()),
        StepKind::Prog => compare(stdout, stderr, expected).map_err(Failure::Mismatch),
    }
}

/// Compares a run's output with the expected output by stacscheck's rule (see the module
/// documentation).
pub fn compare(stdout: &[u8], stderr: &[u8], expected: &[u8]) -> Result<(), Mismatch> {
    let actual = [stdout, stderr].concat();
    let actual = normalise(&actual);
    let expected = normalise(expected);
    let Some(index) = (0..actual.len().max(expected.len())).find(|&i| actual.get(i) != expected.get(i)) else {
        return Ok(());
    };
    Err(Mismatch {
        line: index + 1,
        expected_line: expected.get(index).map(|l| escape_bytes(l)),
        actual_line: actual.get(index).map(|l| escape_bytes(l)),
        diff: unified_diff(&expected, &actual),
    })
}

/// The lines that take part in the comparison: split at `\n`, trailing whitespace stripped,
/// empty lines dropped.
pub fn normalise(text: &[u8]) -> Vec<&[u8]> {
    text.split(|&b| b == b'\n').map(trim_end).filter(|line| !line.is_empty()).collect()
}

/// `line` without what Python's `str.rstrip()` would strip from its decoded text. Invalid
/// bytes are never whitespace (stacscheck's U+FFFD is not either).
fn trim_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 {
        let last = line[end - 1];
        if last.is_ascii() {
            if !(matches!(last, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) || (0x1c..=0x1f).contains(&last)) {
                break;
            }
            end -= 1;
            continue;
        }
        // The last character, if the bytes before `end` end with a complete one.
        let found = (2..=end.min(4)).find_map(|len| {
            let text = std::str::from_utf8(&line[end - len..end]).ok()?;
            let mut chars = text.chars();
            let c = chars.next()?;
            chars.next().is_none().then_some((c, len))
        });
        match found {
            Some((c, len)) if c.is_whitespace() => end -= len,
            Some(_) | None => break,
        }
    }
    &line[..end]
}

/// A unified diff of two lists of lines, at most [`MAX_DIFF_LINES`] of each.
fn unified_diff(expected: &[&[u8]], actual: &[&[u8]]) -> String {
    let old = &expected[..expected.len().min(MAX_DIFF_LINES)];
    let new = &actual[..actual.len().min(MAX_DIFF_LINES)];
    let ops = similar::capture_diff_slices(Algorithm::Myers, old, new);
    let mut out = String::from("--- expected\n+++ actual\n");
    for group in similar::group_diff_ops(ops, CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        out.push_str(&format!("@@ -{} +{} @@\n", hunk_range(&old_range), hunk_range(&new_range)));
        for op in &group {
            render_op(op, old, new, &mut out);
        }
    }
    if old.len() < expected.len() || new.len() < actual.len() {
        out.push_str(&format!("… (only the first {MAX_DIFF_LINES} lines of each side are compared here)\n"));
    }
    out
}

/// `start,count` as unified diffs write it (1-based; an empty range names the line before).
fn hunk_range(range: &std::ops::Range<usize>) -> String {
    match range.len() {
        0 => format!("{},0", range.start),
        1 => format!("{}", range.start + 1),
        n => format!("{},{n}", range.start + 1),
    }
}

fn render_op(op: &DiffOp, old: &[&[u8]], new: &[&[u8]], out: &mut String) {
    let (tag, old_range, new_range) = op.as_tag_tuple();
    let mut lines = |sign: char, lines: &[&[u8]]| {
        for line in lines {
            out.push(sign);
            out.push_str(&escape_bytes(line));
            out.push('\n');
        }
    };
    match tag {
        DiffTag::Equal => lines(' ', &old[old_range]),
        DiffTag::Delete => lines('-', &old[old_range]),
        DiffTag::Insert => lines('+', &new[new_range]),
        DiffTag::Replace => {
            lines('-', &old[old_range]);
            lines('+', &new[new_range]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(stdout: &str, stderr: &str, expected: &str) -> bool {
        compare(stdout.as_bytes(), stderr.as_bytes(), expected.as_bytes()).is_ok()
    }

    #[test]
    fn crlf_trailing_spaces_and_blank_lines_do_not_matter() {
        assert!(same("true\r\n", "", "true\n"));
        assert!(same("true  \t\n", "", "true"));
        assert!(same("\n\n1\n\n   \n0 1\r\n\n", "", "1\n0 1\n"));
        assert!(same("true\u{a0}\u{3000}\x1f\n", "", "true\n"));
        assert!(same("", "", "\n \n"));
    }

    #[test]
    fn everything_else_matters() {
        assert!(!same("true\n", "", "false\n"));
        assert!(!same(" true\n", "", "true\n"), "leading spaces are kept");
        assert!(!same("1 2\n", "", "1  2\n"), "inner spaces are kept");
        assert!(!same("True\n", "", "true\n"));
        assert!(!same("true\ntrue\n", "", "true\n"), "extra lines count");
        assert!(!same("a\rb\n", "", "a\nb\n"), "a lone CR inside a line is not a line break");
    }

    #[test]
    fn stderr_is_appended_after_stdout() {
        assert!(same("true\n", "warning\n", "true\nwarning\n"));
        assert!(!same("true\n", "warning\n", "true\n"), "stderr is part of the compared output");
        assert!(!same("true\n", "warning\n", "warning\ntrue\n"));
        // Appended byte for byte, as stacscheck does: an unfinished last line runs on.
        assert!(same("true", "warning\n", "truewarning\n"));
    }

    #[test]
    fn outputs_differing_only_in_invalid_bytes_differ() {
        let err = compare(b"caf\xff\n", b"", b"caf\xfe\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert_eq!(err.expected_line.as_deref(), Some("caf\\xfe"));
        assert_eq!(err.actual_line.as_deref(), Some("caf\\xff"));
        assert!(err.diff.contains("-caf\\xfe\n+caf\\xff\n"), "{}", err.diff);
        assert!(
            compare(b"caf\xff \r\n", b"", b"caf\xff\n").is_ok(),
            "invalid bytes are not whitespace, but the spaces after them are"
        );
    }

    #[test]
    fn a_mismatch_names_the_first_differing_line_and_shows_a_diff() {
        let err = compare(b"1\n\n2\n3\nX\n5\n", b"", b"1\n2\n3\n4\n5\n").unwrap_err();
        assert_eq!(err.line, 4);
        assert_eq!(err.diff, "--- expected\n+++ actual\n@@ -1,5 +1,5 @@\n 1\n 2\n 3\n-4\n+X\n 5\n");
        assert_eq!(err.to_string(), "output differs at line 4 (blank lines not counted): expected `4`, got `X`");
        let err = compare(b"true\n", b"", b"true\nfalse\n").unwrap_err();
        assert_eq!((err.line, err.actual_line), (2, None));
        assert_eq!(err.diff, "--- expected\n+++ actual\n@@ -1,2 +1 @@\n true\n-false\n");
        let err = compare(b"", b"", b"1\n").unwrap_err();
        assert_eq!(err.diff, "--- expected\n+++ actual\n@@ -1 +0,0 @@\n-1\n");
    }

    #[test]
    fn a_huge_output_gives_a_bounded_diff() {
        let flood = "x\n".repeat(200_000);
        let err = compare(flood.as_bytes(), b"", b"true\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.diff.lines().count() <= MAX_DIFF_LINES + 5);
        assert!(err.diff.ends_with("of each side are compared here)\n"), "{}", &err.diff[err.diff.len() - 200..]);
    }

    #[test]
    fn the_rule_depends_on_the_kind() {
        let fail = Exit::Code(1);
        assert_eq!(judge(StepKind::Build, Exit::Code(0), b"", b"", b""), Ok(()));
        assert_eq!(judge(StepKind::Build, fail, b"", b"", b""), Err(Failure::ExitStatus(fail)));
        assert_eq!(judge(StepKind::Test, Exit::Signal(9), b"", b"", b""), Err(Failure::ExitStatus(Exit::Signal(9))));
        assert_eq!(judge(StepKind::Info, fail, b"", b"", b""), Ok(()));
        assert_eq!(judge(StepKind::Prog, fail, b"1\n", b"", b"1\n"), Ok(()), "a prog's exit status is ignored");
        assert!(matches!(judge(StepKind::Prog, Exit::Code(0), b"0\n", b"", b"1\n"), Err(Failure::Mismatch(_))));
    }
}
