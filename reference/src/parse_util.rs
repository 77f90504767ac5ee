//! What both games' parsers read text with: Java `Scanner`-style tokens, numbers and solutions'
//! integers, the largest deck, and the error they report.
//!
//! Input: the text of a puzzle, layout or solution file. Output: [`Token`]s with their 1-based
//! line and column ([`Tokens`]), token text fit for a message ([`show`]), and [`ParseError`],
//! which names the file, line, column, what was expected and what was found.
//!
//! Both games' files are read by the same starter code (`java.util.Scanner`), so a token is
//! what `Scanner` makes one ([`is_java_whitespace`]) in either game.

use std::fmt;

/// Why a puzzle or layout file is not valid, and where.
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

/// Whether Java's `Character.isWhitespace` holds, which is what `Scanner` splits tokens on.
///
/// It differs from Rust's `char::is_whitespace`: no-break spaces (U+00A0, U+2007, U+202F) and
/// U+0085 are part of a token in Java, and the separators U+001C..U+001F split tokens.
pub fn is_java_whitespace(c: char) -> bool {
    match c {
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{1C}'..='\u{1F}' | ' ' => true,
        '\u{A0}' | '\u{2007}' | '\u{202F}' => false,
        '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{205F}' | '\u{3000}' => true,
        _ => false,
    }
}

/// A whitespace-separated token with the 1-based line and column of its first character.
#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    pub text: &'a str,
    pub line: usize,
    pub column: usize,
}

/// Splits text into tokens, tracking positions; `\n`, `\r\n` and a lone `\r` each end a line
/// because editors on every platform show them so.
#[derive(Clone)]
pub struct Tokens<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    column: usize,
}

impl<'a> Tokens<'a> {
    pub fn new(text: &'a str) -> Self {
        Tokens { text, offset: 0, line: 1, column: 1 }
    }

    /// The position just past the last character read, for "end of input" errors.
    pub fn here(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.offset..].chars().next()
    }

    fn advance(&mut self, c: char) {
        self.offset += c.len_utf8();
        if c == '\n' || (c == '\r' && self.peek_char() != Some('\n')) {
            self.line += 1;
            self.column = 1;
        } else if c != '\r' {
            self.column += 1;
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        while let Some(c) = self.peek_char().filter(|&c| is_java_whitespace(c)) {
            self.advance(c);
        }
        let (start, (line, column)) = (self.offset, self.here());
        while let Some(c) = self.peek_char().filter(|&c| !is_java_whitespace(c)) {
            self.advance(c);
        }
        (self.offset > start).then(|| Token { text: &self.text[start..self.offset], line, column })
    }
}

/// Shows a token in a message: in backticks, with invisible characters escaped and a long token
/// cut short so that one bad byte run cannot flood a report.
pub fn show(token: &str) -> String {
    const LIMIT: usize = 40;
    let mut shown: String = token.chars().take(LIMIT).flat_map(char::escape_debug).collect();
    if token.chars().nth(LIMIT).is_some() {
        shown.push_str("...");
    }
    format!("`{shown}`")
}

/// The largest deck (`R*S` cards) either game's parser accepts. Real files have 52 or 60 cards;
/// the cap keeps a hostile or mistyped header from asking for a huge allocation.
pub const MAX_CARDS: u64 = 1_000_000;

/// What a token says as a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Number {
    /// An integer that fits in `i64`.
    Int(i64),
    /// Digits (with an optional sign) too large for `i64`: still "a number" for messages.
    Huge { negative: bool },
    /// Not an integer at all.
    NotInteger,
}

/// Classifies a token as `Scanner` would: an optional `+` or `-`, then ASCII digits.
pub fn number(token: &str) -> Number {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Number::NotInteger;
    }
    match token.parse::<i64>() {
        Ok(value) => Number::Int(value),
        Err(_) => Number::Huge { negative: token.starts_with('-') },
    }
}

/// Reads a candidate solution's integers: up to the first token that is not an integer, or the
/// end of input (2021 practical, ruling 1; the 2022 one reads solutions the same way).
///
/// A token counts as an integer exactly when the starter's `Scanner.hasNextInt()` says so, so a
/// token that does not fit in a Java `int` (e.g. `3000000000`) stops the reading as text would:
/// the students' programs never see it, so the reference must not either.
pub fn read_integers(text: &str) -> Vec<i64> {
    Tokens::new(text)
        .map_while(|token| match number(token.text) {
            Number::Int(value) if i32::try_from(value).is_ok() => Some(value),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_their_line_and_column() {
        let tokens: Vec<_> = Tokens::new(" a\r\nbc\rd\n\u{a0}e\u{1f}f").map(|t| (t.text, t.line, t.column)).collect();
        assert_eq!(tokens, [("a", 1, 2), ("bc", 2, 1), ("d", 3, 1), ("\u{a0}e", 4, 1), ("f", 4, 4)]);
        let mut tokens = Tokens::new("x \n ");
        assert!(tokens.next().is_some() && tokens.next().is_none());
        assert_eq!(tokens.here(), (2, 2));
    }
}
