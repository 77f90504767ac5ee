//! The small, game-agnostic interface through which the harness grades and a suite is authored:
//! what commands a game's tests run, what the reference answers, how a program's first line of
//! output is judged, and the game's share of writing a suite.
//!
//! Input: a test's kind (a suite's `kind:` word), the instance file's text and the candidate input
//! fed to the program (for check kinds). Output: the reference's [`Expected`] answer, or a
//! [`Judgement`] of a program's first output line. For authoring: a derive rule's name → a
//! candidate solution's text (or a [`DeriveError`]); an instance file's name → the
//! [`GeneratedInstance`] the game's `GEN` prints for it; [`PartTally`]s → the handout's check
//! table as [`CheckTableRow`]s. Everything specific to a game lives behind [`Referee`]; the games
//! themselves are listed in [`crate::games`].

use std::fmt;

/// How the harness runs one kind of test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskSpec {
    /// The command word given to the program before the instance path, e.g. `CHECK`.
    pub command: &'static str,
    /// Whether the test's candidate input is fed to the program on standard input.
    pub reads_input: bool,
}

/// An instance file as the harness read it: a name for messages (its path) and its text.
#[derive(Clone, Copy, Debug)]
pub struct Instance<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// The reference's answer for one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The status token a correct program prints first: `true`/`false` or `1`/`0`.
    pub answer: String,
    /// A one-line note on how the reference knows, e.g. its own solution or the checker's finding.
    pub detail: String,
    /// Search nodes the reference needed (0 for checks): the test's hardness.
    pub nodes: u64,
    /// Microseconds the reference needed.
    pub micros: u64,
}

/// How a program's first line of output is judged against the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    Accepted,
    /// A well-formed answer that is wrong, with the explanation shown to the student.
    WrongAnswer {
        explanation: String,
    },
    /// The first line is not an answer of the required form at all.
    FormatError {
        explanation: String,
    },
    /// The program said it could not decide (`-1`): neither right nor wrong.
    GaveUp,
}

/// Why the reference could not give an answer for a test: always the suite's or the reference's
/// problem, never the student's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefereeError {
    /// The suite names a kind this game does not have.
    UnknownKind { kind: String, known: Vec<&'static str> },
    /// The instance is not a valid puzzle; the message names file, line and column.
    InvalidInstance { message: String },
    /// The reference ran out of its budget before deciding the instance.
    Undecided { reason: String },
    /// The answer would turn on a point the rulings leave open (e.g. input after a win).
    Ambiguous { reason: String },
    /// A suite asks for the quality of answers of a kind this game does not measure.
    NoMeasure { kind: String },
}

impl fmt::Display for RefereeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefereeError::UnknownKind { kind, known } => {
                write!(f, "unknown test kind `{kind}`; expected one of: {}", known.join(", "))
            }
            RefereeError::InvalidInstance { message } => write!(f, "invalid instance: {message}"),
            RefereeError::Undecided { reason } => write!(f, "the reference could not decide: {reason}"),
            RefereeError::Ambiguous { reason } => write!(f, "ambiguous test: {reason}"),
            RefereeError::NoMeasure { kind } => {
                write!(f, "this game does not measure the quality of `{kind}` answers, so it cannot credit it")
            }
        }
    }
}

impl std::error::Error for RefereeError {}

/// Why a derive rule could not make a candidate solution: always the suite's problem, never the
/// student's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeriveError {
    /// The game has no rule of this name.
    UnknownRule { rule: String, known: Vec<&'static str> },
    /// The rule cannot make a candidate for a test of `kind`; `why` says what it needs, phrased
    /// to be followed by ", not KIND" (e.g. "makes an illegal worm-hole move and needs a
    /// `checkworm` test").
    WrongKind { rule: String, kind: String, why: String },
    /// The instance does not parse; the message names file, line and column.
    InvalidInstance { message: String },
    /// The reference found no solution to start from: `game` names the variant played (e.g.
    /// "Black Hole"), `outcome` what the solver did (e.g. "proved it unsolvable").
    NoSolution { game: String, outcome: String },
    /// The rule cannot make its kind of candidate on this instance.
    NotApplicable { rule: String, reason: String },
}

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeriveError::UnknownRule { rule, known } => {
                write!(f, "unknown derive rule `{rule}`; expected one of: {}", known.join(", "))
            }
            DeriveError::WrongKind { rule, kind, why } => write!(f, "derive rule `{rule}` {why}, not `{kind}`"),
            DeriveError::InvalidInstance { message } => write!(f, "invalid instance: {message}"),
            DeriveError::NoSolution { game, outcome } => {
                write!(f, "no {game} solution to derive from: the reference solver {outcome}")
            }
            DeriveError::NotApplicable { rule, reason } => write!(f, "derive rule `{rule}` does not apply: {reason}"),
        }
    }
}

impl std::error::Error for DeriveError {}

/// A second oracle's opinion of a stored answer: an oracle that shares no search code with the
/// one that gave the answer (for Black Hole, a SAT model beside the search solver).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecondOpinion {
    /// The oracle confirms the answer; `how` says how, e.g. "the SAT model is unsatisfiable".
    Confirmed { how: String },
    /// The oracle contradicts the answer; `why` says how, e.g. with the solution it found.
    Refuted { why: String },
    /// The oracle could not decide (it ran out of time): the answer stands unconfirmed.
    Undecided { why: String },
    /// The game has no second oracle for this kind of test.
    NoOracle,
}

/// The quality of an accepted answer, where a game's answers differ in it: a count of which
/// less is better (a solution's moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    pub value: u64,
    /// What is counted, singular: `move`.
    pub unit: &'static str,
}

/// The best [`Measure`] any answer on an instance can have, proved: `how` says how (e.g. a
/// breadth-first walk that met every position nearer the start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Optimum {
    pub best: Measure,
    pub how: String,
}

/// An instance named after the game's generator: what the file name spells and what `GEN`
/// prints for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedInstance {
    /// The starter's call the name spells, e.g. `GEN 1 51 13 4 17`.
    pub call: String,
    /// The reference command line that prints the same text, e.g. `bhref GEN 1 51 13 4 17`.
    pub command: String,
    /// The text, byte for byte what the starter prints.
    pub text: String,
}

/// One part's results, as the check table needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartTally<'a> {
    /// The part's title, e.g. "Part 1: CHECK".
    pub title: &'a str,
    /// Tests accepted.
    pub passed: usize,
    /// Tests in the part.
    pub total: usize,
}

/// One row of the handout's check table: the task and whether it is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckTableRow {
    pub task: String,
    pub done: String,
}

/// The check-table rows every practical so far shares: one per part, saying whether its tests
/// all passed, e.g. `Part 1: Provided tests passed` / `no (3 of 4)`.
pub fn part_rows(parts: &[PartTally<'_>]) -> Vec<CheckTableRow> {
    parts
        .iter()
        .map(|part| {
            let all = part.passed == part.total;
            // The provided tests are the visible ones; a part may have none.
            let done = match part.total {
                0 => "no provided tests".to_string(),
                total => format!("{} ({} of {total})", if all { "yes" } else { "no" }, part.passed),
            };
            CheckTableRow { task: format!("{}: Provided tests passed", part.title), done }
        })
        .collect()
}

/// A game's reference: the ground truth the harness grades against.
pub trait Referee: Send + Sync {
    /// The game's name for reports, e.g. "Black Hole / Worm Hole".
    fn name(&self) -> &'static str;

    /// The test kinds this game defines, e.g. `check`, `solve`.
    fn kinds(&self) -> &'static [&'static str];

    /// How to run a test of `kind`, or `None` if the game has no such kind.
    fn task(&self, kind: &str) -> Option<TaskSpec>;

    /// The reference's answer for a test of `kind` on `instance` with candidate `input`.
    fn expected(&self, kind: &str, instance: Instance<'_>, input: Option<&str>) -> Result<Expected, RefereeError>;

    /// Judges `output` (the program's whole standard output, as raw bytes) against `expected`,
    /// the reference's answer for this test. A game whose answer is one line reads it with
    /// [`first_line_text`]; one whose answers span lines reads on.
    fn judge(
        &self,
        kind: &str,
        instance: Instance<'_>,
        input: Option<&str>,
        expected: &Expected,
        output: &[u8],
    ) -> Result<Judgement, RefereeError>;

    /// A second opinion on `expected`, the stored answer of a test of `kind` on `instance`
    /// that reads no input (a solve test), from an oracle independent of the one that gave it.
    /// By default the game has none.
    fn second_opinion(
        &self,
        kind: &str,
        instance: Instance<'_>,
        expected: &Expected,
    ) -> Result<SecondOpinion, RefereeError> {
        let _ = (kind, instance, expected);
        Ok(SecondOpinion::NoOracle)
    }

    /// The answers a program that never reads its input could print for every test of `kind`
    /// (the floor check: what such a program earns). By default `true` and `false` for kinds
    /// that read a candidate solution, `0` and `-1` for the others; empty for an unknown kind.
    fn constant_answers(&self, kind: &str) -> &'static [&'static str] {
        match self.task(kind) {
            Some(TaskSpec { reads_input: true, .. }) => &["true", "false"],
            Some(TaskSpec { reads_input: false, .. }) => &["0", "-1"],
            None => &[],
        }
    }

    /// The quality of `output`, an answer to a test of `kind` on `instance` that the judge
    /// accepted, for kinds whose answers differ in it; `None` for an answer with nothing to
    /// measure (a `0` for an unsolvable instance) and, by default, for every answer.
    fn measure(&self, kind: &str, instance: Instance<'_>, output: &[u8]) -> Option<Measure> {
        let _ = (kind, instance, output);
        None
    }

    /// The best quality any answer to a test of `kind` on `instance` can have, proved (a
    /// suite crediting quality stores it); `Ok(None)` when no answer has a quality (the
    /// instance is unsolvable). A game that does not measure `kind` says so
    /// ([`RefereeError::NoMeasure`]), as by default; one that cannot prove the best in its
    /// budget says it is undecided.
    fn optimum(&self, kind: &str, instance: Instance<'_>) -> Result<Option<Optimum>, RefereeError> {
        let _ = instance;
        Err(RefereeError::NoMeasure { kind: kind.to_string() })
    }

    /// The rules a check test may name in `derive:` to have its candidate solution made from the
    /// reference's own, in the order the suite documentation lists them. The first is the one a
    /// check test naming neither `solution` nor `derive` gets; a game with none makes every
    /// check test name a `solution` file.
    fn derive_rules(&self) -> &'static [&'static str];

    /// The candidate solution text `rule` (one of [`Referee::derive_rules`]) makes for a test of
    /// `kind` on `instance`, already replayed through the reference checker to give what the
    /// rule promises. Implementations may cache the reference's solution per instance, since a
    /// suite derives many candidates from few instances.
    fn derive(&self, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError>;

    /// When the (relative) instance `file`'s name spells the arguments of the game's `GEN`, as
    /// the course named its generated instances, what that call prints; `None` for any other
    /// name, or arguments the generator cannot deal.
    fn instance_from_file_name(&self, file: &str) -> Option<GeneratedInstance>;

    /// The rows of the handout's check table that a harness can fill, from each part's results
    /// and whether the submission built.
    ///
    /// By default the course's handouts' table: a row per part, then whether `build.sh` is
    /// included and working.
    fn check_table(&self, parts: &[PartTally<'_>], built: bool) -> Vec<CheckTableRow> {
        let mut rows = part_rows(parts);
        let working = if built { "yes" } else { "no" };
        rows.push(CheckTableRow { task: "build.sh script included and working".into(), done: working.into() });
        rows
    }
}

/// The first line of `output`, without its line terminator (`\n`, or `\r\n`).
pub fn first_line(output: &[u8]) -> &[u8] {
    let line = output.split(|&b| b == b'\n').next().unwrap_or_default();
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The first line of `output` as text with surrounding whitespace removed (the rulings allow
/// trailing spaces and a carriage return; leading spaces are allowed too, since no reading of
/// the handouts makes them meaningful), or the format error that non-UTF-8 output is.
pub fn first_line_text(output: &[u8]) -> Result<&str, Judgement> {
    match std::str::from_utf8(first_line(output)) {
        Ok(text) => Ok(text.trim()),
        Err(e) => Err(Judgement::FormatError {
            explanation: format!("the first line is not valid UTF-8 text (bad byte at offset {})", e.valid_up_to()),
        }),
    }
}

/// A number and its noun, singular or plural: "1 move", "3 moves", "0 moves" (messages say
/// what they count, never "move(s)").
pub fn count(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The word that agrees with a [`count`] of `n`: `one` for one, `many` for any other number
/// ("1 card is", "3 moves were", "2 more integers follow").
pub fn agreeing<'a>(n: impl std::fmt::Display, one: &'a str, many: &'a str) -> &'a str {
    if n.to_string() == "1" {
        one
    } else {
        many
    }
}

/// Quotes program output in an explanation as a markdown code span, cut short so that a
/// runaway line cannot flood a report. The span's backtick run is longer than any inside, so
/// output holding backticks stays one span (CommonMark's rule, with its padding space).
pub fn quote(text: &str) -> String {
    const LIMIT: usize = 60;
    let mut shown: String = text.chars().take(LIMIT).flat_map(char::escape_debug).collect();
    if text.chars().nth(LIMIT).is_some() {
        shown.push_str("...");
    }
    let longest_run = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest_run + 1);
    let pad = if shown.starts_with('`') || shown.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{shown}{pad}{ticks}")
}

/// Judges `output` for a game whose answer is its first line: a check kind's (`is_check`) by
/// [`judge_true_false`], a solve kind's by the game's `judge_solve`. Output that is not text is
/// a format error before either looks at it.
pub fn judge_first_line(
    output: &[u8],
    is_check: bool,
    expected: &Expected,
    judge_solve: impl FnOnce(&str) -> Result<Judgement, RefereeError>,
) -> Result<Judgement, RefereeError> {
    match first_line_text(output) {
        Err(judgement) => Ok(judgement),
        Ok(line) if is_check => Ok(judge_true_false(expected, line)),
        Ok(line) => judge_solve(line),
    }
}

/// Judges a checker's answer line, `true` or `false`, against the reference's: the same rule in
/// every game whose checkers answer so.
pub fn judge_true_false(expected: &Expected, line: &str) -> Judgement {
    if line != "true" && line != "false" {
        let hint = if line.eq_ignore_ascii_case("true") || line.eq_ignore_ascii_case("false") {
            " (the answer is case-sensitive)"
        } else {
            ""
        };
        let found = if line.is_empty() { "an empty line".to_string() } else { quote(line) };
        return Judgement::FormatError {
            explanation: format!("the first line must be exactly `true` or `false`{hint}, but it is {found}"),
        };
    }
    if line == expected.answer {
        return Judgement::Accepted;
    }
    let explanation = if expected.answer == "true" {
        format!("the solution is valid ({}), but the program said false", expected.detail)
    } else {
        format!("the solution is not valid: {}; but the program said true", expected.detail)
    };
    Judgement::WrongAnswer { explanation }
}

/// Judges a solve line of the answer form Black Hole and Gaps share: `1` followed by the moves,
/// `0` (proved unsolvable) or `-1` (could not decide), `0` and `-1` alone on the line
/// (`practical.md`, rulings 3 and 4). `thing` names what is solved ("puzzle", "layout"),
/// `move_parts` what a move's integers are ("a pile or a card"); `judge_moves` judges the
/// integers after a `1` with the game's checker, which is the truth (a `1` whose moves check is
/// accepted even against a stored `0`, which would be a solver bug that must not cost the
/// student).
pub fn judge_one_zero_or_minus_one(
    expected: &Expected,
    line: &str,
    thing: &str,
    move_parts: &str,
    judge_moves: impl FnOnce(&[i64]) -> Judgement,
) -> Judgement {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&status, rest)) = tokens.split_first() else {
        return Judgement::FormatError {
            explanation: "the first line is empty; expected `1` followed by moves, `0` or `-1`".to_string(),
        };
    };
    match status {
        "-1" | "0" if !rest.is_empty() => Judgement::FormatError {
            explanation: format!(
                "`{status}` must stand alone on the line, but {} {}, starting with {}",
                count(rest.len(), "more token"),
                agreeing(rest.len(), "follows", "follow"),
                quote(rest[0])
            ),
        },
        "-1" => Judgement::GaveUp,
        "0" if expected.answer == "0" => Judgement::Accepted,
        "0" => Judgement::WrongAnswer {
            explanation: format!(
                "the program said 0 (unsolvable), but the {thing} is solvable; the reference's solution: {}",
                expected.detail
            ),
        },
        "1" => match move_integers(rest, move_parts) {
            Ok(integers) => judge_moves(&integers),
            Err(judgement) => judgement,
        },
        _ => Judgement::FormatError {
            explanation: format!("the first token must be `1`, `0` or `-1`, but it is {}", quote(status)),
        },
    }
}

/// The moves' tokens after a leading `1` as integers, or the format error the first that is not
/// one makes.
fn move_integers(tokens: &[&str], move_parts: &str) -> Result<Vec<i64>, Judgement> {
    let mut integers = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let is_integer_shaped = {
            let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        };
        let explanation = match token.parse::<i64>() {
            Ok(value) => {
                integers.push(value);
                continue;
            }
            Err(_) if is_integer_shaped => {
                format!("token {} of the moves, {}, is too large to be {move_parts}", i + 1, quote(token))
            }
            Err(_) => format!("token {} of the moves, {}, is not an integer", i + 1, quote(token)),
        };
        return Err(Judgement::FormatError { explanation });
    }
    Ok(integers)
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn counts_say_what_they_count() {
        assert_eq!(super::count(1, "move"), "1 move");
        assert_eq!(super::count(0u64, "move"), "0 moves");
        assert_eq!(super::count(3usize, "more integer"), "3 more integers");
        assert_eq!((super::agreeing(1, "is", "are"), super::agreeing(2, "is", "are")), ("is", "are"));
        assert_eq!(super::agreeing(0usize, "follows", "follow"), "follow");
    }

    #[test]
    fn a_quote_is_one_code_span_whatever_it_holds() {
        assert_eq!(quote("1 2 3"), "`1 2 3`");
        assert_eq!(quote("a`b"), "``a`b``");
        assert_eq!(quote("```"), "```` ``` ````");
        assert_eq!(quote("tab\there"), "`tab\\there`");
        assert!(quote(&"x".repeat(100)).ends_with("...`"));
    }
}
