//! What a search may spend and what it spent: the shared piece every game's solver takes and
//! reports.
//!
//! Input: nothing (plain data). Output: [`Budget`] (nodes, memo memory, time) and [`Stats`]
//! (nodes, time, the memo's peak).

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
