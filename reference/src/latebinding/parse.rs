//! Parsing: layout text → [`Layout`]; solution text → integers.
//!
//! Input: the text of a layout file and a name for messages, or the text of a candidate
//! solution. Output: a validated [`Layout`] or a [`ParseError`] naming file, line, column, what
//! was expected and what was found; for solutions, the integers as
//! [`crate::parse_util::read_integers`] reads them (Java `int`s up to the first other token).
//!
//! Tokens are split where Java's `Scanner` splits them ([`is_java_whitespace`]) and a token is
//! an integer exactly when `hasNextInt()` would say so (an optional sign, ASCII digits, within
//! Java's `int`), with Black Hole's two deliberate omissions: no locale grouping (`1,000`) and
//! no non-ASCII digits. The format (`docs/late-binding.md`, "Layout file"): `R S P`, then `P` cards,
//! line breaks meaning nothing and anything after the `P`-th card ignored.

use std::collections::HashMap;

pub use crate::parse_util::ParseError;
pub use crate::parse_util::{read_integers, MAX_CARDS};

use crate::parse_util::{is_java_whitespace, show, Token, Tokens};

use super::model::{Card, Deck, Layout};
use crate::referee::count;

/// What `hasNextInt()` makes of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Number {
    /// A Java `int`.
    Int(i32),
    /// Integer-shaped but outside Java's `int`: `hasNextInt()` is false, as for text.
    OutOfInt,
    /// Not an integer at all.
    Text,
}

fn number(token: &str) -> Number {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Number::Text;
    }
    token.parse::<i32>().map_or(Number::OutOfInt, Number::Int)
}

struct Parser<'a> {
    name: &'a str,
    tokens: Tokens<'a>,
}

impl<'a> Parser<'a> {
    fn error_at(&self, (line, column): (usize, usize), expected: &str, found: String) -> ParseError {
        ParseError { name: self.name.to_string(), line, column, expected: expected.to_string(), found }
    }

    /// The next token as a Java `int`, or the error a `Scanner` reader would run into there.
    fn next_int(&mut self, expected: &str, at_end: &str) -> Result<(Token<'a>, i32), ParseError> {
        let Some(token) = self.tokens.next() else {
            let here = self.tokens.here();
            return Err(self.error_at(here, expected, at_end.to_string()));
        };
        let found = match number(token.text) {
            Number::Int(value) => return Ok((token, value)),
            Number::OutOfInt => format!("{} (not a Java int)", show(token.text)),
            Number::Text => show(token.text),
        };
        Err(self.error_at((token.line, token.column), expected, found))
    }

    /// One of the header's counts, which must lie in `1..=max`.
    fn count(&mut self, what: &str, max: u64) -> Result<(Token<'a>, u32), ParseError> {
        let expected = format!("{what} (a whole number from 1 to {max})");
        let (token, value) = self.next_int(&expected, "end of input")?;
        let found = match u64::try_from(value) {
            Ok(v) if (1..=max).contains(&v) => return Ok((token, value as u32)),
            Ok(0) => "0".to_string(),
            Ok(v) => format!("{v} (too large)"),
            Err(_) => format!("{value} (a negative count)"),
        };
        Err(self.error_at((token.line, token.column), &expected, found))
    }
}

/// Parses and validates a layout: `R S P`, then `P` distinct cards of the deck.
pub fn parse_layout(name: &str, text: &str) -> Result<Layout, ParseError> {
    let mut parser = Parser { name, tokens: Tokens::new(text) };
    if text.chars().all(is_java_whitespace) {
        let found = if text.is_empty() { "an empty file" } else { "a file with only whitespace" };
        return Err(parser.error_at((1, 1), "the first line `R S P` (ranks, suits, piles)", found.to_string()));
    }
    let (_, ranks) = parser.count("the number of ranks R", MAX_CARDS)?;
    let (suits_token, suits) = parser.count("the number of suits S", MAX_CARDS)?;
    let size = u64::from(ranks) * u64::from(suits);
    if size > MAX_CARDS {
        let found = format!("{ranks} ranks * {suits} suits = {size} cards");
        let expected = format!("a deck of at most {MAX_CARDS} cards (R*S)");
        return Err(parser.error_at((suits_token.line, suits_token.column), &expected, found));
    }
    let deck = Deck { ranks, suits };
    // A row of more piles than the deck has cards would need a card twice: say so at `P`.
    let (_, piles) = parser.count("the number of piles P, at most one per card of the deck", size)?;

    // Not preallocated: the header may promise more cards than the text holds.
    let mut row = Vec::new();
    let mut seen: HashMap<Card, (usize, usize)> = HashMap::new();
    for index in 0..piles as usize {
        let expected = format!("card {} of {piles} in the row (1 to {size})", index + 1);
        let at_end = format!("end of input (only {index} of {})", count(piles, "card"));
        let (token, value) = parser.next_int(&expected, &at_end)?;
        let here = (token.line, token.column);
        let Some(card) = u32::try_from(value).ok().filter(|&c| deck.contains(c)) else {
            let found =
                format!("{value} (not a card of a deck of {} and {})", count(ranks, "rank"), count(suits, "suit"));
            return Err(parser.error_at(here, &expected, found));
        };
        if let Some(&(line, column)) = seen.get(&card) {
            let found = format!("card {card} a second time (first at line {line}, column {column})");
            return Err(parser.error_at(here, &format!("{expected}, each card at most once"), found));
        }
        seen.insert(card, here);
        row.push(card);
    }
    Ok(Layout { deck, row })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_layout("l.txt", text).unwrap_err().to_string()
    }

    #[test]
    fn parses_the_worked_examples_ignoring_line_breaks_and_trailing_text() {
        let layout = parse_layout("l", "3 2 4\n1 4 2 5\n").unwrap();
        assert_eq!(layout, Layout { deck: Deck { ranks: 3, suits: 2 }, row: vec![1, 4, 2, 5] });
        let same = parse_layout("l", "  3\r\n2 4 1\n4\t2 5 6 then x").unwrap();
        assert_eq!(same, layout);
        assert_eq!(parse_layout("l", "13 4 1 52").unwrap().row, [52]);
    }

    #[test]
    fn header_errors() {
        assert_eq!(err(""), "l.txt:1:1: expected the first line `R S P` (ranks, suits, piles), found an empty file");
        assert!(err(" \r\n").ends_with("found a file with only whitespace"));
        assert_eq!(
            err("0 2 1 1"),
            "l.txt:1:1: expected the number of ranks R (a whole number from 1 to 1000000), found 0"
        );
        assert!(err("3 -2 1 1").ends_with("found -2 (a negative count)"));
        assert!(err("3 2 0")
            .contains("the number of piles P, at most one per card of the deck (a whole number from 1 to 6), found 0"));
        assert!(err("3 2 7 1").ends_with("found 7 (too large)"));
        assert!(err("3 2x 1").ends_with("found `2x`"));
        assert!(err("3 2147483648 1").ends_with("found `2147483648` (not a Java int)"));
        assert_eq!(
            err("1000 1001 1"),
            "l.txt:1:6: expected a deck of at most 1000000 cards (R*S), found 1000 ranks * 1001 suits = 1001000 cards"
        );
        assert!(err("3 2").ends_with("found end of input"));
    }

    #[test]
    fn card_errors_name_line_and_column() {
        assert_eq!(err("3 2 3\n1 9 2"), "l.txt:2:3: expected card 2 of 3 in the row (1 to 6), found 9 (not a card of a deck of 3 ranks and 2 suits)");
        assert!(err("3 2 3\n1 0 2").contains("found 0 (not a card"));
        assert!(err("3 2 3\n1 -4 2").contains("found -4 (not a card"));
        assert_eq!(err("3 2 3\r\n1 4\r\n  4"), "l.txt:3:3: expected card 3 of 3 in the row (1 to 6), each card at most once, found card 4 a second time (first at line 2, column 3)");
        assert_eq!(
            err("3 2 4\n1 4 2"),
            "l.txt:2:6: expected card 4 of 4 in the row (1 to 6), found end of input (only 3 of 4 cards)"
        );
        assert!(err("3 2 2\n1 x 2").ends_with("found `x`"));
        assert!(err("3 2 2\n1 \u{a0}2").ends_with("found `\\u{a0}2`"));
        assert!(err(&format!("3 2 2 1 {}", "z".repeat(100))).ends_with(&format!("`{}...`", "z".repeat(40))));
    }

    #[test]
    fn a_header_promising_a_huge_row_fails_fast() {
        let error = parse_layout("big", "1000 1000 1000000 1").unwrap_err();
        assert!(error.found.contains("only 1 of 1000000 cards"), "{error}");
    }
}
