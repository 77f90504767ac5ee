//! The game model: cards, decks, puzzles, games and moves.
//!
//! Input: nothing (plain data). Output: the types every other module of the reference speaks:
//! [`Deck`], [`Card`], [`Puzzle`], [`Game`] and [`Move`].
//!
//! Cards and decks are the shared ones ([`crate::cards`]): the integers `1..=R*S`, rank of card
//! `c` is `(c-1) mod R` (`docs/practical.md`, "The games").

use std::fmt;

pub use crate::cards::{Card, Deck};

/// Which patience game is played on a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    /// Play top cards onto the hole; won when every pile is empty.
    BlackHole,
    /// Black Hole plus a one-card worm hole; won when every pile and the worm hole are empty.
    WormHole,
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Game::BlackHole => "Black Hole",
            Game::WormHole => "Worm Hole",
        })
    }
}

/// A layout: the deck, the card in the black hole, and the piles, each listed bottom first.
///
/// A valid puzzle (as the parser builds it) has every card in the deck and no card twice; not
/// every card of the deck needs to be present.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Puzzle {
    pub deck: Deck,
    pub hole: Card,
    pub piles: Vec<Vec<Card>>,
}

impl Puzzle {
    /// The number of cards still in piles.
    pub fn cards_in_piles(&self) -> usize {
        self.piles.iter().map(Vec::len).sum()
    }
}

/// Writes the puzzle in the course's file format: `R S P`, the hole, then each pile bottom
/// first with a space after each card, ended by `-1`, one pile per line (as the starter's
/// generator prints it).
impl fmt::Display for Puzzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {} {}", self.deck.ranks, self.deck.suits, self.piles.len())?;
        writeln!(f, "{}", self.hole)?;
        for pile in &self.piles {
            for card in pile {
                write!(f, "{card} ")?;
            }
            writeln!(f, "-1")?;
        }
        Ok(())
    }
}

/// One move of a solution, as the pair `pile card` of the output format decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `p c`: play the top card `c` of pile `p` onto the black hole.
    Play { pile: usize, card: Card },
    /// `p -c` (Worm Hole only): move the top card `c` of pile `p` into the empty worm hole.
    ToWorm { pile: usize, card: Card },
    /// `-1 c` (Worm Hole only): play card `c` from the worm hole onto the black hole.
    FromWorm { card: Card },
}

impl Move {
    /// The move as the pair of integers the output format uses.
    pub fn pair(&self) -> (i64, i64) {
        match *self {
            Move::Play { pile, card } => (pile as i64, i64::from(card)),
            Move::ToWorm { pile, card } => (pile as i64, -i64::from(card)),
            Move::FromWorm { card } => (-1, i64::from(card)),
        }
    }

    /// The card this move moves.
    pub fn card(&self) -> Card {
        match *self {
            Move::Play { card, .. } | Move::ToWorm { card, .. } | Move::FromWorm { card } => card,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (pile, card) = self.pair();
        write!(f, "{pile} {card}")
    }
}

/// The first line a correct SOLVE prints for `moves`: `1` then the pairs (just `1` when no card
/// is left to play).
pub fn solution_line(moves: &[Move]) -> String {
    if moves.is_empty() {
        "1".to_string()
    } else {
        format!("1 {}", format_moves(moves))
    }
}

/// Formats moves as the space-separated pairs of a solution line (without the leading `1`).
pub fn format_moves(moves: &[Move]) -> String {
    let mut out = String::new();
    for (i, mv) in moves.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&mv.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_wraps_and_handles_tiny_decks() {
        let standard = Deck { ranks: 13, suits: 4 };
        assert!(standard.adjacent(1, 13)); // ace and king
        assert!(standard.adjacent(1, 2));
        assert!(standard.adjacent(14, 2)); // ace of hearts, two of spades
        assert!(!standard.adjacent(1, 14)); // two aces
        assert!(!standard.adjacent(1, 3));
        let two = Deck { ranks: 2, suits: 3 };
        assert!(two.adjacent(1, 2));
        assert!(!two.adjacent(1, 3));
        let one = Deck { ranks: 1, suits: 5 };
        assert!(one.adjacent(1, 2));
        assert!(one.adjacent(3, 3));
    }

    #[test]
    fn moves_print_as_pairs() {
        let moves = [Move::Play { pile: 1, card: 2 }, Move::ToWorm { pile: 3, card: 42 }, Move::FromWorm { card: 42 }];
        assert_eq!(format_moves(&moves), "1 2 3 -42 -1 42");
    }
}
