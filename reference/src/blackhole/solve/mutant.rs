//! A deliberately broken search, for the tests that show a broken reference is caught.
//!
//! Input: the environment variable [`MUTANT_VAR`]. Output: whether a move type is disabled.
//!
//! `BHREF_TEST_MUTANT=no-worm-entries` stops the search from moving cards into the worm hole,
//! so Worm Hole deals that need the worm hole come out `0`: the wrong answer `bhgrade regen
//! --verify` must refuse. The switch exists only in builds with debug assertions (the test
//! builds); a release build, the one markers and organisers install, never reads it.

/// The test-only switch's variable.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub const MUTANT_VAR: &str = "BHREF_TEST_MUTANT";

/// Whether the test-only switch disables moves into the worm hole.
#[cfg(debug_assertions)]
pub fn worm_entries_disabled() -> bool {
    std::env::var_os(MUTANT_VAR).is_some_and(|value| value == "no-worm-entries")
}

/// Whether the test-only switch disables moves into the worm hole: never, in a release build.
#[cfg(not(debug_assertions))]
pub fn worm_entries_disabled() -> bool {
    false
}
