//! The search for a shortest win: a deal + a cap → a shortest win (A*, proven), a weighted
//! best-first win (the seed's BF1), "unsolvable" or "gave up".
//!
//! Superpuzz is Gaps' common variant on 4 suits of 6 to 8 ranks, so its search is Gaps'
//! common-variant engine ([`crate::gaps::common`]), asked in its optimal order.

pub use crate::gaps::common::{misplaced, solve, Order, Outcome};
