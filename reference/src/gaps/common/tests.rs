//! The engine's own checks: packed positions, the walk's memory, and the stuck cards against
//! their definition.

use super::*;

/// Every cell comes back as it went in, on boards of three, five and six words, where cells
/// straddle words (cell 10 of a board: bits 60 to 65).
#[test]
fn a_packed_position_unpacks_to_its_cells() {
    for (rows, width) in [(4, 8), (4, 13), (7, 9)] {
        let board = Board::new(rows, width);
        let cells: Vec<u8> = (0..board.cells()).map(|i| ((i * 37 + 11) % 64) as u8).collect();
        let mut back = vec![0; cells.len()];
        match (board.cells() * BITS_PER_CELL).div_ceil(64) {
            ..=3 => board.unpack(board.pack::<3>(&cells), &mut back),
            4 | 5 => board.unpack(board.pack::<5>(&cells), &mut back),
            _ => board.unpack(board.pack::<6>(&cells), &mut back),
        }
        assert_eq!(back, cells, "{rows} x {width}");
    }
}

/// The walk's cap in a MiB: its list of that many five-word positions and its table of their
/// tags, while the table doubles into its largest size, fit the MiB.
#[test]
fn the_walks_positions_fit_its_memory() {
    let most = Limit { positions: usize::MAX, memory: 1 << 20, deadline: None }.for_walk::<5>().positions;
    assert_eq!(most, (1 << 20) / 72);
    let mut index = index::Index::new();
    for at in 0..most as u32 {
        let index::Slot::Free(slot) = index.find(at, |_| false) else { unreachable!("every tag is new") };
        index.fill(slot, at, at);
    }
    let (list, table) = (most * std::mem::size_of::<Position<5>>(), index.bytes());
    assert!(list + table + table / 2 <= 1 << 20, "{list} + {table} * 1.5");
}

/// Positions met by random play from the deals `GEN 1..=30` of three shapes (Superpuzz's 4x7, a
/// full deck, 3 suits of 5), each handed to `check` with its board; play goes on to 80 moves or
/// a position with none.
pub(super) fn on_random_positions(mut check: impl FnMut(&Board, &[u8])) {
    for (ranks, suits) in [(7, 4), (13, 4), (5, 3)] {
        for seed in 1..=30 {
            let (board, mut cells) = board_of(&crate::gaps::generate::deal(seed, ranks, suits));
            let mut random = crate::java_random::JavaRandom::new(seed);
            let mut moves = Vec::new();
            for _ in 0..80 {
                check(&board, &cells);
                board.moves(&cells, &Scan::of(&board, &cells), &mut moves);
                if moves.is_empty() {
                    break;
                }
                let (card, to) = moves[random.next_int_bounded(moves.len() as i32) as usize];
                board.play(&mut cells, card, to);
            }
        }
    }
}

/// The stuck cards by their definition: the largest set whose every card stays while the
/// others in it stay, found by striking out the cards whose reason fails until none does.
fn stuck_by_definition(board: &Board, cells: &[u8]) -> u64 {
    let mut at = [0usize; 64];
    let mut stuck = 0u64;
    for (cell, &card) in cells.iter().enumerate().filter(|&(_, &card)| card != 0) {
        (at[card as usize], stuck) = (cell, stuck | 1 << card);
    }
    let stays = |stuck: u64, cell: usize| cells[cell] != 0 && stuck & (1 << cells[cell]) != 0;
    loop {
        let before = stuck;
        let edge_shut = (0..board.rows).all(|row| stays(stuck, row * board.width));
        for card in (1..64u8).filter(|&card| before & (1 << card) != 0) {
            let still = if board.rank(card) == 1 {
                edge_shut
            } else {
                let below = at[card as usize - 1];
                stuck & (1 << (card - 1)) != 0 && (board.column(below) == board.width - 1 || stays(stuck, below + 1))
            };
            if !still {
                stuck &= !(1 << card);
            }
        }
        if stuck == before {
            return stuck;
        }
    }
}

/// What `Board::stuck` spreads (the cards that may move, from those that can now) leaves the
/// same cards as the definition, on positions where some are stuck and where none is.
#[test]
fn the_stuck_cards_are_the_largest_set_that_stays() {
    let (mut some, mut none) = (0, 0);
    on_random_positions(|board, cells| {
        let stuck = board.stuck(&Scan::of(board, cells));
        assert_eq!(stuck, stuck_by_definition(board, cells), "{cells:?}");
        *(if stuck == 0 { &mut none } else { &mut some }) += 1;
    });
    assert!(some > 100 && none > 100, "{some} positions with stuck cards, {none} without");
}

/// A packed position kept move by move equals the position packed afresh, on every width of
/// word (4x7 in three words, a full deck in five).
#[test]
fn a_position_kept_move_by_move_is_the_position_packed() {
    fn check<const WORDS: usize>(board: &Board, cells: &[u8]) {
        let (mut after, mut moves) = (cells.to_vec(), Vec::new());
        board.moves(cells, &Scan::of(board, cells), &mut moves);
        for &(card, to) in &moves {
            let from = board.play(&mut after, card, to);
            let moved = board.moved(board.pack::<WORDS>(cells), card, from, to);
            assert_eq!(moved, board.pack::<WORDS>(&after), "{card} into {to} at {cells:?}");
            assert_eq!(board.moved(moved, card, from, to), board.pack::<WORDS>(cells), "and back");
            take_back(&mut after, card, from, to);
        }
    }
    on_random_positions(|board, cells| match (board.cells() * BITS_PER_CELL).div_ceil(64) {
        ..=3 => check::<3>(board, cells),
        4 | 5 => check::<5>(board, cells),
        _ => check::<6>(board, cells),
    });
}

/// A walk stopped at a limit and taken up again, time after time, meets the same positions and
/// finds the same win (or the same "no win") as one walk without a limit: on 4x7 and 3x6 deals,
/// stopped every 100, 200, 400, ... positions.
#[test]
fn a_walk_taken_up_again_goes_on_as_if_it_had_not_stopped() {
    for (ranks, suits) in [(7, 4), (6, 3)] {
        for seed in 1..=30 {
            let (board, start) = board_of(&crate::gaps::generate::deal(seed, ranks, suits));
            let whole = decide::winnable::<3>(&board, &start, Limit::positions(usize::MAX));
            let mut walk = decide::Walk::<3>::new(&board, &start);
            let mut share = 100;
            let stopped = loop {
                match walk.run(Limit::positions(share)) {
                    decide::Found::GaveUp { positions } => assert_eq!(positions, share, "{ranks} {seed}"),
                    found => break found,
                }
                share *= 2;
            };
            assert_eq!(stopped, whole, "{ranks} x {suits}, seed {seed}");
        }
    }
}

/// The A* and the walk taking turns from small shares (64 and 128 positions, so that most deals
/// take several turns) give the answer and line they give from the shares the solver uses: the
/// A* goes on as if it had never stopped, and the walk decides only "no win".
#[test]
fn the_turns_of_the_a_star_and_the_walk_change_no_answer() {
    for (ranks, seeds) in [(6, 1..=60), (7, 1..=20)] {
        for seed in seeds {
            let layout = crate::gaps::generate::deal(seed, ranks, 4);
            let limit = Limit::positions(5_000_000);
            let small = on_board(&layout, Shortest { order: Order::Optimal, limit, shares: (64, 128) });
            let usual = solve(&layout, Order::Optimal, limit.positions);
            match (small, usual) {
                (Outcome::Solved { moves, optimal: true, .. }, Outcome::Solved { moves: usual, optimal: true, .. }) => {
                    assert_eq!(moves, usual, "4 x {ranks}, seed {seed}")
                }
                (Outcome::Unsolvable { .. }, Outcome::Unsolvable { .. }) => {}
                (small, usual) => panic!("4 x {ranks}, seed {seed}: {small:?} against {usual:?}"),
            }
        }
    }
}

/// The bound of a child worked out from its parent's scan and cards that may stay is the bound
/// of the child worked out afresh, after every legal move of positions of random play; the
/// parent's cells and scan are left as they were.
#[test]
fn a_childs_bound_from_its_parent_is_its_bound() {
    on_random_positions(|board, cells| {
        let (mut cells, mut moves) = (cells.to_vec(), Vec::new());
        let mut scan = Scan::of(board, &cells);
        let may_stay = board.may_stay(&cells);
        board.moves(&cells, &scan, &mut moves);
        for &(card, to) in &moves {
            let from = cell_of(&cells, card);
            let after = board.bound_after(&mut cells, &mut scan, &may_stay, (card, from, to));
            let mut child = cells.clone();
            board.play(&mut child, card, to);
            assert_eq!(after, board.bound(&child, &mut Scan::new()), "{card} into {to} at {cells:?}");
            assert_eq!(scan.holes(), Scan::of(board, &cells).holes(), "{cells:?}");
        }
    });
}
