//! Parsing: puzzle text → [`Puzzle`], solution text → integers.
//!
//! Input: the text of a puzzle file (and a name for messages) or of a candidate solution.
//! Output: a validated [`Puzzle`] or a [`ParseError`] naming line, column and what was expected;
//! for solutions, the integers read per ruling 1 of `practical.md`.

use std::fmt;

use crate::model::Puzzle;

/// Why a puzzle file is not a valid puzzle, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file's name as given (a path, or `-` for standard input).
    pub name: String,
    /// 1-based line and column of the offending token (or of the end of input).
    pub line: usize,
    pub column: usize,
    /// What the parser expected there, e.g. "a card number or -1 to end pile 3".
    pub expected: String,
    /// What it found, e.g. "`x`" or "end of input".
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: expected {}, found {}", self.name, self.line, self.column, self.expected, self.found)
    }
}

impl std::error::Error for ParseError {}

/// Parses and validates a puzzle.
pub fn parse_puzzle(name: &str, text: &str) -> Result<Puzzle, ParseError> {
    let _ = (name, text);
    todo!()
}

/// Reads a candidate solution's integers: up to the first token that is not an integer, or the
/// end of input (ruling 1).
pub fn read_integers(text: &str) -> Vec<i64> {
    let _ = text;
    todo!()
}
