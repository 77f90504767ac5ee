//! Differential test of the solver and the SAT oracle against a deliberately naive brute force.
//!
//! Input: small random generalised puzzles (`R` in 1..=5, `S` in 1..=4, 0..=5 uneven or empty
//! piles, a random hole card, a random part of the deck), both games. Output: assertions that
//! [`bhref::blackhole::solve::solve`], [`bhref::blackhole::sat::decide`] and the brute force agree
//! on solvability, and that every witness (the solver's, the SAT oracle's and the brute force's)
//! replays through the checker as solved.
//!
//! The brute force shares no code with the solver: plain recursion over every legal move, no
//! memo, no pruning, its own move rules; only [`Deck::adjacent`] and the checker are reused.
//!
//! `cargo test -p bhref --test differential` runs 3,000 puzzles per game; set
//! `BHREF_DIFF_CASES=100000` for the long version.

use bhref::blackhole::check::{check_moves, Finding};
use bhref::blackhole::model::{Card, Deck, Game, Move, Puzzle};
use bhref::blackhole::sat::{self, Verdict};
use bhref::blackhole::solve::{solve, Budget, Outcome};
use bhref::rng::SplitMix64;

/// Cards dealt at most: keeps the memo-less brute force fast on unsolvable deals.
const MAX_DEALT: u32 = 11;

/// A random generalised puzzle from `seed`.
fn random_puzzle(seed: u64) -> Puzzle {
    let mut rng = SplitMix64::new(seed);
    let deck = Deck { ranks: 1 + rng.below(5), suits: 1 + rng.below(4) };
    let mut cards: Vec<Card> = (1..=deck.size()).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let hole = cards.pop().expect("every deck has a card");
    let piles = rng.below(6) as usize;
    let dealt = if piles == 0 { 0 } else { rng.below(cards.len().min(MAX_DEALT as usize) as u32 + 1) as usize };
    let mut layout = vec![Vec::new(); piles];
    for &card in &cards[..dealt] {
        layout[rng.below(piles as u32) as usize].push(card);
    }
    Puzzle { deck, hole, piles: layout }
}

/// The naive solver: tries every legal move in turn, depth first, and returns the first win.
struct BruteForce {
    deck: Deck,
    game: Game,
    piles: Vec<Vec<Card>>,
    hole: Card,
    worm: Option<Card>,
    moves: Vec<Move>,
}

impl BruteForce {
    fn solve(puzzle: &Puzzle, game: Game) -> Option<Vec<Move>> {
        let mut brute = BruteForce {
            deck: puzzle.deck,
            game,
            piles: puzzle.piles.clone(),
            hole: puzzle.hole,
            worm: None,
            moves: vec![],
        };
        brute.search().then_some(brute.moves)
    }

    fn search(&mut self) -> bool {
        if self.worm.is_none() && self.piles.iter().all(Vec::is_empty) {
            return true;
        }
        for pile in 0..self.piles.len() {
            let Some(&card) = self.piles[pile].last() else { continue };
            if self.deck.adjacent(card, self.hole) {
                self.piles[pile].pop();
                let hole = std::mem::replace(&mut self.hole, card);
                self.moves.push(Move::Play { pile, card });
                if self.search() {
                    return true;
                }
                self.moves.pop();
                self.hole = hole;
                self.piles[pile].push(card);
            }
            if self.game == Game::WormHole && self.worm.is_none() {
                self.piles[pile].pop();
                self.worm = Some(card);
                self.moves.push(Move::ToWorm { pile, card });
                if self.search() {
                    return true;
                }
                self.moves.pop();
                self.worm = None;
                self.piles[pile].push(card);
            }
        }
        if let Some(card) = self.worm.filter(|&card| self.deck.adjacent(card, self.hole)) {
            self.worm = None;
            let hole = std::mem::replace(&mut self.hole, card);
            self.moves.push(Move::FromWorm { card });
            if self.search() {
                return true;
            }
            self.moves.pop();
            self.hole = hole;
            self.worm = Some(card);
        }
        false
    }
}

/// Runs `cases` puzzles per game from seed `first`, returning (solvable, unsolvable) counts.
fn differential(first: u64, cases: u64) -> [(u64, u64); 2] {
    let mut tally = [(0, 0); 2];
    for seed in first..first + cases {
        let puzzle = random_puzzle(seed);
        for (g, game) in [Game::BlackHole, Game::WormHole].into_iter().enumerate() {
            let expected = BruteForce::solve(&puzzle, game);
            if let Some(moves) = &expected {
                let report = check_moves(&puzzle, game, moves);
                assert_eq!(report.finding, Finding::Solved, "brute force witness, seed {seed}, {game}\n{puzzle}");
            }
            let solution = solve(&puzzle, game, &Budget::default());
            match (&solution.outcome, &expected) {
                (Outcome::Solved(moves), Some(_)) => {
                    let report = check_moves(&puzzle, game, moves);
                    assert_eq!(report.finding, Finding::Solved, "solver witness, seed {seed}, {game}\n{puzzle}");
                    tally[g].0 += 1;
                }
                (Outcome::Unsolvable, None) => tally[g].1 += 1,
                (outcome, _) => panic!(
                    "seed {seed}, {game}: solver says {outcome:?}, brute force says {}\n{puzzle}",
                    if expected.is_some() { "solvable" } else { "unsolvable" }
                ),
            }
            let oracle =
                sat::decide(&puzzle, game, None).unwrap_or_else(|e| panic!("seed {seed}, {game}: {e}\n{puzzle}"));
            match (&oracle.verdict, &expected) {
                (Verdict::Solvable(moves), Some(_)) => {
                    let report = check_moves(&puzzle, game, moves);
                    assert_eq!(report.finding, Finding::Solved, "SAT witness, seed {seed}, {game}\n{puzzle}");
                }
                (Verdict::Unsolvable, None) => {}
                (verdict @ (Verdict::Solvable(_) | Verdict::Unsolvable | Verdict::GaveUp), _) => panic!(
                    "seed {seed}, {game}: the SAT oracle says {verdict:?}, brute force says {}\n{puzzle}",
                    if expected.is_some() { "solvable" } else { "unsolvable" }
                ),
            }
        }
    }
    tally
}

fn cases_from_env(default: u64) -> u64 {
    std::env::var("BHREF_DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn solver_agrees_with_brute_force() {
    let cases = cases_from_env(3000);
    let tally = differential(1, cases);
    // The sample must exercise both answers in both games, or it proves little.
    for (solvable, unsolvable) in tally {
        assert!(solvable > cases / 20 && unsolvable > cases / 20, "unbalanced sample: {tally:?}");
    }
}

#[test]
fn generated_puzzles_cover_the_generalisations() {
    let puzzles: Vec<Puzzle> = (1..=2000).map(random_puzzle).collect();
    assert!(puzzles.iter().any(|p| p.deck.ranks == 1));
    assert!(puzzles.iter().any(|p| p.deck.ranks == 2));
    assert!(puzzles.iter().any(|p| p.piles.is_empty()));
    assert!(puzzles.iter().any(|p| p.piles.iter().any(Vec::is_empty) && p.cards_in_piles() > 0));
    assert!(puzzles.iter().any(|p| p.cards_in_piles() + 1 < p.deck.size() as usize));
    assert!(puzzles.iter().any(|p| p.hole != 1));
    assert!(puzzles.iter().any(|p| p.piles.iter().map(Vec::len).max() != p.piles.iter().map(Vec::len).min()));
}
