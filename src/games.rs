//! The games bhgrade can grade: a suite's `game:` name → its reference [`Referee`].
//!
//! The only place in the harness that names a particular game; next year's practical adds a line.

use bhref::referee::Referee;

/// The games a suite may name.
pub fn names() -> Vec<&'static str> {
    vec!["blackhole"]
}

/// The reference for `game`, or `None` if bhgrade does not know it.
pub fn referee_for(game: &str) -> Option<Box<dyn Referee>> {
    match game {
        "blackhole" => Some(Box::new(bhref::blackhole::BlackHoleReferee::default())),
        _ => None,
    }
}
