//! Differential test of the Late Binding solver against a deliberately naive brute force.
//!
//! Input: small random layouts (`R` in 1..=7, `S` in 1..=6, 1 to 10 piles drawn from the deck),
//! both games. Output: assertions that [`bhref::latebinding::solve::solve`] and the brute force
//! agree on solvability, and that every witness (the solver's and the brute force's) replays
//! through the checker as a solution.
//!
//! The brute force shares no code with the solver: plain recursion over every legal move, no
//! memo, no pruning, its own matching and move rules restated from `late-binding.md`; only the
//! model's types and the checker are reused.
//!
//! `cargo test -p bhref --test lbs_differential` runs 50,000 layouts per game (about 3 s); set
//! `BHREF_LBS_DIFF_CASES=100000` for the long version.

use bhref::latebinding::check::check_moves;
use bhref::latebinding::model::{Card, Deck, Layout, Move, Variant};
use bhref::latebinding::solve::{solve, Budget, Outcome};
use bhref::rng::SplitMix64;

fn random_layout(seed: u64) -> Layout {
    let mut rng = SplitMix64::new(seed);
    let deck = Deck { ranks: 1 + rng.below(7), suits: 1 + rng.below(6) };
    let mut cards: Vec<Card> = (1..=deck.size()).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i as u32 + 1) as usize);
    }
    cards.truncate(1 + rng.below(deck.size().min(10)) as usize);
    Layout { deck, row: cards }
}

/// The naive solver: every legal move in turn, depth first, the first win it meets.
struct BruteForce {
    ranks: u32,
    row: Vec<Card>,
    grace_allowed: bool,
    grace_used: bool,
    moves: Vec<Move>,
}

impl BruteForce {
    fn solve(layout: &Layout, variant: Variant) -> Option<Vec<Move>> {
        let mut brute = BruteForce {
            ranks: layout.deck.ranks,
            row: layout.row.clone(),
            grace_allowed: variant == Variant::Grace,
            grace_used: false,
            moves: Vec::new(),
        };
        brute.search().then_some(brute.moves)
    }

    /// Same rank or same suit, from `rank = (c-1) mod R`, `suit = (c-1) div R`.
    fn matching(&self, a: Card, b: Card) -> bool {
        (a - 1) % self.ranks == (b - 1) % self.ranks || (a - 1) / self.ranks == (b - 1) / self.ranks
    }

    fn search(&mut self) -> bool {
        if self.row.len() == 1 {
            return true;
        }
        for i in 1..self.row.len() {
            for d in 0..i {
                let legal = (i - d == 1 || i - d == 3) && self.matching(self.row[i], self.row[d]);
                let grace = !legal && d == 0 && self.grace_allowed && !self.grace_used;
                if !(legal || grace) {
                    continue;
                }
                let saved = self.row.clone();
                let card = self.row.remove(i);
                self.row[d] = card;
                self.grace_used |= grace;
                self.moves.push(Move { card, to: d });
                if self.search() {
                    return true;
                }
                self.moves.pop();
                if grace {
                    self.grace_used = false;
                }
                self.row = saved;
            }
        }
        false
    }
}

/// Runs `cases` layouts from seed `first` in both games; returns (solvable, unsolvable) counts.
fn differential(first: u64, cases: u64) -> [(u64, u64); 2] {
    let mut tally = [(0, 0); 2];
    for seed in first..first + cases {
        let layout = random_layout(seed);
        for (g, variant) in [Variant::Plain, Variant::Grace].into_iter().enumerate() {
            let expected = BruteForce::solve(&layout, variant);
            if let Some(moves) = &expected {
                let report = check_moves(&layout, variant, moves);
                assert!(report.is_solution(), "brute force witness, seed {seed}, {variant}: {}", report.finding);
            }
            let solution = solve(&layout, variant, &Budget::default());
            match (&solution.outcome, &expected) {
                (Outcome::Solved(moves), Some(_)) => {
                    let report = check_moves(&layout, variant, moves);
                    assert!(report.is_solution(), "solver witness, seed {seed}, {variant}: {}", report.finding);
                    tally[g].0 += 1;
                }
                (Outcome::Unsolvable, None) => tally[g].1 += 1,
                (outcome, _) => panic!(
                    "seed {seed}, {variant}: solver says {outcome:?}, brute force says {}\n{layout}",
                    if expected.is_some() { "solvable" } else { "unsolvable" }
                ),
            }
        }
    }
    tally
}

fn cases_from_env(default: u64) -> u64 {
    std::env::var("BHREF_LBS_DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn solver_agrees_with_brute_force() {
    let cases = cases_from_env(50_000);
    let tally = differential(1, cases);
    // The sample must hold both answers in both games, or it proves little.
    for (solvable, unsolvable) in tally {
        assert!(solvable > cases / 20 && unsolvable > cases / 20, "unbalanced sample: {tally:?}");
    }
}

#[test]
fn generated_layouts_cover_the_cases() {
    let layouts: Vec<Layout> = (1..=2000).map(random_layout).collect();
    assert!(layouts.iter().any(|l| l.row.len() == 1));
    assert!(layouts.iter().any(|l| l.row.len() == 10));
    assert!(layouts.iter().any(|l| l.deck.ranks == 1));
    assert!(layouts.iter().any(|l| l.deck.suits == 1));
    assert!(layouts.iter().any(|l| (l.row.len() as u32) < l.deck.size()));
    assert!(layouts.iter().any(|l| l.row.len() as u32 == l.deck.size() && l.row.len() > 3));
}
