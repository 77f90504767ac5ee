//! The model of Gaps (Montana): a [`Layout`] of rows with the Ace column, a [`Variant`] and a
//! [`Move`].
//!
//! Input: nothing (plain data). Output: the layout's cells and the rules' small pieces both the
//! checker and the solver apply: [`Layout::moves_into`] lists the legal moves of a position, and
//! [`Layout::is_won`] says whether it is won. Cards are numbered as every game here numbers them
//! ([`crate::cards`]): suit `s` holds `s*R+1` (its Ace) to `s*R+R` (its King).
//!
//! A layout has `S` rows (one per suit) of `R + 1` cells: column 0 is the Ace column (row `s`
//! holds the Ace of suit `s`, as the basic variant moves the Aces there), columns `1..=R` hold
//! the other `S*(R-1)` cards and `S` gaps (written `0`). A cell's *position* is its place in the
//! layout read row by row, the Ace column included: `row * (R + 1) + column`. The common variant
//! plays the same deal with the Aces removed: it never reads column 0.

use std::fmt;

pub use crate::cards::{Card, Deck};

/// The cell value of a gap.
pub const GAP: Card = 0;

/// Which rules are played (`docs/gaps.md`, "Variants").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// §2.1: a gap in column 1 takes only the Two of its row's suit (the successor of the Ace on
    /// its left). No position repeats; a game lasts at most `S * (R-1)(R-2)/2` moves (312).
    Basic,
    /// §2.2: the Aces are removed; a gap in column 1 takes any Two. Twos can move from row to
    /// row, so positions can repeat.
    Common,
}

impl Variant {
    /// The variant's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Basic => "basic",
            Variant::Common => "common",
        }
    }
}

/// A move: `card` goes into the gap at position `to`, leaving a gap where it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub card: Card,
    pub to: usize,
}

/// A position of the game: the deck and every cell, row by row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub deck: Deck,
    /// `S * (R + 1)` cells; [`GAP`] for a gap.
    pub cells: Vec<Card>,
}

impl Layout {
    /// Cells per row: the Ace column and `R` more.
    pub fn width(&self) -> usize {
        self.deck.ranks as usize + 1
    }

    /// The number of rows, `S`.
    pub fn rows(&self) -> usize {
        self.deck.suits as usize
    }

    /// The column of `position`.
    pub fn column(&self, position: usize) -> usize {
        position % self.width()
    }

    /// The card that must lie at `(row, column)` when the game is won under the basic variant.
    pub fn home_card(&self, row: usize, column: usize) -> Card {
        (row * self.deck.ranks as usize + column + 1) as Card
    }

    /// The card the gap at `position` (not in column 0) takes under the successor rule: the next
    /// card of the suit of the card on its left, or `None` when the left is a gap or a King. In
    /// column 1 under the common variant any Two goes, which this does not say.
    pub fn successor_wanted(&self, position: usize) -> Option<Card> {
        let left = self.cells[position - 1];
        (left != GAP && self.deck.rank(left) + 1 < self.deck.ranks).then_some(left + 1)
    }

    /// Whether `card` is a Two.
    pub fn is_two(&self, card: Card) -> bool {
        card != GAP && self.deck.rank(card) == 1
    }

    /// The gaps' positions, in position order (never in the Ace column: the parser puts Aces
    /// there).
    pub fn gaps(&self) -> impl Iterator<Item = usize> + '_ {
        self.cells.iter().enumerate().filter(|&(_, &cell)| cell == GAP).map(|(position, _)| position)
    }

    /// The legal moves into the gaps at `gaps` under `variant`, gap by gap (for each
    /// first-column gap under the common variant, the Twos in card order), into `out`.
    pub fn moves_into(&self, variant: Variant, gaps: impl IntoIterator<Item = usize>, out: &mut Vec<Move>) {
        out.clear();
        let width = self.width();
        for to in gaps {
            if variant == Variant::Common && to % width == 1 {
                let ranks = self.deck.ranks;
                out.extend((0..self.deck.suits).map(|suit| Move { card: suit * ranks + 2, to }));
            } else if let Some(card) = self.successor_wanted(to) {
                out.push(Move { card, to });
            }
        }
    }

    /// Where each card lies: `places()[card]` is its position (index 0 unused).
    pub fn places(&self) -> Vec<usize> {
        let mut place = vec![usize::MAX; self.deck.size() as usize + 1];
        for (position, &card) in self.cells.iter().enumerate() {
            if card != GAP {
                place[card as usize] = position;
            }
        }
        place
    }

    /// Makes `m`, a legal move, updating `place`; returns the position the card left.
    pub fn play(&mut self, m: Move, place: &mut [usize]) -> usize {
        let from = place[m.card as usize];
        self.cells[from] = GAP;
        self.cells[m.to] = m.card;
        place[m.card as usize] = m.to;
        from
    }

    /// Takes back `m`, made from `from`.
    pub fn unplay(&mut self, m: Move, from: usize, place: &mut [usize]) {
        self.cells[m.to] = GAP;
        self.cells[from] = m.card;
        place[m.card as usize] = from;
    }

    /// Whether the game is won under `variant`: each row runs from its first card (basic: the
    /// Two of the row's suit; common: any Two) up to the King in columns `1..R`, its gap last.
    pub fn is_won(&self, variant: Variant) -> bool {
        (0..self.rows()).all(|row| self.row_won(row, variant))
    }

    /// Whether `row` is as in a won game under `variant`.
    pub fn row_won(&self, row: usize, variant: Variant) -> bool {
        let (width, ranks) = (self.width(), self.deck.ranks as usize);
        let cells = &self.cells[row * width..(row + 1) * width];
        let first = match variant {
            Variant::Basic => self.home_card(row, 1),
            Variant::Common => cells[1],
        };
        cells[ranks] == GAP
            && self.is_two(first)
            && (1..ranks).all(|column| cells[column] as usize == first as usize + column - 1)
    }
}

/// The layout file's text: `R S`, then one line per row, cells separated by spaces.
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.deck.ranks, self.deck.suits)?;
        for row in self.cells.chunks(self.width()) {
            let cells: Vec<String> = row.iter().map(Card::to_string).collect();
            writeln!(f, "{}", cells.join(" "))?;
        }
        Ok(())
    }
}

/// The moves as the integers a checker reads: card, position, card, position...
pub fn move_integers(moves: &[Move]) -> Vec<i64> {
    moves.iter().flat_map(|m| [i64::from(m.card), m.to as i64]).collect()
}

/// The moves as the contract writes them: `card position` pairs separated by spaces.
pub fn format_moves(moves: &[Move]) -> String {
    let pairs: Vec<String> = moves.iter().map(|m| format!("{} {}", m.card, m.to)).collect();
    pairs.join(" ")
}

/// `SOLVE`'s line for a solution: `1` and the moves.
pub fn solution_line(moves: &[Move]) -> String {
    if moves.is_empty() {
        "1".to_string()
    } else {
        format!("1 {}", format_moves(moves))
    }
}
