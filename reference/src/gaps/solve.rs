//! The solver: a depth-first search over positions with an exact set of the positions met.
//!
//! Input: a [`Layout`], a [`Variant`] and a [`Budget`]. Output: a [`Solution`] (solved, with
//! moves the checker has replayed; unsolvable; or gave up when the budget ran out), or, for
//! [`explore`], the number of distinct positions reachable (the paper's Table 2 counts).
//!
//! Every position met is stored whole ([`crate::memo::KeySet`], one key of `bits` per cell of
//! columns `1..=R`): a position met again has been searched already, or is being searched
//! further up the path, so it is skipped. This is the paper's "complete DFS + transposition
//! table" (§3.1). It is exact in both variants: under the basic one no position repeats on a
//! path anyway; under the common one (Twos moving from row to row) the set is what keeps the
//! search from going round a cycle, so a set that is full (its memory bound reached) can only
//! make the search give up, never answer wrongly. A won position has no legal move (every gap
//! follows a King), so a position is tested for a win only when it has none.
//!
//! [`solve`] hands the common variant to its engine ([`super::common::any_win`]: weighted A*
//! and a walk over a stubborn set of moves, with a deadlock test) wherever the engine takes the
//! layout (at most 8 suits and 63 cells): on full decks it decides far more deals than this
//! search. [`explore`] stays this search's (the paper's Table 2 counts every position).

use std::time::Instant;

pub use crate::budget::{Budget, Outcome, Solution, Stats};

use super::check::check;
use super::common;
use super::model::{move_integers, Layout, Move, Variant};
use crate::memo::KeySet;

/// The memo's first table: 2^16 slots.
type Memo = KeySet<{ 1 << 16 }>;

/// What a full search of the reachable positions found.
#[derive(Clone, Debug)]
pub struct Exploration {
    /// Distinct positions reached, the start included.
    pub positions: u64,
    /// Whether one of them is won.
    pub winnable: bool,
    /// Whether the count is complete: false when the budget ran out or the set of positions
    /// filled up (positions then counted again when met again).
    pub complete: bool,
    pub stats: Stats,
}

/// A position as a key of [`KeySet`]: a guard bit first, then `bits` per cell right of the Ace
/// column (enough for the deck's largest card), kept up to date move by move.
#[derive(Clone, Debug)]
pub(super) struct PositionKey {
    pub(super) words: Vec<u64>,
    /// Each position's first bit in the key (unused for the Ace column).
    offsets: Vec<u32>,
}

impl PositionKey {
    /// The key of `layout`'s position.
    pub(super) fn new(layout: &Layout) -> PositionKey {
        let bits = 32 - layout.deck.size().leading_zeros();
        let width = layout.width();
        let offsets: Vec<u32> = (0..layout.cells.len())
            .map(|p| if p % width == 0 { 0 } else { 1 + (p - p / width - 1) as u32 * bits })
            .collect();
        let cells = layout.rows() * layout.deck.ranks as usize;
        let mut key = PositionKey { words: vec![0; (1 + cells * bits as usize).div_ceil(64)], offsets };
        key.words[0] = 1;
        for position in (0..layout.cells.len()).filter(|p| p % width != 0) {
            key.toggle(position, layout.cells[position]);
        }
        key
    }

    /// Flips `card`'s bits at `position`: adds it to an empty cell, or takes it out.
    #[inline]
    pub(super) fn toggle(&mut self, position: usize, card: u32) {
        let offset = self.offsets[position];
        let (word, at) = ((offset / 64) as usize, offset % 64);
        let value = u64::from(card);
        self.words[word] ^= value << at;
        if at > 0 && (value >> (64 - at)) != 0 {
            self.words[word + 1] ^= value >> (64 - at);
        }
    }

    /// The key after `card` moves from `from` to `to` (a move made, or taken back).
    #[inline]
    pub(super) fn shift(&mut self, card: u32, from: usize, to: usize) {
        self.toggle(from, card);
        self.toggle(to, card);
    }
}

/// One level of the depth-first search: the moves of its position are `moves[start..end]`,
/// `next` the one to try next, `entered_by` the move (and where its card came from) that led
/// here from the level above.
struct Frame {
    start: usize,
    end: usize,
    next: usize,
    entered_by: Option<(Move, usize)>,
}

/// Why a search stopped before its end.
enum Stop {
    Won,
    OutOfBudget,
}

struct Search<'a> {
    layout: Layout,
    place: Vec<usize>,
    /// The positions of the gaps, kept as moves move them.
    gaps: Vec<usize>,
    variant: Variant,
    budget: &'a Budget,
    memo: Memo,
    /// The current position's key, kept up to date move by move.
    key: PositionKey,
    nodes: u64,
    /// Positions the full set could not take.
    dropped: u64,
    wins: u64,
    started: Instant,
}

impl<'a> Search<'a> {
    fn new(layout: &Layout, variant: Variant, budget: &'a Budget) -> Self {
        let key = PositionKey::new(layout);
        Search {
            place: layout.places(),
            gaps: layout.gaps().collect(),
            layout: layout.clone(),
            variant,
            budget,
            memo: Memo::new(key.words.len(), budget.memo_bytes),
            key,
            nodes: 0,
            dropped: 0,
            wins: 0,
            started: Instant::now(),
        }
    }

    /// The moves of the current position into `out`, gap by gap.
    #[inline]
    fn moves(&self, out: &mut Vec<Move>) {
        self.layout.moves_into(self.variant, self.gaps.iter().copied(), out);
    }

    /// Makes `m`; returns where its card came from.
    #[inline]
    fn play(&mut self, m: Move) -> usize {
        let from = self.layout.play(m, &mut self.place);
        self.key.shift(m.card, from, m.to);
        let gap = self.gaps.iter().position(|&g| g == m.to).expect("a move fills a gap");
        self.gaps[gap] = from;
        from
    }

    /// Takes back `m`, made from `from`.
    #[inline]
    fn unplay(&mut self, m: Move, from: usize) {
        self.layout.unplay(m, from, &mut self.place);
        self.key.shift(m.card, from, m.to);
        let gap = self.gaps.iter().position(|&g| g == from).expect("the card left a gap");
        self.gaps[gap] = m.to;
    }

    /// Asks for the memo slot of the position `m` leads to: a new level's moves are prefetched
    /// together, so their lookups wait for memory side by side rather than one after another.
    #[inline]
    fn prefetch_after(&mut self, m: Move) {
        let from = self.place[m.card as usize];
        self.key.shift(m.card, from, m.to);
        self.memo.prefetch(Memo::hash(&self.key.words));
        self.key.shift(m.card, from, m.to);
    }

    /// Records the current position; false when it was met before.
    fn first_visit(&mut self) -> bool {
        let hash = Memo::hash(&self.key.words);
        if self.memo.contains(&self.key.words, hash) {
            return false;
        }
        let before = self.memo.len();
        self.memo.insert(&self.key.words);
        self.dropped += u64::from(self.memo.len() == before);
        true
    }

    fn out_of_budget(&self) -> bool {
        self.nodes >= self.budget.max_nodes
            || (self.nodes.is_multiple_of(1024)
                && self.budget.time.is_some_and(|limit| self.started.elapsed() >= limit))
    }

    /// Searches from the start; with `stop_at_win`, returns the winning line as soon as one is
    /// found. The moves are those of the path when it stopped.
    fn run(&mut self, stop_at_win: bool) -> Result<(), (Stop, Vec<Move>)> {
        self.first_visit();
        let mut moves = Vec::new();
        let mut scratch = Vec::new();
        self.moves(&mut moves);
        if moves.is_empty() && self.layout.is_won(self.variant) {
            self.wins += 1;
            if stop_at_win {
                return Err((Stop::Won, Vec::new()));
            }
        }
        let mut frames = vec![Frame { start: 0, end: moves.len(), next: 0, entered_by: None }];
        while let Some(top) = frames.last_mut() {
            if top.next == top.end {
                moves.truncate(top.start);
                if let Some((m, from)) = top.entered_by {
                    self.unplay(m, from);
                }
                frames.pop();
                continue;
            }
            let m = moves[top.next];
            top.next += 1;
            if self.out_of_budget() {
                return Err((Stop::OutOfBudget, Vec::new()));
            }
            self.nodes += 1;
            let from = self.play(m);
            if !self.first_visit() {
                self.unplay(m, from);
                continue;
            }
            self.moves(&mut scratch);
            if scratch.is_empty() {
                if self.layout.is_won(self.variant) {
                    self.wins += 1;
                    if stop_at_win {
                        let mut line: Vec<Move> = frames.iter().filter_map(|f| f.entered_by.map(|(m, _)| m)).collect();
                        line.push(m);
                        return Err((Stop::Won, line));
                    }
                }
                self.unplay(m, from);
                continue;
            }
            for &next in &scratch {
                self.prefetch_after(next);
            }
            let start = moves.len();
            moves.extend_from_slice(&scratch);
            frames.push(Frame { start, end: moves.len(), next: start, entered_by: Some((m, from)) });
        }
        Ok(())
    }

    fn stats(&self) -> Stats {
        Stats {
            nodes: self.nodes,
            elapsed: self.started.elapsed(),
            peak_memo_entries: self.memo.len(),
            peak_memo_bytes: self.memo.bytes(),
        }
    }
}

/// Decides `layout` under `variant` within `budget`.
///
/// # Panics
/// When a solution found fails the checker: a bug of the solver, never a wrong answer given.
pub fn solve(layout: &Layout, variant: Variant, budget: &Budget) -> Solution<Move> {
    if variant == Variant::Common && common::fits(layout) {
        return solve_common(layout, budget);
    }
    let mut search = Search::new(layout, variant, budget);
    let outcome = match search.run(true) {
        // A search that ended met every reachable position: one it skipped was in the set, so
        // searched already or being searched up the path; one the full set dropped was only
        // searched again.
        Ok(()) => Outcome::Unsolvable,
        Err((Stop::OutOfBudget, _)) => Outcome::GaveUp,
        Err((Stop::Won, line)) => replayed(layout, variant, line),
    };
    Solution { outcome, stats: search.stats() }
}

/// `line`, a win a search found, once the checker has replayed it.
///
/// # Panics
/// When the checker refuses it: a bug of the search, never a wrong answer given.
fn replayed(layout: &Layout, variant: Variant, line: Vec<Move>) -> Outcome<Move> {
    let report = check(layout, variant, &move_integers(&line));
    assert!(report.is_solution(), "the solver's line fails the checker: {}", report.finding);
    Outcome::Solved(line)
}

/// The common variant on a layout the engine takes: [`common::any_win`] within the budget's
/// nodes (as positions met in one pass), memory (what one pass's record of positions may take)
/// and time.
fn solve_common(layout: &Layout, budget: &Budget) -> Solution<Move> {
    let started = Instant::now();
    let nodes = usize::try_from(budget.max_nodes).unwrap_or(usize::MAX);
    let deadline = budget.time.map(|time| started + time);
    let limit = common::Limit { positions: nodes, memory: budget.memo_bytes, deadline };
    let (outcome, positions) = match common::any_win(layout, limit) {
        common::Outcome::Solved { moves, positions, .. } => (replayed(layout, Variant::Common, moves), positions),
        common::Outcome::Unsolvable { positions } => (Outcome::Unsolvable, positions),
        common::Outcome::GaveUp { positions } => (Outcome::GaveUp, positions),
    };
    let stats = Stats {
        nodes: positions as u64,
        elapsed: started.elapsed(),
        // At most: one pass's record at a time, within the memory, each position costing at most
        // what the A* keeps.
        peak_memo_entries: positions.min(nodes),
        peak_memo_bytes: positions.saturating_mul(common::ASTAR_BYTES_PER_POSITION).min(budget.memo_bytes),
    };
    Solution { outcome, stats }
}

/// Counts every position reachable from `layout` under `variant` (not stopping at a win),
/// within `budget`.
pub fn explore(layout: &Layout, variant: Variant, budget: &Budget) -> Exploration {
    let mut search = Search::new(layout, variant, budget);
    let finished = search.run(false).is_ok();
    Exploration {
        positions: search.memo.len() as u64 + search.dropped,
        winnable: search.wins > 0,
        complete: finished && search.dropped == 0,
        stats: search.stats(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gaps::parse::parse_layout;

    const FIGURE: &str = "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n";

    #[test]
    fn the_papers_figure_is_won() {
        let layout = parse_layout("f", FIGURE).unwrap();
        let solution = solve(&layout, Variant::Basic, &Budget::default());
        let Outcome::Solved(moves) = solution.outcome else { panic!("{:?}", solution.outcome) };
        // The shortest win (the breadth-first oracle's) has 15 moves; docs/gaps.md's has 17.
        assert!((15..=17).contains(&moves.len()), "{}", moves.len());
        let all = explore(&layout, Variant::Basic, &Budget::default());
        assert!(all.winnable && all.complete && all.positions >= 28, "{all:?}");
    }

    #[test]
    fn the_line_docs_gaps_md_gives_for_the_figure_checks() {
        // 4♥ 4♦ 4♣ 3♣ 3♦ 2♠ 3♥ 2♣ 2♥ 4♣ 4♦ 3♠ 4♠ 3♣ 3♥ 4♣ 4♥, with ♣ ♥ ♦ ♠ the suits 0 to 3.
        let line = "8 19 12 17 4 13 3 7 11 12 14 16 7 9 2 1 6 6 4 8 12 13 15 17 16 18 3 2 7 7 4 3 8 8";
        let layout = parse_layout("f", FIGURE).unwrap();
        let integers = crate::gaps::parse::read_integers(line);
        assert!(crate::gaps::check::check(&layout, Variant::Basic, &integers).is_solution());
    }

    #[test]
    fn the_common_variants_engine_keeps_to_the_budgets_time_and_positions() {
        let full_deck = crate::gaps::generate::deal(21, 13, 4);
        let no_time = Budget { time: Some(std::time::Duration::ZERO), ..Budget::default() };
        assert_eq!(solve(&full_deck, Variant::Common, &no_time).outcome, Outcome::GaveUp);
        let few = Budget { max_nodes: 1000, ..Budget::default() };
        let solution = solve(&full_deck, Variant::Common, &few);
        assert_eq!(solution.outcome, Outcome::GaveUp);
        // Three passes (two weighted, the walk), each stopped at the cap.
        assert!(solution.stats.nodes <= 3 * 1000, "{:?}", solution.stats);
    }

    #[test]
    fn a_stuck_deal_is_unsolvable_and_a_tiny_budget_gives_up() {
        // Each row's gap follows its suit's King: no move at all.
        let stuck = parse_layout("s", "3 2\n1 2 3 0\n4 6 0 5\n").unwrap();
        assert_eq!(solve(&stuck, Variant::Basic, &Budget::default()).outcome, Outcome::Unsolvable);
        let layout = parse_layout("f", FIGURE).unwrap();
        let tight = Budget { max_nodes: 2, ..Budget::default() };
        assert_eq!(solve(&layout, Variant::Basic, &tight).outcome, Outcome::GaveUp);
    }
}
