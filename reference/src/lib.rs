//! `bhref`: the reference implementations of the course's patience games, the ground truth for
//! everything bhgrade decides.
//!
//! - [`referee`]: the small game-agnostic interface the harness grades and authors suites
//!   through ([`referee::Referee`]);
//! - [`games`]: the registry, a suite's game name → its [`referee::Referee`];
//! - [`blackhole`]: Black Hole and Worm Hole patience, the 2021 practical: model, parser,
//!   checker, solver, generator, derive rules, the `bhref stats` table and its referee;
//! - [`latebinding`]: Late Binding Solitaire, the 2022 practical, on the same interface: its own
//!   model, parser, checker, solver, generator, referee and command line
//!   (`bhref --game latebinding`);
//! - [`cli`]: the `bhref` binary's command line (`bhref [--game blackhole|latebinding] COMMAND`),
//!   parsed with clap: Black Hole's commands and what both games' commands share;
//! - [`memo`]: [`memo::KeySet`], the exact, memory-bounded set of fixed-width keys both
//!   solvers keep their dead states in;
//! - [`parse_util`]: the `Scanner`-style tokens and the [`parse_util::ParseError`] both games'
//!   parsers read and report with;
//! - [`rng`]: [`rng::SplitMix64`], the deterministic generator tests and benches draw random
//!   puzzles from.

pub mod blackhole;
pub mod cli;
mod derive_rules;
pub mod games;
pub mod latebinding;
pub mod memo;
pub mod parse_util;
pub mod referee;
pub mod rng;
