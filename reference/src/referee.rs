//! The small, game-agnostic interface through which the harness grades: what commands a game's
//! tests run, what the reference answers, and how a program's first line of output is judged.
//!
//! Input: a test's kind (a suite's `kind:` word), the instance file's text and the candidate input
//! fed to the program (for check kinds). Output: the reference's [`Expected`] answer, or a
//! [`Judgement`] of a program's first output line. Everything specific to Black Hole and Worm
//! Hole lives behind [`Referee`]; next year's game is another implementation of it.

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
        }
    }
}

impl std::error::Error for RefereeError {}

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

    /// Judges `first_line` (the program's first line of standard output, without its line
    /// terminator, as raw bytes) against `expected`, the reference's answer for this test.
    fn judge(
        &self,
        kind: &str,
        instance: Instance<'_>,
        input: Option<&str>,
        expected: &Expected,
        first_line: &[u8],
    ) -> Result<Judgement, RefereeError>;
}
