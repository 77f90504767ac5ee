//! Black Hole and Worm Hole patience (`docs/practical.md`), the 2021 practical's game: the reference
//! everything bhgrade decides about it rests on.
//!
//! Modules in the order data flows through them:
//! - [`model`]: cards, decks, [`model::Puzzle`], [`model::Game`] (Black Hole or Worm Hole) and
//!   [`model::Move`];
//! - [`parse`]: puzzle text → [`model::Puzzle`] (errors with line and column), solution text →
//!   integers;
//! - [`check`]: puzzle + integers → [`check::CheckReport`] with a structured finding;
//! - [`solve`]: puzzle + budget → solved / unsolvable / gave up, every witness replayed;
//! - [`sat`]: the second oracle, a SAT model (the paper's section 6) sharing only the model,
//!   parser and checker with [`solve`]: `bhref SOLVE --oracle sat`, `bhgrade regen --verify`;
//! - [`generate`]: the course starter's `GEN`, byte for byte, and [`generate::GenName`], the
//!   file names that spell its arguments;
//! - [`derive`](mod@derive): a derive rule + a puzzle → a check test's candidate solution, for
//!   suite authors;
//! - [`stats`]: `bhref stats`, the paper's table on random standard deals;
//! - [`referee`]: [`referee::BlackHoleReferee`], the [`crate::referee::Referee`] for it.
//!
//! The command line (`bhref CHECK ...`, the default game) is in `src/cli/`.

pub mod check;
pub mod cli;
pub mod derive;
pub mod generate;
pub mod model;
pub mod parse;
pub mod referee;
pub mod sat;
pub mod solve;
pub mod stats;
