//! The SAT model of Black Hole and Worm Hole (the paper's section 6, generalised to any deck,
//! hole card and piles), and the reading of a model back into moves.
//!
//! Input: a [`Puzzle`] and a [`Game`]. Output: an [`Encoding`]: the [`Cnf`] and the variables
//! [`Encoding::moves`] reads a satisfying assignment through.
//!
//! Positions are the black hole's plays `1..=N`, `N` the cards in piles. For every card `i`:
//! - `played[i][t]`: card `i` is the `t`-th card played onto the black hole. Each card is played
//!   at exactly one position and each position holds exactly one card (the paper's matrix);
//! - `by[i][t]`: card `i` is played at a position `≤ t` (the paper's ladder: a row of trues, then
//!   falses; its first true is where the card is played);
//! - `rank_at[r][t]`: the card at position `t` has rank `r`; the first rank is adjacent to the
//!   hole card's, and each is followed by one a rank above or below it, wrapping;
//! - a card is played only after the card directly above it in its pile has left the pile (by
//!   induction, after every card above it).
//!
//! Worm Hole adds, for every card, `enters[i][t]` (card `i` is moved into the worm hole just
//! before play `t`) and its ladder `entered[i][t]`: a card enters at most once, only while it is
//! still unplayed and uncovered, and leaves the worm hole only by being played; at most one card
//! is in the worm hole between any two plays. A card that entered the worm hole is played from
//! it; the card below it is uncovered from the moment it entered.
//!
//! No symmetry breaking: a rule that lets a card enter the worm hole only just before the card
//! below it is played (sound, and the paper's third ladder's purpose) made the slowest deal
//! measured slower (GEN 123 51 13 4 8 in Worm Hole, CaDiCaL: 31 s without, 35 s with), and so
//! did defining the worm hole's occupancy both ways (55 s), so the model stays the plainer one,
//! with less to trust.

use super::cnf::{Cnf, Lit};
use crate::blackhole::model::{Card, Game, Move, Puzzle};

/// Where a card lies at the start.
#[derive(Clone, Copy, Debug)]
struct Place {
    pile: usize,
    card: Card,
    /// The index of the card directly above it, if any.
    above: Option<usize>,
    /// How many cards lie above it.
    depth: usize,
}

/// The worm hole's variables.
#[derive(Clone, Debug)]
struct Worm {
    /// `enters[i][t - 1]`: card `i` enters the worm hole just before play `t`.
    enters: Vec<Vec<Lit>>,
    /// `entered[i][t - 1]`: card `i` entered the worm hole before play `t` or at its gap.
    entered: Vec<Vec<Lit>>,
}

/// The formula for one puzzle and game, and how to read moves back from a model of it.
#[derive(Clone, Debug)]
pub struct Encoding {
    pub cnf: Cnf,
    places: Vec<Place>,
    /// `played[i][t - 1]`.
    played: Vec<Vec<Lit>>,
    worm: Option<Worm>,
}

impl Encoding {
    /// Builds the model of `puzzle` played as `game`.
    pub fn new(puzzle: &Puzzle, game: Game) -> Encoding {
        let places = places(puzzle);
        let n = places.len();
        let mut cnf = Cnf::default();
        let played: Vec<Vec<Lit>> = (0..n).map(|_| cnf.variables(n)).collect();
        let by: Vec<Vec<Lit>> = (0..n).map(|_| cnf.variables(n)).collect();
        for i in 0..n {
            ladder(&mut cnf, &played[i], &by[i]);
            cnf.clause([by[i][n - 1]]);
        }
        for t in 0..n {
            cnf.exactly_one(&column(&played, t));
        }
        adjacency(&mut cnf, puzzle, &places, &played);
        let worm = match game {
            Game::BlackHole => {
                for (i, place) in places.iter().enumerate() {
                    let Some(above) = place.above else { continue };
                    // Played at t: the card above was played before t.
                    cnf.clause([-played[i][0]]);
                    for t in 1..n {
                        cnf.implies(played[i][t], [by[above][t - 1]]);
                    }
                    for &early in &played[i][..place.depth.min(n)] {
                        cnf.clause([-early]);
                    }
                }
                None
            }
            Game::WormHole => Some(worm_hole(&mut cnf, &places, &played, &by)),
        };
        Encoding { cnf, places, played, worm }
    }

    /// The moves a satisfying assignment spells, `value(v)` giving variable `v`'s value.
    pub fn moves(&self, value: impl Fn(Lit) -> bool) -> Vec<Move> {
        let n = self.places.len();
        let mut moves = Vec::with_capacity(2 * n);
        for t in 0..n {
            if let Some(worm) = &self.worm {
                if let Some(i) = (0..n).find(|&i| value(worm.enters[i][t])) {
                    moves.push(Move::ToWorm { pile: self.places[i].pile, card: self.places[i].card });
                }
            }
            let Some(i) = (0..n).find(|&i| value(self.played[i][t])) else { continue };
            let Place { pile, card, .. } = self.places[i];
            let from_worm = self.worm.as_ref().is_some_and(|worm| value(worm.entered[i][t]));
            moves.push(if from_worm { Move::FromWorm { card } } else { Move::Play { pile, card } });
        }
        moves
    }
}

/// Every card in the piles with its pile, the card above it and its depth.
fn places(puzzle: &Puzzle) -> Vec<Place> {
    let mut places = Vec::with_capacity(puzzle.cards_in_piles());
    for (pile, cards) in puzzle.piles.iter().enumerate() {
        let first = places.len();
        for (k, &card) in cards.iter().enumerate() {
            let above = (k + 1 < cards.len()).then_some(first + k + 1);
            places.push(Place { pile, card, above, depth: cards.len() - 1 - k });
        }
    }
    places
}

/// Column `t` of a cards × positions matrix: every card's variable for position `t`.
fn column(matrix: &[Vec<Lit>], t: usize) -> Vec<Lit> {
    matrix.iter().map(|row| row[t]).collect()
}

/// `by[t]` holds exactly when some `at[s]`, `s ≤ t`, does; at most one `at` holds.
fn ladder(cnf: &mut Cnf, at: &[Lit], by: &[Lit]) {
    for t in 0..at.len() {
        cnf.implies(at[t], [by[t]]);
        if t == 0 {
            cnf.implies(by[0], [at[0]]);
        } else {
            cnf.implies(by[t - 1], [by[t]]);
            cnf.implies(by[t], [by[t - 1], at[t]]);
            cnf.implies(at[t], [-by[t - 1]]);
        }
    }
}

/// The rank sequence: `rank_at[r][t]` holds when the card at position `t` has rank `r`; each
/// position has exactly one rank (of those dealt); the first is adjacent to the hole card's
/// rank, and each is adjacent to the next, both ways.
///
/// Adjacency is stated between ranks, not cards: the same rules, but what the solver learns
/// ("no rank 5 at position 20") covers every card of the rank at once. Measured on the bundled
/// suite's hardest unsolvable deals (CaDiCaL): GEN 123 51 13 4 8 in Worm Hole 28 s with card
/// adjacency, 15 s with rank adjacency; GEN 2488 in Black Hole 1.1 s and 0.5 s.
fn adjacency(cnf: &mut Cnf, puzzle: &Puzzle, places: &[Place], played: &[Vec<Lit>]) {
    let n = places.len();
    let deck = puzzle.deck;
    let ranks = deck.ranks as usize;
    let rank_of = |i: usize| deck.rank(places[i].card) as usize;
    let dealt: Vec<usize> = (0..ranks).filter(|&r| (0..n).any(|i| rank_of(i) == r)).collect();
    let mut rank_at = vec![Vec::new(); ranks];
    for &r in &dealt {
        rank_at[r] = cnf.variables(n);
    }
    for t in 0..n {
        for &r in &dealt {
            let members: Vec<Lit> = (0..n).filter(|&i| rank_of(i) == r).map(|i| played[i][t]).collect();
            for &member in &members {
                cnf.implies(member, [rank_at[r][t]]);
            }
            cnf.implies(rank_at[r][t], members);
        }
        cnf.exactly_one(&dealt.iter().map(|&r| rank_at[r][t]).collect::<Vec<_>>());
    }
    let hole = deck.rank(puzzle.hole);
    for &r in &dealt {
        let rank = r as u32;
        let next: Vec<usize> = dealt.iter().copied().filter(|&s| deck.ranks_adjacent(rank, s as u32)).collect();
        if !deck.ranks_adjacent(hole, rank) {
            cnf.clause([-rank_at[r][0]]);
        }
        for t in 0..n.saturating_sub(1) {
            cnf.implies(rank_at[r][t], next.iter().map(|&s| rank_at[s][t + 1]));
            cnf.implies(rank_at[r][t + 1], next.iter().map(|&s| rank_at[s][t]));
        }
    }
}

/// The worm hole's variables and rules, and the pile order as the worm hole changes it.
fn worm_hole(cnf: &mut Cnf, places: &[Place], played: &[Vec<Lit>], by: &[Vec<Lit>]) -> Worm {
    let n = places.len();
    let enters: Vec<Vec<Lit>> = (0..n).map(|_| cnf.variables(n)).collect();
    let entered: Vec<Vec<Lit>> = (0..n).map(|_| cnf.variables(n)).collect();
    // in_worm[i][t]: card i is in the worm hole in the gap before play t.
    let in_worm: Vec<Vec<Lit>> = (0..n).map(|_| cnf.variables(n)).collect();
    for i in 0..n {
        ladder(cnf, &enters[i], &entered[i]);
        for t in 0..n {
            // Enters only while unplayed, and is then in the worm hole until played.
            if t > 0 {
                cnf.implies(enters[i][t], [-by[i][t - 1]]);
                cnf.clause([-entered[i][t], by[i][t - 1], in_worm[i][t]]);
            } else {
                cnf.implies(entered[i][0], [in_worm[i][0]]);
            }
        }
        let Some(above) = places[i].above else { continue };
        // Leaves its pile (into the worm hole or onto the black hole) only once the card above
        // has left: played earlier or moved into the worm hole earlier.
        cnf.clause([-enters[i][0]]);
        cnf.implies(played[i][0], [entered[above][0]]);
        for t in 1..n {
            cnf.implies(enters[i][t], [by[above][t - 1], entered[above][t - 1]]);
            cnf.implies(played[i][t], [by[above][t - 1], entered[above][t]]);
        }
    }
    for t in 0..n {
        cnf.at_most_one(&column(&in_worm, t));
    }
    Worm { enters, entered }
}
