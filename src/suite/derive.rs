//! Derived candidate solutions, the harness's side: a check test's `derive: RULE` → a
//! [`DeriveRule`] checked against the suite's game, and the file `derived/PART/TEST.sol` that
//! `bhgrade regen` writes the candidate into, so that a suite author writes only a puzzle and a
//! kind and the suite stays readable without running anything.
//!
//! What a rule makes is the game's business: the rules and the candidates come from the game's
//! reference ([`Referee::derive_rules`], [`Referee::derive`]); the harness only names, stores
//! and reads them.

use std::fmt;

use bhref::referee::Referee;

/// The folder, inside a suite, that `bhgrade regen` owns and writes derived solutions into.
pub const DERIVED_DIR: &str = "derived";

/// Where a test's derived solution lives, relative to the suite folder.
pub fn derived_file(part: &str, test: &str) -> String {
    format!("{DERIVED_DIR}/{part}/{test}.sol")
}

/// A derive rule the suite's game has: one of its [`Referee::derive_rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeriveRule(&'static str);

impl DeriveRule {
    /// The rule `referee`'s game calls `name`, if it has one.
    pub fn parse(referee: &dyn Referee, name: &str) -> Option<DeriveRule> {
        referee.derive_rules().iter().find(|rule| **rule == name).map(|rule| DeriveRule(rule))
    }

    /// The rule a check test naming neither `solution` nor `derive` gets: the game's first.
    pub fn default_for(referee: &dyn Referee) -> Option<DeriveRule> {
        referee.derive_rules().first().map(|rule| DeriveRule(rule))
    }

    /// The rule's name in `suite.yaml`.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for DeriveRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The names of every rule of `referee`'s game, for messages.
pub fn rule_names(referee: &dyn Referee) -> String {
    referee.derive_rules().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_round_trip() {
        for game in bhref::games::names() {
            let referee = bhref::games::referee(game).unwrap();
            for name in referee.derive_rules() {
                assert_eq!(DeriveRule::parse(referee.as_ref(), name).map(DeriveRule::name), Some(*name));
            }
            assert_eq!(DeriveRule::parse(referee.as_ref(), "nope"), None);
            let first = DeriveRule::default_for(referee.as_ref()).unwrap();
            assert!(rule_names(referee.as_ref()).starts_with(first.name()), "{game}");
        }
        assert_eq!(derived_file("part1", "t"), "derived/part1/t.sol");
    }
}
