//! The solver: decides a puzzle within an explicit budget.
//!
//! Input: a [`Puzzle`], a [`Game`] and a [`Budget`]. Output: a [`Solution`]: solved (with a
//! witness already replayed through the checker), proved unsolvable, or gave up, with [`Stats`].
//!
//! A depth-first search (`search`) over positions (`state`) with a memory-bounded memo of
//! dead positions (`memo`), keyed exactly up to an equivalence that keeps solvability
//! (`key`: identical pile remnants, runs of one rank, the hole's and the worm card's ranks).
//! Moves are pruned by rules that never lose a solution (`prune`: same-rank dominance, twin
//! piles, the worm-hole rules), and dead positions are recognised early by necessary conditions
//! (`walk`: can the remaining ranks follow the hole at all; `cuts`: in an order the piles
//! allow). A Black Hole search still going after [`ARC_TEST_AFTER`] nodes tries a deeper test
//! once at its root (`arcs`: small games on arcs of ranks). A run that stalls starts again
//! from the root with its ties of move order broken another way, keeping the memo
//! (`RESTART_UNIT`). Every rule has its soundness
//! argument on its own function and a test against exhaustive search. The search is complete
//! for generalised decks: any ranks, suits and piles, uneven or empty piles, any hole card,
//! partial decks.
//!
//! Every witness is replayed through [`crate::blackhole::check`] before it is reported.

mod arcs;
mod cuts;
mod key;
mod memo;
mod mutant;
mod prune;
mod search;
mod state;
mod walk;

use std::time::Instant;

use crate::blackhole::check::{self, Finding};
use crate::blackhole::model::{Game, Move, Puzzle};

pub use crate::budget::{Budget, Stats};

use memo::DeadSet;
use search::{End, Limits, Search};
use state::{Layout, Position};

/// The solver's answer, in Black Hole's moves.
pub type Outcome = crate::budget::Outcome<Move>;

/// An outcome with its cost.
pub type Solution = crate::budget::Solution<Move>;

/// Solves `puzzle` as `game` within `budget`.
///
/// Worm Hole is searched as itself from the start. (It once looked for a Black Hole solution
/// first, with up to 20,000 nodes: on the standard deals 1..=20,000 that cost eleven times the
/// nodes of searching Worm Hole alone, and put the 99th percentile at 20,091 nodes; it is 662
/// now.)
pub fn solve(puzzle: &Puzzle, game: Game, budget: &Budget) -> Solution {
    solve_restarting(puzzle, game, budget, RESTART_UNIT)
}

/// [`solve`] with runs of `unit` times Luby's sequence in nodes (tests use small units to
/// restart often).
fn solve_restarting(puzzle: &Puzzle, game: Game, budget: &Budget, unit: u64) -> Solution {
    let start = Instant::now();
    let mut stats = Stats::default();
    let limits = Limits { max_nodes: budget.max_nodes, deadline: search::deadline(start, budget.time) };
    let outcome = match run(puzzle, game, budget, limits, unit, &mut stats) {
        End::Solved(moves) => verified(puzzle, game, moves),
        End::Unsolvable => Outcome::Unsolvable,
        End::GaveUp => Outcome::GaveUp,
    };
    stats.elapsed = start.elapsed();
    Solution { outcome, stats }
}

/// A Black Hole search still going after this many nodes is paused for the arc-projection
/// test at its root (`arcs`), which settles some of the hardest deals at once.
pub const ARC_TEST_AFTER: u64 = 150_000;

/// The most states the arc-projection test may look at in all its games (about 0.13 s), and in
/// any one game: tuned on the 20,000 standard deals, where it settles the hardest three (GEN
/// 9253 in about 220,000 states, in games of up to 55,000; 18380; 11598, whose largest game
/// needs 71,000) and bounds what it costs where it proves nothing.
const ARC_TEST_BUDGET: u64 = 250_000;
const ARC_GAME_BUDGET: u64 = 75_000;

/// The unit of the runs' shares: run `i` (from 1) may use `RESTART_UNIT * luby(i)` nodes, the
/// universal restart schedule of Luby, Sinclair and Zuckerman (1, 1, 2, 1, 1, 2, 4, 1, ...).
/// A run whose share would pass [`LAST_RESTART_NODES`] is not cut short, so the search stays
/// complete.
///
/// A depth-first search that commits early to a dead branch can spend a hundred thousand
/// nodes in it on a deal that another order of equally good moves solves in a few hundred;
/// every run shares the memo, so a position proved dead stays dead and an unsolvable deal pays
/// little for the restarts. Measured on the standard deals 1..=20,000 (Black Hole), against one
/// run: 29% fewer nodes in all, the 99th percentile 29,756 → 15,455 nodes (doubling shares
/// from 250 nodes: 17,784; on deals 20,001..=40,000, Luby 16,899 and doubling 20,318); units
/// of 100 to 1,200 nodes did about as well.
const RESTART_UNIT: u64 = 300;
const LAST_RESTART_NODES: u64 = 2_000_000;

/// The `i`-th term (from 1) of Luby's sequence: `2^(k-1)` when `i = 2^k - 1`, else the term
/// at `i - 2^(k-1) + 1` for the `k` with `2^(k-1) <= i < 2^k - 1`.
fn luby(mut i: u64) -> u64 {
    loop {
        let half = 1u64 << (63 - i.leading_zeros()); // 2^(k-1) <= i < 2^k
        if i == half - 1 + half {
            return half;
        }
        i -= half - 1;
    }
}

/// One search of `puzzle` as `game`, adding its cost to `stats`: runs from the root in
/// restarted orders (shares of `unit` times Luby's sequence; see [`RESTART_UNIT`]) until one
/// ends or the limits do, with the arc test once after [`ARC_TEST_AFTER`] nodes (Black Hole
/// only).
fn run(puzzle: &Puzzle, game: Game, budget: &Budget, limits: Limits, unit: u64, stats: &mut Stats) -> End {
    let layout = Layout::new(puzzle, game);
    let mut memo = DeadSet::new(layout.key.width(), budget.memo_bytes);
    let root = Position::start(&layout, puzzle);
    let mut arc_test_due = game == Game::BlackHole && limits.max_nodes > ARC_TEST_AFTER;
    let mut used = 0;
    let mut restart: u64 = 0;
    // One search serves every run: the pile-order test's tables, built as positions need them,
    // are kept.
    let mut search = Search::new(&layout, root.clone(), &mut memo);
    let end = loop {
        let share =
            Some(unit.saturating_mul(luby(restart + 1))).filter(|&n| n <= LAST_RESTART_NODES).unwrap_or(u64::MAX);
        let left = limits.max_nodes - used;
        // A run stops at the arc test's turn, too: the next one starts after it.
        let mut this = share.min(left);
        if arc_test_due {
            this = this.min(ARC_TEST_AFTER - used);
        }
        search.start_over(&root, restart);
        let end = search.run(Limits { max_nodes: this, ..limits });
        // A run that gives up has expanded one node past its share.
        used = (used + search.nodes()).min(limits.max_nodes);
        if end != End::GaveUp || this == left || limits.deadline.is_some_and(|d| Instant::now() >= d) {
            break end;
        }
        if arc_test_due && used >= ARC_TEST_AFTER {
            arc_test_due = false;
            if arcs::refutes(&layout, &root, root.ends, (ARC_TEST_BUDGET, ARC_GAME_BUDGET), limits.deadline) {
                break End::Unsolvable;
            }
        }
        if this == share {
            restart += 1;
        }
    };
    drop(search);
    stats.nodes += used;
    stats.peak_memo_entries = stats.peak_memo_entries.max(memo.peak_len());
    stats.peak_memo_bytes = stats.peak_memo_bytes.max(memo.bytes());
    end
}

/// Replays a witness through the checker: only a checked witness is reported as solved. A
/// witness that fails is a solver bug; release builds answer "gave up", never a wrong "solved".
fn verified(puzzle: &Puzzle, game: Game, moves: Vec<Move>) -> Outcome {
    let report = check::check_moves(puzzle, game, &moves);
    if report.finding == Finding::Solved {
        Outcome::Solved(moves)
    } else {
        debug_assert!(false, "solver witness failed the checker: {}", report.finding);
        Outcome::GaveUp
    }
}

#[cfg(test)]
mod tests;
