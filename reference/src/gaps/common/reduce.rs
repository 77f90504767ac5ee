//! Which moves of a position the search must try: a stubborn set (Valmari's), from a position's
//! legal moves → the moves of the fewest cards that still reach every win by a line as short.
//!
//! A card's moves are one transition: a card other than a 1 goes only into the cell right of the
//! card one below it; a 1 goes into any hole on the left edge. Two cards' moves can interfere
//! (one disable the other, or the two not commute) only when one card is the other's next in
//! suit, or both are 1s; nothing else, because each hole right of a card takes that card's next
//! and no other; a 1's moves are one for each hole on the left edge, and a card leaving the edge
//! makes another, so a 1 is tied to every card there too. A card that cannot move now can first
//! move only after a move of the card in the cell it wants, or of the card below it (for a 1: of
//! a card on the left edge). A set of cards
//! closed under "interferes with" for its movable members and "must move first" for the others
//! is stubborn: every line from the position to a position with no move (a win is one: every
//! hole is right of a suit's last card, none on the left edge) can be reordered, at the same
//! length, to start with a move of that set. So trying only those moves keeps every win and its
//! shortest length, and the bound stays admissible and consistent on the smaller graph.

use super::{Board, Scan};

/// Cards as a set of card numbers (bit `c` for card `c`; card numbers stay below 64).
type Cards = u64;

/// The cards whose moves interfere with `card`'s (when it can move now) or one of which must
/// move before it can (when it cannot), in the scanned position: for a card above a 1, the
/// card below it and the card in the cell it wants, or the card above it when that cell is a
/// hole ([`Scan::links`]).
fn linked(board: &Board, scan: &Scan, card: u8) -> Cards {
    if board.rank(card) == 1 {
        // Into any hole on the left edge, so against every 1; and a card on the edge that
        // moves opens another hole there for it (when there is none yet, one must move first).
        let next = board.next_of[usize::from(card)];
        return if scan.holes_on_edge > 0 { board.ones | next | scan.edge_cards } else { scan.edge_cards };
    }
    scan.links[usize::from(card)]
}

/// Keeps of `moves` (the legal moves of `cells`, as (card, cell)) only those of the smallest
/// stubborn set found from any one movable card (the first such, in the order of card numbers).
///
/// Every card other than a 1 is linked to the card below it, so every set holds its suit's 1,
/// and a 1 is linked to every card on the left edge (and, with a hole there, to every 1): every
/// set holds the closure of those, its core, worked out once. Each card's own set is then the
/// core and what its walk adds before reaching it.
pub(super) fn stubborn(board: &Board, scan: &Scan, moves: &mut Vec<(u8, usize)>) {
    if moves.len() <= 1 {
        return;
    }
    let movable: Cards = moves.iter().fold(0, |set, &(card, _)| set | 1 << card);
    // A movable card has one move, but a 1 has one for each hole on the left edge.
    let count = |set: Cards| {
        let set = set & movable;
        (set & !board.ones).count_ones() + (set & board.ones).count_ones() * scan.holes_on_edge
    };
    let close = |mut set: Cards, mut work: Cards| {
        while work != 0 {
            let card = work.trailing_zeros() as u8;
            work &= work - 1;
            let fresh = linked(board, scan, card) & !set;
            (set, work) = (set | fresh, work | fresh);
        }
        set
    };
    let edge_links = scan.edge_cards | if scan.holes_on_edge > 0 { board.ones } else { 0 };
    let core = close(edge_links, edge_links);
    // No set is smaller than the core, nor than one move.
    let fewest_possible = count(core).max(1);
    let mut best: Option<(u32, Cards)> = None;
    let mut seeds = movable;
    while seeds != 0 {
        let seed = 1 << seeds.trailing_zeros();
        seeds &= seeds - 1;
        let set = close(core | seed, seed & !core);
        let size = count(set);
        if best.is_none_or(|(fewest, _)| size < fewest) {
            best = Some((size, set));
            if size == fewest_possible {
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
        let (mut moves, scan) = (Vec::new(), Scan::of(&board, &cells));
        board.moves(&cells, &scan, &mut moves);
        assert_eq!(moves, vec![(3, 1), (7, 5)]);
        stubborn(&board, &scan, &mut moves);
        assert_eq!(moves, vec![(7, 5)]);
    }

    /// The theorem the search leans on, along the oracle's shortest wins: at every position of
    /// the line, some move of the stubborn set is in the rest of the line, and the first such
    /// one can be played first, the rest after it in their order, to the same win. Deals 306,
    /// 309 and 700 are where a 1's moves were once tied to the 1s only: a card leaving the left
    /// edge opened a hole there for a 1, and the shortest wins were lost.
    #[test]
    fn every_shortest_win_can_start_with_a_stubborn_move() {
        use crate::gaps::model::Variant;
        use crate::gaps::oracle::{decide, Decision};
        for seed in [306, 309, 700, 1, 2, 3] {
            let layout = crate::gaps::generate::deal(seed, 6, 4);
            let (board, mut cells) = super::super::board_of(&layout);
            let Decision::Winnable(line) = decide(&layout, Variant::Common, 5_000_000) else { continue };
            let width = board.width;
            let mut rest: Vec<(u8, usize)> =
                line.iter().map(|m| (m.card as u8, m.to / (width + 1) * width + m.to % (width + 1) - 1)).collect();
            while !rest.is_empty() {
                let (mut kept, scan) = (Vec::new(), Scan::of(&board, &cells));
                board.moves(&cells, &scan, &mut kept);
                stubborn(&board, &scan, &mut kept);
                let first = rest.iter().position(|m| kept.iter().any(|k| k.0 == m.0));
                let at = first.unwrap_or_else(|| panic!("seed {seed}: no stubborn move left in the line at {cells:?}"));
                let reordered: Vec<(u8, usize)> = [rest[at]]
                    .into_iter()
                    .chain(rest[..at].iter().copied())
                    .chain(rest[at + 1..].iter().copied())
                    .collect();
                let mut trial = cells.clone();
                let wins = reordered.iter().all(|&m| play(&board, &mut trial, m)) && board.won(&trial);
                assert!(wins, "seed {seed}: {:?} cannot go first at {cells:?} (kept {kept:?})", rest[at]);
                assert!(play(&board, &mut cells, rest[at]));
                rest = reordered[1..].to_vec();
            }
        }
    }

    /// The set found by sharing the core is the one each movable card's own closure gives (the
    /// smallest, the first of equals), on positions of random play.
    #[test]
    fn the_stubborn_set_is_the_smallest_closure_of_one_movable_card() {
        let mut pruned = 0;
        super::super::tests::on_random_positions(|board, cells| {
            let (mut moves, scan) = (Vec::new(), Scan::of(board, cells));
            board.moves(cells, &scan, &mut moves);
            let closure = |seed: u8| {
                let (mut set, mut work) = (1u64 << seed, vec![seed]);
                while let Some(card) = work.pop() {
                    for next in (0..64u8).filter(|&next| linked(board, &scan, card) & (1 << next) != 0) {
                        if set & (1 << next) == 0 {
                            set |= 1 << next;
                            work.push(next);
                        }
                    }
                }
                moves.iter().filter(|&&(card, _)| set & (1 << card) != 0).copied().collect::<Vec<_>>()
            };
            let mut seeds: Vec<u8> = moves.iter().map(|&(card, _)| card).collect();
            seeds.sort();
            seeds.dedup();
            let smallest = seeds.iter().map(|&seed| closure(seed)).min_by_key(|set| set.len());
            let mut kept = moves.clone();
            stubborn(board, &scan, &mut kept);
            if moves.len() > 1 {
                assert_eq!(Some(kept.clone()), smallest, "{cells:?}");
            }
            pruned += usize::from(kept.len() < moves.len());
        });
        assert!(pruned > 100, "the set left out moves on {pruned} positions");
    }

    /// Plays `(card, cell)` on `cells` when it is legal there.
    fn play(board: &Board, cells: &mut [u8], (card, to): (u8, usize)) -> bool {
        let mut legal = Vec::new();
        board.moves(cells, &Scan::of(board, cells), &mut legal);
        let legal = legal.contains(&(card, to));
        if legal {
            board.play(cells, card, to);
        }
        legal
    }

    /// A hole on the left edge takes any 1: every 1's move interferes with every other's, and
    /// 6's with 7's (which goes after 6), so all three moves are tried.
    #[test]
    fn moves_into_one_hole_on_the_left_edge_are_all_tried() {
        let board = Board::new(2, 4);
        let cells = [0, 2, 3, 4, 7, 8, 6, 0];
        let (mut moves, scan) = (Vec::new(), Scan::of(&board, &cells));
        board.moves(&cells, &scan, &mut moves);
        assert_eq!(moves, vec![(2, 0), (6, 0), (7, 7)]);
        stubborn(&board, &scan, &mut moves);
        assert_eq!(moves, vec![(2, 0), (6, 0), (7, 7)]);
    }
}
