//! Differential tests of the Gaps solver: against a naive brute force and against the second
//! oracle, on small decks, both variants.
//!
//! Input: the generator's deals of small decks (`R` 2 to 6, 2 to 4 for the common variant; `S`
//! 1 to 4; seeds from 1). Output:
//! assertions that [`bhref::gaps::solve::solve`], the breadth-first oracle
//! ([`bhref::gaps::oracle::decide`]) and a brute force agree on whether each deal can be won;
//! that every win any of them prints passes the checker; and that the solver's full search
//! ([`bhref::gaps::solve::explore`]) counts as many reachable positions as the brute force visits.
//!
//! The brute force shares no code with either: plain recursion over every legal move found by
//! trying every card against every gap with the checker's own legality test
//! ([`bhref::gaps::check::illegal`]), with a `HashSet` of the layouts met.
//!
//! `cargo test -p bhref --test reference gaps_differential` runs 3,000 deals per variant; set
//! `BHREF_GAPS_DIFF_CASES` for more.

use std::collections::HashSet;

use bhref::gaps::check::{check, illegal};
use bhref::gaps::generate::deal;
use bhref::gaps::model::{move_integers, Layout, Move, Variant, GAP};
use bhref::gaps::oracle::{decide, Decision};
use bhref::gaps::solve::{explore, solve, Budget, Outcome};

/// Every layout reachable from `layout` (into `seen`), and whether one is won: every card tried
/// against every gap with the checker's legality test, depth first on a stack of its own (a
/// common-variant path can be as long as there are positions).
fn brute_force(layout: &Layout, variant: Variant, seen: &mut HashSet<Vec<u32>>) -> bool {
    let mut won = false;
    let mut stack = vec![layout.clone()];
    while let Some(layout) = stack.pop() {
        if !seen.insert(layout.cells.clone()) {
            continue;
        }
        won |= layout.is_won(variant);
        let gaps: Vec<usize> = (0..layout.cells.len()).filter(|&p| layout.cells[p] == GAP).collect();
        for card in 1..=layout.deck.size() {
            for &to in &gaps {
                if illegal(&layout, variant, i64::from(card), to as i64).is_none() {
                    let mut next = layout.clone();
                    let mut place = next.places();
                    next.play(Move { card, to }, &mut place);
                    stack.push(next);
                }
            }
        }
    }
    won
}

fn cases() -> u64 {
    std::env::var("BHREF_GAPS_DIFF_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3000)
}

/// `max_ranks`: the common variant's spaces grow much faster with the deck.
fn differential(variant: Variant, max_ranks: u64) {
    let mut wins = 0;
    for seed in 1..=cases() {
        let ranks = 2 + (seed % (max_ranks - 1)) as u32;
        let suits = 1 + (seed / 5 % 4) as u32;
        let layout = deal(seed as i64, ranks, suits);
        let mut seen = HashSet::new();
        let brute = brute_force(&layout, variant, &mut seen);
        let solution = solve(&layout, variant, &Budget::default());
        let solver = match &solution.outcome {
            Outcome::Solved(moves) => {
                assert!(check(&layout, variant, &move_integers(moves)).is_solution(), "seed {seed}: {layout}");
                true
            }
            Outcome::Unsolvable => false,
            Outcome::GaveUp => panic!("seed {seed}: the solver gave up on a small deck"),
        };
        let oracle = match decide(&layout, variant, 10_000_000) {
            Decision::Winnable(moves) => {
                assert!(check(&layout, variant, &move_integers(&moves)).is_solution(), "seed {seed}: {layout}");
                true
            }
            Decision::Unwinnable { positions } => {
                assert_eq!(positions, seen.len(), "seed {seed}: positions met\n{layout}");
                false
            }
            Decision::TooLarge { .. } => panic!("seed {seed}: the oracle ran out on a small deck"),
        };
        assert_eq!(
            (solver, oracle),
            (brute, brute),
            "seed {seed} ({} variant): solver, oracle\n{layout}",
            variant.name()
        );
        let all = explore(&layout, variant, &Budget::default());
        assert!(all.complete, "seed {seed}");
        assert_eq!((all.positions as usize, all.winnable), (seen.len(), brute), "seed {seed}\n{layout}");
        wins += usize::from(brute);
    }
    // Both answers occur, so agreement is not agreement on one constant.
    assert!(wins > 0 && wins < cases() as usize, "{wins} wins");
}

#[test]
fn the_basic_solver_agrees_with_the_oracle_and_brute_force() {
    differential(Variant::Basic, 6);
}

#[test]
fn the_common_solver_agrees_with_the_oracle_and_brute_force() {
    differential(Variant::Common, 4);
}
