//! One pass over a position's cells → what the tests of a position ask of it ([`Scan`]): where
//! each card lies, which card may go into a card's cell once it leaves, which cards a card's
//! moves are tied to, the holes and the left edge. From it, the cards that can never move again
//! and the dead test ([`Board::stuck`], [`Board::forced_suits`]); the stubborn set (`reduce`) and
//! the searches read it too, so a position the walk enters is scanned once, where the dead test,
//! the stubborn set and the search each went over its cells again (on a full deck the dead test
//! and the stubborn set took half of the walk's time under perf, much of it in those passes).

use super::Board;

/// Card-indexed tables have a slot for every `u8`, so that no index into them is checked: a
/// card's entry in [`Scan::links`] is written from the cell of the card one below it, so the
/// cell of a suit's last card writes that of the next suit's absent Ace (or of 64), which
/// nothing reads.
const CARD_SLOTS: usize = 256;

/// A position's cells, gone over once.
pub(super) struct Scan {
    /// The cell of each card on the board.
    pub(super) at: [u8; CARD_SLOTS],
    /// For each card on the board, the card that may go into its cell once it leaves (the one
    /// above the card on its left), as a set: empty on the left edge, after a hole or after a
    /// suit's last card.
    opens: [u64; CARD_SLOTS],
    /// For each card above a 1: the card below it, with the card in the cell it wants (right
    /// of the one below) unless that is itself, or, when that cell is a hole, the card above it:
    /// the cards its moves are tied to (see `reduce`).
    pub(super) links: [u64; CARD_SLOTS],
    /// The cards a hole takes now (each right of the card one below it), as a set.
    wanted: u64,
    /// The holes, in the order of the cells.
    holes: [u8; 8],
    hole_count: usize,
    /// The cards on the left edge, and how many holes lie there.
    pub(super) edge_cards: u64,
    pub(super) holes_on_edge: u32,
}

impl Scan {
    /// A scan of nothing yet, to be [`Scan::refill`]ed.
    pub(super) fn new() -> Scan {
        let none = [0; CARD_SLOTS];
        Scan {
            at: [0; CARD_SLOTS],
            opens: none,
            links: none,
            wanted: 0,
            holes: [0; 8],
            hole_count: 0,
            edge_cards: 0,
            holes_on_edge: 0,
        }
    }

    /// A scan of `cells`.
    pub(super) fn of(board: &Board, cells: &[u8]) -> Scan {
        let mut scan = Scan::new();
        scan.refill(board, cells);
        scan
    }

    /// Scans `cells` again. Only the entries of cards on the board are written (and slots of
    /// absent cards, see [`CARD_SLOTS`]), which are the only ones read.
    pub(super) fn refill(&mut self, board: &Board, cells: &[u8]) {
        let width = board.width;
        // Kept in locals, not in `self`, so that they stay in registers beside the stores into
        // the tables.
        let (mut wanted, mut hole_count, mut edge_cards, mut holes_on_edge) = (0u64, 0usize, 0u64, 0u32);
        for (row, cards) in cells.chunks_exact(width).enumerate() {
            edge_cards |= 1 << cards[0];
            holes_on_edge += u32::from(cards[0] == 0);
            // What may go into a cell: the card above the one on its left (`next_of` of a hole,
            // of a suit's last card and, on the left edge, of nothing is empty).
            let mut opens = 0;
            for (column, &card) in cards.iter().enumerate() {
                let cell = (row * width + column) as u8;
                self.at[usize::from(card)] = cell;
                self.opens[usize::from(card)] = opens;
                if card == 0 {
                    wanted |= opens;
                    self.holes[hole_count & 7] = cell;
                    hole_count += 1;
                }
                self.links[usize::from(card.wrapping_add(1))] = links_of_above(board, card, cards.get(column + 1));
                opens = board.next_of[usize::from(card)];
            }
        }
        (self.wanted, self.hole_count, self.edge_cards, self.holes_on_edge) =
            (wanted, hole_count, edge_cards & !1, holes_on_edge);
    }

    /// Brings the scan up to date after a card moved from the cell `vacated` (now a hole) into
    /// the hole `filled` of `cells` (the walk's moves and their taking back alike): only what
    /// lies in those two cells and beside them changed, so only their entries are worked out
    /// again, as [`Self::refill`] works them out.
    pub(super) fn after_move(&mut self, board: &Board, cells: &[u8], vacated: usize, filled: usize) {
        let width = board.width;
        // Nothing lies left of the left edge: as after a hole, nothing may go into the cell, and
        // the links written for "the card above" a hole are those of card 1, an Ace, which
        // nothing reads.
        let left_of = |cell: usize| if board.column(cell) == 0 { 0 } else { cells[cell - 1] };
        for cell in [vacated, filled] {
            let (card, left) = (cells[cell], left_of(cell));
            let right = if board.column(cell) + 1 == width { None } else { Some(&cells[cell + 1]) };
            self.at[usize::from(card)] = cell as u8;
            self.opens[usize::from(card)] = board.next_of[usize::from(left)];
            self.links[usize::from(card.wrapping_add(1))] = links_of_above(board, card, right);
            self.links[usize::from(left.wrapping_add(1))] = links_of_above(board, left, Some(&card));
            if let Some(&right) = right {
                self.opens[usize::from(right)] = board.next_of[usize::from(card)];
            }
        }
        // The hole moved from `filled` to `vacated`: put back in the order of the cells.
        let holes = &mut self.holes[..self.hole_count];
        let mut at = holes.iter().position(|&hole| usize::from(hole) == filled).expect("a card went into a hole");
        holes[at] = vacated as u8;
        while at > 0 && holes[at - 1] > holes[at] {
            holes.swap(at - 1, at);
            at -= 1;
        }
        while at + 1 < holes.len() && holes[at + 1] < holes[at] {
            holes.swap(at, at + 1);
            at += 1;
        }
        // A card is wanted when the cell right of the card below it is a hole: that changed only
        // for the cards above the ones left of the two cells, and above the card that moved.
        let card = cells[filled];
        let hole_right = board.column(filled) + 1 < width && cells[filled + 1] == 0;
        let above = board.next_of[usize::from(card)];
        let above_left_of = |cell: usize| board.next_of[usize::from(left_of(cell))];
        self.wanted = (self.wanted | above_left_of(vacated)) & !above_left_of(filled) & !above
            | if hole_right { above } else { 0 };
        if board.column(vacated) == 0 || board.column(filled) == 0 {
            let edge = cells.iter().step_by(width);
            self.edge_cards = edge.clone().fold(0, |set, &card| set | 1 << card) & !1;
            self.holes_on_edge = edge.filter(|&&card| card == 0).count() as u32;
        }
    }

    /// The holes, in the order of the cells.
    pub(super) fn holes(&self) -> &[u8] {
        &self.holes[..self.hole_count]
    }
}

/// The links ([`Scan::links`]) of the card above `card` (which may be a hole, or a suit's last
/// card, whose "card above" is no card on the board): `card` itself, and what lies `right` of it
/// (`None` off the edge), the cell the card above wants: nothing more when that is the card
/// above itself, the card above that when it is a hole, else the card there.
fn links_of_above(board: &Board, card: u8, right: Option<&u8>) -> u64 {
    let above = card.wrapping_add(1);
    let tied = match right {
        None => 0,
        Some(0) => board.next_of[usize::from(above)],
        Some(&right) if right == above => 0,
        Some(&right) => 1 << right,
    };
    1 << card | tied
}

impl Board {
    /// The cards of the scanned position that can never move again, as a set of card numbers:
    /// the largest set whose every card is stuck while the others in it stay. A card other than a
    /// 1 moves only into the cell right of the card one below it, so it is stuck while that card
    /// stays and that cell stays filled (or is off the edge); a 1 moves only into a hole on the
    /// left edge, so it is stuck while every left-edge cell holds a card that stays. No card of
    /// such a set can be the first of them to move, so none ever moves. Found as the cards left
    /// when those that may move are spread from the ones that can move now: a card may move when
    /// the card below it may, or the card in the cell it wants may (a 1: a card on the left edge).
    pub(super) fn stuck(&self, scan: &Scan) -> u64 {
        // A hole on the left edge frees every 1, so every 2, and so on: nothing is stuck.
        if scan.holes_on_edge > 0 {
            return 0;
        }
        let edge = scan.edge_cards;
        // A card that may leave the left edge frees every 1, so every card above one: all. So
        // the spread stops as soon as it reaches one, before taking it up.
        let mut free = scan.wanted;
        if free & edge != 0 {
            return 0;
        }
        let mut work = free;
        while work != 0 {
            let card = work.trailing_zeros() as usize;
            work &= work - 1;
            let freed = (scan.opens[card] | self.above[card]) & !free;
            if freed & edge != 0 {
                return 0;
            }
            (free, work) = (free | freed, work | freed);
        }
        self.cards & !free
    }

    /// The suits that cards which can never move again ([`Self::stuck`]) force on rows (a set of
    /// suits for each row), or `None` when the position is dead: such a card lies where no win
    /// has it (not in the column of its rank, or in a row with another suit's stuck card, or
    /// apart from its suit's). A dead position's subtree holds no win, so the search drops it.
    pub(super) fn forced_suits(&self, scan: &Scan) -> Option<[u8; 8]> {
        let mut stuck = self.stuck(scan);
        let mut suits_of_row = [u8::MAX; 8];
        let mut row_of_suit = [u8::MAX; 8];
        while stuck != 0 {
            let card = stuck.trailing_zeros() as u8;
            stuck &= stuck - 1;
            let at = usize::from(scan.at[usize::from(card)]);
            let (row, suit) = (self.row(at), self.suit(card));
            let elsewhere = row_of_suit[suit] != u8::MAX && usize::from(row_of_suit[suit]) != row;
            suits_of_row[row] &= 1 << suit;
            row_of_suit[suit] = row as u8;
            if self.rank(card) != self.column(at) + 1 || elsewhere || suits_of_row[row] == 0 {
                return None;
            }
        }
        Some(suits_of_row)
    }

    /// Whether no win can be reached from the scanned position by [`Self::forced_suits`]' test.
    pub(super) fn dead(&self, scan: &Scan) -> bool {
        self.forced_suits(scan).is_none()
    }

    /// The legal moves of the scanned `cells` as (card, cell), hole by hole: into a hole on the
    /// left edge any 1 (rank 1), else the card one above the card on the hole's left, when there
    /// is one.
    pub(super) fn moves(&self, cells: &[u8], scan: &Scan, out: &mut Vec<(u8, usize)>) {
        out.clear();
        for &hole in scan.holes() {
            let at = usize::from(hole);
            if self.column(at) == 0 {
                out.extend((0..self.rows).map(|suit| ((suit * self.width + 2) as u8, at)));
            } else {
                let left = cells[at - 1];
                if left != 0 && self.rank(left) + 1 < self.width {
                    out.push((left + 1, at));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each table of the scan against its definition, read off the cells, on positions of random
    /// play (4x7, a full deck, 3 suits of 5).
    #[test]
    fn a_scan_holds_what_its_cells_say() {
        super::super::tests::on_random_positions(|board, cells| {
            let scan = Scan::of(board, cells);
            let cell_of = |card: u8| cells.iter().position(|&c| c == card).expect("on the board");
            let bit = |card: u8| 1u64 << card;
            for card in (1..64u8).filter(|&card| board.cards & bit(card) != 0) {
                let at = cell_of(card);
                assert_eq!(usize::from(scan.at[usize::from(card)]), at, "{cells:?}");
                // What may go into its cell: the card above the one on its left.
                let left = (board.column(at) > 0).then(|| cells[at - 1]).filter(|&left| left != 0);
                let opens = left.filter(|&left| board.rank(left) + 1 < board.width).map_or(0, |left| bit(left + 1));
                assert_eq!(scan.opens[usize::from(card)], opens, "{card} at {cells:?}");
                if board.rank(card) >= 2 {
                    let below = cell_of(card - 1);
                    let wanted = (board.column(below) + 1 < board.width).then(|| cells[below + 1]);
                    let above = if board.rank(card) + 1 < board.width { bit(card + 1) } else { 0 };
                    let tied = match wanted {
                        Some(0) => above,
                        Some(other) if other != card => bit(other),
                        _ => 0,
                    };
                    assert_eq!(scan.links[usize::from(card)], bit(card - 1) | tied, "{card} at {cells:?}");
                }
            }
            let holes: Vec<u8> = (0..cells.len()).filter(|&cell| cells[cell] == 0).map(|cell| cell as u8).collect();
            assert_eq!(scan.holes(), holes, "{cells:?}");
            let wanted = holes.iter().fold(0, |set, &hole| set | scan.opens_of_hole(board, cells, hole));
            assert_eq!(scan.wanted, wanted, "{cells:?}");
            let edge: Vec<u8> = cells.iter().step_by(board.width).copied().collect();
            assert_eq!(scan.holes_on_edge as usize, edge.iter().filter(|&&card| card == 0).count());
            assert_eq!(scan.edge_cards, edge.iter().fold(0, |set, &card| set | bit(card)) & !1);
        });
    }

    /// A scan kept up to date move by move ([`Scan::after_move`]) is the scan of the cells it
    /// came to, after every legal move of positions of random play and after taking it back.
    #[test]
    fn a_scan_kept_up_to_date_is_a_scan_of_its_cells() {
        super::super::tests::on_random_positions(|board, cells| {
            let (mut cells, mut moves) = (cells.to_vec(), Vec::new());
            let mut scan = Scan::of(board, &cells);
            board.moves(&cells, &scan, &mut moves);
            for &(card, to) in &moves {
                let from = board.play(&mut cells, card, to);
                scan.after_move(board, &cells, from, to);
                assert_same(board, &scan, &Scan::of(board, &cells), &cells);
                super::super::take_back(&mut cells, card, from, to);
                scan.after_move(board, &cells, to, from);
                assert_same(board, &scan, &Scan::of(board, &cells), &cells);
            }
        });
    }

    /// Two scans agree on every entry that is read: those of the cards on the board.
    fn assert_same(board: &Board, kept: &Scan, fresh: &Scan, cells: &[u8]) {
        for card in (1..64).filter(|&card| board.cards & (1 << card) != 0) {
            assert_eq!(kept.at[card], fresh.at[card], "at of {card} in {cells:?}");
            assert_eq!(kept.opens[card], fresh.opens[card], "opens of {card} in {cells:?}");
            if board.rank_of[card] >= 2 {
                assert_eq!(kept.links[card], fresh.links[card], "links of {card} in {cells:?}");
            }
        }
        assert_eq!(kept.holes(), fresh.holes(), "{cells:?}");
        assert_eq!(kept.wanted, fresh.wanted, "{cells:?}");
        assert_eq!((kept.edge_cards, kept.holes_on_edge), (fresh.edge_cards, fresh.holes_on_edge), "{cells:?}");
    }

    impl Scan {
        /// The card that may go into the hole `hole` now, as a set.
        fn opens_of_hole(&self, board: &Board, cells: &[u8], hole: u8) -> u64 {
            let hole = usize::from(hole);
            if board.column(hole) == 0 {
                return 0;
            }
            let left = cells[hole - 1];
            if left != 0 && board.rank(left) + 1 < board.width {
                1 << (left + 1)
            } else {
                0
            }
        }
    }
}
