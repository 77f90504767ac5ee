//! The solver for Late Binding Solitaire, plain and with grace.
//!
//! Input: a [`Layout`], a [`Variant`] and a [`Budget`] (Black Hole's: nodes, memo memory,
//! time). Output: a [`Solution`]: solved (with moves already replayed through
//! [`super::check`]), proved unsolvable, or gave up ("undecided": never a guess), with
//! [`Stats`].
//!
//! A depth-first search (`search`) over states (`board`: the row, as the cards' original
//! positions, and whether the grace is still to use) with a memory-bounded memo of dead states
//! (`memo`) under exact keys: the whole row and the grace flag, bit-packed. No hash stands in
//! for a key. Budgets of nodes, time and memory end a search with "gave up" (undecided), never a
//! guess; the clock is read by work done, so one node of a huge row cannot run long unchecked.
//!
//! # Prunes, and why each is sound
//!
//! - **The tests of `prune`** (connectivity of the matching graph; at most one "left pendant";
//!   where a left pendant's partner stands): each argued in that module's doc from the *cover
//!   tree* of a won game. A state failing one has no winning continuation.
//! - **Grace children of a split row**: a grace move is listed only when the row less its pile-0
//!   card is connected (argued at `search::Search::children`: a grace child is a plain state
//!   holding exactly those cards, and fails the connectivity test otherwise).
//! - **Dead memo**: a state is recorded only after all its children were found dead (or it has
//!   none worth entering): the game is acyclic (every move removes a pile), so no state on the
//!   current path is recorded before it is decided.
//!
//! Nothing else is cut: every legal move (and every grace move while the grace is unused) is a
//! child. With grace, the plain game is searched first in the same memo, and each search
//! restarts in shuffled orders when its first, heuristic, order stalls ([`solve`]); the last run
//! is unlimited, so the search stays complete. Each prune is tested against exhaustive search on
//! small layouts (`tests`), and every witness is replayed through the checker before it is
//! reported.

mod board;
mod memo;
mod prune;
mod search;

use std::time::Instant;

pub use crate::budget::{Budget, Stats};

use super::check::{check_moves, Table};
use super::model::{Layout, Move, Variant};

use board::{Board, State, Step};
use memo::DeadSet;
use search::{End, Limits, Order, Search};

/// The solver's answer, in Late Binding's moves: solved leaves one pile; unsolvable is the
/// contract's `-1`.
pub type Outcome = crate::budget::Outcome<Move>;

/// An outcome with its cost.
pub type Solution = crate::budget::Solution<Move>;

/// The nodes of the first run, in the heuristic order (see [`solve`]).
const FIRST_RUN_NODES: u64 = 2_000;

/// The last run with a share of nodes of its own; the next one may use the whole budget left.
const LAST_RESTART_NODES: u64 = 2_000_000;

/// Bytes of one listed step on the search's path, without its key, for the memory bound.
const STEP_BYTES: usize = std::mem::size_of::<Step>();

/// Solves `layout` as `variant` within `budget`.
///
/// With grace, the plain game is searched first, in the same memo: a plain solution is a grace
/// solution, the plain search is the smaller one, and the grace search, which tries grace moves
/// wherever plain moves fail, can wander far from a plain solution that a plain search finds at
/// once. The plain search's dead states are the grace search's states with the grace used, so
/// its work is not lost when it fails.
///
/// Each search restarts: a depth-first search that commits early to a bad branch can spend a
/// million nodes there on a layout that another order solves in a few thousand. So the first
/// run, in the heuristic order, stops after `FIRST_RUN_NODES` (2,000); each next run starts
/// again from the root in a shuffled order, with twice the nodes, until a run may use the whole
/// budget left (past `LAST_RESTART_NODES`, 2,000,000), which keeps the search complete. All
/// runs share the memo: a state proved dead is dead in any order, so an unsolvable layout pays
/// little for the restarts (on the benchmark's layouts, well under 1% more nodes).
pub fn solve(layout: &Layout, variant: Variant, budget: &Budget) -> Solution {
    let start = Instant::now();
    if layout.row.is_empty() {
        // Not a valid layout (the parser refuses `P = 0`), and never one pile.
        return Solution { outcome: Outcome::Unsolvable, stats: Stats::default() };
    }
    let words = memo::KeyFormat::new(layout.row.len()).words();
    let mut memo = DeadSet::new(words, budget.memo_bytes);
    let deadline = budget.time.map(|t| start + t);
    // Each listed child keeps its step and its key, and each state on the path its key (there
    // are fewer of those than listed children): the path may use about as much memory as the
    // memo.
    let max_steps = budget.memo_bytes / (STEP_BYTES + 16 * words);
    let mut nodes = 0;
    let mut outcome = Outcome::GaveUp;
    for game in [Variant::Plain, Variant::Grace] {
        let board = Board::new(layout, game);
        let mut run = 0;
        let end = loop {
            // The first run in the heuristic order; a run that reaches its share of nodes undecided
            // starts again from the root in another order, with twice the share; past
            // `LAST_RESTART_NODES` the share is the whole budget left.
            let share = FIRST_RUN_NODES.checked_shl(run).filter(|&n| n <= LAST_RESTART_NODES).unwrap_or(u64::MAX);
            let limits = Limits { max_nodes: budget.max_nodes.saturating_sub(nodes).min(share), deadline, max_steps };
            let order = if run == 0 { Order::Heuristic } else { Order::Shuffled(u64::from(run)) };
            let mut search = Search::new(&board, State::start(&board), &mut memo, order);
            let end = search.run(limits);
            nodes += search.nodes();
            if end != End::GaveUp || limits.max_nodes != share || deadline.is_some_and(|d| Instant::now() >= d) {
                break end;
            }
            run += 1;
        };
        outcome = match end {
            End::Solved(steps) => verified(layout, variant, witness(layout, variant, &steps)),
            End::Unsolvable => Outcome::Unsolvable,
            End::GaveUp => Outcome::GaveUp,
        };
        // Only a plain failure with grace allowed goes on to the grace search.
        if variant == Variant::Plain || outcome != Outcome::Unsolvable {
            break;
        }
    }
    let stats = Stats { nodes, elapsed: start.elapsed(), peak_memo_entries: memo.len(), peak_memo_bytes: memo.bytes() };
    Solution { outcome, stats }
}

/// The steps as moves: the card each moves, found by replaying them on the checker's table,
/// which finds a pile by position in `O(log P)` (a huge row's witness would take `O(P^2)` on a
/// plain vector). A step the table refuses would be a solver bug: the move is still listed, and
/// [`verified`] rejects the witness.
fn witness(layout: &Layout, variant: Variant, steps: &[Step]) -> Vec<Move> {
    let mut table = Table::new(layout);
    steps
        .iter()
        .map(|&step| {
            let card = table.card_at(step.from as usize).unwrap_or(0);
            let _ = table.apply(variant, i64::from(card), i64::from(step.to));
            Move { card, to: step.to as usize }
        })
        .collect()
}

/// Only a witness the checker accepts is reported as solved; one that fails is a solver bug,
/// and release builds then answer "gave up", never a wrong "solved".
fn verified(layout: &Layout, variant: Variant, moves: Vec<Move>) -> Outcome {
    let report = check_moves(layout, variant, &moves);
    if report.is_solution() {
        Outcome::Solved(moves)
    } else {
        debug_assert!(false, "solver witness failed the checker: {}", report.finding);
        Outcome::GaveUp
    }
}

#[cfg(test)]
mod tests;
