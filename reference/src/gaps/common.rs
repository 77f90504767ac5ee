//! The common variant's engine: a Gaps [`Layout`] played under the common variant (at most 8
//! suits and 63 cells: Superpuzz's deals, a full deck) and a cap on positions → a shortest win
//! (or, weighted, a short one), a proof that there is none, or "gave up". Superpuzz asks it for
//! shortest wins; Gaps' common variant for any win.
//!
//! Here: the board (its own grid without the Ace column, a position packed six bits a cell into
//! three, five or six words) and the bound; a position's scan (`scan`: its cells gone over once
//! for its moves, found gap by gap, and the deadlock test), and
//! [`solve`], which runs two searches: the A* (`astar`), whose first win is a shortest one, and
//! a depth-first walk (`decide`) that proves "no win" far more cheaply. Both try only a stubborn
//! set of moves (`reduce`), which keeps every win at its shortest length.
//!
//! The bound `h` is the seed's N made exact for rows of any suit: a card must move at least once
//! unless it already lies in the column of its rank; the cards that may stay in one row must be
//! of one suit, and each suit ends in one row, so the most that may stay is a best matching of
//! suits to rows ([`misplaced`]). It never overestimates and changes by at most one per move.
//! The deadlock test is the seed's constraint test made exact: a card that can never move again
//! and lies where no win has it makes the position dead (`Board::stuck`). With a weight
//! `μ > 1`, `f = μ·h + g` is the seed's weighted best-first search (BF1): faster, and its lines
//! are not proven shortest.
//!
//! It shares no search code with the breadth-first oracle (`gaps::oracle`), which confirms its
//! lengths.

use std::hash::Hasher;
use std::time::Instant;

use crate::gaps::model::{Layout, Move};

mod astar;
mod decide;
mod index;
mod reduce;
mod scan;

use scan::Scan;

/// The most cells a position may have here: card numbers stay below 64, so that a set of cards
/// is one word (4 suits of 13 ranks is 52).
pub const MAX_CELLS: usize = 63;

/// Bits a cell takes in a packed position (a card number below 64, 0 for a gap).
const BITS_PER_CELL: usize = 6;

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

/// How far one pass of a search may go: positions met, the bytes they may take, and a moment
/// past which it gives up.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    pub positions: usize,
    /// What one pass's record of positions may take, each pass counting its own cost of a
    /// position (`usize::MAX`: only `positions` bounds it).
    pub memory: usize,
    pub deadline: Option<Instant>,
}

/// What the A* keeps for each position it meets, at most: the position (five words on a full
/// deck) with the move to it, its index in the table, and its places in the queue. Generous
/// since each position is kept once (deal 124 of Solvitaire's common variant: 182 MB for 2.95
/// million positions, 62 bytes each), and kept so that every budget decides as it did.
pub const ASTAR_BYTES_PER_POSITION: usize = 160;

impl Limit {
    /// At most `positions` positions, whatever they take, and no deadline.
    pub fn positions(positions: usize) -> Limit {
        Limit { positions, memory: usize::MAX, deadline: None }
    }

    /// This limit for the A*: its positions cost [`ASTAR_BYTES_PER_POSITION`].
    fn for_a_star(self) -> Limit {
        self.at_most(self.memory / ASTAR_BYTES_PER_POSITION)
    }

    /// This limit for the walk, which keeps each position (`WORDS` words) in a list that never
    /// grows past the cap, and its tag in a table of 8-byte slots filled to at least 3/8 (so at
    /// most 8/3 slots a position, and half as many again while the table doubles): 32 bytes.
    fn for_walk<const WORDS: usize>(self) -> Limit {
        self.at_most(self.memory / (std::mem::size_of::<Position<WORDS>>() + 32))
    }

    /// Whether a pass that has met `met` positions must stop (the clock is read every 4,096).
    fn reached(&self, met: usize) -> bool {
        met >= self.positions
            || (met.is_multiple_of(4096) && self.deadline.is_some_and(|deadline| Instant::now() >= deadline))
    }

    fn at_most(self, positions: usize) -> Limit {
        Limit { positions: self.positions.min(positions), ..self }
    }
}

/// The grid right of the Ace column: `rows × width` cells, 0 for a gap; cards numbered as in
/// the layout (`suit * width + rank + 1`, rank 0 the absent Aces).
/// Packed into `WORDS` words, six bits a cell end to end: three for up to 32 cells (Superpuzz),
/// five for up to 53 (a full deck), six for the rest, so that each board keeps the smallest key
/// it can (six words cost Superpuzz's 4x7 deals 30%, and the walk's set of a full deck holds
/// half as many again in a GiB with five words as with seven).
#[derive(Clone, Copy, Debug)]
struct Position<const WORDS: usize>([u64; WORDS]);

impl<const WORDS: usize> PartialEq for Position<WORDS> {
    fn eq(&self, other: &Self) -> bool {
        // Word by word, with no call to memcmp (which five words of a full deck were given).
        self.0.iter().zip(&other.0).fold(0, |differ, (a, b)| differ | (a ^ b)) == 0
    }
}

impl<const WORDS: usize> Eq for Position<WORDS> {}

impl<const WORDS: usize> std::hash::Hash for Position<WORDS> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.iter().for_each(|&word| state.write_u64(word));
    }
}

/// The deal's shape, with each card's rank and suit and each cell's row and column worked out
/// once (the search asks for them millions of times).
struct Board {
    rows: usize,
    width: usize,
    rank_of: [u8; 64],
    suit_of: [u8; 64],
    row_of: [u8; MAX_CELLS],
    column_of: [u8; MAX_CELLS],
    /// The 1s (rank 1), as a set of card numbers.
    ones: u64,
    /// For each card, the cards above it in its suit.
    above: [u64; 64],
    /// For each card number (any `u8`, so that no index is checked), the card above it in its
    /// suit as a set: empty for a suit's last card, and for 0 (a hole).
    next_of: [u64; 256],
    /// Every card on the board (all but the Aces), as a set.
    cards: u64,
}

impl Board {
    fn new(rows: usize, width: usize) -> Board {
        let mut board = Board {
            rows,
            width,
            rank_of: [0; 64],
            suit_of: [0; 64],
            row_of: [0; MAX_CELLS],
            column_of: [0; MAX_CELLS],
            ones: 0,
            above: [0; 64],
            next_of: [0; 256],
            cards: 0,
        };
        for card in 1..=(rows * width).min(63) {
            (board.rank_of[card], board.suit_of[card]) = (((card - 1) % width) as u8, ((card - 1) / width) as u8);
            board.ones |= u64::from(board.rank_of[card] == 1) << card;
            let suit_end = (card - 1) / width * width + width;
            board.above[card] = (card + 1..=suit_end.min(63)).fold(0, |set, above| set | 1 << above);
            if board.rank_of[card] != 0 {
                board.cards |= 1 << card;
                board.next_of[card] = if card < suit_end { 1 << (card + 1) } else { 0 };
            }
        }
        for cell in 0..(rows * width).min(MAX_CELLS) {
            (board.row_of[cell], board.column_of[cell]) = ((cell / width) as u8, (cell % width) as u8);
        }
        board
    }

    fn cells(&self) -> usize {
        self.rows * self.width
    }

    fn rank(&self, card: u8) -> usize {
        usize::from(self.rank_of[card as usize])
    }

    fn suit(&self, card: u8) -> usize {
        usize::from(self.suit_of[card as usize])
    }

    fn row(&self, cell: usize) -> usize {
        usize::from(self.row_of[cell])
    }

    fn column(&self, cell: usize) -> usize {
        usize::from(self.column_of[cell])
    }

    fn pack<const WORDS: usize>(&self, cells: &[u8]) -> Position<WORDS> {
        let mut position = Position([0u64; WORDS]);
        for (cell, &card) in cells.iter().enumerate() {
            toggle(&mut position, cell, card);
        }
        position
    }

    /// `position` after `card` moved from the cell `from` into the gap `to`, or back: the card's
    /// bits flipped in both cells, so that a search keeps its packed position as it plays
    /// instead of packing every cell again.
    fn moved<const WORDS: usize>(
        &self,
        mut position: Position<WORDS>,
        card: u8,
        from: usize,
        to: usize,
    ) -> Position<WORDS> {
        toggle(&mut position, from, card);
        toggle(&mut position, to, card);
        position
    }

    fn unpack<const WORDS: usize>(&self, position: Position<WORDS>, cells: &mut [u8]) {
        let words = position.0;
        for (i, cell) in cells.iter_mut().enumerate().take(self.cells()) {
            let (word, shift) = (i * BITS_PER_CELL / 64, i * BITS_PER_CELL % 64);
            let mut bits = words[word] >> shift;
            if shift + BITS_PER_CELL > 64 {
                bits |= words[word + 1] << (64 - shift);
            }
            *cell = (bits & 63) as u8;
        }
    }

    /// Plays `card` into the hole `to`; the cell it left, for [`take_back`] (the searches know
    /// the cell already; the tests play by card).
    #[cfg(test)]
    fn play(&self, cells: &mut [u8], card: u8, to: usize) -> usize {
        let from = cell_of(cells, card);
        (cells[from], cells[to]) = (0, card);
        from
    }

    /// The move of `card` into `cell`, in the layout's positions (a row of `width` cells here is
    /// a row of `width + 1` there, the Ace column first).
    fn layout_move(&self, card: u8, cell: usize) -> Move {
        Move { card: u32::from(card), to: cell / self.width * (self.width + 1) + cell % self.width + 1 }
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

    /// The lower bound `h` (see [`misplaced`]), or `None` when the position is dead: a row
    /// that holds a card which can never move is that card's suit's, which the best matching
    /// respects. `scan` is room to scan `cells` in, which only a position with no hole on the
    /// left edge needs (with one, no card is stuck).
    fn bound(&self, cells: &[u8], scan: &mut Scan) -> Option<u32> {
        let suits_of_row = if self.hole_on_edge(cells) {
            [u8::MAX; 8]
        } else {
            scan.refill(self, cells);
            self.forced_suits(scan)?
        };
        Some(self.bound_from(&self.may_stay(cells), &suits_of_row))
    }

    /// [`Self::bound`] of `cells` after `card` moves from the cell `from` into the gap `to`,
    /// worked out from what `cells` has: `scan`, its scan, and `may_stay`, its
    /// [`Self::may_stay`] (only the card that moves changes it). `cells` and `scan` are left as
    /// they were.
    fn bound_after(
        &self,
        cells: &mut [u8],
        scan: &mut Scan,
        may_stay: &[[u32; 8]; 8],
        (card, from, to): (u8, usize, usize),
    ) -> Option<u32> {
        let mut may_stay = *may_stay;
        let suit = self.suit(card);
        if self.rank(card) == self.column(from) + 1 {
            may_stay[self.row(from)][suit] -= 1;
        }
        if self.rank(card) == self.column(to) + 1 {
            may_stay[self.row(to)][suit] += 1;
        }
        (cells[from], cells[to]) = (0, card);
        let suits_of_row = if self.hole_on_edge(cells) {
            take_back(cells, card, from, to);
            [u8::MAX; 8]
        } else {
            scan.after_move(self, cells, from, to);
            let forced = self.forced_suits(scan);
            take_back(cells, card, from, to);
            scan.after_move(self, cells, to, from);
            forced?
        };
        Some(self.bound_from(&may_stay, &suits_of_row))
    }

    /// Whether a hole lies on the left edge of `cells`: then any 1 may move, so every card may,
    /// and none is stuck.
    fn hole_on_edge(&self, cells: &[u8]) -> bool {
        cells.iter().step_by(self.width).any(|&card| card == 0)
    }

    /// For each row and suit, how many cards of that suit in that row lie in the column of their
    /// rank.
    fn may_stay(&self, cells: &[u8]) -> [[u32; 8]; 8] {
        let mut may_stay = [[0u32; 8]; 8];
        for (at, &card) in cells.iter().enumerate().filter(|&(_, &card)| card != 0) {
            if self.rank(card) == self.column(at) + 1 {
                may_stay[self.row(at)][self.suit(card)] += 1;
            }
        }
        may_stay
    }

    /// The bound of a position whose cards that may stay are `may_stay` and whose rows take only
    /// the suits `suits_of_row`.
    fn bound_from(&self, may_stay: &[[u32; 8]; 8], suits_of_row: &[u8; 8]) -> u32 {
        let cards = (self.rows * (self.width - 1)) as u32;
        cards - best_matching(may_stay, suits_of_row, self.rows)
    }
}

/// Flips the bits of `card` in `cell` of `position` (six bits a cell end to end).
///
/// Every word is worked out without a branch or an index into the words, so that a position
/// stays in registers: a write into a word picked at run time, read back as a whole, cost the
/// searches a stall of the store queue at every move (12% of a 4x7 walk under perf).
fn toggle<const WORDS: usize>(position: &mut Position<WORDS>, cell: usize, card: u8) {
    let (word, shift) = (cell * BITS_PER_CELL / 64, cell * BITS_PER_CELL % 64);
    let low = u64::from(card) << shift;
    // A cell that straddles two words puts its high bits at the bottom of the next: the card's
    // top `shift + 6 - 64` bits, none when the cell ends within its word (a card is below 64).
    let high = (u64::from(card) >> 1) >> (63 - shift);
    for (at, bits) in position.0.iter_mut().enumerate() {
        *bits ^= if at == word { low } else { 0 } | if at == word + 1 { high } else { 0 };
    }
}

/// The cell `card` lies in.
#[cfg(test)]
fn cell_of(cells: &[u8], card: u8) -> usize {
    cells.iter().position(|&c| c == card).expect("every card lies somewhere")
}

/// Takes back the move of `card` from the cell `from` into the gap `to`: `to` is a gap again and
/// `from` holds the card.
fn take_back(cells: &mut [u8], card: u8, from: usize, to: usize) {
    (cells[to], cells[from]) = (0, card);
}

/// The most cards that may stay where they lie, over every way of giving each row one suit
/// (each suit one row) that gives row `r` only a suit of the set `suits_of_row[r]`: a dynamic
/// programme over the sets of suits given so far.
fn best_matching(may_stay: &[[u32; 8]; 8], suits_of_row: &[u8; 8], rows: usize) -> u32 {
    // `UNREACHED` for a set of suits no allowed giving reaches.
    const UNREACHED: u32 = u32::MAX;
    let mut best = [UNREACHED; 256];
    best[0] = 0;
    for set in 0usize..(1 << rows) {
        let row = set.count_ones() as usize;
        if row >= rows || best[set] == UNREACHED {
            continue;
        }
        for suit in (0..rows).filter(|suit| set & (1 << suit) == 0 && suits_of_row[row] & (1 << suit) != 0) {
            let gained = best[set] + may_stay[row][suit];
            let next = &mut best[set | (1 << suit)];
            *next = if *next == UNREACHED { gained } else { (*next).max(gained) };
        }
    }
    // Rows held by stuck cards take their suits, the others share the rest: always possible.
    let most = best[(1 << rows) - 1];
    assert_ne!(most, UNREACHED, "a row's stuck cards are of one suit, and a suit's in one row");
    most
}

/// The seed's N, made exact for rows of any suit: the fewest cards of `layout` that must still
/// move (each at least once) before it is won; `None` when it can never be won (a card that can
/// never move lies where no win has it).
pub fn misplaced(layout: &Layout) -> Option<u32> {
    let (board, cells) = board_of(layout);
    board.bound(&cells, &mut Scan::new())
}

fn board_of(layout: &Layout) -> (Board, Vec<u8>) {
    let width = layout.deck.ranks as usize;
    let board = Board::new(layout.rows(), width);
    let cells = layout.cells.chunks(width + 1).flat_map(|row| row[1..].iter().map(|&card| card as u8)).collect();
    (board, cells)
}

/// A hasher for packed positions: one multiply per word, whose high bits mix well.
#[derive(Default)]
struct PositionHasher(u64);

impl Hasher for PositionHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&byte| self.write_u64(u64::from(byte)));
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The positions the first, short A* may meet before the walk takes over (it is taken up again
/// after the walk, so nothing is met twice): `GEN 1..100 7` took 2.8 s at 2^14, 2.5 s at 2^15
/// and 2^16, 2.6 s at 2^17; 60 deals of 4x8 12.6, 11.5, 11.0, 11.9 s (one thread, 2026-11-29).
const FIRST_TRY: usize = 1 << 16;

/// The positions the walk may meet after the first A*, before the A* goes on; each later share
/// of either is four times its last, the A*'s next one 16 times its first. The walk is there to
/// prove "no win", and meets a deal's positions at about half the A*'s cost; but where there is
/// a win it only wanders until it finds one, which on a few deals takes many times the A*'s
/// whole search (4x8 `GEN 669`: 40.5 million positions and 31.8 s before a win, where the A*
/// alone proves the shortest in 2.8 million and 2.7 s). 2^21 lets the walk prove every deal of
/// `GEN 1..100 7` without a win in its first share (at most 1.4 million positions), so those
/// meet the same positions as before the turns; on `GEN 1..1000 8` the turns took 0.95x the CPU
/// in all (paired, 2 runs), 9.3 s at most for a deal against 17.5 s, and 679 against 818 MiB
/// (2026-11-30; the p99 of a deal rose from 1.9 to 2.3 s: deals without a win that the walk
/// would have proved alone, past its first share, now pay the A*'s turns too).
const WALK_FIRST: usize = 1 << 21;

/// Whether [`solve`] takes `layout`: at most 8 suits (rows) and [`MAX_CELLS`] cells right of
/// the Ace column.
pub fn fits(layout: &Layout) -> bool {
    let (rows, width) = (layout.rows(), layout.deck.ranks as usize);
    rows <= 8 && rows * width <= MAX_CELLS
}

/// Searches `layout` (one that [`fits`]) in `order`, meeting at most `cap` positions in any
/// one pass.
///
/// The A* finds a shortest win, but proves there is none only by meeting every position it can
/// reach; the walk (`decide`) meets those at a fraction of the cost, and finds some win, of no
/// known length, where there is one, but may wander long before it does. So a short A* decides
/// most deals; past it the walk and the A* take turns, each going on where it stopped with a
/// larger share (`WALK_FIRST`), until the walk proves there is no win or the A* decides; once
/// the walk finds a win, the A* goes on alone to the end.
pub fn solve(layout: &Layout, order: Order, cap: usize) -> Outcome {
    on_board(layout, Shortest { order, limit: Limit::positions(cap), shares: (FIRST_TRY, WALK_FIRST) })
}

/// Finds some win of `layout` (one that [`fits`]), of no particular length, or proves there is
/// none, each pass within `limit` (`ANY_WIN_PASSES`): the weighted search with μ = 3, within
/// half the time; then the walk, which proves "no win" where the reachable positions are few
/// enough and finds wins that lie deep, with the rest of the time; then, if the walk stopped at
/// its memory, the greedier μ = 10 with what time is left. The walk keeps only positions, so the
/// same memory holds about twice as many of them for it (`Limit::for_walk`). (On the first 100
/// full decks, `GEN 1..100`, with 4 GiB and 60 s each, the first A* decides 95, and the walk
/// after it `GEN 58` (no win, 33.5 million positions), `72` and `86` (won after 31.4 and 48.7
/// million) where the machine runs fast enough: each takes 48 to 59 s of the minute.)
pub fn any_win(layout: &Layout, limit: Limit) -> Outcome {
    on_board(layout, AnyWin { limit })
}

/// A search whose positions pack into `WORDS` words.
trait PackedSearch {
    fn run<const WORDS: usize>(&self, board: &Board, start: &[u8]) -> Outcome;
}

/// Runs `search` on `layout`'s board and cells, with positions packed into as few words as
/// its cells need.
fn on_board(layout: &Layout, search: impl PackedSearch) -> Outcome {
    assert!(fits(layout), "at most 8 suits and {MAX_CELLS} cells right of the Ace column");
    let (board, start) = board_of(layout);
    match (board.cells() * BITS_PER_CELL).div_ceil(64) {
        ..=3 => search.run::<3>(&board, &start),
        4 | 5 => search.run::<5>(&board, &start),
        _ => search.run::<6>(&board, &start),
    }
}

/// [`solve`]'s passes.
struct Shortest {
    order: Order,
    limit: Limit,
    /// The first shares of positions of the A* and of the walk.
    shares: (usize, usize),
}

impl PackedSearch for Shortest {
    fn run<const WORDS: usize>(&self, board: &Board, start: &[u8]) -> Outcome {
        let (order, limit) = (self.order, self.limit);
        // Each A* pass starts from the deal (the A* leaves its grid at the last position it took).
        let mut cells = start.to_vec();
        let mut a_star = astar::AStar::<WORDS>::new(board, order);
        let (mut a_star_share, mut walk_share) = self.shares;
        match a_star.run(&mut cells, limit.for_a_star().at_most(a_star_share)) {
            Outcome::GaveUp { .. } if a_star_share < limit.positions => {}
            outcome => return outcome,
        }
        // The A* and the walk each keep what they met while the other goes on, so each has half
        // the memory.
        let half = Limit { memory: limit.memory / 2, ..limit };
        let mut walk = Some(decide::Walk::<WORDS>::new(board, start));
        let mut walked = 0;
        loop {
            // The walk goes on within its share: "no win" decides, a win means it is no longer
            // needed (the A* alone finds the shortest), and past its share the A* goes on.
            if let Some(going) = walk.as_mut() {
                match going.run(half.for_walk::<WORDS>().at_most(walk_share)) {
                    decide::Found::NoWin { positions } => {
                        return Outcome::Unsolvable { positions: a_star.positions() + positions }
                    }
                    decide::Found::Win { positions, .. } => (walk, walked) = (None, positions),
                    decide::Found::GaveUp { positions } => walked = positions,
                }
            }
            // Once a win is known the A* goes on to the end, with all the memory.
            a_star_share = match walk {
                Some(_) => a_star_share.saturating_mul(if walk_share == self.shares.1 { 16 } else { 4 }),
                None => usize::MAX,
            };
            walk_share = walk_share.saturating_mul(4);
            let a_star_limit = if walk.is_some() { half } else { limit }.for_a_star();
            cells.copy_from_slice(start);
            match a_star.run(&mut cells, a_star_limit.at_most(a_star_share)) {
                Outcome::GaveUp { .. } if a_star_share < a_star_limit.positions => {}
                outcome => return outcome.after(walked),
            }
        }
    }
}

/// One of [`any_win`]'s passes.
#[derive(Clone, Copy, Debug)]
enum Pass {
    /// The weighted A* with this μ.
    Weighted(f64),
    /// The depth-first walk.
    Walk,
}

/// [`any_win`]'s passes in order, each with the part of the time left when it starts that it may
/// take (1: all of it). Each starts afresh with all the memory.
const ANY_WIN_PASSES: [(Pass, u32); 3] = [(Pass::Weighted(3.0), 2), (Pass::Walk, 1), (Pass::Weighted(10.0), 1)];

/// [`any_win`]'s passes.
struct AnyWin {
    limit: Limit,
}

impl AnyWin {
    /// This search's limit for a pass that starts now and may take `1 / part` of the time left.
    fn for_pass(&self, part: u32) -> Limit {
        let now = Instant::now();
        Limit {
            deadline: self.limit.deadline.map(|deadline| now + deadline.saturating_duration_since(now) / part),
            ..self.limit
        }
    }
}

impl PackedSearch for AnyWin {
    fn run<const WORDS: usize>(&self, board: &Board, start: &[u8]) -> Outcome {
        let mut spent = 0;
        for (pass, part) in ANY_WIN_PASSES {
            let limit = self.for_pass(part);
            let outcome = match pass {
                Pass::Weighted(mu) => {
                    astar::a_star::<WORDS>(board, &mut start.to_vec(), Order::Weighted(mu), limit.for_a_star())
                }
                Pass::Walk => match decide::winnable::<WORDS>(board, start, limit.for_walk::<WORDS>()) {
                    decide::Found::Win { positions, moves } => Outcome::Solved { moves, optimal: false, positions },
                    decide::Found::NoWin { positions } => Outcome::Unsolvable { positions },
                    decide::Found::GaveUp { positions } => Outcome::GaveUp { positions },
                },
            };
            match outcome {
                Outcome::GaveUp { positions } => spent += positions,
                outcome => return outcome.after(spent),
            }
        }
        Outcome::GaveUp { positions: spent }
    }
}

impl Outcome {
    /// This outcome, counting also `positions` met by earlier passes.
    fn after(self, spent: usize) -> Outcome {
        match self {
            Outcome::Solved { moves, optimal, positions } => {
                Outcome::Solved { moves, optimal, positions: positions + spent }
            }
            Outcome::Unsolvable { positions } => Outcome::Unsolvable { positions: positions + spent },
            Outcome::GaveUp { positions } => Outcome::GaveUp { positions: positions + spent },
        }
    }
}

#[cfg(test)]
mod tests;
