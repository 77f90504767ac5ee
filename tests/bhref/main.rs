//! The `bhref` binary (built from this package, `src/bin/bhref.rs`, so that `cargo install`
//! installs it beside `bhgrade`) driven as students' programs are: its command-line contract
//! for every game, its help and its refusals.

mod contract;
mod gaps;
mod help;
mod latebinding;
mod superpuzz;
