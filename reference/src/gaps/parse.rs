//! Parsing: layout text → [`Layout`]; solution text → integers.
//!
//! Input: the text of a layout file and a name for messages, or the text of a candidate
//! solution. Output: a validated [`Layout`] or a [`ParseError`] naming file, line, column, what
//! was expected and what was found; for solutions, the integers as
//! [`crate::parse_util::read_integers`] reads them (Java `int`s up to the first other token).
//!
//! The format (`docs/gaps.md`, "Layout file"): `R S` (ranks 2 to 100, suits 1 to 100, at most
//! [`MAX_CARDS`] cards), then `S` rows of `R + 1` integers: row `s` starts with the Ace of suit
//! `s` (card `s*R + 1`), then `R` cells, each a card that is not an Ace or `0` for a gap. Every
//! card but the Aces appears exactly once, so there are `S` gaps. Line breaks mean nothing, and
//! anything after the last cell is ignored.

use std::collections::HashMap;

pub use crate::parse_util::read_integers;
pub use crate::parse_util::ParseError;

use crate::parse_util::{is_java_whitespace, number, show, Number, Token, Tokens};

use super::model::{Card, Deck, Layout, GAP};
use crate::referee::count;

/// The largest deck a layout may have: the solver packs a cell in at most 10 bits, and a
/// search of a deck near this size would never end anyway.
pub const MAX_CARDS: u32 = 1000;

/// The most ranks or suits a layout may have.
pub const MAX_SIDE: u32 = 100;

struct Parser<'a> {
    name: &'a str,
    tokens: Tokens<'a>,
}

impl<'a> Parser<'a> {
    fn error_at(&self, token: Option<&Token<'_>>, expected: &str, found: String) -> ParseError {
        let (line, column) = token.map_or_else(|| self.tokens.here(), |t| (t.line, t.column));
        ParseError { name: self.name.to_string(), line, column, expected: expected.to_string(), found }
    }

    /// The next integer, or the error a reader would run into there.
    fn next_int(&mut self, expected: &str, at_end: &str) -> Result<(Token<'a>, i64), ParseError> {
        let Some(token) = self.tokens.next() else {
            return Err(self.error_at(None, expected, at_end.to_string()));
        };
        let found = match number(token.text) {
            Number::Int(value) => return Ok((token, value)),
            Number::Huge { .. } => format!("{} (too large)", show(token.text)),
            Number::NotInteger => show(token.text),
        };
        Err(self.error_at(Some(&token), expected, found))
    }

    /// One of the header's counts, which must lie in `low..=MAX_SIDE`.
    fn count(&mut self, what: &str, low: u32) -> Result<(Token<'a>, u32), ParseError> {
        let expected = format!("{what} (a whole number from {low} to {MAX_SIDE})");
        let (token, value) = self.next_int(&expected, "end of input")?;
        match u32::try_from(value) {
            Ok(v) if (low..=MAX_SIDE).contains(&v) => Ok((token, v)),
            _ => Err(self.error_at(Some(&token), &expected, value.to_string())),
        }
    }
}

/// Parses and validates a layout: `R S`, then `S` rows of the row's Ace and `R` cells.
pub fn parse_layout(name: &str, text: &str) -> Result<Layout, ParseError> {
    let mut parser = Parser { name, tokens: Tokens::new(text) };
    if text.chars().all(is_java_whitespace) {
        let found = if text.is_empty() { "an empty file" } else { "a file with only whitespace" };
        return Err(parser.error_at(None, "the first line `R S` (ranks, suits)", found.to_string()));
    }
    let (_, ranks) = parser.count("the number of ranks R", 2)?;
    let (suits_token, suits) = parser.count("the number of suits S", 1)?;
    if ranks * suits > MAX_CARDS {
        let found = format!("{ranks} ranks * {suits} suits = {} cards", ranks * suits);
        let expected = format!("a deck of at most {MAX_CARDS} cards (R*S)");
        return Err(parser.error_at(Some(&suits_token), &expected, found));
    }
    let deck = Deck { ranks, suits };
    let width = ranks as usize + 1;
    let mut cells = Vec::with_capacity(width * suits as usize);
    let mut seen: HashMap<Card, (usize, usize)> = HashMap::new();
    for position in 0..width * suits as usize {
        let (row, column) = (position / width, position % width);
        let ace = row as u32 * ranks + 1;
        let expected = if column == 0 {
            format!("row {row}'s first cell, the Ace of suit {row} (card {ace})")
        } else {
            format!("row {row}, column {column}: a card from 1 to {} that is not an Ace, or 0 for a gap", deck.size())
        };
        let at_end = format!("end of input (only {} of {suits})", count(row, "complete row"));
        let (token, value) = parser.next_int(&expected, &at_end)?;
        let card = u32::try_from(value).ok().filter(|&c| c == GAP || deck.contains(c));
        let valid = match card {
            Some(card) if column == 0 => card == ace,
            Some(card) => card == GAP || deck.rank(card) != 0,
            None => false,
        };
        let Some(card) = card.filter(|_| valid) else {
            return Err(parser.error_at(Some(&token), &expected, value.to_string()));
        };
        if card != GAP {
            if let Some(&(line, column)) = seen.get(&card) {
                let found = format!("card {card} a second time (first at line {line}, column {column})");
                return Err(parser.error_at(Some(&token), &format!("{expected}, each card once"), found));
            }
            seen.insert(card, (token.line, token.column));
        }
        cells.push(card);
    }
    // Every cell was read: a card missing shows as one gap too many.
    let gaps = cells.iter().filter(|&&c| c == GAP).count();
    if gaps != suits as usize {
        let missing: Vec<String> =
            (1..=deck.size()).filter(|c| !seen.contains_key(c)).take(5).map(|c| c.to_string()).collect();
        let expected = format!("each of the {} cards once and so {}", deck.size(), count(suits, "gap"));
        let found = format!("{} (cards missing: {})", count(gaps, "gap"), missing.join(", "));
        return Err(ParseError { name: name.to_string(), line: 2, column: 1, expected, found });
    }
    Ok(Layout { deck, cells })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_layout("g.txt", text).unwrap_err().to_string()
    }

    #[test]
    fn parses_the_papers_figure_ignoring_line_breaks_and_trailing_text() {
        let text = "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n";
        let layout = parse_layout("g", text).unwrap();
        assert_eq!(layout.to_string(), text);
        let same = parse_layout("g", "4 4 1 12 15 16 8 5 2 4 6 14\r\n9 10 3 0 0 13 11 0 7 0 then anything").unwrap();
        assert_eq!(same, layout);
    }

    #[test]
    fn errors_name_line_column_and_what_was_wanted() {
        assert_eq!(err(""), "g.txt:1:1: expected the first line `R S` (ranks, suits), found an empty file");
        assert!(err("1 4").ends_with("expected the number of ranks R (a whole number from 2 to 100), found 1"));
        assert!(err("100 100").contains("expected a deck of at most 1000 cards (R*S), found 100 ranks * 100 suits"));
        assert_eq!(err("2 2\n3 4 0\n1"), "g.txt:2:1: expected row 0's first cell, the Ace of suit 0 (card 1), found 3");
        assert!(err("2 2\n1 2 0\n4").ends_with("row 1's first cell, the Ace of suit 1 (card 3), found 4"));
        assert!(err("2 2\n1 3 0")
            .ends_with("row 0, column 1: a card from 1 to 4 that is not an Ace, or 0 for a gap, found 3"));
        assert_eq!(
            err("2 2\n1 1 0"),
            "g.txt:2:3: expected row 0, column 1: a card from 1 to 4 that is not an Ace, or 0 for a gap, found 1"
        );
        assert!(err("2 2\n1 4 4").ends_with("each card once, found card 4 a second time (first at line 2, column 3)"));
        assert!(err("2 2\n1 2 0\n3 x").ends_with("found `x`"));
        assert!(err("2 2\n1 2 0").ends_with("found end of input (only 1 complete row of 2)"));
        assert!(err("2 2\n1 0 0\n3 4 0").ends_with("found 3 gaps (cards missing: 2)"));
    }
}
