//! Block search (seed 001 §4), the basic variant's second exact method: a layout → every position
//! reachable from it, covered by blocks, with how many blocks and how many positions they hold,
//! and whether one of them is won.
//!
//! Under the basic variant each gap takes at most one card (the one after the card on its left),
//! so playing one gap alone is a line: the card comes in, the gap moves to where the card was,
//! and so on until the gap's left is a gap or a King. The paper calls each gap's line a subgame.
//! A *block* is a start position and, for each gap `X`, a line `S_X` of its moves from there, the
//! lines independent: no line writes a cell (a gap's place, or the place its card comes from)
//! that another line reads (the cell left of one of its gaps) or writes. Then every mix of
//! prefixes of the lines, played in any order, is legal and gives the same position, so a block
//! holds `Π (l_X + 1)` positions; and at a position where `X` has not played all of `S_X`, its
//! next move is the next of `S_X` (what decides it was written by no other line), so every move
//! that leaves the block is a move of some `X` from its *face* `F_X` (the positions where `S_X`
//! is all played). From each position of each face, the gap's move there (if any) starts a new
//! block. By induction on a line of play every reachable position lies in some block searched,
//! and only reachable positions do: the count is exact. A won position has no move, so it can
//! only be the block's far corner (every line played), the only one tested.
//!
//! Lines are grown one move at a time, gap by gap in turn, while they stay independent. A block's
//! start and its edges (the positions of one line played alone) are marked as met (the paper's
//! second choice, its ratio 1.33); a new block whose start is marked is not searched: that
//! position lies in a block already taken. The marks are stored whole (`KeySet`), never hashes.

use crate::budget::Budget;
use crate::memo::KeySet;

use super::model::{Layout, Move};
use super::solve::PositionKey;

/// The set of marked positions: its first table 2^16 slots.
type Marks = KeySet<{ 1 << 16 }>;

/// What a block search of a layout found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockCount {
    /// Blocks searched.
    pub blocks: u64,
    /// Positions they hold, summed over blocks (a position in two blocks counts twice).
    pub positions: u64,
    /// Whether one of them is won.
    pub winnable: bool,
    /// False when the budget's blocks or memory ran out first: the figures are then partial.
    pub complete: bool,
}

/// One gap's line in a block: each move with the place its card came from.
type Line = Vec<(Move, usize)>;

/// A position being played on: the layout, where each card lies, and its key.
#[derive(Clone)]
struct Board {
    layout: Layout,
    place: Vec<usize>,
    key: PositionKey,
}

impl Board {
    fn new(layout: Layout) -> Board {
        Board { place: layout.places(), key: PositionKey::new(&layout), layout }
    }

    fn play(&mut self, m: Move) -> usize {
        let from = self.layout.play(m, &mut self.place);
        self.key.shift(m.card, from, m.to);
        from
    }

    fn unplay(&mut self, m: Move, from: usize) {
        self.layout.unplay(m, from, &mut self.place);
        self.key.shift(m.card, from, m.to);
    }

    /// The move into the gap at `gap`, when there is one.
    fn move_into(&self, gap: usize) -> Option<Move> {
        self.layout.successor_wanted(gap).map(|card| Move { card, to: gap })
    }
}

/// Searches every position reachable from `layout` (at most 64 gaps) under the basic variant,
/// block by block, within `budget` (`max_nodes` counts blocks; `memo_bytes` bounds the marks).
pub fn block_search(layout: &Layout, budget: &Budget) -> BlockCount {
    search(layout, budget, &mut |_, _| {})
}

/// [`block_search`], calling `visit` with each block (its start on the board, and its lines).
fn search(layout: &Layout, budget: &Budget, visit: &mut impl FnMut(&mut Board, &[Line])) -> BlockCount {
    assert!(layout.gaps().count() <= 64, "a block's lines are kept as sets of at most 64 gaps");
    let start = Board::new(layout.clone());
    let mut marks = Marks::new(start.key.words.len(), budget.memo_bytes);
    let mut count = BlockCount { blocks: 0, positions: 0, winnable: false, complete: true };
    let mut pending = vec![start.layout.cells.clone()];
    while let Some(cells) = pending.pop() {
        let mut board = Board::new(Layout { cells, ..layout.clone() });
        if marks.contains(&board.key.words, Marks::hash(&board.key.words)) {
            continue;
        }
        if count.blocks >= budget.max_nodes {
            count.complete = false;
            break;
        }
        let gaps: Vec<usize> = board.layout.gaps().collect();
        let lines = grow_lines(&mut board, &gaps);
        count.blocks += 1;
        count.positions += lines.iter().map(|line| line.len() as u64 + 1).product::<u64>();
        count.winnable |= board.layout.is_won(super::model::Variant::Basic);
        take_back_all(&mut board, &lines);
        visit(&mut board, &lines);
        if !mark_edges(&mut board, &lines, &mut marks) {
            count.complete = false;
            break;
        }
        for (x, &gap) in gaps.iter().enumerate() {
            leave_by_face(&mut board, &lines, (x, gap), &marks, &mut pending);
        }
    }
    count
}

/// Grows each gap's line from `board`'s position, one move per gap in turn, while the lines stay
/// independent; leaves `board` at the block's far corner (every line played) and returns the
/// lines.
fn grow_lines(board: &mut Board, gaps: &[usize]) -> Vec<Line> {
    let cells = board.layout.cells.len();
    // For each cell, the lines (bit X for gap X) that write it, and those that read it.
    let (mut writers, mut readers) = (vec![0u64; cells], vec![0u64; cells]);
    let mut at: Vec<usize> = gaps.to_vec();
    for (x, &gap) in gaps.iter().enumerate() {
        writers[gap] |= 1 << x;
    }
    let mut lines: Vec<Line> = vec![Vec::new(); gaps.len()];
    let mut growing = if gaps.len() == 64 { u64::MAX } else { (1u64 << gaps.len()) - 1 };
    while growing != 0 {
        for x in 0..gaps.len() {
            if growing & (1 << x) == 0 {
                continue;
            }
            let others = !(1u64 << x);
            let gap = at[x];
            let independent_move = board.move_into(gap).filter(|m| {
                let from = board.place[m.card as usize];
                writers[gap - 1] & others == 0 && (writers[from] | readers[from]) & others == 0
            });
            let Some(m) = independent_move else {
                growing &= others;
                continue;
            };
            let from = board.play(m);
            readers[gap - 1] |= 1 << x;
            writers[from] |= 1 << x;
            at[x] = from;
            lines[x].push((m, from));
        }
    }
    lines
}

/// Takes back every line's moves from the far corner, back to the block's start.
fn take_back_all(board: &mut Board, lines: &[Line]) {
    for line in lines {
        for &(m, from) in line.iter().rev() {
            board.unplay(m, from);
        }
    }
}

/// Marks the block's start and its edges (each line played alone from the start); false when
/// the marks' memory is full.
fn mark_edges(board: &mut Board, lines: &[Line], marks: &mut Marks) -> bool {
    let mut stored = mark(board, marks);
    for line in lines {
        for &(m, _) in line {
            board.play(m);
            stored &= mark(board, marks);
        }
        for &(m, from) in line.iter().rev() {
            board.unplay(m, from);
        }
    }
    stored
}

/// Marks `board`'s position; false when the set had no room for it.
fn mark(board: &Board, marks: &mut Marks) -> bool {
    let before = marks.len();
    marks.insert(&board.key.words);
    marks.len() > before || marks.contains(&board.key.words, Marks::hash(&board.key.words))
}

/// From every position of the face of gap `x` (its line all played, the others' any prefixes),
/// queues the position its next move leads to, unless that one is marked. `start` is where the
/// gap lies at the block's start.
fn leave_by_face(
    board: &mut Board,
    lines: &[Line],
    (x, start): (usize, usize),
    marks: &Marks,
    pending: &mut Vec<Vec<u32>>,
) {
    for &(m, _) in &lines[x] {
        board.play(m);
    }
    let others: Vec<&Line> = lines.iter().enumerate().filter(|&(y, _)| y != x).map(|(_, line)| line).collect();
    let gap = lines[x].last().map_or(start, |&(_, from)| from);
    each_prefix(board, &others, &mut |board| {
        if let Some(m) = board.move_into(gap) {
            let from = board.play(m);
            if !marks.contains(&board.key.words, Marks::hash(&board.key.words)) {
                pending.push(board.layout.cells.clone());
            }
            board.unplay(m, from);
        }
    });
    for &(m, from) in lines[x].iter().rev() {
        board.unplay(m, from);
    }
}

/// Calls `visit` at every mix of prefixes of `lines` played on `board` (left as found).
fn each_prefix(board: &mut Board, lines: &[&Line], visit: &mut impl FnMut(&mut Board)) {
    let Some((line, rest)) = lines.split_first() else {
        visit(board);
        return;
    };
    each_prefix(board, rest, visit);
    for &(m, _) in line.iter() {
        board.play(m);
        each_prefix(board, rest, visit);
    }
    for &(m, from) in line.iter().rev() {
        board.unplay(m, from);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::gaps::generate::deal;
    use crate::gaps::model::Variant;
    use crate::gaps::solve::explore;

    /// Every position the blocks hold, each once.
    fn covered(layout: &Layout) -> (HashSet<Vec<u32>>, BlockCount) {
        let mut seen = HashSet::new();
        let count = search(layout, &Budget::default(), &mut |board, lines| {
            let all: Vec<&Line> = lines.iter().collect();
            each_prefix(board, &all, &mut |board| {
                seen.insert(board.layout.cells.clone());
            });
        });
        (seen, count)
    }

    /// The paper's test of completeness (§5): the blocks hold every position a full depth-first
    /// search reaches (they hold only reachable ones, so equal counts are equal sets), and the
    /// two agree on whether a win is among them: on 300 decks of 5 ranks, where some positions
    /// are reached by many lines, and on the full decks among the first 100 whose reachable
    /// positions are few enough to list (under 50,000).
    #[test]
    fn the_blocks_hold_every_reachable_position_and_agree_on_the_win() {
        let few = Budget { max_nodes: 50_000, ..Budget::default() };
        let (mut compared, mut won, mut full_decks) = (0, 0, 0);
        for (seed, ranks) in (1..=300).map(|seed| (seed, 5)).chain((1..=100).map(|seed| (seed, 13))) {
            let layout = deal(seed, ranks, 4);
            let dfs = explore(&layout, Variant::Basic, &few);
            if !dfs.complete {
                continue;
            }
            let (seen, count) = covered(&layout);
            assert!(count.complete, "GEN {seed} {ranks}");
            assert_eq!(seen.len() as u64, dfs.positions, "GEN {seed} {ranks}: positions covered");
            assert_eq!(count.winnable, dfs.winnable, "GEN {seed} {ranks}");
            assert!(count.positions >= dfs.positions && count.blocks <= count.positions);
            (compared, won, full_decks) =
                (compared + 1, won + u32::from(count.winnable), full_decks + u32::from(ranks == 13));
        }
        // Most decks are compared, full ones among them, and both answers occur.
        assert!(
            compared >= 300 && full_decks >= 10 && won > 20 && won < compared - 20,
            "{compared} {full_decks} {won}"
        );
    }

    /// A budget of blocks or of memory that runs out says the count is partial.
    #[test]
    fn a_budget_that_runs_out_leaves_the_count_incomplete() {
        let layout = deal(3, 13, 4);
        assert!(block_search(&layout, &Budget::default()).complete);
        let few = Budget { max_nodes: 3, ..Budget::default() };
        let count = block_search(&layout, &few);
        assert_eq!((count.blocks, count.complete), (3, false));
        let tiny = Budget { memo_bytes: 1 << 10, ..Budget::default() };
        assert!(!block_search(&layout, &tiny).complete);
    }
}
