//! bhgrade: marks students' submissions for a patience-game practical (any game the reference
//! holds) against a suite, with the reference as judge.
//!
//! The pipeline, in the order a submission goes through it (each module names its input and
//! output types):
//! - [`suite`]: `suite.yaml` + `expected.json` → a [`suite::Suite`] verified by the reference of
//!   its game, looked up by name in [`bhref::games`] (the harness itself names no game);
//! - [`stacscheck`]: a folder of the course's old stacscheck test tree → a [`stacscheck::Tree`]
//!   of script runs and stacscheck's pass rules, so existing trees run unchanged;
//! - [`plan`]: a suite or a stacscheck tree → the one [`plan::Plan`] the pipeline executes:
//!   build, runs, and tests with their judges;
//! - [`archive`] and [`build`]: a student's folder or archive → a private, built copy;
//! - [`sandbox`]: one command under limits → a [`sandbox::RunOutcome`];
//! - [`judge`]: a clean run's answer → what it is worth, by the test's [`judge::Judge`] (a
//!   suite's reference, or stacscheck's rule for a step);
//! - [`verdict`]: run outcome + the judge's finding → a [`verdict::Verdict`];
//! - [`score`]: verdicts + weights → marks;
//! - [`results`]: the results' data (per test, student and class) and the words every output
//!   shares, made by the plan and pipeline, read by the reporters;
//! - [`report`]: events → markdown, JSON, CSV and progress (the only code that writes output);
//! - [`store`]: results kept per build and run, so interrupted marking resumes;
//! - [`pipeline`]: the one place that runs these stages, in parallel, and emits the events;
//! - [`merge`]: the outputs of sharded marking → one class report;
//! - [`regen`]: a suite → its expected answers from the reference (the organiser's tool).
//!
//! Beneath them: [`environment`] (each test's limits, the machine and the sandbox's layers →
//! the marking environment every report records), [`clock`] (UTC timestamps) and [`fsutil`].
//! Every module is a file, `name.rs`, with its submodules (if any) in the folder `name/`.

// One module style: `name.rs` beside its folder `name/`, never `name/mod.rs`.
#![deny(clippy::mod_module_files)]
// Standard output and error through `say!` and `tell!` (report::console), which drop what a
// closed or full stream cannot take; `println!` and `eprintln!` panic there.
#![deny(clippy::print_stdout, clippy::print_stderr)]

// The pipeline, in the order above (the tests, a plan, a built copy, runs, judges, verdicts,
// marks, results and their output); a blank line keeps rustfmt from sorting it.
pub mod suite;

pub mod stacscheck;

pub mod plan;

pub mod archive;

pub mod build;

pub mod sandbox;

pub mod judge;

pub mod verdict;

pub mod score;

pub mod results;

pub mod report;

// What runs the pipeline (its one owner), keeps its results, combines shards, and makes suites.
pub mod pipeline;

pub mod store;

pub mod merge;

pub mod regen;

// Beneath them all.
pub mod clock;
pub mod environment;
pub mod fsutil;
#[cfg(test)]
mod skip;
