//! The second oracle: Black Hole and Worm Hole decided by a SAT solver, sharing no search code
//! with [`crate::blackhole::solve`] (only the model, the parser and the checker).
//!
//! Input: a [`Puzzle`] and a [`Game`]. Output: an [`OracleAnswer`]: solvable, with moves the
//! checker has replayed, or unsatisfiable, with what the formula and the solver cost.
//!
//! - `cnf`: clauses and the cardinality patterns;
//! - `encode`: the model (the paper's section 6) and the reading of a model into moves.
//!
//! The solver is splr, a CDCL solver in pure Rust: a `cargo install` needs no C or C++
//! toolchain, and no unsafe foreign code decides a grade.

mod cnf;
mod encode;

use std::time::{Duration, Instant};

use splr::{Certificate, Config, SolveIF, Solver, SolverError};

use crate::blackhole::check::{check_moves, Finding};
use crate::blackhole::model::{Game, Move, Puzzle};

pub use encode::Encoding;

/// What the SAT oracle decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A solution, already replayed through the reference checker.
    Solvable(Vec<Move>),
    /// The formula is unsatisfiable: no solution exists.
    Unsolvable,
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
    #[error("the SAT solver failed: {0}")]
    Solver(String),
    #[error("the SAT solver's solution fails the reference checker: {0}")]
    BadModel(String),
}

/// Decides `puzzle` played as `game` with the SAT model.
pub fn decide(puzzle: &Puzzle, game: Game) -> Result<OracleAnswer, OracleError> {
    let start = Instant::now();
    if puzzle.cards_in_piles() == 0 {
        let verdict = Verdict::Solvable(Vec::new());
        return Ok(OracleAnswer { verdict, variables: 0, clauses: 0, elapsed: start.elapsed() });
    }
    let encoding = Encoding::new(puzzle, game);
    let (variables, clauses) = (encoding.cnf.variable_count(), encoding.cnf.clauses().len());
    let verdict = match satisfy(encoding.cnf.clauses())? {
        None => Verdict::Unsolvable,
        Some(model) => {
            let value = |v: i32| model.get(v as usize - 1).is_some_and(|&lit| lit > 0);
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

/// A model of `clauses` (the literal of every variable, in order), or `None` if there is none.
fn satisfy(clauses: &[Vec<i32>]) -> Result<Option<Vec<i32>>, OracleError> {
    let config = Config { quiet_mode: true, ..Config::default() };
    let mut solver = match Solver::try_from((config, clauses)) {
        Ok(solver) => solver,
        Err(Ok(Certificate::UNSAT)) => return Ok(None),
        Err(Ok(Certificate::SAT(model))) => return Ok(Some(model)),
        // What splr's own `Certificate::try_from` does: a clause its loading simplified to
        // nothing (e.g. a lone card that cannot follow the hole) is a proof of unsatisfiability.
        Err(Err(SolverError::EmptyClause)) => return Ok(None),
        Err(Err(error)) => return Err(OracleError::Solver(format!("{error:?}"))),
    };
    match solver.solve() {
        Ok(Certificate::SAT(model)) => Ok(Some(model)),
        Ok(Certificate::UNSAT) => Ok(None),
        Err(error) => Err(OracleError::Solver(format!("{error:?}"))),
    }
}
