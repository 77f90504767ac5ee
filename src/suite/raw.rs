//! The suite file as the author wrote it: `suite.yaml` text → [`RawSuite`].
//!
//! This is the only place that knows the YAML crate. Strict booleans (`yes`/`on` are not
//! booleans) and unknown keys rejected, each error with its line and column.

use serde::Deserialize;
use serde_saphyr::Spanned;

/// A position in the suite file, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u64,
    pub column: u64,
}

/// A value and where it was written.
#[derive(Clone, Debug)]
pub struct At<T> {
    pub value: T,
    pub pos: Pos,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for At<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<T>::deserialize(deserializer)?;
        let pos = Pos { line: spanned.referenced.line(), column: spanned.referenced.column() };
        Ok(At { value: spanned.value, pos })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSuite {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    pub game: At<String>,
    #[serde(default)]
    pub srcdir: Option<String>,
    #[serde(default)]
    pub build: RawBuild,
    pub launch: At<RawLaunch>,
    #[serde(default)]
    pub limits: RawLimits,
    #[serde(default)]
    pub gave_up_credit: Option<At<f64>>,
    /// The most (a fraction of the suite's marks) a program that never reads its input may
    /// earn (`bhgrade regen --check`'s floor check); 0.05 unless given.
    #[serde(default)]
    pub trivial_ceiling: Option<At<f64>>,
    pub parts: Vec<RawPart>,
}

/// `launch: [java, BHMain]`, or a section with the command and the settings it runs with.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RawLaunch {
    Command(Vec<String>),
    Section(RawLaunchSection),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLaunchSection {
    pub command: Vec<String>,
    #[serde(default)]
    pub env: Vec<RawVariable>,
    #[serde(default)]
    pub memory_overhead_mb: Option<At<u64>>,
    #[serde(default)]
    pub stderr_noise: Vec<String>,
}

/// One variable of the launch environment; `value` may hold `{memory_mb}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    pub name: At<String>,
    pub value: At<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuild {
    #[serde(default)]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub script: Option<String>,
    #[serde(default)]
    pub limits: RawLimits,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    #[serde(default)]
    pub wall_seconds: Option<At<f64>>,
    #[serde(default)]
    pub cpu_seconds: Option<At<f64>>,
    #[serde(default)]
    pub memory_mb: Option<At<u64>>,
    #[serde(default)]
    pub output_kb: Option<At<u64>>,
}

impl RawLimits {
    /// These limits where given, else `outer`'s (a test's over its part's over the suite's).
    pub fn over(&self, outer: &RawLimits) -> RawLimits {
        RawLimits {
            wall_seconds: self.wall_seconds.clone().or_else(|| outer.wall_seconds.clone()),
            cpu_seconds: self.cpu_seconds.clone().or_else(|| outer.cpu_seconds.clone()),
            memory_mb: self.memory_mb.clone().or_else(|| outer.memory_mb.clone()),
            output_kb: self.output_kb.clone().or_else(|| outer.output_kb.clone()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPart {
    pub id: At<String>,
    #[serde(default)]
    pub title: Option<String>,
    pub weight: At<f64>,
    #[serde(default)]
    pub visible: Option<bool>,
    #[serde(default)]
    pub limits: RawLimits,
    /// How the tests of a group earn its marks: `minimum` (the default) or `all-or-nothing`.
    #[serde(default)]
    pub group_scoring: Option<At<String>>,
    /// For the part's tests (a test's own overrides it): how an accepted answer's quality
    /// becomes credit.
    #[serde(default)]
    pub quality: Option<At<RawQuality>>,
    pub tests: Vec<RawTest>,
    /// In a student's copy of a suite (`bhgrade suite export --student`): how many of the
    /// part's tests were left out and what they are worth, so that the tests kept are worth
    /// what they are worth in the whole suite.
    #[serde(default)]
    pub withheld: Option<At<RawWithheld>>,
}

/// `quality: { floor_at: 2, floor: 0.1 }`: full credit at the best, falling in a straight line to
/// `floor` (default 0) at `floor_at` times the best.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawQuality {
    pub floor_at: f64,
    #[serde(default)]
    pub floor: f64,
}

/// The hidden tests a student's copy of a part leaves out: only their number and marks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWithheld {
    pub tests: u64,
    pub marks: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTest {
    pub id: At<String>,
    pub kind: At<String>,
    pub puzzle: At<String>,
    #[serde(default)]
    pub solution: Option<At<String>>,
    #[serde(default)]
    pub derive: Option<At<String>>,
    #[serde(default)]
    pub weight: Option<At<f64>>,
    #[serde(default)]
    pub visible: Option<bool>,
    /// The test's group in its part: the tests of a group earn its marks together (see the
    /// part's `group_scoring`); a test without one is a group of its own.
    #[serde(default)]
    pub group: Option<At<String>>,
    /// How an accepted answer's quality becomes credit (its game measures it against the
    /// proven best); without it every accepted answer earns the test's marks.
    #[serde(default)]
    pub quality: Option<At<RawQuality>>,
    #[serde(default)]
    pub limits: RawLimits,
    #[serde(default)]
    pub note: Option<String>,
    /// The name a hidden test is shown by in feedback (else a neutral `PART hidden N`).
    #[serde(default)]
    pub public_name: Option<String>,
    /// How the program gets the puzzle: `file` (its path as the last argument, the default),
    /// `stdin` (no argument, the text on standard input) or `dash` (`-`, the text on standard
    /// input).
    #[serde(default)]
    pub puzzle_via: Option<At<String>>,
}

/// A YAML error with its position, as the YAML crate reports it.
#[derive(Debug)]
pub struct YamlError {
    pub pos: Option<Pos>,
    pub message: String,
}

/// Parses suite text: strict booleans, unknown keys rejected.
pub fn parse(text: &str) -> Result<RawSuite, YamlError> {
    let options = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options(text, options).map_err(|error| {
        let pos = error.location().map(|loc| Pos { line: loc.line(), column: loc.column() });
        let message = without_position(&error.to_string());
        let message = unknown_key(&message).unwrap_or_else(|| with_key(text, pos, message));
        YamlError { pos, message }
    })
}

/// A message about a value (`invalid floating point`) with the key it was given for: the key
/// just before the value the error points at (`wall_seconds: three`, or `{ cpu_seconds: three }`
/// within a line), so that it says which setting is wrong.
fn with_key(text: &str, pos: Option<Pos>, message: String) -> String {
    let keyed = pos.and_then(|pos| {
        let line = text.lines().nth(usize::try_from(pos.line.checked_sub(1)?).ok()?)?;
        let at = usize::try_from(pos.column.checked_sub(1)?).ok().filter(|&at| line.is_char_boundary(at))?;
        let before = line[..at].trim_end().strip_suffix(':')?;
        let key = before.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().filter(|k| !k.is_empty())?;
        let value = line[at..].split([',', '}', '#']).next().unwrap_or_default().trim();
        Some((key, value))
    });
    match (keyed, message.as_str()) {
        (Some((key, value)), "invalid floating point" | "invalid integer") => {
            format!("`{key}` must be a number, not `{value}`")
        }
        (Some((key, _)), _) => format!("`{key}`: {message}"),
        (None, _) => message,
    }
}

/// serde's "unknown field `wieght`, expected one of id, title, weight, …" (or "expected `a` or
/// `b`") as "unknown key `wieght`; did you mean `weight`?", and the keys allowed there.
fn unknown_key(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (field, expected) = rest.split_once("`, expected ")?;
    let expected = expected.strip_prefix("one of ").unwrap_or(expected);
    let expected: Vec<&str> = expected
        .split(", ")
        .flat_map(|item| item.split(" or "))
        .map(|key| key.trim().trim_matches('`'))
        .filter(|key| !key.is_empty())
        .collect();
    let known = expected.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(", ");
    Some(match closest(field, &expected) {
        Some(guess) => format!("unknown key `{field}`; did you mean `{guess}`? (expected one of: {known})"),
        None => format!("unknown key `{field}`; expected one of: {known}"),
    })
}

/// The known word a misspelt one most likely meant: at most a third of its letters off.
fn closest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let word = word.to_lowercase();
    known
        .iter()
        .map(|candidate| (edit_distance(&word, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= candidate.chars().count().div_ceil(3))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance with a swap of two neighbours counted as one edit (`wieght`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let substitution = rows[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = substitution.min(rows[i - 1][j] + 1).min(rows[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// The YAML crate's message without what the harness prints itself: its `error: ` and
/// `line L column C: ` prefixes and any source snippet after the first line.
fn without_position(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default().trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let after_position = first
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(" column "))
        .and_then(|(line, rest)| rest.split_once(": ").map(|(column, message)| (line, column, message)))
        .filter(|(line, column, _)| {
            [line, column].iter().all(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|(_, _, message)| message);
    after_position.unwrap_or(first).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_key_is_guessed() {
        let keys = ["id", "title", "weight", "visible", "limits", "tests"];
        assert_eq!(closest("wieght", &keys), Some("weight"));
        assert_eq!(closest("Visable", &keys), Some("visible"));
        assert_eq!(closest("test", &keys), Some("tests"));
        assert_eq!(closest("colour", &keys), None);
        assert_eq!(closest("x", &keys), None);
    }

    #[test]
    fn serde_messages_for_unknown_keys_are_read() {
        let one_of = unknown_key("unknown field `wieght`, expected one of id, title, weight").unwrap();
        assert_eq!(one_of, "unknown key `wieght`; did you mean `weight`? (expected one of: `id`, `title`, `weight`)");
        let two = unknown_key("unknown field `nmae`, expected `name` or `value`").unwrap();
        assert!(two.contains("did you mean `name`?"), "{two}");
        assert_eq!(unknown_key("invalid boolean"), None);
    }

    #[test]
    fn the_position_is_not_repeated() {
        assert_eq!(without_position("error: line 49 column 14: invalid boolean"), "invalid boolean");
        assert_eq!(without_position("line 3 column 1: a: b\n  | snippet"), "a: b");
        assert_eq!(without_position("error: line of sight: x"), "line of sight: x");
        assert_eq!(without_position("invalid floating point"), "invalid floating point");
    }

    #[test]
    fn a_value_of_the_wrong_type_is_named_by_its_key() {
        let text = "name: s\ngame: g\nlaunch: [java, M]\nlimits:\n  wall_seconds: three\nparts: []\n";
        let error = parse(text).unwrap_err();
        assert_eq!(error.pos.map(|pos| pos.line), Some(5));
        assert_eq!(error.message, "`wall_seconds` must be a number, not `three`");
        let inline = "name: s\ngame: g\nlaunch: [java, M]\nlimits: { memory_mb: 64, cpu_seconds: ten }\nparts: []\n";
        assert_eq!(parse(inline).unwrap_err().message, "`cpu_seconds` must be a number, not `ten`");
    }

    #[test]
    fn an_unknown_key_in_a_part_is_named_with_a_guess() {
        let text = "name: s\ngame: g\nlaunch: [java, M]\nparts:\n  - id: p\n    wieght: 3\n    tests: []\n";
        let error = parse(text).unwrap_err();
        assert_eq!(error.pos, Some(Pos { line: 6, column: 5 }));
        assert!(error.message.starts_with("unknown key `wieght`; did you mean `weight`?"), "{}", error.message);
        assert!(!error.message.contains("line 6"), "{}", error.message);
    }
}
