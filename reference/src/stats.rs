//! `bhref stats`: the paper's table on random standard deals.
//!
//! Input: the command-line arguments after `stats`. Output: a printed table (solvable fraction
//! with its 95% confidence interval, trivially unsolvable fraction, time and node percentiles).

/// Runs `bhref stats ARGS`, returning the process exit status.
pub fn main(args: &[String]) -> i32 {
    let _ = args;
    todo!()
}
