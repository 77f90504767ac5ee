//! The depth-first search with its memo of dead states.
//!
//! Input: a [`Board`], its starting [`State`], a [`DeadSet`] and [`Limits`]. Output: an [`End`]
//! (the winning steps, a proof that none exist, or a spent budget) and the nodes it expanded.
//!
//! Every move removes a pile, so the game graph is acyclic and a state is dead exactly when all
//! its children are: recording it after they fail (post-order) never records a state that a
//! search still in progress depends on. The search is iterative so that a huge row cannot
//! overflow the stack, and reads the clock by work done (piles looked at), not by nodes, so
//! that a node of a huge row cannot run long unchecked.

use std::time::Instant;

use super::board::{Board, Played, State, Step};
use super::memo::{DeadSet, KeyFormat};
use super::prune::Feasibility;

/// How far one search may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_nodes: u64,
    /// Give up at this instant, if set.
    pub deadline: Option<Instant>,
    /// Give up when the listed children of the current path exceed this many (memory).
    pub max_steps: usize,
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    Solved(Vec<Step>),
    Unsolvable,
    GaveUp,
}

/// The clock is read once this many piles have been looked at since the last reading: every
/// few tens of microseconds, whatever the row's length.
const CLOCK_EVERY_WORK: usize = 1 << 14;

/// One level of the search: its children are `steps[start..end]`, `next` is the next to try.
#[derive(Clone, Copy, Debug)]
struct Frame {
    start: usize,
    next: usize,
    end: usize,
}

/// A depth-first search of one board.
pub struct Search<'a> {
    board: &'a Board,
    state: State,
    memo: &'a mut DeadSet,
    feasibility: Feasibility,
    nodes: u64,
    work: usize,
    format: KeyFormat,
    /// The keys of the states on the current path, root first (`words` each).
    path_keys: Vec<u64>,
    /// The keys of the listed children, parallel to the search's list of steps.
    child_keys: Vec<u64>,
    /// Scratch for ordering the children of one state.
    order: Vec<(u64, Step)>,
    /// Scratch: the memo hashes of the children of one state.
    hashes: Vec<u64>,
    /// How the children of a state are ordered.
    order_kind: Order,
}

/// How a search orders the children of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Best first by the heuristic of [`Search::children`].
    Heuristic,
    /// In a pseudo-random order drawn from this seed (for restarts).
    Shuffled(u64),
}

impl<'a> Search<'a> {
    pub fn new(board: &'a Board, state: State, memo: &'a mut DeadSet, order: Order) -> Self {
        let feasibility = Feasibility::new(board);
        let format = KeyFormat::new(board.cards.len());
        let mut path_keys = vec![0; format.words()];
        format.write(&state.row, state.grace_left, &mut path_keys);
        Search {
            board,
            state,
            memo,
            feasibility,
            nodes: 0,
            work: 0,
            format,
            path_keys,
            child_keys: Vec::new(),
            order: Vec::new(),
            hashes: Vec::new(),
            order_kind: order,
        }
    }

    /// The nodes expanded so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches from the starting state until it wins, proves the state dead, or runs out of
    /// budget.
    ///
    /// A state is entered only after it passed the tests of [`super::prune`] and the memo, both
    /// asked when its parent listed it (for the root, here): the children that fail are never
    /// made, and most children do fail.
    pub fn run(&mut self, limits: Limits) -> End {
        let words = self.format.words();
        let mut steps: Vec<Step> = Vec::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut path: Vec<Played> = Vec::new();
        if self.memo.contains(&self.path_keys, DeadSet::hash(&self.path_keys))
            || !self.feasibility.feasible(self.board, &self.state.row, self.state.grace_left)
        {
            return End::Unsolvable;
        }
        // `true`: the state just reached still has to be expanded.
        let mut entering = true;
        loop {
            if entering {
                entering = false;
                self.nodes += 1;
                if self.nodes > limits.max_nodes || self.out_of_time(limits.deadline) {
                    return End::GaveUp;
                }
                if self.state.row.len() <= 1 {
                    return End::Solved(path.iter().map(|p| p.step).collect());
                }
                let start = steps.len();
                self.children(&mut steps);
                // Checked before the children's keys are allocated: a huge row has many children
                // with long keys.
                if steps.len() > limits.max_steps || !self.keep_live_children(&mut steps, start, limits.deadline) {
                    return End::GaveUp;
                }
                if steps.len() > start {
                    frames.push(Frame { start, next: start, end: steps.len() });
                    continue;
                }
                // No child is worth entering: dead.
                self.remember_dead();
                let Some(played) = path.pop() else { return End::Unsolvable };
                self.leave(played);
                continue;
            }
            let Some(frame) = frames.last_mut() else { return End::Unsolvable };
            if frame.next < frame.end {
                let next = frame.next;
                frame.next += 1;
                path.push(self.state.apply(steps[next]));
                self.path_keys.extend_from_slice(&self.child_keys[next * words..(next + 1) * words]);
                entering = true;
                continue;
            }
            // Every child failed: this state is dead.
            self.remember_dead();
            steps.truncate(frame.start);
            self.child_keys.truncate(frame.start * words);
            frames.pop();
            let Some(played) = path.pop() else { return End::Unsolvable };
            self.leave(played);
        }
    }

    /// Goes back from the current state to its parent.
    fn leave(&mut self, played: Played) {
        self.state.undo(played);
        self.path_keys.truncate(self.path_keys.len() - self.format.words());
    }

    /// Keeps the children in `steps[start..]` worth entering, in order, with their keys in
    /// `child_keys` (parallel to `steps`): those the memo does not know are dead and that pass
    /// the tests of [`super::prune`]. The keys are derived first and their memo slots
    /// prefetched together, so that the memo's cache misses overlap instead of coming one per
    /// child; the tests, which cost more than a prefetched lookup, run only on the children the
    /// memo lets through. (A child failing a test is not remembered: the test is cheaper than
    /// the memory.)
    ///
    /// Asking the memo only here, not again when a child is entered, misses nothing: between
    /// now and then only siblings' subtrees are searched, which hold shorter rows than any
    /// sibling.
    ///
    /// Returns `false` when the deadline passed meanwhile: testing the children of a huge row
    /// is long, so the clock is read between them too.
    fn keep_live_children(&mut self, steps: &mut Vec<Step>, start: usize, deadline: Option<Instant>) -> bool {
        let words = self.format.words();
        let parent = &self.path_keys[self.path_keys.len() - words..];
        self.child_keys.resize(steps.len() * words, 0);
        self.work += words * (steps.len() - start);
        self.hashes.clear();
        for (i, step) in steps.iter().enumerate().skip(start) {
            let key = &mut self.child_keys[i * words..(i + 1) * words];
            let grace_left = self.state.grace_left && !step.grace;
            self.format.derive(parent, step.from as usize, step.to as usize, grace_left, key);
            let hash = DeadSet::hash(key);
            self.memo.prefetch(hash);
            self.hashes.push(hash);
        }
        let mut kept = start;
        for i in start..steps.len() {
            let step = steps[i];
            if self.memo.contains(&self.child_keys[i * words..(i + 1) * words], self.hashes[i - start]) {
                continue;
            }
            // Testing a child looks at every pile.
            if self.out_of_time(deadline) {
                return false;
            }
            let grace_left = self.state.grace_left && !step.grace;
            if self.feasibility.feasible_child(self.board, &mut self.state.row, step, grace_left) {
                steps[kept] = step;
                self.child_keys.copy_within(i * words..(i + 1) * words, kept * words);
                kept += 1;
            }
        }
        steps.truncate(kept);
        self.child_keys.truncate(kept * words);
        true
    }

    /// Counts the work of looking at every pile of the current row once, and says whether the
    /// deadline has passed (reading the clock only every [`CLOCK_EVERY_WORK`] piles).
    fn out_of_time(&mut self, deadline: Option<Instant>) -> bool {
        self.work += self.state.row.len();
        if self.work < CLOCK_EVERY_WORK {
            return false;
        }
        self.work = 0;
        deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn remember_dead(&mut self) {
        self.memo.insert(&self.path_keys[self.path_keys.len() - self.format.words()..]);
    }

    /// Appends the legal moves of the current state to `out`, best first: plain moves that
    /// cover the card with the fewest matches first (a card that loses its last matches can no
    /// longer be covered, so the scarce ones are used while they can be), 1-moves before
    /// 3-moves among equals, then the grace moves.
    pub(super) fn children(&mut self, out: &mut Vec<Step>) {
        let board = self.board;
        let row = &self.state.row;
        let len = row.len();
        let start = out.len();
        for from in (1..len).rev() {
            let card = row[from];
            for back in [1, 3] {
                if from >= back && board.matches(card, row[from - back]) {
                    out.push(Step { from: from as u32, to: (from - back) as u32, grace: false });
                }
            }
        }
        self.feasibility.load(board, row);
        // Each child's rank in one integer, so that the sort compares integers: in the heuristic
        // order the degree, then the distance, then the order listed (ties stay in that order);
        // shuffled, a hash of the seed and the two cards of the move.
        self.order.clear();
        for (i, step) in out[start..].iter().enumerate() {
            let degree = u64::from(self.feasibility.degree(board, row[step.to as usize]));
            let rank = match self.order_kind {
                Order::Heuristic => degree << 40 | u64::from(step.from - step.to) << 32 | i as u64,
                Order::Shuffled(seed) => {
                    let cards = u64::from(row[step.from as usize]) << 32 | u64::from(row[step.to as usize]);
                    crate::rng::scramble(seed, cards)
                }
            };
            self.order.push((rank, *step));
        }
        self.order.sort_unstable_by_key(|&(rank, _)| rank);
        for (slot, &(_, step)) in out[start..].iter_mut().zip(&self.order) {
            *slot = step;
        }
        // Every grace child holds the row's cards but the pile-0 card (in another order) and is
        // a plain state, which the connectivity test allows only one component: when those
        // cards form more, no grace child could pass, so none is listed.
        if self.state.grace_left && self.feasibility.connected_without_front(board, row) {
            for from in 1..len {
                let plain = matches!(from, 1 | 3) && board.matches(row[from], row[0]);
                if !plain {
                    out.push(Step { from: from as u32, to: 0, grace: true });
                }
            }
        }
    }
}
