//! `bhref`: the reference implementations of the course's patience games, the ground truth for
//! everything bhgrade decides.
//!
//! Each game is a module of its own, built on the shared pieces below it and behind the one
//! interface above it:
//! - [`referee`]: the small game-agnostic interface the harness grades and authors suites
//!   through ([`referee::Referee`]);
//! - [`games`]: the registry, one table of the games ([`games::GAMES`]): a suite's game name →
//!   its [`referee::Referee`], and the `bhref` binary's command line (`bhref [--game
//!   blackhole|latebinding|gaps] COMMAND`) → the game's parser;
//! - [`blackhole`]: Black Hole and Worm Hole patience, the 2021 practical: model, parser,
//!   checker, search solver, SAT oracle, generator, derive rules, the `bhref stats` table, its
//!   referee and command line;
//! - [`latebinding`]: Late Binding Solitaire, the 2022 practical: its own model, parser,
//!   checker, solver, generator, referee and command line (`bhref --game latebinding`);
//! - [`gaps`]: Gaps (Montana), seed 001's game and a third practical: basic and common variants,
//!   checker, exact solver, a second oracle, generator, random play, `stats`, referee and
//!   command line (`bhref --game gaps`);
//!
//! The shared pieces, which name no game:
//! - [`cards`]: [`cards::Card`] and [`cards::Deck`], numbered as both practicals number them;
//! - [`java_random`]: [`java_random::JavaRandom`], `java.util.Random` byte for byte (both
//!   starters' `GEN`), and the 2022 starter's shuffle;
//! - [`parse_util`]: the `Scanner`-style tokens, numbers and solution integers, and the
//!   [`parse_util::ParseError`] both games' parsers read and report with;
//! - [`budget`]: [`budget::Budget`] and [`budget::Stats`], what a search may spend and spent;
//! - [`cli`]: what both games' command lines share (flags, reading puzzles, writing answers,
//!   clap errors as `bhref: message` and exit status 2);
//! - [`memo`]: [`memo::KeySet`], the exact, memory-bounded set of fixed-width keys both
//!   solvers keep their dead states in;
//! - [`measure`]: the Wilson interval, percentiles, CPU time and peak memory every `stats` reads;
//! - [`rng`]: [`rng::SplitMix64`], the deterministic generator tests and benches draw random
//!   puzzles from.

pub mod blackhole;
pub mod budget;
pub mod cards;
pub mod cli;
mod derive_rules;
pub mod games;
pub mod gaps;
pub mod java_random;
pub mod latebinding;
pub mod measure;
pub mod memo;
pub mod parse_util;
pub mod referee;
pub mod rng;
pub mod superpuzz;
