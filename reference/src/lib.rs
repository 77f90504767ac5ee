//! `bhref`: the reference implementation of Black Hole and Worm Hole patience, the ground truth
//! for everything bhgrade decides.
//!
//! Modules in the order data flows through them:
//! - [`model`]: cards, decks, puzzles, games and moves;
//! - [`parse`]: puzzle text → [`model::Puzzle`] (errors with line and column), solution text →
//!   integers;
//! - [`check`]: puzzle + integers → [`check::CheckReport`] with a structured finding;
//! - [`solve`]: puzzle + budget → solved / unsolvable / gave up, every witness replayed;
//! - [`generate`]: the course starter's `GEN`, byte for byte;
//! - [`stats`]: `bhref stats`, the paper's table on random standard deals;
//! - [`referee`]: the small game-agnostic interface the harness grades through, and
//!   [`blackhole::BlackHoleReferee`], its implementation for this practical.
//!
//! [`latebinding`] is the next practical's game, Late Binding Solitaire, on the same interface:
//! its own model, parser, checker, solver, generator, referee and command line
//! (`bhref --game latebinding`).

pub mod blackhole;
pub mod check;
pub mod generate;
pub mod latebinding;
pub mod model;
pub mod parse;
pub mod referee;
pub mod solve;
pub mod stats;
