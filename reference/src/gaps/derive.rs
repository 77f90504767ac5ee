//! Derived candidate solutions for Gaps check tests: a rule's name, the test's kind (`check`,
//! basic; `checkcommon`) and its layout → the candidate's text, or a [`DeriveError`] saying why
//! the rule does not apply to this layout.
//!
//! Every rule starts from the reference solver's solution in the test's variant (or, for
//! `common-solution`, in the common variant) and is replayed through the checker, which must
//! give what the rule promises: a rule that cannot make its candidate on a layout is an error
//! naming the rule, never a silently different test.

use crate::derive_rules::rule_names;
use crate::referee::{DeriveError, Instance};

use super::check::{check, Finding};
use super::model::{format_moves, move_integers, Layout, Move, Variant};
use super::parse::parse_layout;
use super::solve::{solve, Budget, Outcome};

rule_names! {
    /// How a check test's candidate solution is derived from the reference's solution.
    pub enum Rule {
        Reference => "reference",
        OneShort => "one-short",
        Dangling => "dangling",
        CommonSolution => "common-solution",
    }
}

/// The variant a check kind plays.
pub fn check_variant(kind: &str) -> Option<Variant> {
    match kind {
        "check" => Some(Variant::Basic),
        "checkcommon" => Some(Variant::Common),
        _ => None,
    }
}

fn reference_line(budget: &Budget, layout: &Layout, variant: Variant) -> Result<Vec<Move>, DeriveError> {
    match solve(layout, variant, budget).outcome {
        Outcome::Solved(moves) => Ok(moves),
        Outcome::Unsolvable => Err(DeriveError::NoSolution {
            game: format!("Gaps ({} variant)", variant.name()),
            outcome: "proved it unsolvable".to_string(),
        }),
        Outcome::GaveUp => Err(DeriveError::NoSolution {
            game: format!("Gaps ({} variant)", variant.name()),
            outcome: "gave up within its budget".to_string(),
        }),
    }
}

/// The candidate `rule` makes for a test of `kind` on `instance`.
pub fn derive(budget: &Budget, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
    let rule = Rule::named(rule)?;
    let variant = check_variant(kind).ok_or_else(|| DeriveError::WrongKind {
        rule: rule.name().to_string(),
        kind: kind.to_string(),
        why: "makes a candidate solution and needs a check test (`check` or `checkcommon`)".to_string(),
    })?;
    let layout = parse_layout(instance.name, instance.text)
        .map_err(|e| DeriveError::InvalidInstance { message: e.to_string() })?;
    let not_applicable =
        |reason: &str| DeriveError::NotApplicable { rule: rule.name().to_string(), reason: reason.to_string() };
    let (numbers, promised_ok) = match rule {
        Rule::Reference => {
            let line = move_integers(&reference_line(budget, &layout, variant)?);
            let ok = check(&layout, variant, &line).is_solution();
            (line, ok)
        }
        Rule::OneShort | Rule::Dangling => {
            let mut line = move_integers(&reference_line(budget, &layout, variant)?);
            if line.is_empty() {
                return Err(not_applicable("the layout is won already, so there is no last move to leave out"));
            }
            line.truncate(line.len() - if rule == Rule::OneShort { 2 } else { 1 });
            let finding = check(&layout, variant, &line).finding;
            let ok = matches!(
                (rule, finding),
                (Rule::OneShort, Finding::NotWon { .. }) | (Rule::Dangling, Finding::Dangling { .. })
            );
            (line, ok)
        }
        Rule::CommonSolution => {
            let line = move_integers(&reference_line(budget, &layout, Variant::Common)?);
            let basic = check(&layout, Variant::Basic, &line).is_solution();
            if basic {
                return Err(not_applicable(
                    "the reference's common-variant solution is a basic one too (no Two goes to another suit's row)",
                ));
            }
            (line.clone(), check(&layout, Variant::Common, &line).is_solution())
        }
    };
    if !promised_ok {
        return Err(not_applicable("the checker does not give what the rule promises on this layout"));
    }
    let pairs: Vec<Move> =
        numbers.chunks(2).filter(|p| p.len() == 2).map(|p| Move { card: p[0] as u32, to: p[1] as usize }).collect();
    let mut text = format_moves(&pairs);
    if numbers.len() % 2 == 1 {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&numbers[numbers.len() - 1].to_string());
    }
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGURE: &str = "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n";

    fn derived(rule: &str, kind: &str) -> Result<String, DeriveError> {
        derive(&Budget::default(), rule, kind, Instance { name: "f", text: FIGURE })
    }

    #[test]
    fn each_rule_gives_what_it_promises() {
        let reference = derived("reference", "check").unwrap();
        let n = reference.split_whitespace().count();
        let short = derived("one-short", "check").unwrap();
        assert_eq!(short.split_whitespace().count(), n - 2);
        assert_eq!(derived("dangling", "check").unwrap().split_whitespace().count(), n - 1);
        assert!(matches!(derived("reference", "solve"), Err(DeriveError::WrongKind { .. })));
        assert!(matches!(derived("nope", "check"), Err(DeriveError::UnknownRule { .. })));
    }
}
