//! Tests of the Late Binding derive rules on the starter's layouts (`GEN`) and the contract's
//! worked examples: every rule gives its finding where it applies, the edits are the documented
//! ones (at the middle, the base's other moves kept), and a rule that cannot apply says so.

use super::edit::Replay;
use super::*;
use crate::latebinding::generate::generate;
use crate::latebinding::model::cards_match;
use crate::latebinding::parse::read_integers;
use crate::latebinding::referee::LateBindingReferee;
use crate::referee::Referee;

/// The contract's first worked example: `3 4 0 5 1 5 0` solves it.
const EXAMPLE: &str = "3 2 4\n1 4 2 5\n";

/// `GEN 16 24 8 3`: 24 piles, solvable in plain Late Binding.
fn deal() -> String {
    generate(16, 24, 8, 3)
}

/// `GEN 1` (17 piles, 13 ranks, 4 suits): no plain solution, a grace one.
fn no_plain() -> String {
    generate(1, 17, 13, 4)
}

fn derive(rule: Rule, kind: &str, text: &str) -> Result<String, DeriveError> {
    super::derive(&Budget::default(), rule.name(), kind, Instance { name: "l.txt", text })
}

fn layout(text: &str) -> Layout {
    parse_layout("l.txt", text).unwrap()
}

/// The reference's finding on `candidate` played as `variant`.
fn finding(text: &str, variant: Variant, candidate: &str) -> Finding {
    check(&layout(text), variant, &read_integers(candidate)).finding
}

/// The candidate without its move number `index` (0-based).
fn without_move(candidate: &str, index: usize) -> String {
    let mut integers = read_integers(candidate);
    integers[0] -= 1;
    integers.drain(1 + 2 * index..3 + 2 * index);
    integers.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_rule_gives_its_finding_on_a_solvable_deal() {
    let deal = deal();
    for kind in ["check", "gracecheck", "checkgrace"] {
        for rule in Rule::ALL {
            let result = derive(rule, kind, &deal);
            match (rule, kind) {
                (Rule::GraceAlreadyUsed, "check") => {
                    assert!(matches!(result, Err(DeriveError::WrongKind { .. })), "{rule}: {result:?}")
                }
                // The grace solver finds the plain solution, which makes no grace move.
                (Rule::GraceSolution, _) => {
                    let err = result.unwrap_err();
                    assert!(err.to_string().contains("has a plain solution"), "{err}");
                }
                _ => assert!(result.is_ok(), "{kind} {rule}: {result:?}"),
            }
        }
    }
}

#[test]
fn grace_checks_and_grace_rules_start_from_a_grace_solution_when_plain_has_none() {
    let text = no_plain();
    for rule in Rule::ALL {
        assert!(derive(rule, "gracecheck", &text).is_ok(), "{rule}");
        let plain = derive(rule, "check", &text);
        match rule {
            Rule::GraceSolution | Rule::FarGrace => assert!(plain.is_ok(), "{rule}: {plain:?}"),
            Rule::GraceAlreadyUsed => assert!(matches!(plain, Err(DeriveError::WrongKind { .. }))),
            _ => assert!(matches!(plain, Err(DeriveError::NoSolution { .. })), "{rule}: {plain:?}"),
        }
    }
    // Unsolvable with grace too: nothing to start from.
    let none = generate(2, 16, 10, 6);
    let err = derive(Rule::Reference, "gracecheck", &none).unwrap_err();
    assert!(err.to_string().contains("no Late Binding with grace solution to derive from"), "{err}");
}

#[test]
fn cuts_and_recounts_are_as_documented() {
    let deal = deal();
    let reference = derive(Rule::Reference, "check", &deal).unwrap();
    let integers = read_integers(&reference);
    assert_eq!((integers[0], integers.len()), (23, 47), "{reference}");
    assert!(reference.ends_with('\n') && !reference.trim_end().contains('\n'));
    let multiline = derive(Rule::Multiline, "check", &deal).unwrap();
    assert_eq!(multiline.lines().count(), 24);
    assert_eq!(multiline.lines().next(), Some("23"));
    assert_eq!(read_integers(&multiline), integers);
    let short = read_integers(&derive(Rule::OneShort, "check", &deal).unwrap());
    assert_eq!((short[0], &short[1..]), (22, &integers[1..45]));
    let too_large = read_integers(&derive(Rule::CountTooLarge, "check", &deal).unwrap());
    assert_eq!((too_large[0], &too_large[1..]), (24, &integers[1..]));
    let dangling = read_integers(&derive(Rule::Dangling, "check", &deal).unwrap());
    assert_eq!(dangling, integers[..46]);
}

#[test]
fn illegal_moves_are_inserted_at_the_middle_and_the_rest_still_wins() {
    let deal = deal();
    let reference = derive(Rule::Reference, "check", &deal).unwrap();
    let inserted = [
        Rule::CardNotInRow,
        Rule::CardAtPositionZero,
        Rule::DestinationOutOfRange,
        Rule::NotOneOrThree,
        Rule::CardsDoNotMatch,
    ];
    for rule in inserted {
        let candidate = derive(rule, "check", &deal).unwrap();
        let Finding::Illegal { index, card, to, .. } = finding(&deal, Variant::Plain, &candidate) else {
            panic!("{rule}: {candidate}")
        };
        // 23 moves: the middle is move 11 (0-based), and the illegal move goes before it.
        assert_eq!(index, 11, "{rule}: {candidate}");
        assert_eq!(read_integers(&without_move(&candidate, index)), read_integers(&reference), "{rule}");
        // The same move is as illegal with grace (not a grace move onto pile 0).
        let Finding::Illegal { index: grace_index, reason: grace_reason, .. } =
            finding(&deal, Variant::Grace, &candidate)
        else {
            panic!("{rule}: {candidate}")
        };
        let Finding::Illegal { reason, .. } = finding(&deal, Variant::Plain, &candidate) else { unreachable!() };
        assert_eq!((grace_index, grace_reason), (index, reason), "{rule}");
        match rule {
            Rule::NotOneOrThree | Rule::CardsDoNotMatch => assert!(to >= 1, "{rule}: {candidate}"),
            Rule::CardAtPositionZero => assert_eq!(to, 0),
            Rule::CardNotInRow => assert!(card > 0, "a card of the deck: {candidate}"),
            _ => {}
        }
    }
}

#[test]
fn sharp_forms_are_preferred() {
    let deal = deal();
    let text = derive(Rule::NotOneOrThree, "check", &deal).unwrap();
    let Finding::Illegal { card, to, reason: Illegal::NotOneOrThreePlaces { position }, .. } =
        finding(&deal, Variant::Plain, &text)
    else {
        panic!("{text}")
    };
    // Onto a matching card 2 places left: only the distance is wrong.
    assert_eq!(position as i64 - to, 2, "{text}");
    let d = layout(&deal).deck;
    let onto = reference_row_at(&deal, &text, to as usize);
    assert!(cards_match(d, card as u32, onto), "{text}");
    // Out of range to the right, 1 or 3 places, onto a matching card.
    let text = derive(Rule::DestinationOutOfRange, "check", &deal).unwrap();
    let Finding::Illegal { card, to, reason: Illegal::DestinationOutOfRange { position }, .. } =
        finding(&deal, Variant::Plain, &text)
    else {
        panic!("{text}")
    };
    assert!(matches!(to - position as i64, 1 | 3), "{text}");
    assert!(cards_match(d, card as u32, reference_row_at(&deal, &text, to as usize)), "{text}");
}

/// The top card at `position` just before the candidate's first illegal move.
fn reference_row_at(text: &str, candidate: &str, position: usize) -> u32 {
    let layout = layout(text);
    let report = check(&layout, Variant::Plain, &read_integers(candidate));
    Replay::after(&layout, &report.legal_moves).row[position]
}

#[test]
fn grace_solutions_are_refused_by_a_plain_check_at_the_grace_move() {
    let text = no_plain();
    for rule in [Rule::GraceSolution, Rule::FarGrace] {
        let candidate = derive(rule, "check", &text).unwrap();
        assert_eq!(derive(rule, "gracecheck", &text).unwrap(), candidate, "{rule}: the same candidate for both");
        let grace = check(&layout(&text), Variant::Grace, &read_integers(&candidate));
        assert!(grace.is_solution(), "{rule}: {candidate}");
        let Finding::Illegal { index, to: 0, reason, .. } = finding(&text, Variant::Plain, &candidate) else {
            panic!("{rule}: {candidate}")
        };
        assert_eq!(Some(index), grace.grace_move, "{rule}");
        if rule == Rule::FarGrace {
            assert!(matches!(reason, Illegal::NotOneOrThreePlaces { position } if position == 2 || position > 3));
        }
    }
    // A far grace move on a layout plain can solve: from the middle of the plain solution.
    let deal = deal();
    let candidate = derive(Rule::FarGrace, "checkgrace", &deal).unwrap();
    let grace = check(&layout(&deal), Variant::Grace, &read_integers(&candidate));
    assert_eq!(grace.grace_move, Some(11), "{candidate}");
    // On three piles `5 onto 1` is one (then 4 onto 5 wins); on two there is none.
    assert_eq!(derive(Rule::FarGrace, "check", "3 2 3\n1 4 5\n").unwrap(), "2 5 0 4 0\n");
    let err = derive(Rule::FarGrace, "check", "3 2 2\n1 4\n").unwrap_err();
    assert!(err.to_string().contains("2 or more than 3 places"), "{err}");
}

#[test]
fn a_second_grace_move_is_refused_and_only_it() {
    for text in [deal(), no_plain()] {
        let candidate = derive(Rule::GraceAlreadyUsed, "gracecheck", &text).unwrap();
        let Finding::Illegal { index, to: 0, reason: Illegal::GraceAlreadyUsed { used_by, .. }, .. } =
            finding(&text, Variant::Grace, &candidate)
        else {
            panic!("{candidate}")
        };
        assert!(used_by < index, "{candidate}");
        // Were a second grace allowed, the rest would win: replay with the grace "reset".
        let layout = layout(&text);
        let integers = read_integers(&candidate);
        let moves: Vec<Move> = integers[1..].chunks(2).map(|p| Move { card: p[0] as u32, to: p[1] as usize }).collect();
        let mut replay = Replay::after(&layout, &moves[..index]);
        replay.grace_used = false;
        let after = Layout { deck: layout.deck, row: replay.row.clone() };
        let rest = &integers[1 + 2 * index..];
        let rest: Vec<i64> = std::iter::once((rest.len() / 2) as i64).chain(rest.iter().copied()).collect();
        assert!(check(&after, Variant::Grace, &rest).is_solution(), "{candidate}");
    }
}

#[test]
fn rules_that_cannot_apply_are_errors_naming_them() {
    // One pile: won by no moves.
    let one = generate(1, 1, 13, 4);
    assert_eq!(derive(Rule::Reference, "check", &one).unwrap(), "0\n");
    assert_eq!(derive(Rule::Multiline, "check", &one).unwrap(), "0\n");
    assert_eq!(derive(Rule::CountTooLarge, "check", &one).unwrap(), "1\n");
    for rule in [Rule::OneShort, Rule::Dangling, Rule::CardNotInRow, Rule::NotOneOrThree, Rule::FarGrace] {
        let err = derive(rule, "check", &one).unwrap_err();
        assert!(matches!(err, DeriveError::NotApplicable { .. }), "{rule}: {err}");
        assert!(err.to_string().starts_with(&format!("derive rule `{rule}` does not apply")), "{err}");
    }
    // Three piles (4 onto 1, then 5 onto 4): no move of 2 places but onto pile 0, no second
    // grace that still wins, and no card that fails to match 1 or 3 places left of it but at
    // pile 0 (before move 2 the row is 4 5).
    let three = "3 2 3\n1 4 5\n";
    assert_eq!(derive(Rule::Reference, "check", three).unwrap(), "2 4 0 5 0\n");
    for (rule, why) in [
        (Rule::NotOneOrThree, "4 piles"),
        (Rule::GraceAlreadyUsed, "second grace"),
        (Rule::CardsDoNotMatch, "does not match"),
    ] {
        let err = derive(rule, "gracecheck", three).unwrap_err();
        assert!(matches!(err, DeriveError::NotApplicable { .. }) && err.to_string().contains(why), "{rule}: {err}");
    }
    // With four piles each applies.
    assert!(derive(Rule::NotOneOrThree, "check", EXAMPLE).is_ok());
    assert!(derive(Rule::CardsDoNotMatch, "check", EXAMPLE).is_ok());
}

#[test]
fn unknown_rules_kinds_and_layouts_are_errors() {
    let err = derive(Rule::Reference, "solve", EXAMPLE).unwrap_err();
    assert!(matches!(err, DeriveError::WrongKind { .. }), "{err}");
    let err = derive(Rule::GraceAlreadyUsed, "check", EXAMPLE).unwrap_err();
    assert!(err.to_string().contains("needs a `gracecheck` or `checkgrace` test, not `check`"), "{err}");
    let err = LateBindingReferee::default().derive("wrong-card", "check", Instance { name: "l", text: EXAMPLE });
    let err = err.unwrap_err().to_string();
    assert!(
        err.starts_with("unknown derive rule `wrong-card`; expected one of: reference, multiline, one-short"),
        "{err}"
    );
    assert!(matches!(derive(Rule::Reference, "check", "3 2 2\n1 1\n"), Err(DeriveError::InvalidInstance { .. })));
}

#[test]
fn the_worked_examples() {
    // The reference's solution of the first example (the contract's `3 4 0 5 1 5 0` is another).
    assert_eq!(derive(Rule::Reference, "check", EXAMPLE).unwrap(), "3 5 2 4 0 5 0\n");
    assert_eq!(derive(Rule::Multiline, "check", EXAMPLE).unwrap(), "3\n5 2\n4 0\n5 0\n");
    assert_eq!(derive(Rule::OneShort, "check", EXAMPLE).unwrap(), "2 5 2 4 0\n");
    assert_eq!(derive(Rule::Dangling, "check", EXAMPLE).unwrap(), "3 5 2 4 0 5\n");
    assert_eq!(derive(Rule::CountTooLarge, "check", EXAMPLE).unwrap(), "4 5 2 4 0 5 0\n");
    let no_plain = "3 2 2\n1 5\n";
    assert_eq!(derive(Rule::GraceSolution, "check", no_plain).unwrap(), "1 5 0\n");
    assert_eq!(derive(Rule::Reference, "checkgrace", no_plain).unwrap(), "1 5 0\n");
}

#[test]
fn rule_names_round_trip() {
    for rule in Rule::ALL {
        assert_eq!(Rule::parse(rule.name()), Some(rule));
        assert_eq!(rule.to_string(), rule.name());
    }
    assert_eq!(Rule::parse("nope"), None);
    assert_eq!(LateBindingReferee::default().derive_rules(), Rule::NAMES);
}
