//! Tests of the solver and of each prune against exhaustive search.
//!
//! Input: small random layouts (`R` in 1..=7, `S` in 1..=5, 1 to 9 piles, a random part of the
//! deck) and a few long and huge rows. Output: assertions that every state a prune calls dead is
//! dead by exhaustive search, that the two implementations of the tests agree, that the grace
//! children skipped for a split row are all dead, that [`solve`] agrees with exhaustive search,
//! and that budgets end a search with "gave up".

use std::collections::HashMap;
use std::time::Duration;

use super::board::{Board, State, Step};
use super::prune::{CountTests, Feasibility};
use super::*;
use crate::latebinding::model::{cards_match, play_in_row, Card, Deck};
use crate::rng::SplitMix64;

fn random_layout(seed: u64, max_piles: u32) -> Layout {
    let mut rng = SplitMix64::new(seed);
    let deck = Deck { ranks: 1 + rng.below(7), suits: 1 + rng.below(5) };
    let mut cards: Vec<Card> = (1..=deck.size()).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i as u32 + 1) as usize);
    }
    cards.truncate(1 + rng.below(max_piles.min(deck.size())) as usize);
    Layout { deck, row: cards }
}

/// Every move of a row of cards: `(from, to, grace)`, the grace moves only with `grace_left`.
fn moves(deck: Deck, row: &[Card], grace_left: bool) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    for from in 1..row.len() {
        for back in [1, 3] {
            if from >= back && cards_match(deck, row[from], row[from - back]) {
                out.push((from, from - back, false));
            }
        }
        if grace_left && !out.iter().any(|&(f, t, _)| f == from && t == 0) {
            out.push((from, 0, true));
        }
    }
    out
}

/// Exhaustive search over rows of card values, memoised on the raw state: no prune at all.
struct Exhaustive {
    deck: Deck,
    known: HashMap<(Vec<Card>, bool), bool>,
}

impl Exhaustive {
    fn new(deck: Deck) -> Self {
        Exhaustive { deck, known: HashMap::new() }
    }

    fn winnable(&mut self, row: &[Card], grace_left: bool) -> bool {
        if row.len() <= 1 {
            return true;
        }
        if let Some(&known) = self.known.get(&(row.to_vec(), grace_left)) {
            return known;
        }
        let result = moves(self.deck, row, grace_left).into_iter().any(|(from, to, grace)| {
            let mut next = row.to_vec();
            play_in_row(&mut next, from, to);
            self.winnable(&next, grace_left && !grace)
        });
        self.known.insert((row.to_vec(), grace_left), result);
        result
    }
}

/// The board's row of original positions for a row of card values.
fn piles(board: &Board, row: &[Card]) -> Vec<u32> {
    row.iter().map(|card| board.cards.iter().position(|c| c == card).expect("a card of the layout") as u32).collect()
}

/// Runs `check` on every state reachable from each random layout, in both games.
fn for_every_state(layouts: u64, mut check: impl FnMut(&Board, &mut Exhaustive, &[Card], bool)) {
    for seed in 0..layouts {
        let layout = random_layout(seed, 8);
        for variant in [Variant::Plain, Variant::Grace] {
            let board = Board::new(&layout, variant);
            let mut exhaustive = Exhaustive::new(layout.deck);
            exhaustive.winnable(&layout.row, variant == Variant::Grace);
            let states: Vec<(Vec<Card>, bool)> = exhaustive.known.keys().cloned().collect();
            for (row, grace_left) in states {
                check(&board, &mut exhaustive, &row, grace_left);
            }
        }
    }
}

#[test]
fn every_state_the_tests_call_dead_is_dead() {
    let (mut dead, mut caught) = (0, 0);
    for_every_state(1500, |board, exhaustive, row, grace_left| {
        let mut tests = Feasibility::new(board);
        let winnable = exhaustive.winnable(row, grace_left);
        if !tests.feasible(board, &piles(board, row), grace_left) {
            assert!(!winnable, "{row:?} grace {grace_left} is winnable but failed a test");
            caught += 1;
        }
        dead += usize::from(!winnable);
    });
    // The tests must do real work, or this proves little.
    assert!(caught * 3 > dead, "the tests caught only {caught} of {dead} dead states");
}

#[test]
fn mask_and_count_tests_agree() {
    for_every_state(600, |board, _, row, grace_left| {
        let row = piles(board, row);
        let mut masks = Feasibility::new(board);
        assert!(matches!(masks, Feasibility::Masks(_)));
        let mut counts = Feasibility::Counts(CountTests::new(board));
        assert_eq!(masks.feasible(board, &row, grace_left), counts.feasible(board, &row, grace_left), "{row:?}");
        for pile in &row {
            assert_eq!(masks.degree(board, *pile), counts.degree(board, *pile));
        }
        if row.len() > 1 {
            assert_eq!(masks.connected_without_front(board, &row), counts.connected_without_front(board, &row));
        }
    });
}

#[test]
fn children_are_tested_as_if_made() {
    for_every_state(600, |board, exhaustive, row, grace_left| {
        let mut row = piles(board, row);
        for (from, to, grace) in moves(exhaustive.deck, &board_cards(board, &row), grace_left) {
            let step = Step { from: from as u32, to: to as u32, grace };
            let mut child = row.clone();
            child[to] = child[from];
            child.remove(from);
            for mut tests in [Feasibility::new(board), Feasibility::Counts(CountTests::new(board))] {
                tests.load(board, &row);
                let expected = tests.clone().feasible(board, &child, grace_left && !grace);
                assert_eq!(
                    tests.feasible_child(board, &mut row, step, grace_left && !grace),
                    expected,
                    "{row:?} {step:?}"
                );
            }
        }
    });
}

fn board_cards(board: &Board, row: &[u32]) -> Vec<Card> {
    row.iter().map(|&pile| board.cards[pile as usize]).collect()
}

#[test]
fn no_grace_child_of_a_split_row_is_winnable() {
    let mut skipped = 0;
    for_every_state(1500, |board, exhaustive, row, grace_left| {
        let mut tests = Feasibility::new(board);
        if !grace_left || row.len() < 2 || tests.connected_without_front(board, &piles(board, row)) {
            return;
        }
        skipped += 1;
        for (from, to, grace) in moves(board_deck(board, exhaustive), row, true) {
            if grace {
                let mut next = row.to_vec();
                play_in_row(&mut next, from, to);
                assert!(!exhaustive.winnable(&next, false), "grace child of {row:?} is winnable");
            }
        }
    });
    assert!(skipped > 100, "only {skipped} split rows");
}

fn board_deck(_board: &Board, exhaustive: &Exhaustive) -> Deck {
    exhaustive.deck
}

#[test]
fn solve_agrees_with_exhaustive_search() {
    let mut answers = [[0; 2]; 2];
    for seed in 10_000..13_000 {
        let layout = random_layout(seed, 9);
        for (g, variant) in [Variant::Plain, Variant::Grace].into_iter().enumerate() {
            let expected = Exhaustive::new(layout.deck).winnable(&layout.row, variant == Variant::Grace);
            let solution = solve(&layout, variant, &Budget::default());
            match solution.outcome {
                Outcome::Solved(moves) => {
                    assert!(expected, "seed {seed} {variant}: solved an unwinnable layout");
                    assert!(check_moves(&layout, variant, &moves).is_solution());
                }
                Outcome::Unsolvable => assert!(!expected, "seed {seed} {variant}: missed a win\n{layout}"),
                Outcome::GaveUp => panic!("seed {seed} {variant}: gave up"),
            }
            answers[g][usize::from(expected)] += 1;
        }
    }
    assert!(answers.iter().flatten().all(|&n| n > 250), "unbalanced sample: {answers:?}");
}

#[test]
fn budgets_end_the_search_with_gave_up() {
    let layout = crate::latebinding::generate::deal(34, 24, 10, 6);
    let one_node = Budget { max_nodes: 1, ..Budget::default() };
    assert_eq!(solve(&layout, Variant::Plain, &one_node).outcome, Outcome::GaveUp);
    let no_time = Budget { time: Some(Duration::ZERO), ..Budget::default() };
    // The clock is read by work done, so a zero deadline ends the search within a few nodes.
    let solution = solve(&layout, Variant::Grace, &no_time);
    assert_eq!(solution.outcome, Outcome::GaveUp);
    assert!(solution.stats.nodes < 5000, "{} nodes", solution.stats.nodes);
    let no_memory = Budget { memo_bytes: 0, ..Budget::default() };
    assert_eq!(solve(&layout, Variant::Plain, &no_memory).outcome, Outcome::GaveUp);
}

#[test]
fn long_rows_take_the_count_tests_and_stay_right() {
    // One rank: every card matches every other, so any 1-move sequence wins.
    let all_match = Layout { deck: Deck { ranks: 1, suits: 100 }, row: (1..=90).rev().collect() };
    let solution = solve(&all_match, Variant::Plain, &Budget::default());
    let Outcome::Solved(moves) = solution.outcome else { panic!("{:?}", solution.outcome) };
    assert_eq!(moves.len(), 89);
    // Card 101 (rank 0, suit 2) matches nothing else in the row (suits 0 and 1, ranks 1 to
    // 49): it can never be covered nor move, so with other cards left there is no win.
    let deck = Deck { ranks: 50, suits: 3 };
    let mut row: Vec<Card> = (2..=50).collect();
    row.push(101);
    row.extend(52..=80);
    let lonely = Layout { deck, row };
    assert_eq!(solve(&lonely, Variant::Plain, &Budget::default()).outcome, Outcome::Unsolvable);
}

#[test]
fn huge_rows_stop_at_their_deadline_and_memory_bound() {
    let budget = Budget { time: Some(Duration::from_millis(200)), ..Budget::default() };
    // A sparse deck (few children, each tested in O(P)), and one rank of 300,000 suits (every
    // card matches every other: some 600,000 children, too many keys of some 50,000 words).
    for layout in [
        crate::latebinding::generate::deal(5, 200_000, 1000, 1000),
        Layout { deck: Deck { ranks: 1, suits: 300_000 }, row: (1..=300_000).collect() },
    ] {
        for variant in [Variant::Plain, Variant::Grace] {
            let started = std::time::Instant::now();
            let solution = solve(&layout, variant, &budget);
            assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
            assert!(matches!(solution.outcome, Outcome::GaveUp | Outcome::Unsolvable), "{:?}", solution.stats);
        }
    }
}

#[test]
fn restarts_rescue_a_bad_first_order_and_keep_the_answers() {
    // `GEN 761 24 13 4`: the heuristic order alone needs about 1.2 million nodes to solve it.
    let layout = crate::latebinding::generate::deal(761, 24, 13, 4);
    let solution = solve(&layout, Variant::Plain, &Budget::default());
    assert!(matches!(solution.outcome, Outcome::Solved(_)), "{:?}", solution.outcome);
    assert!(solution.stats.nodes < 300_000, "{} nodes", solution.stats.nodes);
    // `GEN 34 24 10 6` has no solution: every run ends undecided until the unlimited one.
    let layout = crate::latebinding::generate::deal(34, 24, 10, 6);
    assert_eq!(solve(&layout, Variant::Plain, &Budget::default()).outcome, Outcome::Unsolvable);
}

#[test]
fn one_pile_is_won_and_no_pile_never_is() {
    let one = Layout { deck: Deck { ranks: 13, suits: 4 }, row: vec![7] };
    let none = Layout { deck: Deck { ranks: 13, suits: 4 }, row: vec![] };
    for variant in [Variant::Plain, Variant::Grace] {
        assert_eq!(solve(&one, variant, &Budget::default()).outcome, Outcome::Solved(vec![]));
        assert_eq!(solve(&none, variant, &Budget::default()).outcome, Outcome::Unsolvable);
    }
}

#[test]
fn witnesses_name_cards_and_destinations() {
    let layout = Layout { deck: Deck { ranks: 3, suits: 2 }, row: vec![1, 4, 2, 5] };
    let board = Board::new(&layout, Variant::Plain);
    let steps = [Step { from: 1, to: 0, grace: false }, Step { from: 2, to: 1, grace: false }];
    assert_eq!(witness(&layout, Variant::Plain, &steps), [Move { card: 4, to: 0 }, Move { card: 5, to: 1 }]);
    assert_eq!(State::start(&board).row, [0, 1, 2, 3]);
}
