//! Superpuzz, the game of seed 003 (`docs/superpuzz.md`): Gaps' common variant on 4 suits of
//! 6, 7 or 8 ranks, where the question is not whether a deal can be won but by how few moves.
//! It plays on Gaps' model, parser, generator and checker ([`crate::gaps`]); what is its own is
//! the search for a shortest win.
//!
//! Modules in the order data flows through them:
//! - [`generate`]: `GEN seed [W]`, Gaps' deal of 4 suits of `W` ranks, and the instance file
//!   names that spell it;
//! - [`solve`]: a deal + a cap → a shortest win (A*, proven), a weighted best-first win (the
//!   seed's BF1), "unsolvable" or "gave up";
//! - [`referee`]: [`referee::SuperpuzzReferee`], the [`crate::referee::Referee`] for it, whose
//!   solve tests carry their optimum (the quality a suite credits);
//! - [`stats`]: `bhref --game superpuzz stats`, the seed's questions measured;
//! - [`cli`]: `bhref --game superpuzz ...`, the students' command-line contract.

pub mod cli;
pub mod generate;
pub mod referee;
pub mod solve;
pub mod stats;

#[cfg(test)]
mod tests;
