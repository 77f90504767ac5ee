//! Properties and unit tests of the Late Binding checker.
//!
//! Input: the doc's worked examples (one test per [`Finding`] and [`Illegal`] variant) and
//! random small layouts with random play (legal moves, grace moves, and noise). Output: pass/fail
//! of the checker against an independent simulator written here from `late-binding.md`, which
//! computes the expected finding itself.

use bhref::latebinding::check::{check, check_moves, Finding, Illegal};
use bhref::latebinding::model::{Card, Deck, Layout, Move, Variant};
use bhref::rng::SplitMix64;
use proptest::prelude::*;

fn layout(ranks: u32, suits: u32, row: &[Card]) -> Layout {
    Layout { deck: Deck { ranks, suits }, row: row.to_vec() }
}

/// `3 2 4` / `1 4 2 5`, the doc's first example.
fn example() -> Layout {
    layout(3, 2, &[1, 4, 2, 5])
}

fn finding(layout: &Layout, variant: Variant, integers: &[i64]) -> (Finding, String) {
    let report = check(layout, variant, integers);
    assert_eq!(report.is_solution(), report.finding == Finding::Solved);
    (report.finding.clone(), report.finding.to_string())
}

fn illegal(layout: &Layout, variant: Variant, integers: &[i64]) -> (usize, Illegal, String) {
    match finding(layout, variant, integers) {
        (Finding::Illegal { index, reason, .. }, text) => (index, reason, text),
        other => panic!("expected an illegal move, got {other:?}"),
    }
}

#[test]
fn the_worked_examples() {
    assert_eq!(finding(&example(), Variant::Plain, &[3, 4, 0, 5, 1, 5, 0]).0, Finding::Solved);
    let row = layout(3, 2, &[1, 2, 3, 4, 5]);
    assert_eq!(finding(&row, Variant::Plain, &[4, 4, 0, 5, 0, 2, 0, 3, 0]).0, Finding::Solved);
    let pair = layout(3, 2, &[1, 5]);
    let report = check(&pair, Variant::Grace, &[1, 5, 0]);
    assert_eq!((report.finding, report.grace_move), (Finding::Solved, Some(0)));
    let (_, reason, text) = illegal(&pair, Variant::Plain, &[1, 5, 0]);
    assert_eq!(reason, Illegal::CardsDoNotMatch { position: 1, onto: 1 });
    assert_eq!(text, "move 1 (card 5 onto 0): card 5 (at position 1) and card 1 share neither rank nor suit");
    // One pile is solved by no moves; extra integers after the moves are ignored.
    assert_eq!(finding(&layout(3, 2, &[4]), Variant::Plain, &[0]).0, Finding::Solved);
    let report = check(&example(), Variant::Plain, &[3, 4, 0, 5, 1, 5, 0, 9, 9, 9]);
    assert_eq!((report.finding, report.extra_integers), (Finding::Solved, 3));
}

#[test]
fn counts() {
    assert_eq!(
        finding(&example(), Variant::Plain, &[]),
        (Finding::NoCount, "there is no integer at all, so not even the number of moves".into())
    );
    assert_eq!(
        finding(&example(), Variant::Plain, &[-1]),
        (Finding::NegativeCount { count: -1 }, "the number of moves, -1, is negative".into())
    );
    let (f, text) = finding(&example(), Variant::Plain, &[3, 4, 0, 5, 1, 5]);
    assert_eq!(f, Finding::CountLargerThanMovesGiven { count: 3, moves_given: 2, dangling: true });
    assert_eq!(text, "the solution announces 3 moves but gives only 2 and half of one");
    let (f, text) = finding(&example(), Variant::Plain, &[2, 4, 0, 5, 1]);
    assert_eq!(f, Finding::PilesLeft { moves: 2, piles: 2 });
    assert_eq!(text, "after 2 moves were played, 2 piles are left, not 1");
    assert_eq!(finding(&example(), Variant::Plain, &[0]).0, Finding::PilesLeft { moves: 0, piles: 4 });
    // An illegal move is found before the count runs out: reading order.
    assert!(matches!(finding(&example(), Variant::Plain, &[9, 4, 2]).0, Finding::Illegal { .. }));
}

#[test]
fn each_reason_a_move_is_illegal() {
    let plain = Variant::Plain;
    let (_, reason, text) = illegal(&example(), plain, &[1, 6, 0]);
    assert_eq!(
        (reason, text.as_str()),
        (Illegal::CardNotInRow, "move 1 (card 6 onto 0): card 6 is not on top of any pile in the row")
    );
    assert_eq!(illegal(&example(), plain, &[1, -4, 0]).1, Illegal::CardNotInRow);
    // Card 1 is covered by the first move, so it is no longer in the row.
    assert_eq!(illegal(&example(), plain, &[2, 4, 0, 1, 0]).1, Illegal::CardNotInRow);
    let (_, reason, text) = illegal(&example(), plain, &[1, 1, 0]);
    assert_eq!(
        (reason, text.as_str()),
        (Illegal::CardAtPositionZero, "move 1 (card 1 onto 0): card 1 is at position 0 and cannot move left")
    );
    let (_, reason, text) = illegal(&example(), plain, &[1, 2, 2]);
    assert_eq!(reason, Illegal::DestinationOutOfRange { position: 2 });
    assert_eq!(text, "move 1 (card 2 onto 2): card 2 is at position 2, so the destination must be 0 to 1");
    assert_eq!(illegal(&example(), plain, &[1, 2, -1]).1, Illegal::DestinationOutOfRange { position: 2 });
    let (_, reason, text) = illegal(&example(), plain, &[1, 2, 0]);
    assert_eq!(reason, Illegal::NotOneOrThreePlaces { position: 2 });
    assert_eq!(
        text,
        "move 1 (card 2 onto 0): card 2 is at position 2, 2 places right of 0; a move goes 1 or 3 places left"
    );
    let (_, reason, _) = illegal(&example(), plain, &[1, 2, 1]);
    assert_eq!(reason, Illegal::CardsDoNotMatch { position: 2, onto: 4 });
}

#[test]
fn the_grace_move() {
    let grace = Variant::Grace;
    // Onto pile 0 from any distance, without matching; a hint when it goes elsewhere.
    // Card 2 jumps two places onto 1: [2 4 5]; then 5 onto 4 by suit, 5 onto 2 by rank.
    let report = check(&example(), grace, &[3, 2, 0, 5, 1, 5, 0]);
    assert_eq!((report.finding, report.grace_move), (Finding::Solved, Some(0)));
    let (_, reason, text) = illegal(&example(), grace, &[1, 2, 1]);
    assert_eq!(reason, Illegal::CardsDoNotMatch { position: 2, onto: 4 });
    assert!(text.ends_with("; the grace move, still unused, goes onto pile 0 only"), "{text}");
    // Once only.
    let (index, reason, text) = illegal(&example(), grace, &[2, 2, 0, 5, 0]);
    assert_eq!((index, reason), (1, Illegal::GraceAlreadyUsed { position: 2, onto: 2, used_by: 0 }));
    assert_eq!(
        text,
        "move 2 (card 5 onto 0): card 5 (at position 2) cannot go onto 2 without grace, and move 1 used the grace"
    );
    // A move legal without grace does not use the grace up.
    let report = check(&example(), grace, &[2, 4, 0, 5, 0]);
    assert_eq!(report.grace_move, Some(1));
    assert_eq!(check(&example(), grace, &[1, 4, 0]).grace_move, None);
}

#[test]
fn check_moves_replays_move_lists() {
    let moves = [Move { card: 4, to: 0 }, Move { card: 5, to: 1 }, Move { card: 5, to: 0 }];
    assert!(check_moves(&example(), Variant::Plain, &moves).is_solution());
    assert!(!check_moves(&example(), Variant::Plain, &moves[..2]).is_solution());
}

// ---------------------------------------------------------------------------------------------
// The independent simulator and random play.

/// The rules restated from `late-binding.md`, sharing no code with the checker.
#[derive(Clone)]
struct Sim {
    ranks: u32,
    row: Vec<Card>,
    grace: bool,
    grace_used_by: Option<usize>,
}

impl Sim {
    fn new(layout: &Layout, variant: Variant) -> Self {
        Sim { ranks: layout.deck.ranks, row: layout.row.clone(), grace: variant == Variant::Grace, grace_used_by: None }
    }

    fn matching(&self, a: Card, b: Card) -> bool {
        (a - 1) % self.ranks == (b - 1) % self.ranks || (a - 1) / self.ranks == (b - 1) / self.ranks
    }

    /// Plays move `index` (`card to`) or says why it is illegal.
    fn play(&mut self, index: usize, card: i64, to: i64) -> Result<(), Illegal> {
        let position = self.row.iter().position(|&c| i64::from(c) == card).ok_or(Illegal::CardNotInRow)?;
        if position == 0 {
            return Err(Illegal::CardAtPositionZero);
        }
        if to < 0 || to >= position as i64 {
            return Err(Illegal::DestinationOutOfRange { position });
        }
        let to = to as usize;
        let (moved, onto) = (self.row[position], self.row[to]);
        let near = position - to == 1 || position - to == 3;
        if !(near && self.matching(moved, onto)) {
            match (self.grace && to == 0, self.grace_used_by) {
                (true, None) => self.grace_used_by = Some(index),
                (true, Some(used_by)) => return Err(Illegal::GraceAlreadyUsed { position, onto, used_by }),
                (false, _) if !near => return Err(Illegal::NotOneOrThreePlaces { position }),
                (false, _) => return Err(Illegal::CardsDoNotMatch { position, onto }),
            }
        }
        self.row.remove(position);
        self.row[to] = moved;
        Ok(())
    }

    /// Every move that `play` accepts, as `(card, to)`.
    fn legal_moves(&self) -> Vec<(i64, i64)> {
        let mut moves = Vec::new();
        for position in 1..self.row.len() {
            for to in 0..position {
                if self.clone().play(0, i64::from(self.row[position]), to as i64).is_ok() {
                    moves.push((i64::from(self.row[position]), to as i64));
                }
            }
        }
        moves
    }
}

/// The finding the simulator expects for `integers`.
fn expected(layout: &Layout, variant: Variant, integers: &[i64]) -> Finding {
    let Some((&count, rest)) = integers.split_first() else { return Finding::NoCount };
    if count < 0 {
        return Finding::NegativeCount { count };
    }
    let mut sim = Sim::new(layout, variant);
    let given = rest.len() / 2;
    for index in 0..(count as usize).min(given) {
        let (card, to) = (rest[2 * index], rest[2 * index + 1]);
        let grace_left = sim.grace && sim.grace_used_by.is_none();
        if let Err(reason) = sim.play(index, card, to) {
            return Finding::Illegal { index, card, to, reason, grace_left };
        }
    }
    if given < count as usize {
        return Finding::CountLargerThanMovesGiven { count, moves_given: given, dangling: rest.len() % 2 == 1 };
    }
    match sim.row.len() {
        1 => Finding::Solved,
        piles => Finding::PilesLeft { moves: count as usize, piles },
    }
}

fn random_layout(ranks: u32, suits: u32, piles: usize, rng: &mut SplitMix64) -> Layout {
    let mut cards: Vec<Card> = (1..=ranks * suits).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.index(i + 1));
    }
    cards.truncate(piles.clamp(1, cards.len()));
    layout(ranks, suits, &cards)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Random legal play, then every prefix, every count, and noise in every position: the
    /// checker's finding is the simulator's.
    #[test]
    fn the_checker_agrees_with_the_simulator(
        ranks in 1u32..=6, suits in 1u32..=4, piles in 1usize..=9, grace: bool, seed: u64,
    ) {
        let mut rng = SplitMix64::new(seed);
        let layout = random_layout(ranks, suits, piles, &mut rng);
        let variant = if grace { Variant::Grace } else { Variant::Plain };
        let mut sim = Sim::new(&layout, variant);
        let mut moves: Vec<i64> = Vec::new();
        loop {
            let legal = sim.legal_moves();
            if legal.is_empty() {
                break;
            }
            let (card, to) = legal[rng.index(legal.len())];
            prop_assert!(sim.play(moves.len() / 2, card, to).is_ok());
            moves.extend([card, to]);
        }
        let agrees = |integers: &[i64]| -> Result<(), TestCaseError> {
            let report = check(&layout, variant, integers);
            prop_assert_eq!(&report.finding, &expected(&layout, variant, integers), "{:?}", integers);
            Ok(())
        };
        for len in 0..=moves.len() {
            for count in [len / 2, len / 2 + 1, moves.len() / 2] {
                let mut integers = vec![count as i64];
                integers.extend_from_slice(&moves[..len]);
                agrees(&integers)?;
            }
        }
        let n = moves.len() as i64 / 2;
        for i in 0..=moves.len() {
            for noise in [-1, 0, 1, 2, 3, 1 + rng.index(30) as i64, i64::from(i32::MAX)] {
                let mut integers = vec![n];
                integers.extend_from_slice(&moves);
                integers[i] = noise;
                agrees(&integers)?;
            }
        }
        agrees(&[])?;
        agrees(&[-5, 1, 0])?;
    }
}
