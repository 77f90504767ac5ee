//! The depth-first search with its memo of dead positions.
//!
//! Input: a [`Layout`], its starting [`Position`], and limits ([`Limits`]). Output: an [`End`]
//! (the winning moves, a proof that none exist, or a spent budget) and the nodes it expanded.
//!
//! Both games are acyclic: every move lowers `2 * (cards in piles) + (cards in the worm hole)`.
//! So a position is dead exactly when all its (kept) children are dead, and recording it after
//! its children fail (post-order) never records a position that a search still in progress
//! depends on. A position without a move, or failing the dead-state tests, is dead at once,
//! and recorded too. The search is iterative so that deep generalised puzzles cannot overflow
//! the stack.

use std::cmp::Reverse;
use std::time::{Duration, Instant};

use crate::blackhole::model::{Game, Move};

use super::cuts::PileOrder;
use super::memo::DeadSet;
use super::prune::{self, PlayCandidate};
use super::state::{Layout, Played, Position, Step, FEW_PILES};
use super::walk;

/// How far one search may go.
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

/// The time is read once per this many nodes of a small layout: often enough to stop within a
/// few milliseconds of the deadline, rarely enough to cost nothing. A node costs time linear in
/// the layout (its piles, ranks and key words), so a large layout reads it more often
/// ([`clock_every`]), down to every node.
const CLOCK_EVERY: u64 = 1024;

/// Layouts up to this size (piles + ranks + key words) read the time every [`CLOCK_EVERY`]
/// nodes; larger ones proportionally more often.
const SMALL_LAYOUT: usize = 1024;

/// Keys wider than this many words are not worked out for every child of a node (that costs
/// children times width, quadratic in the piles): each child is looked up in the memo when it
/// is entered instead (see [`Search::drop_dead_children`] for why that finds the same).
const WIDE_KEY: usize = 8;

/// How many nodes of `layout` pass between two readings of the clock.
fn clock_every(layout: &Layout) -> u64 {
    let size = layout.pile_ranks.len() + layout.ranks as usize + layout.key.width();
    if size <= SMALL_LAYOUT {
        CLOCK_EVERY
    } else {
        (CLOCK_EVERY * SMALL_LAYOUT as u64 / size as u64).max(1)
    }
}

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
    order: PileOrder,
    /// Scratch for [`Self::drop_dead_children`].
    child_keys: Vec<u64>,
    /// Whether keys are wider than [`WIDE_KEY`]: children are then looked up in the memo as
    /// they are entered.
    wide: bool,
    clock_every: u64,
    /// `twin_seen[id] == stamp`: a pile with prefix id `id` was listed at this node (see
    /// [`Self::children`]).
    twin_seen: Vec<u32>,
    stamp: u32,
    /// Scratch for [`prune::keep_plays_with`].
    rank_flags: Vec<u8>,
    /// Whether moves into the worm hole are generated: always, but for the test-only mutant
    /// ([`super::mutant`]).
    worm_entries: bool,
    /// Breaks ties of the move order ([`Self::children`]): 0 keeps them in pile order (the
    /// first run); a restart passes its number, which orders them by a hash of it and the card.
    restart: u64,
}

impl<'a> Search<'a> {
    /// A search from `pos`, its first run keeping pile order among equal moves (see
    /// [`Self::start_over`] for the runs after it).
    pub fn new(layout: &'a Layout, pos: Position, memo: &'a mut DeadSet) -> Self {
        let order = PileOrder::new(layout.ranks, &layout.pile_ranks);
        Search {
            layout,
            pos,
            memo,
            nodes: 0,
            candidates: Vec::new(),
            worm_piles: Vec::new(),
            order,
            child_keys: Vec::new(),
            wide: layout.key.width() > WIDE_KEY,
            clock_every: clock_every(layout),
            twin_seen: vec![0; if layout.pile_ranks.len() <= FEW_PILES { 0 } else { layout.prefixes }],
            stamp: 0,
            rank_flags: Vec::new(),
            worm_entries: !super::mutant::worm_entries_disabled(),
            restart: 0,
        }
    }

    /// Goes back to `root` for another run, whose ties of move order `restart` breaks, with the
    /// memo and the scratch kept; [`Self::nodes`] counts from 0 again.
    pub fn start_over(&mut self, root: &Position, restart: u64) {
        self.pos.clone_from(root);
        self.restart = restart;
        self.nodes = 0;
    }

    /// The nodes expanded so far (in this run).
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
                if (self.nodes == 1 || self.nodes.is_multiple_of(self.clock_every))
                    && limits.deadline.is_some_and(|d| Instant::now() >= d)
                {
                    return End::GaveUp;
                }
                if self.pos.is_won() {
                    return End::Solved(self.witness(&path));
                }
                // The memo was asked when the parent listed this position (see
                // `drop_dead_children`). The children are listed before the tests so that
                // their memo slots load while the tests run.
                let start = moves.len();
                self.children(&mut moves);
                if !self.wide {
                    self.prefetch_children(&moves[start..]);
                }
                // A position without a move is dead without the tests (a tenth of the nodes
                // of the slowest standard deals).
                if moves.len() > start && self.feasible() {
                    if !self.wide {
                        self.drop_dead_children(&mut moves, start);
                    }
                    frames.push(Frame { start, next: start, end: moves.len() });
                } else {
                    // Recorded, though it would be found dead again: the memo is asked
                    // before a child is entered, so a restart or a transposition that reaches
                    // it again drops it from its parent's moves, without a node or the tests.
                    // (Standard deals 1..=20,000: 7% fewer nodes, the 99th percentile 15,455
                    // → 14,484, and 3.5% less time in all.)
                    self.memo.insert(&self.pos.key);
                    moves.truncate(start);
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
                let played = self.pos.apply(self.layout, step);
                if self.wide && self.memo.contains(&self.pos.key) {
                    // Known dead: as if its parent had dropped it.
                    self.pos.undo(self.layout, played);
                    continue;
                }
                path.push(played);
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

    /// Works out the keys of the children `steps` and loads their memo slots into the cache,
    /// all at once, so that the memo's cache misses overlap instead of coming one per child.
    fn prefetch_children(&mut self, steps: &[Step]) {
        self.child_keys.clear();
        for &step in steps {
            let at = self.child_keys.len();
            self.child_keys.extend_from_slice(&self.pos.key);
            if let Step::Play(p) = step {
                // The common step, worked out without making it.
                self.pos.key_after_play(self.layout, p as usize, &mut self.child_keys[at..]);
            } else {
                let played = self.pos.apply(self.layout, step);
                self.child_keys[at..].copy_from_slice(&self.pos.key);
                self.pos.undo(self.layout, played);
            }
        }
        self.memo.prefetch(&self.child_keys);
    }

    /// Drops the children in `moves[start..]` that the memo knows are dead (their keys from
    /// [`Self::prefetch_children`]).
    ///
    /// Asking again when a child is entered would find nothing new: only its siblings'
    /// subtrees are searched in between, and no sibling's subtree reaches another sibling (a
    /// Play lowers `2 * (cards in piles) + (cards in the worm hole)` by 2, a WormPlay by 3, a
    /// FromWorm by 1, and a FromWorm is never a WormPlay's sibling nor directly follows one's
    /// sibling). Either way the memo only prunes: a miss costs time, never a wrong answer.
    fn drop_dead_children(&mut self, moves: &mut Vec<Step>, start: usize) {
        let width = self.layout.key.width();
        let mut kept = start;
        for (i, key) in self.child_keys.chunks_exact(width).enumerate() {
            if !self.memo.contains(key) {
                moves[kept] = moves[start + i];
                kept += 1;
            }
        }
        moves.truncate(kept);
    }

    /// Whether the current position passes the rank-walk test and the pile-order test (in its
    /// weaker Worm Hole form in Worm Hole).
    pub(super) fn feasible(&mut self) -> bool {
        let layout = self.layout;
        let pos = &self.pos;
        let order = &mut self.order;
        // The piles are loaded only once some walk passes the rank test, and the slack of
        // each cut is the same for every end rank.
        let mut slack = None;
        let mut allow = |crossings: &walk::Crossings| {
            let slack = slack.get_or_insert_with(|| {
                match layout.game {
                    Game::BlackHole => order.load(pos.hole, &pos.heights),
                    Game::WormHole => order.load_worm(pos.hole, pos.worm.map(|w| (w - 1) % layout.ranks), &pos.heights),
                }
                order.slack(&crossings.low)
            });
            order.allows(slack, crossings)
        };
        let ends = match layout.game {
            Game::BlackHole => pos.ends,
            Game::WormHole => u64::MAX,
        };
        debug_assert!(layout.game == Game::WormHole || pos.ends == last_card_ranks(layout, &pos.heights));
        walk::walk_feasible(layout.ranks, &pos.counts, pos.hole, pos.remaining, ends, Some(&mut allow))
    }

    /// The moves that led here, as the output format names them.
    fn witness(&self, path: &[Played]) -> Vec<Move> {
        let mut moves = Vec::with_capacity(path.len());
        for played in path {
            match played.step {
                Step::Play(p) => moves.push(Move::Play { pile: p as usize, card: played.card }),
                Step::ToWorm(p) => moves.push(Move::ToWorm { pile: p as usize, card: played.card }),
                Step::FromWorm => moves.push(Move::FromWorm { card: played.card }),
                Step::WormPlay(p) => {
                    moves.push(Move::ToWorm { pile: p as usize, card: played.card });
                    moves.push(Move::Play { pile: p as usize, card: played.second });
                }
            }
        }
        moves
    }

    /// Appends the kept children of the current position to `out`, best first.
    pub(super) fn children(&mut self, out: &mut Vec<Step>) {
        let layout = self.layout;
        let pos = &self.pos;
        let ranks = layout.ranks;
        let up = (pos.hole + 1) % ranks;
        let down = (pos.hole + ranks - 1) % ranks;
        let worm_open = layout.game == Game::WormHole && pos.worm.is_none() && self.worm_entries;
        self.candidates.clear();
        self.worm_piles.clear();
        // Twin piles: only the first pile with a given bottom run (at its height) is listed
        // (`prune::has_earlier_twin`). A twin has the same ranks, so it is playable or wormable
        // exactly when the first one is: marking the listed piles' prefix ids is enough.
        // On a layout of few piles, the lists of twins are shorter still.
        let few = layout.pile_ranks.len() <= FEW_PILES;
        if !few {
            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                self.twin_seen.fill(0);
                self.stamp = 1;
            }
        }
        let stamp = self.stamp;
        let follows = |rank: u32| rank == up || rank == down;
        for p in movable_piles(&pos.tops, &pos.unders, follows, worm_open) {
            let h = pos.heights[p];
            let top = h as usize - 1;
            let rank = pos.tops[p];
            let unit = layout.unit[p][top];
            let playable = follows(rank);
            let wormable = worm_open && prune::may_enter_worm(unit) && prune::worm_then_play(follows(pos.unders[p]));
            if !(playable || wormable) {
                continue;
            }
            if few {
                if prune::has_earlier_twin(&layout.twins[p], &pos.heights, h) {
                    continue;
                }
            } else {
                let seen = &mut self.twin_seen[layout.prefix[p][top] as usize];
                if *seen == stamp {
                    continue;
                }
                *seen = stamp;
            }
            if playable {
                self.candidates.push(PlayCandidate { pile: p as u32, rank, unit });
            }
            if wormable {
                self.worm_piles.push(p as u32);
            }
        }
        prune::keep_plays_with(&mut self.candidates, &mut self.rank_flags);
        self.order_plays();
        let pos = &self.pos;
        let from_worm = pos.worm.is_some_and(|worm| {
            let rank = (worm - 1) % ranks;
            rank == up || rank == down
        });
        out.extend(self.candidates.iter().map(|c| Step::Play(c.pile)));
        if from_worm {
            out.push(Step::FromWorm);
        }
        out.extend(self.worm_piles.iter().map(|&p| Step::WormPlay(p)));
    }

    /// Sorts the kept plays best first.
    ///
    /// Cards of the ranks with most cards left first: spending a scarce rank early cuts the
    /// walk of hole ranks short. Then cards with more beneath them: clearing tall piles early
    /// keeps options open (the paper's value ordering). Measured on 20,000 standard deals, this
    /// order takes 10% fewer nodes than the paper's (heights first). The first run keeps pile
    /// order among equals; a restart orders them by a hash of its number and the card.
    fn order_plays(&mut self) {
        let heights = &self.pos.heights;
        let counts = &self.pos.counts;
        let order = |c: &PlayCandidate| (Reverse(counts[c.rank as usize]), Reverse(heights[c.pile as usize]));
        if self.restart == 0 {
            // A stable sort keeps pile order among equals.
            self.candidates.sort_by_key(order);
        } else {
            let restart = self.restart;
            let cards = &self.layout.cards;
            self.candidates.sort_by_key(|c| {
                let card = u64::from(cards[c.pile as usize][heights[c.pile as usize] as usize - 1]);
                (order(c), crate::rng::scramble(restart, card))
            });
        }
    }
}

/// The piles, in order, whose top card may follow the hole (`follows`), or, when `worm_open`,
/// whose card beneath the top may: a branch-free pass over `tops` and `unders` (where an
/// absent card is [`super::state::NO_CARD`], which follows nothing), 64 piles at a time.
fn movable_piles<'a>(
    tops: &'a [u32],
    unders: &'a [u32],
    follows: impl Fn(u32) -> bool + Copy + 'a,
    worm_open: bool,
) -> impl Iterator<Item = usize> + 'a {
    tops.chunks(64).zip(unders.chunks(64)).enumerate().flat_map(move |(chunk, (tops, unders))| {
        let mut mask = 0u64;
        for (i, (&top, &under)) in tops.iter().zip(unders).enumerate() {
            mask |= u64::from(follows(top) || (worm_open && follows(under))) << i;
        }
        std::iter::from_fn(move || {
            (mask != 0).then(|| {
                let i = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                64 * chunk + i
            })
        })
    })
}

/// The ranks a Black Hole game from these heights can end with, as a mask (bit `r` for rank
/// `r`; every rank from 64 on is allowed).
///
/// Sound: the last card played empties the last pile, so it is that pile's bottom card. (Not so
/// in Worm Hole, where the last card may come from the worm hole.)
pub(super) fn last_card_ranks(layout: &Layout, heights: &[u32]) -> u64 {
    if layout.ranks > 64 {
        return u64::MAX;
    }
    let mut ends = 0;
    for (ranks, &h) in layout.pile_ranks.iter().zip(heights) {
        if h > 0 {
            ends |= 1 << ranks[0];
        }
    }
    ends
}

/// The deadline `time` after `start`, if any.
pub fn deadline(start: Instant, time: Option<Duration>) -> Option<Instant> {
    time.map(|t| start + t)
}
