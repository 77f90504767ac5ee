//! Tests that cannot run on this machine, one rule for all of them (unit tests here, and the
//! integration tests, which include this file): a test whose tool, privilege or kernel feature
//! is missing calls [`skipped`] and returns having checked nothing.
//!
//! [`skipped`] writes `skipped: TEST: WHY` straight to standard error, past the test runner's
//! capture, so the test output says so even for a test that passes; `.ci/run` counts those
//! lines. With `BHGRADE_NO_SKIP` set (`.ci/run` sets it, after installing everything the tests
//! need) a skip is a failure instead: no test passes in CI by doing nothing.

use std::io::Write;

/// The switch that turns every skip into a failure.
pub const NO_SKIP: &str = "BHGRADE_NO_SKIP";

/// Says that `test` checks nothing here because of `why`, or fails it under [`NO_SKIP`].
pub fn skipped(test: &str, why: impl std::fmt::Display) {
    assert!(std::env::var_os(NO_SKIP).is_none(), "{NO_SKIP} is set, and {test} cannot run here: {why}");
    // Not eprintln!: the test runner captures that, and a skip must be seen.
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}
