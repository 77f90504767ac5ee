//! The naming half of both games' derive rules, written once: a list of rule variants with
//! their names in `suite.yaml` → the game's `Rule` enum with [`Referee::derive_rules`]'s
//! table, the name of each rule and the rule of each name.
//!
//! Input: `rule_names! { pub enum Rule { Variant => "name", ... } }`. Output: that enum with
//! `ALL`, `NAMES`, `name`, `parse`, `named` (which answers an unknown name with
//! [`DeriveError::UnknownRule`]) and `Display`. What each rule edits and promises stays in the
//! game's own `derive` module.
//!
//! [`Referee::derive_rules`]: crate::referee::Referee::derive_rules
//! [`DeriveError::UnknownRule`]: crate::referee::DeriveError::UnknownRule

/// Defines a derive-rule enum from its variants and names; see the module documentation.
macro_rules! rule_names {
    ($(#[$meta:meta])* $vis:vis enum $rule:ident { $($variant:ident => $name:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $rule {
            $($variant,)+
        }

        impl $rule {
            /// Every rule, in the order `suites/README.md` lists them; the first is the default.
            pub const ALL: [$rule; [$($name),+].len()] = [$($rule::$variant),+];

            /// Every rule's name, in the order of [`Self::ALL`]: what
            /// [`crate::referee::Referee::derive_rules`] gives for this game.
            pub const NAMES: [&'static str; [$($name),+].len()] = [$($name),+];

            /// The rule's name in `suite.yaml`.
            pub const fn name(self) -> &'static str {
                match self {
                    $($rule::$variant => $name,)+
                }
            }

            /// The rule named `name`, if any.
            pub fn parse(name: &str) -> Option<$rule> {
                $rule::ALL.into_iter().find(|rule| rule.name() == name)
            }

            /// The rule named `name`, or the error that lists the rules there are.
            fn named(name: &str) -> Result<$rule, $crate::referee::DeriveError> {
                $rule::parse(name).ok_or_else(|| $crate::referee::DeriveError::UnknownRule {
                    rule: name.to_string(),
                    known: $rule::NAMES.to_vec(),
                })
            }
        }

        impl std::fmt::Display for $rule {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use rule_names;
