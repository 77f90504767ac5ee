//! The second oracle: Black Hole and Worm Hole decided by a SAT solver, sharing no search code
//! with [`crate::blackhole::solve`] (only the model, the parser and the checker).
//!
//! Input: a [`Puzzle`] and a [`Game`]. Output: an [`OracleAnswer`]: solvable, with moves the
//! checker has replayed, or unsatisfiable, with what the formula and the solver cost.
//!
//! - `cnf`: clauses and the cardinality patterns;
//! - `encode`: the model (the paper's section 6) and the reading of a model into moves.
//!
//! The solver is CaDiCaL (through the `cadical` crate, which compiles it from its bundled
//! source with the C++ compiler): the maintained state of the art. On the hardest unsolvable deal
//! of the bundled suites (GEN 123 51 13 4 8, Worm Hole, the model before rank adjacency) it took
//! 28 s where splr, the maintained pure-Rust solver (0.17; 0.19 needs a newer Rust), took 164 s;
//! a pure-Rust build was not worth a verification that misses the suite's minute.

mod cnf;
mod encode;

use std::time::{Duration, Instant};

use cadical::{Solver, Timeout};

use crate::blackhole::check::{check_moves, Finding};
use crate::blackhole::model::{Game, Move, Puzzle};

use cnf::Cnf;
use encode::Encoding;

/// The most cards in piles the SAT model is built for: its formula grows with the square of
/// the cards (a 51-card deal: about 9,000 variables, 26,000 clauses; 500 cards: about 1.5
/// million variables), where the search takes any generalised deck.
pub const MAX_CARDS: usize = 500;

/// What the SAT oracle decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A solution, already replayed through the reference checker.
    Solvable(Vec<Move>),
    /// The formula is unsatisfiable: no solution exists.
    Unsolvable,
    /// The time limit ran out first.
    GaveUp,
}

/// A verdict and what it cost.
#[derive(Clone, Debug)]
pub struct OracleAnswer {
    pub verdict: Verdict,
    pub variables: usize,
    pub clauses: usize,
    pub elapsed: Duration,
}

/// Why the SAT oracle gave no verdict: a fault of the oracle, never of the puzzle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    #[error("the SAT solver's solution fails the reference checker: {0}")]
    BadModel(String),
    #[error("the puzzle has {cards} cards in piles; the SAT model is built for at most {MAX_CARDS}")]
    TooLarge { cards: usize },
}

/// Decides `puzzle` played as `game` with the SAT model, giving up after `limit`.
pub fn decide(puzzle: &Puzzle, game: Game, limit: Option<Duration>) -> Result<OracleAnswer, OracleError> {
    let start = Instant::now();
    if puzzle.cards_in_piles() > MAX_CARDS {
        return Err(OracleError::TooLarge { cards: puzzle.cards_in_piles() });
    }
    if puzzle.cards_in_piles() == 0 {
        let verdict = Verdict::Solvable(Vec::new());
        return Ok(OracleAnswer { verdict, variables: 0, clauses: 0, elapsed: start.elapsed() });
    }
    let encoding = Encoding::new(puzzle, game);
    let (variables, clauses) = (encoding.cnf.variable_count(), encoding.cnf.clauses().len());
    let verdict = match satisfy(&encoding.cnf, limit) {
        Satisfied::TimedOut => Verdict::GaveUp,
        Satisfied::No => Verdict::Unsolvable,
        Satisfied::Yes(model) => {
            let value = |v: i32| model[v as usize - 1];
            let moves = encoding.moves(value);
            let report = check_moves(puzzle, game, &moves);
            if report.finding != Finding::Solved {
                return Err(OracleError::BadModel(report.finding.to_string()));
            }
            Verdict::Solvable(moves)
        }
    };
    Ok(OracleAnswer { verdict, variables, clauses, elapsed: start.elapsed() })
}

/// What the solver made of the clauses.
enum Satisfied {
    /// A model: the value of every variable, `model[v - 1]` for variable `v`.
    Yes(Vec<bool>),
    No,
    TimedOut,
}

fn satisfy(cnf: &Cnf, limit: Option<Duration>) -> Satisfied {
    let mut solver: Solver<Timeout> = Solver::new();
    if let Some(limit) = limit {
        solver.set_callbacks(Some(Timeout::new(limit.as_secs_f32())));
    }
    solver.reserve(cnf.variable_count() as i32);
    for clause in cnf.clauses() {
        solver.add_clause(clause.iter().copied());
    }
    match solver.solve() {
        Some(true) => {
            let variables = cnf.variable_count() as i32;
            Satisfied::Yes((1..=variables).map(|v| solver.value(v).unwrap_or(false)).collect())
        }
        Some(false) => Satisfied::No,
        None => Satisfied::TimedOut,
    }
}
