//! What a search may spend, what it spent and what it found: the shared piece every game's
//! solver takes and reports.
//!
//! Input: nothing (plain data). Output: [`Budget`] (nodes, memo memory, time), [`Stats`]
//! (nodes, time, the memo's peak) and a game's [`Solution`] (an [`Outcome`] in its moves, with
//! the stats).

use std::time::Duration;

/// Limits on one solve.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Give up after expanding this many search nodes. (A game's search may spend a bounded
    /// amount of uncounted work besides, e.g. Black Hole's arc test.)
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

/// What a solve cost.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub nodes: u64,
    pub elapsed: Duration,
    pub peak_memo_entries: usize,
    pub peak_memo_bytes: usize,
}

/// A solver's answer, in a game's moves `M`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<M> {
    /// The moves, already replayed through the game's checker, that win.
    Solved(Vec<M>),
    /// No sequence of moves wins.
    Unsolvable,
    /// The budget ran out first: undecided.
    GaveUp,
}

/// An outcome with its cost.
#[derive(Clone, Debug)]
pub struct Solution<M> {
    pub outcome: Outcome<M>,
    pub stats: Stats,
}
