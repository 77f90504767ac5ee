//! The depth-first search with its memo of dead positions.
//!
//! Input: a [`Layout`], its starting [`Position`], and limits ([`Limits`]). Output: an [`End`]
//! (the winning moves, a proof that none exist, or a spent budget) and the nodes it expanded.
//!
//! Both games are acyclic: every move lowers `2 * (cards in piles) + (cards in the worm hole)`.
//! So a position is dead exactly when all its (kept) children are dead, and recording it after
//! its children fail (post-order) never records a position that a search still in progress
//! depends on. The search is iterative so that deep generalised puzzles cannot overflow the
//! stack.

use std::time::{Duration, Instant};

use crate::model::{Game, Move};

use super::memo::DeadSet;
use super::prune::{self, PlayCandidate};
use super::state::{Layout, Played, Position, Step};

/// How far one search may go.
pub static mut DBG: [u64; 4] = [0; 4];
pub static mut DBG_HIT: [u64; 64] = [0; 64];
pub static mut DBG_WALK: [u64; 64] = [0; 64];
pub static mut DBG_NODE: [u64; 64] = [0; 64];
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_nodes: u64,
    /// Give up at this instant, if set.
    pub deadline: Option<Instant>,
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    Solved(Vec<Move>),
    Unsolvable,
    GaveUp,
}

/// The time is read once per this many nodes: often enough to stop within a few
/// milliseconds of the deadline, rarely enough to cost nothing.
const CLOCK_EVERY: u64 = 1024;

/// One level of the search: its children are `moves[start..end]`, `next` is the next to try.
#[derive(Clone, Copy, Debug)]
struct Frame {
    start: usize,
    next: usize,
    end: usize,
}

/// A depth-first search over one puzzle in one game.
pub struct Search<'a> {
    layout: &'a Layout,
    pos: Position,
    memo: &'a mut DeadSet,
    nodes: u64,
    candidates: Vec<PlayCandidate>,
    worm_piles: Vec<u32>,
}

impl<'a> Search<'a> {
    pub fn new(layout: &'a Layout, pos: Position, memo: &'a mut DeadSet) -> Self {
        Search { layout, pos, memo, nodes: 0, candidates: Vec::new(), worm_piles: Vec::new() }
    }

    /// The nodes expanded so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches from the starting position until it wins, proves the position dead, or runs
    /// out of budget.
    pub fn run(&mut self, limits: Limits) -> End {
        let mut moves: Vec<Step> = Vec::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut path: Vec<Played> = Vec::new();
        // `true`: the position just reached still has to be looked at.
        let mut entering = true;
        loop {
            if entering {
                entering = false;
                self.nodes += 1;
                if self.nodes > limits.max_nodes {
                    return End::GaveUp;
                }
                if self.nodes % CLOCK_EVERY == 0 && limits.deadline.is_some_and(|d| Instant::now() >= d) {
                    return End::GaveUp;
                }
                if self.pos.is_won() {
                    return End::Solved(self.witness(&path));
                }
                let feasible = prune::rank_walk_feasible(self.layout.ranks, &self.pos.counts, self.pos.hole, self.pos.remaining);
                let hit = feasible && self.memo.contains(&self.pos.key);
                let alive = feasible && !hit;
                unsafe {
                    DBG[0] += 1;
                    if hit { DBG[1] += 1; DBG_HIT[self.pos.remaining as usize] += 1; }
                    else if !alive { DBG[2] += 1; DBG_WALK[self.pos.remaining as usize] += 1; }
                    DBG_NODE[self.pos.remaining as usize] += 1;
                }
                if alive {
                    let start = moves.len();
                    self.children(&mut moves);
                    frames.push(Frame { start, next: start, end: moves.len() });
                } else {
                    // A dead position without a frame: go straight back to its parent.
                    let Some(played) = path.pop() else { return End::Unsolvable };
                    self.pos.undo(self.layout, played);
                }
                continue;
            }
            let Some(frame) = frames.last_mut() else { return End::Unsolvable };
            if frame.next < frame.end {
                let step = moves[frame.next];
                frame.next += 1;
                path.push(self.pos.apply(self.layout, step));
                entering = true;
                continue;
            }
            // Every child failed: this position is dead.
            self.memo.insert(&self.pos.key);
            moves.truncate(frame.start);
            frames.pop();
            let Some(played) = path.pop() else { return End::Unsolvable };
            self.pos.undo(self.layout, played);
        }
    }

    /// The moves that led here, as the output format names them.
    fn witness(&self, path: &[Played]) -> Vec<Move> {
        path.iter()
            .map(|played| match played.step {
                Step::Play(p) => Move::Play { pile: p as usize, card: played.card },
                Step::ToWorm(p) => Move::ToWorm { pile: p as usize, card: played.card },
                Step::FromWorm => Move::FromWorm { card: played.card },
            })
            .collect()
    }

    /// Appends the kept children of the current position to `out`, best first.
    pub(super) fn children(&mut self, out: &mut Vec<Step>) {
        let layout = self.layout;
        let pos = &self.pos;
        let ranks = layout.ranks;
        let up = (pos.hole + 1) % ranks;
        let down = (pos.hole + ranks - 1) % ranks;
        let worm_open = layout.game == Game::WormHole && pos.worm.is_none();
        self.candidates.clear();
        self.worm_piles.clear();
        for (p, &h) in pos.heights.iter().enumerate() {
            if h == 0 {
                continue;
            }
            let top = h as usize - 1;
            let rank = layout.pile_ranks[p][top];
            let unit = layout.unit[p][top];
            let playable = rank == up || rank == down;
            let wormable = worm_open && prune::may_enter_worm(unit);
            if !(playable || wormable) || prune::has_earlier_twin(&layout.twins[p], &pos.heights, h) {
                continue;
            }
            if playable {
                self.candidates.push(PlayCandidate { pile: p as u32, rank, unit });
            }
            if wormable {
                self.worm_piles.push(p as u32);
            }
        }
        prune::keep_plays(&mut self.candidates);
        // Cards with more beneath them first: clearing tall piles early keeps options open
        // (the paper's value ordering); a stable sort keeps pile order among equals.
        let heights = &pos.heights;
        let counts = &pos.counts;
        let lay = layout;
        match order() {
            0 => self.candidates.sort_by_key(|c| std::cmp::Reverse(heights[c.pile as usize])),
            1 => {}
            2 => self.candidates.sort_by_key(|c| (std::cmp::Reverse(heights[c.pile as usize]), c.unit)),
            3 => self.candidates.sort_by_key(|c| std::cmp::Reverse(counts[c.rank as usize])),
            4 => self.candidates.sort_by_key(|c| counts[c.rank as usize]),
            5 => self.candidates.sort_by_key(|c| {
                let h = heights[c.pile as usize] as usize;
                let next = if h >= 2 { let r = lay.pile_ranks[c.pile as usize][h - 2]; let d = (r + ranks - c.rank) % ranks; d == 1 || d == ranks - 1 } else { false };
                (std::cmp::Reverse(next), std::cmp::Reverse(h))
            }),
            6 => self.candidates.sort_by_key(|c| (std::cmp::Reverse(heights[c.pile as usize]), std::cmp::Reverse(counts[c.rank as usize]))),
            _ => self.candidates.sort_by_key(|c| (std::cmp::Reverse(heights[c.pile as usize]), counts[c.rank as usize])),
        }
        out.extend(self.candidates.iter().map(|c| Step::Play(c.pile)));
        if let Some(worm) = pos.worm {
            let rank = (worm - 1) % ranks;
            if rank == up || rank == down {
                out.push(Step::FromWorm);
            }
        }
        out.extend(self.worm_piles.iter().map(|&p| Step::ToWorm(p)));
    }
}

/// The deadline `time` after `start`, if any.
pub fn deadline(start: Instant, time: Option<Duration>) -> Option<Instant> {
    time.map(|t| start + t)
}

fn order() -> u32 {
    static ORDER: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ORDER.get_or_init(|| std::env::var("ORDER").ok().and_then(|v| v.parse().ok()).unwrap_or(0))
}
