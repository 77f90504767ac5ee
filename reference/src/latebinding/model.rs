//! The Late Binding Solitaire model: layouts, the two games, moves and solutions.
//!
//! Input: nothing (plain data). Output: the types the rest of [`crate::latebinding`] speaks:
//! [`Layout`], [`Variant`], [`Move`], the matching rule ([`cards_match`]) and the solution text
//! ([`format_solution`]).
//!
//! Cards and decks are the shared ones ([`crate::cards::Card`],
//! [`crate::cards::Deck`]): cards `1..=R*S`, `rank(c) = (c-1) mod R`, and here also
//! `suit(c) = (c-1) div R`
//! (`docs/late-binding.md`, "Cards and matching").

use std::fmt;

pub use crate::cards::{Card, Deck};

/// The suit of `card` in `deck`, 0-based.
pub fn suit(deck: Deck, card: Card) -> u32 {
    (card - 1) / deck.ranks
}

/// Whether two cards match: same rank or same suit.
pub fn cards_match(deck: Deck, a: Card, b: Card) -> bool {
    deck.rank(a) == deck.rank(b) || suit(deck, a) == suit(deck, b)
}

/// Which game is played on a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Part 1 and 2: every move goes 1 or 3 places left onto a matching card.
    Plain,
    /// Part 3: as `Plain`, plus one grace move per game: any card onto pile 0.
    Grace,
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Plain => "Late Binding",
            Variant::Grace => "Late Binding with grace",
        })
    }
}

/// A layout: the deck and the row of piles' top cards, left to right (position 0 first).
///
/// A valid layout (as the parser builds it) has at least one pile, every card in the deck and
/// no card twice; not every card of the deck needs to be present.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub deck: Deck,
    pub row: Vec<Card>,
}

/// Writes the layout as the starter's generator prints it: `R S P`, then every card followed
/// by a space, each part on its own line.
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {} {}", self.deck.ranks, self.deck.suits, self.row.len())?;
        for card in &self.row {
            write!(f, "{card} ")?;
        }
        writeln!(f)
    }
}

/// One move: put `card` (found by its value in the row) onto the pile now at position `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub card: Card,
    pub to: usize,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.card, self.to)
    }
}

/// A solution as the students print it: the number of moves, then `card destination` per move,
/// e.g. `3 4 0 5 1 5 0`; no moves is `0`.
pub fn format_solution(moves: &[Move]) -> String {
    let mut out = moves.len().to_string();
    for mv in moves {
        out.push(' ');
        out.push_str(&mv.to_string());
    }
    out
}

/// Plays `card` from position `from` onto position `to` of `row`, as the rules say: the
/// destination shows the moved card and every pile right of `from` shifts one place left.
///
/// # Panics
/// When `to >= from` or `from` is out of the row (a caller's bug, never a student's input:
/// the checker validates before it plays).
pub fn play_in_row<T: Copy>(row: &mut Vec<T>, from: usize, to: usize) {
    assert!(to < from && from < row.len(), "a move goes left within the row");
    row[to] = row[from];
    row.remove(from);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_is_same_rank_or_same_suit() {
        let deck = Deck { ranks: 3, suits: 2 };
        assert_eq!((suit(deck, 1), suit(deck, 3), suit(deck, 4), suit(deck, 6)), (0, 0, 1, 1));
        assert!(cards_match(deck, 1, 4)); // rank 0
        assert!(cards_match(deck, 2, 3)); // suit 0
        assert!(!cards_match(deck, 1, 5));
        assert!(!cards_match(deck, 2, 6));
        let one_rank = Deck { ranks: 1, suits: 4 };
        assert!(cards_match(one_rank, 1, 4));
    }

    #[test]
    fn the_worked_example_plays_out() {
        let mut row = vec![1, 4, 2, 5];
        play_in_row(&mut row, 1, 0);
        assert_eq!(row, [4, 2, 5]);
        play_in_row(&mut row, 2, 1);
        assert_eq!(row, [4, 5]);
        let mut row = vec![1, 2, 3, 4, 5];
        play_in_row(&mut row, 3, 0);
        assert_eq!(row, [4, 2, 3, 5]);
    }

    #[test]
    fn solutions_and_layouts_print_in_the_course_format() {
        assert_eq!(format_solution(&[]), "0");
        let moves = [Move { card: 4, to: 0 }, Move { card: 5, to: 1 }, Move { card: 5, to: 0 }];
        assert_eq!(format_solution(&moves), "3 4 0 5 1 5 0");
        let layout = Layout { deck: Deck { ranks: 3, suits: 2 }, row: vec![4, 5, 1, 3, 2] };
        assert_eq!(layout.to_string(), "3 2 5\n4 5 1 3 2 \n");
    }
}
