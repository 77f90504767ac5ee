//! Derived candidate solutions for Late Binding check tests: a rule's name, the test's kind
//! (`check`, or a grace check: `gracecheck`, `checkgrace`) and its layout → the candidate
//! solution's text, or a [`DeriveError`] saying why the rule does not apply to this layout.
//! Reached through [`crate::referee::Referee::derive`]; the harness writes the text where the
//! suite reads it.
//!
//! Every rule starts from the reference solver's plain solution of the layout, or, where the
//! layout has none and the test (or the rule) plays with grace, from its grace solution. The
//! edits live in `edit`: an illegal move is *inserted* before a move at the middle of the
//! solution where it can be (scanning on from there, then from the start), and every move after
//! it is kept, so a checker that only looks at the first moves is not let off, and one that
//! skips an illegal move and carries on finds a winning solution and says `true`. Each result
//! is replayed through the reference checker ([`check`]) and must give the rule's promised
//! [`Finding`] (`Rule::promised`); a rule that cannot produce it on a layout is an error naming
//! the rule, never a silently different test.

mod edit;

use crate::derive_rules::rule_names;
use crate::referee::{DeriveError, Instance};

use super::check::{check, check_moves, CheckReport, Finding, Illegal};
use super::model::{Layout, Move, Variant};
use super::parse::parse_layout;
use super::solve::{solve, Budget, Outcome};

rule_names! {
    /// How a check test's candidate solution is derived from the reference's solution.
    pub enum Rule {
        Reference => "reference",
        Multiline => "multiline",
        OneShort => "one-short",
        CountTooLarge => "count-too-large",
        Dangling => "dangling",
        CardNotInRow => "card-not-in-row",
        CardAtPositionZero => "card-at-position-zero",
        DestinationOutOfRange => "destination-out-of-range",
        NotOneOrThree => "not-one-or-three",
        CardsDoNotMatch => "cards-do-not-match",
        GraceSolution => "grace-solution",
        FarGrace => "far-grace",
        GraceAlreadyUsed => "grace-already-used",
    }
}

impl Rule {
    /// Whether the rule only makes sense with grace: its point is the second grace move, which
    /// a plain check already refuses as the first illegal one.
    fn grace_only(self) -> bool {
        self == Rule::GraceAlreadyUsed
    }

    /// Whether the candidate's reports, checked as plain Late Binding (`plain`) and with grace
    /// (`grace`), are what the rule promises for a test played as `variant`.
    ///
    /// The rules whose candidate is a grace solution promise both sides at once, whatever the
    /// test's kind: refused by a plain check at its grace move, accepted with grace. So a
    /// `check` test and a grace check of the same rule and layout hold the same candidate.
    fn promised(self, variant: Variant, plain: &CheckReport, grace: &CheckReport) -> bool {
        let report = if variant == Variant::Plain { plain } else { grace };
        let illegal = |want: fn(&Illegal, i64) -> bool| matches!(report.finding, Finding::Illegal { ref reason, to, .. } if want(reason, to));
        // A grace solution: refused plainly at its grace move onto pile 0, for `why`.
        let grace_move = |why: fn(&Illegal) -> bool| {
            let at = grace.grace_move;
            grace.is_solution()
                && at.is_some()
                && matches!(plain.finding, Finding::Illegal { index, to: 0, ref reason, .. } if Some(index) == at && why(reason))
        };
        match self {
            Rule::Reference | Rule::Multiline => report.is_solution(),
            Rule::OneShort => matches!(report.finding, Finding::PilesLeft { piles: 2, .. }),
            Rule::CountTooLarge => matches!(report.finding, Finding::CountLargerThanMovesGiven { dangling: false, .. }),
            Rule::Dangling => matches!(report.finding, Finding::CountLargerThanMovesGiven { dangling: true, .. }),
            Rule::CardNotInRow => illegal(|r, _| *r == Illegal::CardNotInRow),
            Rule::CardAtPositionZero => illegal(|r, _| *r == Illegal::CardAtPositionZero),
            Rule::DestinationOutOfRange => illegal(|r, _| matches!(r, Illegal::DestinationOutOfRange { .. })),
            // Not onto pile 0, so that the move is illegal with the grace unused too.
            Rule::NotOneOrThree => illegal(|r, to| to >= 1 && matches!(r, Illegal::NotOneOrThreePlaces { .. })),
            Rule::CardsDoNotMatch => illegal(|r, to| to >= 1 && matches!(r, Illegal::CardsDoNotMatch { .. })),
            Rule::GraceSolution => {
                grace_move(|r| matches!(r, Illegal::NotOneOrThreePlaces { .. } | Illegal::CardsDoNotMatch { .. }))
            }
            Rule::FarGrace => grace_move(|r| matches!(r, Illegal::NotOneOrThreePlaces { .. })),
            Rule::GraceAlreadyUsed => illegal(|r, _| matches!(r, Illegal::GraceAlreadyUsed { .. })),
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
/// reference's solutions found within `budget`.
pub(super) fn derive(budget: &Budget, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
    let parsed = Rule::named(rule)?;
    let wrong_kind =
        |why: &str| DeriveError::WrongKind { rule: rule.to_string(), kind: kind.to_string(), why: why.into() };
    let variant = match check_variant(kind) {
        Some(Variant::Plain) if parsed.grace_only() => {
            return Err(wrong_kind("makes a second grace move and needs a `gracecheck` or `checkgrace` test"));
        }
        Some(variant) => variant,
        None => {
            return Err(wrong_kind("makes candidate solutions for `check`, `gracecheck` and `checkgrace` tests only"))
        }
    };
    let layout = parse_layout(instance.name, instance.text)
        .map_err(|e| DeriveError::InvalidInstance { message: e.to_string() })?;
    let base = base_solution(parsed, &layout, variant, budget)?;
    let integers = edit::edit(parsed, &layout, &base, budget)?;
    let plain = check(&layout, Variant::Plain, &integers);
    let grace = check(&layout, Variant::Grace, &integers);
    if !parsed.promised(variant, &plain, &grace) {
        let report = if variant == Variant::Plain { &plain } else { &grace };
        let reason = format!("the edited solution gives `{}` instead", report.finding);
        return Err(DeriveError::NotApplicable { rule: rule.to_string(), reason });
    }
    Ok(format_integers(&integers, parsed == Rule::Multiline))
}

/// The reference solution a rule edits: the grace solver's for `grace-solution` (which must use
/// its grace move, so the layout must have no plain solution); else the plain solution, or,
/// when there is none and grace is in play (a grace check, or a rule that makes grace moves
/// itself and only needs a legal start), the grace one.
fn base_solution(rule: Rule, layout: &Layout, variant: Variant, budget: &Budget) -> Result<Vec<Move>, DeriveError> {
    if rule == Rule::GraceSolution {
        let moves = solved(layout, Variant::Grace, budget)?;
        if check_moves(layout, Variant::Plain, &moves).is_solution() {
            let reason = "the layout has a plain solution, so the grace solver's solution makes no grace move; \
                          use a layout that plain Late Binding cannot solve"
                .to_string();
            return Err(DeriveError::NotApplicable { rule: rule.to_string(), reason });
        }
        return Ok(moves);
    }
    let plain = solved(layout, Variant::Plain, budget);
    let grace_in_play = variant == Variant::Grace || matches!(rule, Rule::FarGrace | Rule::GraceAlreadyUsed);
    match plain {
        Err(DeriveError::NoSolution { .. }) if grace_in_play => solved(layout, Variant::Grace, budget),
        other => other,
    }
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

/// The integers as a student's file would hold them, with a final newline: all on one line, or
/// for `multiline` the count on the first line and then one move per line (the contract reads
/// integers, so line breaks mean nothing).
fn format_integers(integers: &[i64], multiline: bool) -> String {
    let mut out = String::new();
    for (i, value) in integers.iter().enumerate() {
        if i > 0 {
            out.push(if multiline && i % 2 == 1 { '\n' } else { ' ' });
        }
        out.push_str(&value.to_string());
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
