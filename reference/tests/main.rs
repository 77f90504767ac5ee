//! The reference's tests, in one binary (one link, not ten): properties of each game's parser and
//! checker, differential tests of the solvers against brute force and each other, the
//! generators against Java, and the solver's bounds. Each module says what it reads.

mod bounds;
mod check_props;
mod differential;
mod gaps_differential;
mod generate_java;
mod lbs_check_props;
mod lbs_differential;
mod lbs_generate_java;
mod lbs_parse_props;
mod parse_props;
mod sat_differential;

/// Token helpers the parser properties share.
#[path = "common/tokens.rs"]
mod tokens;
