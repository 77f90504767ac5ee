//! Gaps (Montana), the game of seed 001 (`docs/gaps.md`): the reference for a third practical,
//! on the same card layer and referee interface as the other games.
//!
//! Modules in the order data flows through them:
//! - [`model`]: [`model::Layout`] (rows with the Ace column), [`model::Variant`] (basic or
//!   common), [`model::Move`], the legal moves and the win;
//! - [`parse`]: layout text → [`model::Layout`] (errors with file, line and column), solution
//!   text → integers;
//! - [`check`]: layout + integers → [`check::CheckReport`] with a structured [`check::Finding`];
//! - [`solve`]: layout + budget → solved / unsolvable / gave up (a depth-first search with an
//!   exact set of positions met), every witness replayed; and the full count of reachable
//!   positions;
//! - [`block`]: the paper's block search (§4), the basic variant's second exact method: layout →
//!   every reachable position covered by blocks, counted;
//! - [`common`]: the common variant's engine (A* over a stubborn set of moves with a deadlock
//!   test, and a depth-first walk for "no win"): layout + cap → a shortest or weighted win,
//!   unsolvable, or gave up; Superpuzz's search;
//! - [`oracle`]: a second, independent decision (breadth-first over every reachable position,
//!   with moves found card by card) that confirms a solver's `0`;
//! - [`play`]: random play (the paper's iterative sampling);
//! - [`generate`]: `GEN seed [R] [S]`, a seeded deal;
//! - [`derive`](mod@derive): a derive rule + a layout → a check test's candidate solution;
//! - [`referee`]: [`referee::GapsReferee`], the [`crate::referee::Referee`] for it;
//! - [`stats`]: `bhref --game gaps stats`, the paper's figures measured;
//! - [`cli`]: `bhref --game gaps ...`, the students' command-line contract.

pub mod block;
pub mod check;
pub mod cli;
pub mod common;
pub mod derive;
pub mod generate;
pub mod model;
pub mod oracle;
pub mod parse;
pub mod play;
pub mod referee;
pub mod solve;
pub mod stats;
