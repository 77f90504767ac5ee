//! The solver: decides a puzzle within an explicit budget.
//!
//! Input: a [`Puzzle`], a [`Game`] and a [`Budget`]. Output: a [`Solution`]: solved (with a
//! witness already replayed through the checker), proved unsolvable, or gave up, with [`Stats`].

use std::time::Duration;

use crate::model::{Game, Move, Puzzle};

/// Limits on one solve.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Give up after expanding this many search nodes.
    pub max_nodes: u64,
    /// Memory the memo of dead states may use; when full it stops growing (less pruning, never
    /// a wrong answer).
    pub memo_bytes: usize,
    /// Give up after this much time, if set.
    pub time: Option<Duration>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { max_nodes: 200_000_000, memo_bytes: 1 << 30, time: None }
    }
}

/// The solver's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Solved(Vec<Move>),
    Unsolvable,
    GaveUp,
}

/// What a solve cost.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub nodes: u64,
    pub elapsed: Duration,
    pub peak_memo_entries: usize,
    pub peak_memo_bytes: usize,
}

/// An outcome with its cost.
#[derive(Clone, Debug)]
pub struct Solution {
    pub outcome: Outcome,
    pub stats: Stats,
}

/// Solves `puzzle` as `game` within `budget`.
pub fn solve(puzzle: &Puzzle, game: Game, budget: &Budget) -> Solution {
    let _ = (puzzle, game, budget);
    todo!()
}
