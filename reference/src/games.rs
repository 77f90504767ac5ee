//! The registry of games: a suite's `game:` name → its reference [`Referee`].
//!
//! Input: a name such as `blackhole`. Output: the game's referee, or `None` for a name no game
//! has. The one place that lists the games, so that the harness names none: a new game adds a
//! module beside [`crate::blackhole`] and a line here.

use crate::blackhole::referee::BlackHoleReferee;
use crate::latebinding::referee::LateBindingReferee;
use crate::referee::Referee;

/// The names a suite may give as its `game:`, oldest practical first.
pub fn names() -> &'static [&'static str] {
    &["blackhole", "latebinding"]
}

/// The reference of the game called `name`, with its default solver budget.
pub fn referee(name: &str) -> Option<Box<dyn Referee>> {
    match name {
        "blackhole" => Some(Box::new(BlackHoleReferee::default())),
        "latebinding" => Some(Box::new(LateBindingReferee::default())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_referee_and_no_other_does() {
        for name in names() {
            assert!(referee(name).is_some(), "{name}");
        }
        assert!(referee("chess").is_none());
        assert_eq!(referee("latebinding").unwrap().name(), "Late Binding Solitaire");
    }
}
