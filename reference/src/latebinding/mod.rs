//! Late Binding Solitaire (`docs/late-binding.md`), the 2022 practical's game: the reference on the
//! same interface as Black Hole's.
//!
//! Modules in the order data flows through them:
//! - [`model`]: [`model::Layout`], [`model::Variant`] (plain or grace), [`model::Move`];
//! - [`parse`]: layout text → [`model::Layout`] (errors with file, line and column), solution
//!   text → integers;
//! - [`check`]: layout + integers → [`check::CheckReport`] with a structured [`check::Finding`];
//! - [`solve`]: layout + budget → solved / unsolvable / gave up, every witness replayed;
//! - [`generate`]: the 2022 starter's `GEN`, byte for byte, and [`generate::GenName`], the file
//!   names that spell its arguments;
//! - [`derive`](mod@derive): a derive rule + a layout → a check test's candidate solution, for
//!   suite authors;
//! - [`referee`]: [`referee::LateBindingReferee`], the [`crate::referee::Referee`] for it;
//! - [`cli`]: `bhref --game latebinding ...`, the students' command-line contract.

pub mod check;
pub mod cli;
pub mod derive;
pub mod generate;
pub mod model;
pub mod parse;
pub mod referee;
pub mod solve;
