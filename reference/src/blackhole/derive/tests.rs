use super::*;
use crate::blackhole::referee::BlackHoleReferee;
use crate::referee::Referee;

/// The handout's example: hole 1 (5 ranks, 1 suit), piles 4 | 2 | 3 | 5, one solution
/// `1 2 2 3 0 4 3 5`.
const SIMPLE: &str = "5 1 4\n1\n4 -1\n2 -1\n3 -1\n5 -1\n";
const DEAL: &str = include_str!("../../../../fixtures/puzzles/good/1-51-13-4-17.txt");

fn derive_with(
    referee: &BlackHoleReferee,
    kind: &str,
    rule: Rule,
    name: &str,
    text: &str,
) -> Result<String, DeriveError> {
    referee.derive(rule.name(), kind, Instance { name, text })
}

fn derive(kind: &str, rule: Rule, text: &str) -> Result<String, DeriveError> {
    derive_with(&BlackHoleReferee::default(), kind, rule, "p.txt", text)
}

#[test]
fn every_rule_gives_its_finding_on_a_standard_deal() {
    let referee = BlackHoleReferee::default();
    for kind in ["check", "checkworm"] {
        for rule in Rule::ALL {
            let result = derive_with(&referee, kind, rule, "deal.txt", DEAL);
            match (kind, rule.worm_only()) {
                ("check", true) => assert!(matches!(result, Err(DeriveError::WrongKind { .. })), "{rule}: {result:?}"),
                _ => assert!(result.is_ok(), "{kind} {rule}: {result:?}"),
            }
        }
    }
}

#[test]
fn edits_on_a_small_puzzle_are_as_documented() {
    let reference = derive("check", Rule::Reference, SIMPLE).unwrap();
    let moves: Vec<i64> = reference.split_whitespace().map(|t| t.parse().unwrap()).collect();
    assert_eq!(moves.len(), 8, "{reference}");
    assert!(reference.ends_with('\n') && !reference.trim_end().contains('\n'));
    let multiline = derive("check", Rule::Multiline, SIMPLE).unwrap();
    assert_eq!(multiline.lines().count(), 4);
    assert_eq!(multiline.split_whitespace().collect::<Vec<_>>(), reference.split_whitespace().collect::<Vec<_>>());
    let short = derive("check", Rule::OneShort, SIMPLE).unwrap();
    assert_eq!(format!("{} {}\n", short.trim_end(), &reference.trim_end()[short.trim_end().len() + 1..]), reference);
    let dangling = derive("check", Rule::Dangling, SIMPLE).unwrap();
    assert_eq!(dangling.split_whitespace().count(), 7);
    assert!(reference.starts_with(dangling.trim_end()));
    let out_of_range = derive("check", Rule::PileOutOfRange, SIMPLE).unwrap();
    assert!(out_of_range.split_whitespace().any(|t| t == "4"), "pile 4 of 0..3: {out_of_range}");
    let via_worm = derive("checkworm", Rule::ViaWorm, SIMPLE).unwrap();
    assert_eq!(via_worm.split_whitespace().count(), 10);
    assert!(via_worm.contains(" -1 "), "{via_worm}");
    let left = derive("checkworm", Rule::CardLeftInWorm, SIMPLE).unwrap();
    assert!(left.trim_end().split(' ').nth(7).unwrap().starts_with('-'), "{left}");
}

#[test]
fn a_rule_that_cannot_apply_is_an_error() {
    // One pile of one card: no pile ever holds two cards, so no wrong card can be named.
    let one = "13 4 1\n1\n2 -1\n";
    let err = derive("check", Rule::WrongCard, one).unwrap_err();
    assert!(matches!(err, DeriveError::NotApplicable { ref rule, .. } if rule == "wrong-card"), "{err}");
    assert!(err.to_string().contains("wrong-card"), "{err}");
    // Every top card of the handout's example... 2 and 5 fit 1 but 4 and 3 do not, so this
    // applies; with only card 2 left it cannot.
    let err = derive("check", Rule::NotAdjacentFirst, one).unwrap_err();
    assert!(matches!(err, DeriveError::NotApplicable { .. }), "{err}");
    let empty = "13 4 2\n1\n-1\n-1\n";
    assert_eq!(derive("check", Rule::Reference, empty).unwrap(), "\n");
    assert!(matches!(derive("check", Rule::OneShort, empty), Err(DeriveError::NotApplicable { .. })));
}

#[test]
fn worm_rules_need_checkworm_and_the_rule_must_be_known() {
    let err = derive("check", Rule::WormHoleFull, SIMPLE).unwrap_err();
    assert!(err.to_string().contains("checkworm"), "{err}");
    // An unknown game is the harness's registry's concern now (`crate::games`); an unknown rule
    // is this game's.
    let err = BlackHoleReferee::default().derive("chess", "check", Instance { name: "p", text: SIMPLE }).unwrap_err();
    assert!(matches!(err, DeriveError::UnknownRule { .. }), "{err}");
    assert!(err.to_string().starts_with("unknown derive rule `chess`; expected one of: reference, multiline"), "{err}");
    let err = derive("solve", Rule::Reference, SIMPLE).unwrap_err();
    assert!(matches!(err, DeriveError::WrongKind { .. }), "{err}");
    let err = derive("check", Rule::Reference, "13 4 1 0").unwrap_err();
    assert!(matches!(err, DeriveError::InvalidInstance { .. }), "{err}");
}

#[test]
fn worm_hole_tests_fall_back_to_a_worm_hole_solution() {
    // Unsolvable in Black Hole (15 and 42 are not adjacent to 1), solvable in Worm Hole.
    let worm = "13 4 1\n1\n15 42 -1\n";
    let err = derive("check", Rule::Reference, worm).unwrap_err();
    assert!(matches!(err, DeriveError::NoSolution { ref game, .. } if *game == Game::BlackHole.to_string()), "{err}");
    assert!(err.to_string().contains("unsolvable"), "{err}");
    assert_eq!(derive("checkworm", Rule::Reference, worm).unwrap(), "0 -42 0 15 -1 42\n");
    assert_eq!(derive("checkworm", Rule::CardLeftInWorm, worm).unwrap(), "0 -42 0 15\n");
    assert!(derive("checkworm", Rule::OneShort, worm).unwrap_err().to_string().contains("one-short"));
}

#[test]
fn rule_names_round_trip() {
    for rule in Rule::ALL {
        assert_eq!(Rule::parse(rule.name()), Some(rule));
    }
    assert_eq!(Rule::parse("nope"), None);
    assert!(BlackHoleReferee::default().derive_rules().join(", ").starts_with("reference, multiline, one-short"));
}
