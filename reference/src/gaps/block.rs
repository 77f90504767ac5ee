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
//! is all played). From each position of each face, the gap's move there (if any) leads into a
//! new block. By induction on a line of play every reachable position lies in some block
//! searched, and only reachable positions do: the count is exact. A won position has no move, so
//! it can only be the block's far corner (every line played), the only one tested.
//!
//! Lines are grown one move at a time, gap by gap in turn, while they stay independent. A new
//! block built on a face begins with the parent's other lines from there, as far as they keep
//! clear of the move that left the face (its *footprint*): then the one move, made anywhere in
//! that region of the face, leads into this one block (§4.6's part `G` of a face), and the
//! region's other positions are passed over. A block's start and its edges (the positions of one
//! line played alone) are marked as met (§4.7's second choice, its ratio 1.33); a new block whose
//! start is marked is not searched, but the rest of its region is, position by position. The
//! marks are stored whole (`KeySet`), never hashes.

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

/// A block to search: its start, and (for one built on a face) the lines it must begin with, so
/// that it holds a whole region of the face's next positions, and the move that led to it.
struct Pending {
    cells: Vec<u32>,
    /// Moves of the parent's other lines (keyed by where their gap lies at this start).
    seeds: Vec<(usize, Line)>,
    footprint: Option<Footprint>,
}

/// The cells of the move that left the parent's face: it wrote `writes` (the gap it filled,
/// and the place its card left, where the gap now is: `writes[1]`) and read `read` (the cell
/// left of the gap). The seeded lines keep clear of them, so that they commute with it.
#[derive(Clone, Copy)]
struct Footprint {
    writes: [usize; 2],
    read: usize,
}

/// Searches every position reachable from `layout` (at most 64 gaps) under the basic variant,
/// block by block, within `budget` (`max_nodes` counts blocks; `memo_bytes` bounds the marks).
/// Meant for few gaps (the paper's 4 and 6): each face's positions are visited one by one, and
/// a face of `g` gaps' lines has up to `Π (l + 1)` of them.
pub fn block_search(layout: &Layout, budget: &Budget) -> BlockCount {
    search(layout, budget, &mut |_, _| {})
}

/// [`block_search`], calling `visit` with each block (its start on the board, and its lines).
fn search(layout: &Layout, budget: &Budget, visit: &mut impl FnMut(&mut Board, &[Line])) -> BlockCount {
    assert!(layout.gaps().count() <= 64, "a block's lines are kept as sets of at most 64 gaps");
    let start = Board::new(layout.clone());
    let mut marks = Marks::new(start.key.words.len(), budget.memo_bytes);
    let mut count = BlockCount { blocks: 0, positions: 0, winnable: false, complete: true };
    let mut pending = vec![Pending { cells: start.layout.cells.clone(), seeds: Vec::new(), footprint: None }];
    while let Some(block) = pending.pop() {
        let mut board = Board::new(Layout { cells: block.cells, ..layout.clone() });
        let gaps: Vec<usize> = board.layout.gaps().collect();
        let mut lines = Lines::new(&board, &gaps, block.footprint);
        if marks.contains(&board.key.words, Marks::hash(&board.key.words)) {
            // The rest of its region must still be searched: each position as a block of its own
            // (the start, marked, lies in a block already taken).
            lines.seed(&mut board, &block.seeds);
            take_back_all(&mut board, &lines.lines);
            let (seeded, start): (Vec<&Line>, Vec<u64>) = (lines.lines.iter().collect(), board.key.words.clone());
            each_prefix(&mut board, &seeded, &mut |board| {
                if board.key.words != start {
                    pending.push(Pending { cells: board.layout.cells.clone(), seeds: Vec::new(), footprint: None });
                }
            });
            continue;
        }
        if count.blocks >= budget.max_nodes {
            count.complete = false;
            break;
        }
        lines.seed(&mut board, &block.seeds);
        lines.grow(&mut board);
        let lines = lines.lines;
        count.blocks += 1;
        // Saturating: 64 gaps of one move each would make 2^64 positions.
        let size = lines.iter().fold(1u64, |size, line| size.saturating_mul(line.len() as u64 + 1));
        count.positions = count.positions.saturating_add(size);
        count.winnable |= board.layout.is_won(super::model::Variant::Basic);
        take_back_all(&mut board, &lines);
        visit(&mut board, &lines);
        if !mark_edges(&mut board, &lines, &mut marks) {
            count.complete = false;
            break;
        }
        for x in 0..gaps.len() {
            leave_by_face(&mut board, (&lines, &gaps), x, &marks, &mut pending);
        }
    }
    count
}

/// A block's lines as they grow, with the cells each reads and writes.
struct Lines {
    /// Where each gap lies after its line.
    at: Vec<usize>,
    /// For each cell, the lines (bit X for gap X) that write it, and those that read it.
    writers: Vec<u64>,
    readers: Vec<u64>,
    lines: Vec<Line>,
}

impl Lines {
    /// No moves yet; the gaps' cells (and a footprint's, as the gap's at `writes[1]`) taken.
    fn new(board: &Board, gaps: &[usize], footprint: Option<Footprint>) -> Lines {
        let cells = board.layout.cells.len();
        let mut lines = Lines {
            at: gaps.to_vec(),
            writers: vec![0; cells],
            readers: vec![0; cells],
            lines: vec![Vec::new(); gaps.len()],
        };
        for (x, &gap) in gaps.iter().enumerate() {
            lines.writers[gap] |= 1 << x;
        }
        if let Some(footprint) = footprint {
            let x = gaps.iter().position(|&gap| gap == footprint.writes[1]).expect("the footprint's gap");
            footprint.writes.iter().for_each(|&cell| lines.writers[cell] |= 1 << x);
            lines.readers[footprint.read] |= 1 << x;
        }
        lines
    }

    /// Plays the move into gap `x`'s cell if it keeps the lines independent; whether it did.
    fn extend(&mut self, board: &mut Board, x: usize, wanted: Option<Move>) -> bool {
        let (gap, others) = (self.at[x], !(1u64 << x));
        let Some(m) = board.move_into(gap).filter(|&m| wanted.is_none_or(|wanted| wanted == m)) else { return false };
        let from = board.place[m.card as usize];
        if self.writers[gap - 1] & others != 0 || (self.writers[from] | self.readers[from]) & others != 0 {
            return false;
        }
        board.play(m);
        self.readers[gap - 1] |= 1 << x;
        self.writers[from] |= 1 << x;
        self.at[x] = from;
        self.lines[x].push((m, from));
        true
    }

    /// Begins each line with its seed's moves, in turn, each line while they keep independent.
    fn seed(&mut self, board: &mut Board, seeds: &[(usize, Line)]) {
        let owners: Vec<usize> =
            seeds.iter().map(|(gap, _)| self.at.iter().position(|at| at == gap).expect("a seed's gap")).collect();
        let mut next = vec![0; seeds.len()];
        let mut going = true;
        while going {
            going = false;
            for (i, (_, seed)) in seeds.iter().enumerate() {
                if next[i] < seed.len() && self.extend(board, owners[i], Some(seed[next[i]].0)) {
                    (next[i], going) = (next[i] + 1, true);
                } else {
                    next[i] = seed.len();
                }
            }
        }
    }

    /// Grows each line, one move per gap in turn, while the lines stay independent; leaves
    /// `board` at the block's far corner (every line played).
    fn grow(&mut self, board: &mut Board) {
        let mut growing = if self.at.len() == 64 { u64::MAX } else { (1u64 << self.at.len()) - 1 };
        while growing != 0 {
            for x in 0..self.at.len() {
                if growing & (1 << x) != 0 && !self.extend(board, x, None) {
                    growing &= !(1u64 << x);
                }
            }
        }
    }
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

/// A region of a face: for each other line, the prefix lengths from `low` to `high`.
type Region = (Vec<usize>, Vec<usize>);

/// From the face of gap `x` (its line all played, the others' any prefixes), queues blocks that
/// hold every position one move of `x` leads to, unless that position is marked. Each queued
/// block begins with as much of the other lines as commutes with its move, and so holds the
/// next positions of a whole region of the face; positions of a region already queued are
/// passed over. (`lines` are the block's, `gaps` its gaps' cells at its start.)
fn leave_by_face(
    board: &mut Board,
    (lines, gaps): (&[Line], &[usize]),
    x: usize,
    marks: &Marks,
    pending: &mut Vec<Pending>,
) {
    for &(m, _) in &lines[x] {
        board.play(m);
    }
    let others: Vec<usize> = (0..lines.len()).filter(|&y| y != x).collect();
    let other_lines: Vec<&Line> = others.iter().map(|&y| &lines[y]).collect();
    let gap = lines[x].last().map_or(gaps[x], |&(_, from)| from);
    let mut regions: Vec<Region> = Vec::new();
    let mut at = vec![0; others.len()];
    each_prefix_at(board, &other_lines, &mut at, 0, &mut |board, at| {
        let inside = |(low, high): &Region| at.iter().zip(low.iter().zip(high)).all(|(k, (l, h))| l <= k && k <= h);
        if regions.iter().any(inside) {
            return;
        }
        let Some(m) = board.move_into(gap) else { return };
        let from = board.play(m);
        if !marks.contains(&board.key.words, Marks::hash(&board.key.words)) {
            let footprint = Footprint { writes: [gap, from], read: gap - 1 };
            let seeds: Vec<(usize, Line)> = others
                .iter()
                .zip(at.iter())
                .map(|(&y, &k)| (k.checked_sub(1).map_or(gaps[y], |k| lines[y][k].1), lines[y][k..].to_vec()))
                .collect();
            let mut child = board.clone();
            let child_gaps: Vec<usize> = child.layout.gaps().collect();
            let mut seeded = Lines::new(&child, &child_gaps, Some(footprint));
            seeded.seed(&mut child, &seeds);
            let taken: Vec<(usize, Line)> = seeds
                .into_iter()
                .map(|(cell, _)| {
                    let owner = child_gaps.iter().position(|&g| g == cell).expect("a seed's gap");
                    (cell, seeded.lines[owner].clone())
                })
                .collect();
            let high = at.iter().zip(&taken).map(|(k, (_, line))| k + line.len()).collect();
            regions.push((at.to_vec(), high));
            pending.push(Pending { cells: board.layout.cells.clone(), seeds: taken, footprint: Some(footprint) });
        }
        board.unplay(m, from);
    });
    for &(m, from) in lines[x].iter().rev() {
        board.unplay(m, from);
    }
}

/// Calls `visit` at every mix of prefixes of `lines[depth..]` played on `board` (left as found),
/// with each line's prefix length in `at`, in order of those lengths, the first line's most
/// significant.
fn each_prefix_at(
    board: &mut Board,
    lines: &[&Line],
    at: &mut [usize],
    depth: usize,
    visit: &mut impl FnMut(&mut Board, &[usize]),
) {
    let Some(line) = lines.get(depth) else {
        visit(board, at);
        return;
    };
    at[depth] = 0;
    each_prefix_at(board, lines, at, depth + 1, visit);
    for (k, &(m, _)) in line.iter().enumerate() {
        board.play(m);
        at[depth] = k + 1;
        each_prefix_at(board, lines, at, depth + 1, visit);
    }
    for &(m, from) in line.iter().rev() {
        board.unplay(m, from);
    }
    at[depth] = 0;
}

/// Calls `visit` at every mix of prefixes of `lines` played on `board` (left as found).
fn each_prefix(board: &mut Board, lines: &[&Line], visit: &mut impl FnMut(&mut Board)) {
    each_prefix_at(board, lines, &mut vec![0; lines.len()], 0, &mut |board, _| visit(board));
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
