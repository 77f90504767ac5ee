//! Whether a win exists at all: a position → won, proved unwinnable, or undecided within a cap.
//!
//! A depth-first walk over the same reduced graph the A* searches (stubborn moves, dead positions
//! dropped), each position met once, nothing kept of it but its packed form: no queue, no line,
//! no length. The A* proves a deal unwinnable only by meeting every position it can reach, so
//! where there is no win this walk meets the same positions at a fraction of the cost, and where
//! there is one it usually finds some win soon, after which the A* finds the shortest.

use super::index::{tag, Index, Slot};
use super::{reduce, take_back, Board, Limit, Position, Scan};
use crate::gaps::model::Move;

/// What the walk found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// A win, by these moves (in the layout's positions), of no particular length.
    Win {
        positions: usize,
        moves: Vec<Move>,
    },
    NoWin {
        positions: usize,
    },
    GaveUp {
        positions: usize,
    },
}

/// One position on the walk's path, packed: its moves still to try (`pending[start..end]`, taken
/// from the end) and the move that led to it, to take back when it is left (the position it
/// goes back to is the one of the frame below, kept rather than worked out again).
struct Frame<const WORDS: usize> {
    start: usize,
    end: usize,
    undo: Option<(u8, usize, usize)>,
    position: Position<WORDS>,
}

/// The positions the walk has met: a table of their tags ([`Index`]) over a list of them, never
/// longer than the most the walk's memory holds.
struct Seen<const WORDS: usize> {
    index: Index,
    positions: Vec<Position<WORDS>>,
    most: usize,
}

impl<const WORDS: usize> Seen<WORDS> {
    fn len(&self) -> usize {
        self.positions.len()
    }

    /// Records `position`, whose [`tag`] is `tag`; whether it was not met before.
    fn insert(&mut self, position: Position<WORDS>, tag: u32) -> bool {
        let positions = &self.positions;
        let Slot::Free(slot) = self.index.find(tag, |at| positions[at as usize] == position) else { return false };
        if self.positions.len() == self.positions.capacity() {
            // Doubling, but never past the most the walk may meet.
            let room = self.most.saturating_sub(self.positions.len()).max(1);
            let more = self.positions.len().max(1 << 10).min(room);
            self.positions.reserve_exact(more);
        }
        self.index.fill(slot, tag, self.positions.len() as u32);
        self.positions.push(position);
        true
    }
}

/// Walks every position reachable from `cells`, within `limit`.
pub(super) fn winnable<const WORDS: usize>(board: &Board, cells: &[u8], limit: Limit) -> Found {
    Walk::<WORDS>::new(board, cells).run(limit)
}

/// A move still to try: the card, the cell it leaves, the gap it goes into, and the position it
/// leads to with its tag.
type Pending<const WORDS: usize> = (u8, usize, usize, Position<WORDS>, u32);

/// A walk that stops where a limit is reached and, run again with a larger one, goes on from
/// there as if it had never stopped: what it met, its path and the moves still to try are kept.
pub(super) struct Walk<'a, const WORDS: usize> {
    board: &'a Board,
    seen: Seen<WORDS>,
    /// The position the walk is at, as cells and packed.
    cells: Vec<u8>,
    position: Position<WORDS>,
    pending: Vec<Pending<WORDS>>,
    path: Vec<Frame<WORDS>>,
    /// The position the walk is at (`cells`), scanned, and kept up to date move by move: the dead
    /// test reads it and, once the position is entered, its moves and stubborn set.
    scan: Scan,
    /// Where the position the walk is at was just entered, the move that led to it (`None` at
    /// the start): its moves are still to be pushed. A dead start is never entered, so the walk
    /// from it ends at once, having met it alone.
    entered: Option<Option<(u8, usize, usize)>>,
}

impl<'a, const WORDS: usize> Walk<'a, WORDS> {
    /// A walk from `cells`, which has not yet met anything but them.
    pub(super) fn new(board: &'a Board, cells: &[u8]) -> Walk<'a, WORDS> {
        let mut seen = Seen { index: Index::new(), positions: Vec::new(), most: usize::MAX };
        let position = board.pack(cells);
        seen.insert(position, tag(position));
        let scan = Scan::of(board, cells);
        let (pending, path, entered) = (Vec::new(), Vec::new(), (!board.dead(&scan)).then_some(None));
        Walk { board, seen, cells: cells.to_vec(), position, pending, path, scan, entered }
    }

    /// Walks on within `limit` (counting every position met since the start). After a win or
    /// "no win" there is nothing more to walk.
    pub(super) fn run(&mut self, limit: Limit) -> Found {
        self.seen.most = limit.positions;
        let (board, seen, cells, scan) = (self.board, &mut self.seen, &mut self.cells, &mut self.scan);
        let (pending, path) = (&mut self.pending, &mut self.path);
        let (mut moves, mut children) = (Vec::new(), Vec::new());
        loop {
            // A position just entered: won, or its moves are pushed, each with the cell its card
            // leaves and the tag of the position it leads to, whose slot is asked for at once
            // (the moves that lead nowhere new are many, and their lookups then wait side by
            // side).
            if let Some(undo) = self.entered.take() {
                if board.won(cells) {
                    let line = path.iter().filter_map(|frame| frame.undo).chain(undo);
                    let moves = line.map(|(card, _, to)| board.layout_move(card, to)).collect();
                    return Found::Win { positions: seen.len(), moves };
                }
                children_of(board, cells, scan, &mut moves, &mut children);
                let start = pending.len();
                for &(card, from, to) in &children {
                    let child = board.moved(self.position, card, from, to);
                    let tag = tag(child);
                    seen.index.prefetch(tag);
                    pending.push((card, from, to, child, tag));
                }
                path.push(Frame { start, end: pending.len(), undo, position: self.position });
            }
            // Down to the next position not met yet, backing out of exhausted ones.
            loop {
                let Some(frame) = path.last_mut() else { return Found::NoWin { positions: seen.len() } };
                if frame.start == frame.end {
                    pending.truncate(frame.start);
                    if let Some((card, from, to)) = path.pop().and_then(|frame| frame.undo) {
                        take_back(cells, card, from, to);
                        scan.after_move(board, cells, to, from);
                        self.position = path.last().expect("a move leads from the frame below").position;
                    }
                    continue;
                }
                if limit.reached(seen.len()) {
                    return Found::GaveUp { positions: seen.len() };
                }
                frame.end -= 1;
                let (card, from, to, next, tag) = pending[frame.end];
                if !seen.insert(next, tag) {
                    continue;
                }
                (cells[from], cells[to]) = (0, card);
                scan.after_move(board, cells, from, to);
                if !board.dead(scan) {
                    (self.position, self.entered) = (next, Some(Some((card, from, to))));
                    break;
                }
                take_back(cells, card, from, to);
                scan.after_move(board, cells, to, from);
            }
        }
    }
}

/// The stubborn moves of `cells` (scanned: `scan`) as (card, the cell it leaves, the gap it goes
/// into), those that put a card into the column of its rank last (the walk takes moves from the
/// end of its list) and those that take one out of it first; `moves` is room to find them in.
fn children_of(
    board: &Board,
    cells: &[u8],
    scan: &Scan,
    moves: &mut Vec<(u8, usize)>,
    out: &mut Vec<(u8, usize, usize)>,
) {
    board.moves(cells, scan, moves);
    reduce::stubborn(board, scan, moves);
    out.clear();
    out.extend(moves.iter().map(|&(card, to)| (card, usize::from(scan.at[usize::from(card)]), to)));
    let gain = |&(card, from, to): &(u8, usize, usize)| {
        let placed = |cell: usize| i32::from(board.rank(card) == board.column(cell) + 1);
        placed(to) - placed(from)
    };
    // Sorted stably in place, each gain worked out once: a position has at most 8 gaps, each
    // taking at most 8 cards (a 1 into a gap on the left edge).
    let mut gains = [0i32; 64];
    for (slot, step) in gains.iter_mut().zip(out.iter()) {
        *slot = gain(step);
    }
    for sorted in 1..out.len() {
        let mut at = sorted;
        while at > 0 && gains[at - 1] > gains[at] {
            gains.swap(at - 1, at);
            out.swap(at - 1, at);
            at -= 1;
        }
    }
}
