//! The solver against what it does not share code with: every line it finds passes Gaps'
//! checker under the common variant, and its lengths and its "unsolvable" are the breadth-first
//! oracle's (which meets positions in order of distance, so its first win is a shortest one).

use super::solve::{misplaced, solve, Order, Outcome};
use crate::gaps::check::check;
use crate::gaps::generate::deal;
use crate::gaps::model::{move_integers, Variant};
use crate::gaps::oracle::{decide, Decision};

/// Plenty for a 4×6 deal (the breadth-first walk meets at most a few hundred thousand).
const CAP: usize = 5_000_000;

fn differential(width: u32, seeds: std::ops::Range<i64>) -> (usize, usize) {
    let (mut won, mut lost) = (0, 0);
    for seed in seeds {
        let layout = deal(seed, width, 4);
        let oracle = decide(&layout, Variant::Common, CAP);
        match (solve(&layout, Order::Optimal, CAP), oracle) {
            (Outcome::Solved { moves, optimal: true, .. }, Decision::Winnable(shortest)) => {
                assert!(check(&layout, Variant::Common, &move_integers(&moves)).is_solution(), "seed {seed}");
                assert_eq!(moves.len(), shortest.len(), "seed {seed}: not the oracle's length");
                assert!(
                    misplaced(&layout).is_some_and(|bound| bound as usize <= moves.len()),
                    "seed {seed}: the bound overestimates"
                );
                won += 1;
            }
            (Outcome::Unsolvable { .. }, Decision::Unwinnable { .. }) => lost += 1,
            (solver, oracle) => panic!("seed {seed}: the solver says {solver:?}, the oracle {oracle:?}"),
        }
    }
    (won, lost)
}

#[test]
fn shortest_wins_are_the_oracles_on_4x6_deals() {
    let (won, lost) = differential(6, 1..41);
    assert!(won > 20 && lost > 0, "{won} won, {lost} lost: the deals should hold both");
}

#[test]
fn weighted_search_finds_valid_wins_no_shorter_than_the_optimum() {
    for seed in 1..21 {
        let layout = deal(seed, 6, 4);
        let optimal = solve(&layout, Order::Optimal, CAP);
        let weighted = solve(&layout, Order::Weighted(1.8), CAP);
        match (optimal, weighted) {
            (Outcome::Solved { moves: best, .. }, Outcome::Solved { moves, optimal: false, .. }) => {
                assert!(check(&layout, Variant::Common, &move_integers(&moves)).is_solution(), "seed {seed}");
                assert!(moves.len() >= best.len(), "seed {seed}");
            }
            (Outcome::Unsolvable { .. }, Outcome::Unsolvable { .. }) => {}
            (optimal, weighted) => panic!("seed {seed}: {optimal:?} but weighted {weighted:?}"),
        }
    }
}

#[test]
fn a_won_deal_needs_no_move_and_the_cap_is_kept() {
    let won = crate::gaps::parse::parse_layout("w", "3 2\n1 2 3 0\n4 5 6 0\n").unwrap();
    assert_eq!(solve(&won, Order::Optimal, 10), Outcome::Solved { moves: vec![], optimal: true, positions: 1 });
    let layout = deal(7, 6, 4);
    assert!(matches!(solve(&layout, Order::Optimal, 3), Outcome::GaveUp { .. } | Outcome::Solved { .. }));
}

/// The deadlock test drops only positions nothing wins: along random games of 4×6 deals, every
/// position it calls dead the oracle proves unwinnable, and it finds dead ones.
#[test]
fn a_position_called_dead_is_one_the_oracle_cannot_win() {
    let mut rng = crate::rng::SplitMix64::new(45);
    let (mut dead, mut moves) = (0, Vec::new());
    for seed in 1..41 {
        let mut position = deal(seed, 6, 4);
        let mut place = position.places();
        for _ in 0..40 {
            if misplaced(&position).is_none() {
                assert!(matches!(decide(&position, Variant::Common, CAP), Decision::Unwinnable { .. }), "seed {seed}");
                dead += 1;
                break;
            }
            position.moves_into(Variant::Common, position.gaps(), &mut moves);
            if moves.is_empty() {
                break;
            }
            position.play(moves[rng.index(moves.len())], &mut place);
        }
    }
    assert!(dead >= 10, "only {dead} random games reached a position called dead");
}

mod referee {
    use crate::gaps::generate::generate;
    use crate::referee::{Instance, Judgement, Referee, SecondOpinion};
    use crate::superpuzz::referee::SuperpuzzReferee;

    /// A solve test's stored win is a shortest one, its optimum that length, the oracle agrees;
    /// a longer valid win is accepted and measured longer; a broken one is wrong.
    #[test]
    fn a_solve_test_stores_a_shortest_win_and_judges_any_valid_one() {
        let referee = SuperpuzzReferee::default();
        let text = generate(3, 6, 4);
        let deal = Instance { name: "deal", text: &text };
        let expected = referee.expected("solve", deal, None).unwrap();
        assert_eq!(expected.answer, "1");
        let optimum = referee.optimum("solve", deal).unwrap().expect("a win");
        let stored = expected.detail.split_whitespace().count() as u64 / 2;
        assert_eq!(optimum.best.value, stored);
        assert!(matches!(referee.second_opinion("solve", deal, &expected).unwrap(), SecondOpinion::Confirmed { .. }));
        let weighted = match super::solve(
            &crate::gaps::parse::parse_layout("d", &text).unwrap(),
            super::Order::Weighted(3.0),
            super::CAP,
        ) {
            super::Outcome::Solved { moves, .. } => crate::gaps::model::solution_line(&moves),
            other => panic!("{other:?}"),
        };
        let judge = |line: &str| referee.judge("solve", deal, None, &expected, format!("{line}\n").as_bytes()).unwrap();
        assert_eq!(judge(&weighted), Judgement::Accepted);
        let measured = referee.measure("solve", deal, weighted.as_bytes()).unwrap().value;
        assert!(measured >= stored);
        let broken: Vec<&str> = expected.detail.split_whitespace().collect();
        assert!(matches!(judge(&broken[..broken.len() - 2].join(" ")), Judgement::WrongAnswer { .. }));
        assert!(referee.expected("solve", Instance { name: "g", text: &generate(3, 13, 4) }, None).is_err());
    }
}
