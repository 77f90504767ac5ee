//! Parsing: puzzle text → [`Puzzle`], solution text → integers.
//!
//! Input: the text of a puzzle file (and a name for messages) or of a candidate solution.
//! Output: a validated [`Puzzle`] or a [`ParseError`] naming line, column and what was expected;
//! for solutions, the integers read per ruling 1 of `docs/practical.md`.
//!
//! Both readers split the text the way the starter's `java.util.Scanner` does (on Java
//! whitespace, [`crate::parse_util::Tokens`]), so a token is "an integer" here exactly when a student's `hasNextInt()` would say
//! so, with two deliberate omissions that never occur in real files: locale grouping (`1,000`)
//! and non-ASCII digits are not integers here.

use std::collections::HashMap;

pub use crate::parse_util::{is_java_whitespace, read_integers, ParseError, MAX_CARDS};

use crate::blackhole::model::{Card, Deck, Puzzle};
use crate::parse_util::{number, show, Number, Token, Tokens};
use crate::referee::{agreeing, count};

/// The largest number of piles the parser accepts, for the same reason as [`MAX_CARDS`].
pub const MAX_PILES: u64 = 1_000_000;

/// Where a card was first seen, for the duplicate-card message.
#[derive(Clone, Copy, Debug)]
struct Seen {
    line: usize,
    column: usize,
    /// `None` for the hole card, else the pile.
    pile: Option<usize>,
}

/// The state of one parse: the tokens and the name for messages.
struct Parser<'a> {
    name: &'a str,
    tokens: Tokens<'a>,
}

impl<'a> Parser<'a> {
    fn error_at(
        &self,
        line: usize,
        column: usize,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> ParseError {
        ParseError { name: self.name.to_string(), line, column, expected: expected.into(), found: found.into() }
    }

    fn error(&self, token: Token<'_>, expected: impl Into<String>, found: impl Into<String>) -> ParseError {
        self.error_at(token.line, token.column, expected, found)
    }

    /// The next token as a number, or an error saying `expected` when the input ends or the token
    /// is not an integer.
    fn next_number(&mut self, expected: &str, at_end: &str) -> Result<(Token<'a>, Number), ParseError> {
        let Some(token) = self.tokens.next() else {
            let (line, column) = self.tokens.here();
            return Err(self.error_at(line, column, expected, at_end));
        };
        match number(token.text) {
            Number::NotInteger => Err(self.error(token, expected, show(token.text))),
            value => Ok((token, value)),
        }
    }

    /// Reads one of the header's counts, which must lie in `min..=max`.
    fn count(&mut self, what: &str, min: i64, max: u64) -> Result<(Token<'a>, u64), ParseError> {
        let expected = format!("{what} (a whole number from {min} to {max})");
        let (token, value) = self.next_number(&expected, "end of input")?;
        let found = match value {
            Number::Int(v) if v < 0 => format!("{v} (a negative count)"),
            Number::Huge { negative: true } => format!("{} (a negative count)", show(token.text)),
            Number::Int(v) if v < min => v.to_string(),
            Number::Int(v) if v as u64 <= max => return Ok((token, v as u64)),
            _ => format!("{} (too large)", show(token.text)),
        };
        Err(self.error(token, expected, found))
    }

    /// Checks that `value` names a card of `deck` not seen before, and records it.
    fn card(
        &self,
        deck: Deck,
        token: Token<'_>,
        value: Number,
        expected: &str,
        seen: &mut HashMap<Card, Seen>,
        pile: Option<usize>,
    ) -> Result<Card, ParseError> {
        let size = deck.size();
        let card = match value {
            Number::Int(0) => {
                return Err(self.error(token, expected, format!("0 (cards are numbered from 1 to {size})")));
            }
            Number::Int(v) => Card::try_from(v).ok().filter(|&c| deck.contains(c)),
            _ => None,
        };
        let Some(card) = card else {
            // Only integer tokens get here, so the text needs no quoting, only a length limit.
            let digits: String = token.text.chars().take(40).collect();
            let cut = if digits.len() < token.text.len() { "..." } else { "" };
            let deck_size = format!("{} and {}", count(deck.ranks, "rank"), count(deck.suits, "suit"));
            let found = format!("{digits}{cut} (not a card of a deck of {deck_size})");
            return Err(self.error(token, expected, found));
        };
        if let Some(first) = seen.get(&card) {
            let place = match first.pile {
                None => "as the hole card".to_string(),
                Some(p) => format!("in pile {p}"),
            };
            let found =
                format!("card {card} a second time (first at line {}, column {}, {place})", first.line, first.column);
            return Err(self.error(token, format!("{expected}, each card at most once"), found));
        }
        seen.insert(card, Seen { line: token.line, column: token.column, pile });
        Ok(card)
    }
}

/// Parses and validates a puzzle.
///
/// The format is whitespace-separated integers, line breaks meaning nothing: `R S P`, the hole
/// card, then `P` piles each listed bottom first and ended by `-1`. Everything after the `P`-th
/// `-1` is ignored (the handout allows comments there).
pub fn parse_puzzle(name: &str, text: &str) -> Result<Puzzle, ParseError> {
    let mut parser = Parser { name, tokens: Tokens::new(text) };
    if parser.tokens.clone().next().is_none() {
        let found = if text.is_empty() { "an empty file" } else { "a file with only whitespace" };
        return Err(parser.error_at(1, 1, "the first line `R S P` (ranks, suits, piles)", found));
    }
    let (_, ranks) = parser.count("the number of ranks R", 1, MAX_CARDS)?;
    let (suits_token, suits) = parser.count("the number of suits S", 1, MAX_CARDS)?;
    if ranks * suits > MAX_CARDS {
        let expected = format!("a deck of at most {MAX_CARDS} cards (R*S)");
        let found = format!("{ranks} ranks * {suits} suits = {} cards", ranks * suits);
        return Err(parser.error(suits_token, expected, found));
    }
    let (_, pile_count) = parser.count("the number of piles P", 0, MAX_PILES)?;
    // Both fit in u32: each is at most MAX_CARDS.
    let deck = Deck { ranks: ranks as u32, suits: suits as u32 };
    let size = deck.size();
    let pile_count = pile_count as usize;

    let mut seen = HashMap::new();
    let expected = format!("the hole card (1 to {size})");
    let (token, value) = parser.next_number(&expected, "end of input")?;
    let hole = parser.card(deck, token, value, &expected, &mut seen, None)?;

    // Piles are not preallocated: a header may claim many piles that the text never holds.
    let mut piles = Vec::new();
    for index in 0..pile_count {
        let expected = format!("a card (1 to {size}) or -1 to end pile {index} (piles 0 to {})", pile_count - 1);
        let at_end = format!(
            "end of input (only {index} of {} {} complete)",
            count(pile_count, "pile"),
            agreeing(pile_count, "is", "are")
        );
        let mut pile = Vec::new();
        loop {
            let (token, value) = parser.next_number(&expected, &at_end)?;
            if value == Number::Int(-1) {
                break;
            }
            pile.push(parser.card(deck, token, value, &expected, &mut seen, Some(index))?);
        }
        piles.push(pile);
    }
    Ok(Puzzle { deck, hole, piles })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_puzzle("p.txt", text).unwrap_err().to_string()
    }

    #[test]
    fn parses_a_small_puzzle_ignoring_line_breaks_and_trailing_text() {
        let puzzle = parse_puzzle("p", "2 2\n2 1 4 3 -1\n-1 2 -1 comments here 0 x").unwrap();
        assert_eq!(puzzle.deck, Deck { ranks: 2, suits: 2 });
        assert_eq!(puzzle.hole, 1);
        assert_eq!(puzzle.piles, vec![vec![4, 3], vec![]]);
        let none = parse_puzzle("p", "13 4 0 1").unwrap();
        assert!(none.piles.is_empty());
    }

    #[test]
    fn positions_count_lines_and_columns_from_one() {
        assert_eq!(
            err("1 3 1\r\n1\r\n  2 x -1"),
            "p.txt:3:5: expected a card (1 to 3) or -1 to end pile 0 (piles 0 to 0), found `x`"
        );
        assert_eq!(err("1 3 1\r1 2 1 -1"), "p.txt:2:5: expected a card (1 to 3) or -1 to end pile 0 (piles 0 to 0), each card at most once, found card 1 a second time (first at line 2, column 1, as the hole card)");
        assert_eq!(err("1 3 1 1 2"), "p.txt:1:10: expected a card (1 to 3) or -1 to end pile 0 (piles 0 to 0), found end of input (only 0 of 1 pile is complete)");
    }

    #[test]
    fn header_errors() {
        assert_eq!(err(""), "p.txt:1:1: expected the first line `R S P` (ranks, suits, piles), found an empty file");
        assert!(err(" \n\t").ends_with("found a file with only whitespace"));
        assert!(err("0 4 1").contains("expected the number of ranks R (a whole number from 1 to 1000000), found 0"));
        assert!(err("13 -4 1").contains("found -4 (a negative count)"));
        assert!(err("13 4 -1").contains(
            "expected the number of piles P (a whole number from 0 to 1000000), found -1 (a negative count)"
        ));
        assert!(err("13 99999999999999999999999 1").contains("(too large)"));
        assert!(err("13 -99999999999999999999999 1").contains("(a negative count)"));
        assert_eq!(
            err("1000 1001 1"),
            "p.txt:1:6: expected a deck of at most 1000000 cards (R*S), found 1000 ranks * 1001 suits = 1001000 cards"
        );
        assert!(err("13 4.0 1").ends_with("found `4.0`"));
        assert!(err("13 4")
            .ends_with("expected the number of piles P (a whole number from 0 to 1000000), found end of input"));
    }

    #[test]
    fn card_errors() {
        assert!(
            err("13 4 1 0 -1").contains("expected the hole card (1 to 52), found 0 (cards are numbered from 1 to 52)")
        );
        assert!(err("13 4 1 1 53 -1").contains("found 53 (not a card of a deck of 13 ranks and 4 suits)"));
        assert!(err("13 4 1 1 -2 -1").contains("found -2 (not a card"));
        assert!(err("13 4 2 1 -1 5 9 5 -1").contains("card 5 a second time (first at line 1, column 13, in pile 1)"));
        assert!(err("13 4 1 1 \u{a0}5 -1").ends_with("found `\\u{a0}5`"));
    }

    #[test]
    fn long_tokens_are_cut_short_in_messages() {
        let message = err(&format!("13 4 1 1 {}", "z".repeat(1000)));
        assert!(message.ends_with(&format!("`{}...`", "z".repeat(40))));
    }

    #[test]
    fn reads_integers_until_the_first_non_integer() {
        assert_eq!(read_integers(" 1 -2\n+3\t4 x 5"), vec![1, -2, 3, 4]);
        assert_eq!(read_integers(""), Vec::<i64>::new());
        assert_eq!(read_integers("1 2 -"), vec![1, 2]);
        assert_eq!(read_integers("2147483647 -2147483648 2147483648 1"), vec![2147483647, -2147483648]);
        assert_eq!(read_integers("1 99999999999999999999999 2"), vec![1]);
        assert_eq!(read_integers("1\u{a0}2 3"), Vec::<i64>::new());
        assert_eq!(read_integers("1\u{1f}2\u{3000}3"), vec![1, 2, 3]);
        assert_eq!(read_integers("007 1,000"), vec![7]);
    }
}
