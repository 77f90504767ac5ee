//! The solver's view of a layout and of one state of play.
//!
//! Input: a [`Layout`] and a [`Variant`]. Output: a [`Board`] (each pile's card, its rank and
//! suit as compact ids, and for rows of up to 64 piles its matches as a bit mask) and its
//! starting [`State`] (the row as the piles' first positions, and whether the grace is still to
//! be used), with the moves between states ([`Step`], [`Played`]).
//!
//! A row is stored as the *original positions* of the cards it shows (`0..P`), not as card
//! values: a key then needs `log2 P` bits per pile whatever the deck, and it still names the
//! state exactly (each original position holds one card, and cards are unique).

use super::super::model::{Card, Layout, Variant};

/// One move as the search makes it: the pile at position `from` onto the one at `to`; `grace`
/// when it is the grace move (not legal without grace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub from: u32,
    pub to: u32,
    pub grace: bool,
}

/// A step as played, with what [`State::undo`] needs: the pile it covered.
#[derive(Clone, Copy, Debug)]
pub struct Played {
    pub step: Step,
    pub covered: u32,
}

/// The layout as the search sees it.
#[derive(Clone, Debug)]
pub struct Board {
    pub variant: Variant,
    /// The card at each original position.
    pub cards: Vec<Card>,
    /// Each original position's rank and suit as dense ids (`0..ranks`, `0..suits`), so that
    /// scratch arrays are sized by the layout, not the deck.
    pub rank: Vec<u32>,
    pub suit: Vec<u32>,
    pub ranks: usize,
    pub suits: usize,
    /// For rows of up to [`MASK_PILES`] piles: bit `j` of `masks[i]` is set when the cards
    /// first at positions `i != j` match. Empty for longer rows.
    pub masks: Vec<u64>,
}

/// The longest row whose matches fit one `u64` mask per card.
pub const MASK_PILES: usize = 64;

impl Board {
    pub fn new(layout: &Layout, variant: Variant) -> Self {
        let deck = layout.deck;
        let dense = |values: Vec<u32>| -> (Vec<u32>, usize) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            sorted.dedup();
            let ids = values.iter().map(|v| sorted.binary_search(v).expect("present") as u32).collect();
            (ids, sorted.len())
        };
        let (rank, ranks) = dense(layout.row.iter().map(|&c| deck.rank(c)).collect());
        let (suit, suits) = dense(layout.row.iter().map(|&c| (c - 1) / deck.ranks).collect());
        let piles = layout.row.len();
        let masks = if piles <= MASK_PILES {
            (0..piles)
                .map(|i| {
                    let same = |j: usize| j != i && (rank[i] == rank[j] || suit[i] == suit[j]);
                    (0..piles).filter(|&j| same(j)).fold(0, |mask, j| mask | 1 << j)
                })
                .collect()
        } else {
            Vec::new()
        };
        Board { variant, cards: layout.row.clone(), rank, suit, ranks, suits, masks }
    }

    /// Whether the piles first at positions `a` and `b` show matching cards.
    #[inline]
    pub fn matches(&self, a: u32, b: u32) -> bool {
        if let Some(mask) = self.masks.get(a as usize) {
            return mask >> b & 1 == 1;
        }
        self.rank[a as usize] == self.rank[b as usize] || self.suit[a as usize] == self.suit[b as usize]
    }
}

/// A state of play: the row and whether the grace is still to be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub row: Vec<u32>,
    pub grace_left: bool,
}

impl State {
    pub fn start(board: &Board) -> Self {
        State { row: (0..board.cards.len() as u32).collect(), grace_left: board.variant == Variant::Grace }
    }

    pub fn apply(&mut self, step: Step) -> Played {
        let (from, to) = (step.from as usize, step.to as usize);
        let covered = self.row[to];
        self.row[to] = self.row[from];
        self.row.remove(from);
        if step.grace {
            self.grace_left = false;
        }
        Played { step, covered }
    }

    pub fn undo(&mut self, played: Played) {
        let (from, to) = (played.step.from as usize, played.step.to as usize);
        self.row.insert(from, self.row[to]);
        self.row[to] = played.covered;
        if played.step.grace {
            self.grace_left = true;
        }
    }
}
