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
//! The fewest moves the referee proves for suites that credit quality (the oracle's
//! breadth-first line) are held against an iterative deepening over the same legality test: the
//! least depth at which a won layout is met.
//!
//! Full standard decks of the common variant, where the solver is the common variant's engine,
//! are held to the checker and, for "no win", to the oracle.
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

/// Full decks of the common variant (4 suits of 13 ranks), which the solver hands to the
/// common variant's engine: standard deals it decides within a small budget, each win replayed
/// by the checker and each "no win" confirmed by the breadth-first oracle, which fits these.
#[test]
fn full_decks_of_the_common_variant_are_decided_and_each_no_win_confirmed() {
    let budget = Budget { max_nodes: 1_000_000, ..Budget::default() };
    let (mut won, mut unwinnable) = (0, 0);
    for seed in [59, 65, 73, 81, 82] {
        let layout = deal(seed, 13, 4);
        match solve(&layout, Variant::Common, &budget).outcome {
            Outcome::Solved(moves) => {
                assert!(check(&layout, Variant::Common, &move_integers(&moves)).is_solution(), "GEN {seed}");
                won += 1;
            }
            Outcome::Unsolvable => {
                let decision = decide(&layout, Variant::Common, 2_000_000);
                assert!(matches!(decision, Decision::Unwinnable { .. }), "GEN {seed}: {decision:?}");
                unwinnable += 1;
            }
            Outcome::GaveUp => panic!("GEN {seed} 13 4 undecided within {} positions", budget.max_nodes),
        }
    }
    // Both answers occur, so the test holds the engine to both.
    assert!(won > 0 && unwinnable > 0, "{won} won, {unwinnable} unwinnable");
}

/// The legal moves of `layout`, each as the layout it leads to: every card against every gap
/// with the checker's legality test (as [`brute_force`] finds them).
fn successors(layout: &Layout, variant: Variant) -> Vec<Layout> {
    let gaps: Vec<usize> = (0..layout.cells.len()).filter(|&p| layout.cells[p] == GAP).collect();
    let mut next_layouts = Vec::new();
    for card in 1..=layout.deck.size() {
        for &to in &gaps {
            if illegal(layout, variant, i64::from(card), to as i64).is_none() {
                let mut next = layout.clone();
                let mut place = next.places();
                next.play(Move { card, to }, &mut place);
                next_layouts.push(next);
            }
        }
    }
    next_layouts
}

/// Whether a won layout is within `depth` moves of `layout`; `explored` holds, per layout, the
/// most moves already searched from it without a win (so a layout is searched again only with
/// more moves to spend).
fn wins_within(
    layout: &Layout,
    variant: Variant,
    depth: usize,
    explored: &mut std::collections::HashMap<Vec<u32>, usize>,
) -> bool {
    if layout.is_won(variant) {
        return true;
    }
    if depth == 0 || explored.get(&layout.cells).is_some_and(|&done| done >= depth) {
        return false;
    }
    let found = successors(layout, variant).iter().any(|next| wins_within(next, variant, depth - 1, explored));
    if !found {
        explored.insert(layout.cells.clone(), depth);
    }
    found
}

/// The fewest moves that win `layout`, by iterative deepening, or `None` past `limit`.
fn fewest_moves(layout: &Layout, variant: Variant, limit: usize) -> Option<usize> {
    (0..=limit).find(|&depth| wins_within(layout, variant, depth, &mut std::collections::HashMap::new()))
}

/// The optimum a quality-crediting suite stores is the least depth of a win: the referee's
/// breadth-first line is never longer than an iterative deepening's first win (nor shorter:
/// it checks), and the depth-first solver's line is never shorter than it.
#[test]
fn the_proved_fewest_moves_are_the_least_depth_of_a_win() {
    use bhref::referee::{Instance, Referee};
    let referee = bhref::gaps::referee::GapsReferee::default();
    let mut longer = 0;
    let mut won = 0;
    for seed in 1..=cases() / 10 {
        let (ranks, suits) = (2 + (seed % 4) as u32, 1 + (seed / 5 % 3) as u32);
        let layout = deal(seed as i64, ranks, suits);
        let text = layout.to_string();
        let optimum = referee.optimum("solve", Instance { name: "deal", text: &text }).unwrap();
        let fewest = fewest_moves(&layout, Variant::Basic, 60);
        assert_eq!(optimum.as_ref().map(|o| o.best.value as usize), fewest, "seed {seed}\n{layout}");
        let Some(fewest) = fewest else { continue };
        won += 1;
        if let Outcome::Solved(moves) = solve(&layout, Variant::Basic, &Budget::default()).outcome {
            assert!(moves.len() >= fewest, "seed {seed}: the solver won in {} < {fewest}", moves.len());
            longer += usize::from(moves.len() > fewest);
        }
    }
    // Deals where the depth-first line is longer exist, so the optimum is not the solver's.
    assert!(won > 0 && longer > 0, "{won} won, {longer} longer");
}
