//! Derived candidate solutions for Late Binding check tests: a rule's name, the test's kind
//! (`check` or a grace check) and its layout → the candidate solution's text, or a
//! [`DeriveError`]. Reached through [`crate::referee::Referee::derive`].
//!
//! So far the one rule is `reference`: the reference solver's solution, as Black Hole's. Every
//! rule starts from the plain solution of the layout, or, for a grace check on a layout with
//! none, the grace one, and its result is replayed through the reference checker, which must
//! give the rule's promise. A rule that makes an illegal move is a new [`Rule`] with its edit in
//! `edit` and its promise in `Rule::promised`.

use crate::referee::{DeriveError, Instance};

use super::check::{check, CheckReport};
use super::model::{Layout, Move, Variant};
use super::parse::parse_layout;
use super::solve::{solve, Budget, Outcome};

/// How a check test's candidate solution is derived from the reference's solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    Reference,
}

impl Rule {
    /// Every rule, in the order the suite documentation lists them; the first is the default.
    pub const ALL: [Rule; 1] = [Rule::Reference];

    /// Every rule's name, in the order of [`Rule::ALL`].
    pub const NAMES: [&'static str; 1] = [Rule::Reference.name()];

    /// The rule's name in `suite.yaml`.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Reference => "reference",
        }
    }

    /// The rule named `name`, if any.
    pub fn parse(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|rule| rule.name() == name)
    }

    /// Whether `report` (of the derived solution, checked in the test's variant) is what the
    /// rule promises.
    fn promised(self, report: &CheckReport) -> bool {
        match self {
            Rule::Reference => report.is_solution(),
        }
    }
}

/// The variant a check kind plays, or `None` for a kind that reads no candidate solution.
fn check_variant(kind: &str) -> Option<Variant> {
    match kind {
        "check" => Some(Variant::Plain),
        "gracecheck" | "checkgrace" => Some(Variant::Grace),
        _ => None,
    }
}

/// The solution text the rule named `rule` derives for a test of `kind` on `instance`, from the
/// reference's solution found within `budget`.
pub(super) fn derive(budget: &Budget, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
    let parsed = Rule::parse(rule)
        .ok_or_else(|| DeriveError::UnknownRule { rule: rule.to_string(), known: Rule::NAMES.to_vec() })?;
    let variant = check_variant(kind).ok_or_else(|| DeriveError::WrongKind {
        rule: rule.to_string(),
        kind: kind.to_string(),
        why: "makes candidate solutions for `check`, `gracecheck` and `checkgrace` tests only".into(),
    })?;
    let layout = parse_layout(instance.name, instance.text)
        .map_err(|e| DeriveError::InvalidInstance { message: e.to_string() })?;
    let mut base = solved(&layout, Variant::Plain, budget);
    if variant == Variant::Grace && base.is_err() {
        base = solved(&layout, Variant::Grace, budget);
    }
    let integers = edit(parsed, &base?);
    let report = check(&layout, variant, &integers);
    if !parsed.promised(&report) {
        let reason = format!("the edited solution gives `{}` instead", report.finding);
        return Err(DeriveError::NotApplicable { rule: rule.to_string(), reason });
    }
    Ok(format_integers(&integers))
}

fn solved(layout: &Layout, variant: Variant, budget: &Budget) -> Result<Vec<Move>, DeriveError> {
    let no_solution =
        |outcome: &str| DeriveError::NoSolution { game: variant.to_string(), outcome: outcome.to_string() };
    match solve(layout, variant, budget).outcome {
        Outcome::Solved(moves) => Ok(moves),
        Outcome::Unsolvable => Err(no_solution("proved it unsolvable")),
        Outcome::GaveUp => Err(no_solution("gave up within its budget")),
    }
}

/// Applies `rule` to the legal, winning `base`, giving the candidate's integers: the number of
/// moves, then each move's card and destination.
fn edit(rule: Rule, base: &[Move]) -> Vec<i64> {
    match rule {
        Rule::Reference => {
            let moves = base.iter().flat_map(|mv| [i64::from(mv.card), mv.to as i64]);
            std::iter::once(base.len() as i64).chain(moves).collect()
        }
    }
}

/// The integers on one line, with a final newline, as a student's file would hold them.
fn format_integers(integers: &[i64]) -> String {
    let mut out = integers.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "3 2 4\n1 4 2 5\n";
    const NO_PLAIN: &str = "3 2 2\n1 5\n";

    fn derive(rule: &str, kind: &str, text: &str) -> Result<String, DeriveError> {
        super::derive(&Budget::default(), rule, kind, Instance { name: "l.txt", text })
    }

    #[test]
    fn the_reference_rule_gives_a_solution_that_checks() {
        let text = derive("reference", "check", EXAMPLE).unwrap();
        assert!(text.starts_with("3 ") && text.ends_with('\n'), "{text}");
        let layout = parse_layout("l.txt", EXAMPLE).unwrap();
        let integers: Vec<i64> = text.split_whitespace().map(|t| t.parse().unwrap()).collect();
        assert!(check(&layout, Variant::Plain, &integers).is_solution(), "{text}");
        assert_eq!(derive("reference", "check", "3 2 1\n4\n").unwrap(), "0\n");
    }

    #[test]
    fn grace_checks_fall_back_to_a_grace_solution() {
        let err = derive("reference", "check", NO_PLAIN).unwrap_err();
        assert!(err.to_string().contains("no Late Binding solution to derive from"), "{err}");
        assert_eq!(derive("reference", "checkgrace", NO_PLAIN).unwrap(), "1 5 0\n");
        assert_eq!(derive("reference", "gracecheck", NO_PLAIN).unwrap(), "1 5 0\n");
    }

    #[test]
    fn unknown_rules_kinds_and_layouts_are_errors() {
        let err = derive("wrong-card", "check", EXAMPLE).unwrap_err();
        assert_eq!(err.to_string(), "unknown derive rule `wrong-card`; expected one of: reference");
        assert!(matches!(derive("reference", "solve", EXAMPLE), Err(DeriveError::WrongKind { .. })));
        assert!(matches!(derive("reference", "check", "3 2 2\n1 1\n"), Err(DeriveError::InvalidInstance { .. })));
    }
}
