//! Differential test of the two oracles: the search solver and the SAT model agree.
//!
//! Input: deals from the course generator in several generalised shapes (smaller than the
//! standard deal, so that hundreds run in seconds; `bhref stats --sat` does standard deals),
//! both games of the 2021 practical. Output: assertions that [`solve`] and [`sat::decide`] give
//! the same verdict on every deal, that every SAT solution replays through the checker as
//! solved, and that both verdicts occur (the test would prove nothing on one-sided deals).
//!
//! The two share only the model, the parser and the checker: the SAT oracle has no search code.

use bhref::blackhole::check::{check_moves, Finding};
use bhref::blackhole::generate::deal;
use bhref::blackhole::model::Game;
use bhref::blackhole::sat::{self, Verdict};
use bhref::blackhole::solve::{solve, Budget, Outcome};

/// `(cards, ranks, suits, piles)` of the generated deals: half decks, short ranks, many suits,
/// tall and flat layouts; chosen so that each game has both verdicts many times.
const SHAPES: &[(u32, u32, u32, u32)] =
    &[(25, 13, 2, 8), (26, 13, 2, 13), (23, 6, 4, 7), (19, 4, 5, 5), (21, 13, 4, 10)];

/// Deals per shape and game.
const SEEDS: i64 = 60;

#[test]
fn search_and_sat_agree_on_every_deal() {
    let mut tally = [[0usize; 2]; 2];
    for game in [Game::BlackHole, Game::WormHole] {
        for &(cards, ranks, suits, piles) in SHAPES {
            for seed in 1..=SEEDS {
                let puzzle = deal(seed, cards, ranks, suits, piles);
                let call = format!("GEN {seed} {cards} {ranks} {suits} {piles} as {game}");
                let searched = solve(&puzzle, game, &Budget::default());
                let by_search = match searched.outcome {
                    Outcome::Solved(_) => true,
                    Outcome::Unsolvable => false,
                    Outcome::GaveUp => panic!("{call}: the search gave up"),
                };
                let answer = sat::decide(&puzzle, game, None).unwrap_or_else(|e| panic!("{call}: {e}"));
                let by_sat = match &answer.verdict {
                    Verdict::Solvable(moves) => {
                        assert_eq!(check_moves(&puzzle, game, moves).finding, Finding::Solved, "{call}");
                        true
                    }
                    Verdict::Unsolvable => false,
                    Verdict::GaveUp => panic!("{call}: the SAT oracle gave up without a limit"),
                };
                assert_eq!(by_search, by_sat, "{call}: search says {by_search}, SAT says {by_sat}");
                tally[usize::from(game == Game::WormHole)][usize::from(by_sat)] += 1;
            }
        }
    }
    eprintln!(
        "agreed: Black Hole {} unsolvable, {} solvable; Worm Hole {} unsolvable, {} solvable",
        tally[0][0], tally[0][1], tally[1][0], tally[1][1]
    );
    for (game, counts) in ["Black Hole", "Worm Hole"].iter().zip(tally) {
        assert!(counts[0] >= 10 && counts[1] >= 10, "{game}: too one-sided to test anything: {counts:?}");
    }
}
