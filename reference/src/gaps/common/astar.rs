//! The A*: a position of a [`Board`] → a shortest win (or, weighted, a short one), a proof that
//! there is none, or "gave up" past a cap of positions.
//!
//! Every position met is tabled with the move it was first reached by, and the queue is ordered
//! by `f = g + h` (`g` the moves made, `h` the board's bound, which never overestimates and
//! changes by at most one per move), so the first won position taken from the queue is reached
//! by a shortest line and no position is expanded twice. Only the stubborn moves are tried
//! ([`super::reduce`]), and dead positions are tabled once and never queued.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use super::index::{tag, Index, Slot};
use super::{reduce, Board, Limit, Order, Outcome, Position, Scan};
use crate::gaps::model::Move;

/// One position met: how it was first reached (its parent's index and the move), and `g`.
#[derive(Clone, Copy)]
struct Met {
    parent: u32,
    card: u8,
    cell: u8,
    moves: u16,
}

/// The search's state: every position met, the queue, and how to order it.
struct Search<'a, const WORDS: usize> {
    board: &'a Board,
    order: Order,
    limit: Limit,
    /// Each position met, as its index in `met` (the position is kept once, there).
    index: Index,
    /// Each position met, dead ones included, and how it was first reached.
    met: Vec<(Position<WORDS>, Met)>,
    /// Whether each position of `met` is done with: expanded, or dead (met once, never queued,
    /// never counted again).
    expanded: Vec<bool>,
    queue: Queue,
}

/// The queue of positions (their indices in `met`) to expand: the least priority first, and of
/// equal priorities the position met first (the least index), as one binary heap of (priority,
/// index) would give them. Kept as one small heap of indices for each priority, found by
/// priority in an ordered map: a full deck's queue holds millions of positions but a few
/// thousand priorities, and a heap of millions costs a cache miss at nearly every level of a pop
/// (12.5% of a full deck's search), where the heap of the priority being taken stays in cache
/// and a new position, met last, stays at the bottom of its heap.
#[derive(Default)]
struct Queue {
    by_priority: BTreeMap<u64, BinaryHeap<Reverse<u32>>>,
}

impl Queue {
    fn push(&mut self, priority: u64, at: u32) {
        self.by_priority.entry(priority).or_default().push(Reverse(at));
    }

    fn pop(&mut self) -> Option<(u64, u32)> {
        let mut least = self.by_priority.first_entry()?;
        let Reverse(at) = least.get_mut().pop().expect("no heap is left empty");
        let priority = *least.key();
        if least.get().is_empty() {
            least.remove();
        }
        Some((priority, at))
    }
}

/// Why a search stopped meeting positions.
struct CapReached;

impl<const WORDS: usize> Search<'_, WORDS> {
    fn priority(&self, moves: u16, bound: u32) -> u64 {
        // Scaled by 1024 so that a weight keeps its fraction; ties go to the deeper position.
        let f = match self.order {
            Order::Optimal => (u64::from(moves) + u64::from(bound)) * 1024,
            Order::Weighted(mu) => (f64::from(moves) * 1024.0 + mu * f64::from(bound) * 1024.0) as u64,
        };
        (f << 16) | u64::from(u16::MAX - moves)
    }

    /// Meets `position`, whose [`tag`] is `tag`, reached by `step`: a new position is tabled and
    /// queued unless dead (its `bound` is `None`); one still queued is queued again when `step`
    /// reaches it by fewer moves.
    fn meet(
        &mut self,
        position: Position<WORDS>,
        tag: u32,
        step: Met,
        bound: impl FnOnce() -> Option<u32>,
    ) -> Result<(), CapReached> {
        let met = &self.met;
        let (at, bound) = match self.index.find(tag, |at| met[at as usize].0 == position) {
            Slot::Holds(seen) => {
                // With a consistent bound a position is first expanded by a shortest line.
                if self.expanded[seen as usize] || self.met[seen as usize].1.moves <= step.moves {
                    return Ok(());
                }
                self.met[seen as usize].1 = step;
                (seen, bound().expect("only live positions are tabled"))
            }
            Slot::Free(slot) => {
                if self.limit.reached(self.index.len()) {
                    return Err(CapReached);
                }
                self.index.fill(slot, tag, self.met.len() as u32);
                self.met.push((position, step));
                let bound = bound();
                self.expanded.push(bound.is_none());
                let Some(bound) = bound else { return Ok(()) };
                (self.met.len() as u32 - 1, bound)
            }
        };
        self.queue.push(self.priority(step.moves, bound), at);
        Ok(())
    }

    /// The positions met, dead ones included.
    fn positions(&self) -> usize {
        self.index.len()
    }
}

/// Searches `cells` of `board` by A* in `order`, within `limit`.
pub(super) fn a_star<const WORDS: usize>(board: &Board, cells: &mut [u8], order: Order, limit: Limit) -> Outcome {
    AStar::<WORDS>::new(board, order).run(cells, limit)
}

/// An A* that can be taken up again where it gave up, with a larger limit, as if it had never
/// stopped: what it met is kept, and the position it was expanding goes back on the queue.
pub(super) struct AStar<'a, const WORDS: usize> {
    search: Search<'a, WORDS>,
}

impl<'a, const WORDS: usize> AStar<'a, WORDS> {
    pub(super) fn new(board: &'a Board, order: Order) -> AStar<'a, WORDS> {
        let search = Search {
            board,
            order,
            limit: Limit::positions(0),
            index: Index::new(),
            met: Vec::new(),
            expanded: Vec::new(),
            queue: Queue::default(),
        };
        AStar { search }
    }

    /// The positions met so far, dead ones included.
    pub(super) fn positions(&self) -> usize {
        self.search.positions()
    }

    /// Searches on from `cells` (the start: the same on every call) within `limit`; `cells`
    /// is left at the last position taken.
    pub(super) fn run(&mut self, cells: &mut [u8], limit: Limit) -> Outcome {
        let board = self.search.board;
        let search = &mut self.search;
        search.limit = limit;
        if search.positions() == 0 {
            let root = Met { parent: u32::MAX, card: 0, cell: 0, moves: 0 };
            let start = board.pack(cells);
            if search.meet(start, tag(start), root, || board.bound(cells, &mut Scan::new())).is_err() {
                return Outcome::GaveUp { positions: 0 };
            }
        }
        let (mut moves, mut children, mut scan) = (Vec::new(), Vec::new(), Scan::new());
        while let Some((priority, at)) = search.queue.pop() {
            let at = at as usize;
            if std::mem::replace(&mut search.expanded[at], true) {
                continue;
            }
            let position = search.met[at].0;
            board.unpack(position, cells);
            if board.won(cells) {
                let (optimal, positions) = (search.order == Order::Optimal, search.positions());
                return Outcome::Solved { moves: line_to(&search.met, at, board), optimal, positions };
            }
            let g = search.met[at].1.moves + 1;
            scan.refill(board, cells);
            board.moves(cells, &scan, &mut moves);
            reduce::stubborn(board, &scan, &mut moves);
            // Every child's slot is asked for first, so that their cache misses overlap.
            children.clear();
            for &(card, to) in &moves {
                let from = usize::from(scan.at[usize::from(card)]);
                let child = board.moved(position, card, from, to);
                let tag = tag(child);
                search.index.prefetch(tag);
                children.push((card, from, to, child, tag));
            }
            let may_stay = board.may_stay(cells);
            for &(card, from, to, child, tag) in &children {
                let step = Met { parent: at as u32, card, cell: to as u8, moves: g };
                let bound = || board.bound_after(cells, &mut scan, &may_stay, (card, from, to));
                if search.meet(child, tag, step, bound).is_err() {
                    // Taken up again, this position is expanded first, as it would have been.
                    search.expanded[at] = false;
                    search.queue.push(priority, at as u32);
                    return Outcome::GaveUp { positions: search.positions() };
                }
            }
        }
        Outcome::Unsolvable { positions: search.positions() }
    }
}

/// The moves from the start to position `at`, in the layout's positions (a row of `width`
/// cells here is a row of `width + 1` there, the Ace column first).
fn line_to<const WORDS: usize>(met: &[(Position<WORDS>, Met)], mut at: usize, board: &Board) -> Vec<Move> {
    let mut line = Vec::new();
    while met[at].1.parent != u32::MAX {
        let step = &met[at].1;
        line.push(board.layout_move(step.card, step.cell as usize));
        at = step.parent as usize;
    }
    line.reverse();
    line
}
