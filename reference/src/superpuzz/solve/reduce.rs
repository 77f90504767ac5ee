//! Which moves of a position the search must try: a stubborn set (Valmari's), from a position's
//! legal moves → the moves of the fewest cards that still reach every win by a line as short.
//!
//! A card's moves are one transition: a card other than a 1 goes only into the cell right of the
//! card one below it; a 1 goes into any hole on the left edge. Two cards' moves can interfere
//! (one disable the other, or the two not commute) only when one card is the other's next in
//! suit, or both are 1s; nothing else, because each hole right of a card takes that card's next
//! and no other. A card that cannot move now can first move only after a move of the card in the
//! cell it wants, or of the card below it (for a 1: of a card on the left edge). A set of cards
//! closed under "interferes with" for its movable members and "must move first" for the others
//! is stubborn: every line from the position to a position with no move (a win is one: every
//! hole is right of a suit's last card, none on the left edge) can be reordered, at the same
//! length, to start with a move of that set. So trying only those moves keeps every win and its
//! shortest length, and the bound stays admissible and consistent on the smaller graph.

use super::Board;

/// Cards as a set of card numbers (bit `c` for card `c`; at most 32 cards).
type Cards = u64;

/// What the set is closed over, for one position.
struct Relations {
    /// Every card that can move now.
    movable: Cards,
    /// For each card: the cards whose moves interfere with its (when movable) or one of which
    /// must move before it can (when not).
    linked: [Cards; 64],
}

fn relations(board: &Board, cells: &[u8]) -> Relations {
    let mut at = [u8::MAX; 64];
    let (mut ones, mut edge, mut edge_cards) = (0 as Cards, false, 0 as Cards);
    for (cell, &card) in cells.iter().enumerate() {
        if board.column(cell) == 0 {
            edge |= card == 0;
            edge_cards |= if card == 0 { 0 } else { 1 << card };
        }
        if card != 0 {
            at[card as usize] = cell as u8;
            ones |= if board.rank(card) == 1 { 1 << card } else { 0 };
        }
    }
    let mut relations = Relations { movable: 0, linked: [0; 64] };
    for card in (1..64u8).filter(|&card| at[card as usize] != u8::MAX) {
        let next = if board.rank(card) + 1 < board.width { 1 << (card + 1) } else { 0 };
        let (movable, linked) = if board.rank(card) == 1 {
            // Into a hole on the left edge: against every 1; when there is none, a card on the
            // edge must move first.
            (edge, if edge { ones | next } else { edge_cards })
        } else {
            let below = at[card as usize - 1] as usize;
            let wanted = (board.column(below) != board.width - 1).then(|| cells[below + 1]);
            match wanted {
                Some(0) => (true, 1 << (card - 1) | next),
                Some(occupant) if occupant != card => (false, 1 << (card - 1) | 1 << occupant),
                _ => (false, 1 << (card - 1)),
            }
        };
        relations.movable |= if movable { 1 << card } else { 0 };
        relations.linked[card as usize] = linked;
    }
    relations
}

/// Keeps of `moves` (the legal moves of `cells`, as (card, cell)) only those of the smallest
/// stubborn set found from any one movable card.
pub(super) fn stubborn(board: &Board, cells: &[u8], moves: &mut Vec<(u8, usize)>) {
    if moves.len() <= 1 {
        return;
    }
    let relations = relations(board, cells);
    let count = |set: Cards| moves.iter().filter(|&&(card, _)| set & (1 << card) != 0).count();
    let mut best: Option<(usize, Cards)> = None;
    let mut seeds = relations.movable;
    while seeds != 0 {
        let seed = seeds.trailing_zeros();
        seeds &= seeds - 1;
        let (mut set, mut work): (Cards, Cards) = (1 << seed, 1 << seed);
        while work != 0 {
            let card = work.trailing_zeros() as usize;
            work &= work - 1;
            let fresh = relations.linked[card] & !set;
            set |= fresh;
            work |= fresh;
        }
        let size = count(set);
        if best.is_none_or(|(fewest, _)| size < fewest) {
            best = Some((size, set));
            if size == 1 {
                break;
            }
        }
    }
    if let Some((_, set)) = best {
        moves.retain(|&(card, _)| set & (1 << card) != 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two rows of 4 (cards 2-4 of one suit, 6-8 of the other): 3 may go after 2, and 7 after 6.
    /// Moving 3 can change where 4 goes, and 4 is stuck only while 7 is, so 3's set holds 7's move
    /// too; 7's set needs only cards that cannot move (8 after 7 on the edge, the 1s), so it is the
    /// smaller, and the win of either order stays reachable through it.
    #[test]
    fn of_two_moves_that_commute_only_one_is_tried() {
        let board = Board::new(2, 4);
        let cells = [2, 0, 4, 8, 6, 0, 3, 7];
        let mut moves = Vec::new();
        board.moves(&cells, &mut moves);
        assert_eq!(moves, vec![(3, 1), (7, 5)]);
        stubborn(&board, &cells, &mut moves);
        assert_eq!(moves, vec![(7, 5)]);
    }

    /// A hole on the left edge takes any 1: every 1's move interferes with every other's, and
    /// 6's with 7's (which goes after 6), so all three moves are tried.
    #[test]
    fn moves_into_one_hole_on_the_left_edge_are_all_tried() {
        let board = Board::new(2, 4);
        let cells = [0, 2, 3, 4, 7, 8, 6, 0];
        let mut moves = Vec::new();
        board.moves(&cells, &mut moves);
        assert_eq!(moves, vec![(2, 0), (6, 0), (7, 7)]);
        stubborn(&board, &cells, &mut moves);
        assert_eq!(moves, vec![(2, 0), (6, 0), (7, 7)]);
    }
}
