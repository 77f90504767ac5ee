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
//! once at its root (`arcs`: small games on arcs of ranks). Every rule has its soundness
//! argument on its own function and a test against exhaustive search. The search is complete
//! for generalised decks: any ranks, suits and piles, uneven or empty piles, any hole card,
//! partial decks.
//!
//! Worm Hole first looks for a Black Hole solution, and every witness is replayed through
//! [`crate::blackhole::check`] before it is reported.

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

/// Worm Hole first looks for a Black Hole solution (every one is also a Worm Hole solution, and
/// the Black Hole search is far smaller) with at most this many nodes, then searches Worm Hole.
pub const WORM_BLACK_HOLE_NODES: u64 = 20_000;

/// Solves `puzzle` as `game` within `budget`.
pub fn solve(puzzle: &Puzzle, game: Game, budget: &Budget) -> Solution {
    let start = Instant::now();
    let mut stats = Stats::default();
    let deadline = search::deadline(start, budget.time);
    let mut end = End::GaveUp;
    if game == Game::WormHole {
        let limits = Limits { max_nodes: budget.max_nodes.min(WORM_BLACK_HOLE_NODES), deadline };
        end = run(puzzle, Game::BlackHole, budget, limits, &mut stats);
        if end == End::Unsolvable {
            // No Black Hole solution says nothing about Worm Hole.
            end = End::GaveUp;
        }
    }
    if end == End::GaveUp {
        let limits = Limits { max_nodes: budget.max_nodes.saturating_sub(stats.nodes), deadline };
        end = run(puzzle, game, budget, limits, &mut stats);
    }
    let outcome = match end {
        End::Solved(moves) => verified(puzzle, game, moves),
        End::Unsolvable => Outcome::Unsolvable,
        End::GaveUp => Outcome::GaveUp,
    };
    stats.elapsed = start.elapsed();
    Solution { outcome, stats }
}

/// A Black Hole search still going after this many nodes is paused for the arc-projection
/// test at its root ([`arcs`]), which settles some of the hardest deals at once.
pub const ARC_TEST_AFTER: u64 = 150_000;

/// The most states the arc-projection test may look at in all its games (about 0.13 s), and in
/// any one game: tuned on the 20,000 standard deals, where it settles the hardest three (GEN
/// 9253 in about 220,000 states, in games of up to 55,000; 18380; 11598, whose largest game
/// needs 71,000) and bounds what it costs where it proves nothing.
const ARC_TEST_BUDGET: u64 = 250_000;
const ARC_GAME_BUDGET: u64 = 75_000;

/// One search of `puzzle` as `game`, adding its cost to `stats`.
fn run(puzzle: &Puzzle, game: Game, budget: &Budget, limits: Limits, stats: &mut Stats) -> End {
    let layout = Layout::new(puzzle, game);
    let mut memo = DeadSet::new(layout.key.width(), budget.memo_bytes);
    let root = Position::start(&layout, puzzle);
    let search = |limits: Limits, memo: &mut DeadSet, stats: &mut Stats| {
        let mut search = Search::new(&layout, root.clone(), memo);
        let end = search.run(limits);
        stats.nodes += search.nodes();
        end
    };
    let end = if game == Game::BlackHole && limits.max_nodes > ARC_TEST_AFTER {
        let before = stats.nodes;
        let end = search(Limits { max_nodes: ARC_TEST_AFTER, ..limits }, &mut memo, stats);
        let ends = search::last_card_ranks(&layout, &root.heights);
        if end != End::GaveUp {
            end
        } else if arcs::refutes(&layout, &root, ends, (ARC_TEST_BUDGET, ARC_GAME_BUDGET), limits.deadline) {
            End::Unsolvable
        } else {
            // Again from the root, with every dead position found so far remembered.
            let left = limits.max_nodes - (stats.nodes - before);
            search(Limits { max_nodes: left, ..limits }, &mut memo, stats)
        }
    } else {
        search(limits, &mut memo, stats)
    };
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
