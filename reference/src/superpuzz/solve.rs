//! The optimal solver: a Superpuzz deal (a Gaps [`Layout`] of 4 suits, played under the common
//! variant) and a cap on positions → a shortest win, a proof that there is none, or "gave up".
//!
//! A* over positions, each met once (a table of every position with the move it was first
//! reached by), ordered by `f = g + h`: `g` the moves made, `h` a lower bound on the moves left
//! that never overestimates and changes by at most one per move, so the first won position taken
//! from the queue is reached by a shortest line and every position is expanded at most once. The
//! bound is the seed's N made exact for rows of any suit: a card must move at least once unless
//! it already lies in the column of its rank; the cards that may stay in one row must be of one
//! suit, and each suit ends in one row, so the most that may stay is a best matching of suits to
//! rows ([`misplaced`]). With a weight `μ > 1`, `f = μ·h + g` is the seed's weighted best-first
//! search (BF1): faster, and its lines are not proven shortest.
//!
//! It shares no search code with the breadth-first oracle (`gaps::oracle`), which confirms its
//! lengths: it keeps its own grid (no Ace column), finds moves gap by gap, and packs a position
//! into four words.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

use crate::gaps::model::{Layout, Move};

/// The most cells a position may have here: 4 rows of up to 8, six bits a cell, ten cells a word.
pub const MAX_CELLS: usize = 32;

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A win by these moves (in the layout's positions, the Ace column counted); `optimal` when
    /// the search proves no shorter line exists (plain A*).
    Solved { moves: Vec<Move>, optimal: bool, positions: usize },
    /// Every reachable position (`positions` of them) was met and none is won.
    Unsolvable { positions: usize },
    /// More than the cap of positions would have been met: undecided.
    GaveUp { positions: usize },
}

/// How the queue is ordered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order {
    /// `f = g + h`: shortest lines, proven.
    Optimal,
    /// `f = μ·h + g` with this `μ` (the seed's BF1 uses 1.8): lines not proven shortest.
    Weighted(f64),
}

/// The grid right of the Ace column: `rows × width` cells, 0 for a gap; cards numbered as in
/// the layout (`suit * width + rank + 1`, rank 0 the absent Aces).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Position([u64; 4]);

struct Board {
    rows: usize,
    width: usize,
}

impl Board {
    fn cells(&self) -> usize {
        self.rows * self.width
    }

    fn rank(&self, card: u8) -> usize {
        (card as usize - 1) % self.width
    }

    fn suit(&self, card: u8) -> usize {
        (card as usize - 1) / self.width
    }

    fn pack(&self, cells: &[u8]) -> Position {
        let mut words = [0u64; 4];
        for (i, &card) in cells.iter().enumerate() {
            words[i / 10] |= u64::from(card) << (6 * (i % 10));
        }
        Position(words)
    }

    fn unpack(&self, position: Position, cells: &mut [u8]) {
        for (i, cell) in cells.iter_mut().enumerate().take(self.cells()) {
            *cell = ((position.0[i / 10] >> (6 * (i % 10))) & 63) as u8;
        }
    }

    /// The legal moves of `cells` as (card, cell), gap by gap: into a gap on the left edge any
    /// 1 (rank 1), else the card one above the card on the gap's left, when there is one.
    fn moves(&self, cells: &[u8], out: &mut Vec<(u8, usize)>) {
        out.clear();
        for (at, _) in cells.iter().enumerate().filter(|&(_, &card)| card == 0) {
            if at % self.width == 0 {
                out.extend((0..self.rows).map(|suit| ((suit * self.width + 2) as u8, at)));
            } else {
                let left = cells[at - 1];
                if left != 0 && self.rank(left) + 1 < self.width {
                    out.push((left + 1, at));
                }
            }
        }
    }

    /// Whether every row holds one suit's 1 to its last rank from the left edge, a gap last.
    fn won(&self, cells: &[u8]) -> bool {
        cells.chunks(self.width).all(|row| {
            row[0] != 0
                && self.rank(row[0]) == 1
                && row[self.width - 1] == 0
                && row[..self.width - 1].iter().enumerate().all(|(i, &card)| card as usize == row[0] as usize + i)
        })
    }

    /// The lower bound `h` (see [`misplaced`]).
    fn bound(&self, cells: &[u8]) -> u32 {
        let mut may_stay = [[0u32; 8]; 8];
        for (at, &card) in cells.iter().enumerate() {
            if card != 0 && self.rank(card) == at % self.width + 1 {
                may_stay[at / self.width][self.suit(card)] += 1;
            }
        }
        let cards = (self.rows * (self.width - 1)) as u32;
        cards - best_matching(&may_stay, self.rows)
    }
}

/// The most cards that may stay where they lie, over every way of giving each row one suit
/// (each suit one row): a dynamic programme over the sets of suits given so far.
fn best_matching(may_stay: &[[u32; 8]; 8], rows: usize) -> u32 {
    let mut best = vec![0u32; 1 << rows];
    for set in 0usize..(1 << rows) {
        let row = set.count_ones() as usize;
        if row >= rows {
            continue;
        }
        for suit in (0..rows).filter(|suit| set & (1 << suit) == 0) {
            let next = set | (1 << suit);
            best[next] = best[next].max(best[set] + may_stay[row][suit]);
        }
    }
    best[(1 << rows) - 1]
}

/// The seed's N, made exact for rows of any suit: the fewest cards of `layout` that must still
/// move (each at least once) before it is won.
pub fn misplaced(layout: &Layout) -> u32 {
    let (board, cells) = board_of(layout);
    board.bound(&cells)
}

fn board_of(layout: &Layout) -> (Board, Vec<u8>) {
    let width = layout.deck.ranks as usize;
    let board = Board { rows: layout.rows(), width };
    let cells = layout.cells.chunks(width + 1).flat_map(|row| row[1..].iter().map(|&card| card as u8)).collect();
    (board, cells)
}

/// One position met: how it was first reached (its parent's index and the move), and `g`.
struct Met {
    parent: u32,
    card: u8,
    cell: u8,
    moves: u16,
}

/// Searches `layout` (4 suits or fewer, at most [`MAX_CELLS`] cells right of the Ace column)
/// in `order`, meeting at most `cap` positions.
pub fn solve(layout: &Layout, order: Order, cap: usize) -> Outcome {
    let (board, mut cells) = board_of(layout);
    assert!(board.cells() <= MAX_CELLS && board.rows <= 8, "a Superpuzz deal has at most 4 rows of 8");
    let priority = |moves: u16, bound: u32| -> u64 {
        // Scaled by 1024 so that a weight keeps its fraction; ties go to the deeper position.
        let f = match order {
            Order::Optimal => (u64::from(moves) + u64::from(bound)) * 1024,
            Order::Weighted(mu) => (f64::from(moves) * 1024.0 + mu * f64::from(bound) * 1024.0) as u64,
        };
        (f << 16) | u64::from(u16::MAX - moves)
    };
    let start = board.pack(&cells);
    let mut index: HashMap<Position, u32> = HashMap::new();
    let mut met: Vec<(Position, Met)> = Vec::new();
    let mut queue = BinaryHeap::new();
    index.insert(start, 0);
    met.push((start, Met { parent: u32::MAX, card: 0, cell: 0, moves: 0 }));
    queue.push(Reverse((priority(0, board.bound(&cells)), 0u32)));
    let mut expanded = vec![false];
    let mut moves = Vec::new();
    while let Some(Reverse((_, at))) = queue.pop() {
        let at = at as usize;
        if std::mem::replace(&mut expanded[at], true) {
            continue;
        }
        board.unpack(met[at].0, &mut cells);
        if board.won(&cells) {
            let optimal = order == Order::Optimal;
            return Outcome::Solved { moves: line_to(&met, at, board.width), optimal, positions: met.len() };
        }
        let g = met[at].1.moves + 1;
        board.moves(&cells, &mut moves);
        for &(card, cell) in &moves {
            let from = cells.iter().position(|&c| c == card).expect("every card lies somewhere");
            cells[from] = 0;
            cells[cell] = card;
            let next = board.pack(&cells);
            let bound = board.bound(&cells);
            cells[cell] = 0;
            cells[from] = card;
            let fresh = match index.entry(next) {
                Entry::Occupied(seen) => {
                    // With a consistent bound a position is first expanded by a shortest line;
                    // a shorter way to one still queued replaces its line.
                    let seen = *seen.get() as usize;
                    if expanded[seen] || met[seen].1.moves <= g {
                        continue;
                    }
                    met[seen].1 = Met { parent: at as u32, card, cell: cell as u8, moves: g };
                    seen
                }
                Entry::Vacant(slot) => {
                    if met.len() >= cap {
                        return Outcome::GaveUp { positions: met.len() };
                    }
                    slot.insert(met.len() as u32);
                    met.push((next, Met { parent: at as u32, card, cell: cell as u8, moves: g }));
                    expanded.push(false);
                    met.len() - 1
                }
            };
            queue.push(Reverse((priority(g, bound), fresh as u32)));
        }
    }
    Outcome::Unsolvable { positions: met.len() }
}

/// The moves from the start to position `at`, in the layout's positions (a row of `width`
/// cells here is a row of `width + 1` there, the Ace column first).
fn line_to(met: &[(Position, Met)], mut at: usize, width: usize) -> Vec<Move> {
    let mut line = Vec::new();
    while met[at].1.parent != u32::MAX {
        let step = &met[at].1;
        let cell = step.cell as usize;
        line.push(Move { card: u32::from(step.card), to: cell / width * (width + 1) + cell % width + 1 });
        at = step.parent as usize;
    }
    line.reverse();
    line
}
