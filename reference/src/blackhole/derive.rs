//! Derived candidate solutions for Black Hole and Worm Hole check tests: a rule's name, the
//! test's kind (`check` or `checkworm`) and its puzzle → the candidate solution's text, or a
//! [`DeriveError`] saying why the rule does not apply to this puzzle. Reached through
//! [`crate::referee::Referee::derive`]; the harness writes the text where the suite reads it.
//!
//! Every rule starts from the reference solver's solution of the puzzle as Black Hole (every
//! Black Hole solution is a Worm Hole solution), or, for a `checkworm` test on a puzzle with
//! none, as Worm Hole. Edits happen at the middle move where they can (scanning on from there,
//! then from the start), so a checker that only looks at the first move is not let off. Each
//! result is replayed through the reference checker and must give the rule's finding; a rule
//! that cannot produce it on a puzzle is an error naming the rule, never a silently different
//! test.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::derive_rules::rule_names;
use crate::referee::{DeriveError, Instance};

use super::check::{check, Finding, Illegal};
use super::model::{Card, Game, Move, Puzzle};
use super::parse::parse_puzzle;
use super::solve::{solve, Budget, Outcome};

rule_names! {
    /// How a check test's candidate solution is derived from the reference's solution.
    pub enum Rule {
        Reference => "reference",
        Multiline => "multiline",
        OneShort => "one-short",
        Dangling => "dangling",
        WrongCard => "wrong-card",
        EmptyPile => "empty-pile",
        PileOutOfRange => "pile-out-of-range",
        NotAdjacentFirst => "not-adjacent-first",
        NotAdjacentLater => "not-adjacent-later",
        ViaWorm => "via-worm",
        WormHoleFull => "worm-hole-full",
        WormHoleEmpty => "worm-hole-empty",
        WrongWormCard => "wrong-worm-card",
        WormNotAdjacent => "worm-not-adjacent",
        CardLeftInWorm => "card-left-in-worm",
    }
}

impl Rule {
    /// Whether the rule only makes sense in Worm Hole (its point is an illegal worm-hole move).
    fn worm_only(self) -> bool {
        match self {
            Rule::WormHoleFull | Rule::WormHoleEmpty | Rule::WrongWormCard | Rule::WormNotAdjacent => true,
            Rule::Reference
            | Rule::Multiline
            | Rule::OneShort
            | Rule::Dangling
            | Rule::WrongCard
            | Rule::EmptyPile
            | Rule::PileOutOfRange
            | Rule::NotAdjacentFirst
            | Rule::NotAdjacentLater
            | Rule::ViaWorm
            | Rule::CardLeftInWorm => false,
        }
    }

    /// Whether `finding` (of the derived solution, checked as `game`) is what the rule promises.
    fn promised(self, game: Game, finding: &Finding) -> bool {
        let illegal = |want: fn(&Illegal) -> bool| matches!(finding, Finding::Illegal { reason, .. } if want(reason));
        let worm_move_in_black_hole = || illegal(|r| *r == Illegal::WormMoveInBlackHole);
        match self {
            Rule::Reference | Rule::Multiline => *finding == Finding::Solved,
            Rule::OneShort => matches!(finding, Finding::CardsLeft { cards_left: 1, .. }),
            Rule::Dangling => illegal(|r| *r == Illegal::DanglingInteger),
            Rule::WrongCard => illegal(|r| matches!(r, Illegal::WrongCard { .. })),
            Rule::EmptyPile => illegal(|r| *r == Illegal::EmptyPile),
            Rule::PileOutOfRange => illegal(|r| matches!(r, Illegal::PileOutOfRange { .. })),
            Rule::NotAdjacentFirst => {
                matches!(finding, Finding::Illegal { index: 0, reason: Illegal::NotAdjacent { .. }, .. })
            }
            Rule::NotAdjacentLater => {
                matches!(finding, Finding::Illegal { index: 1.., reason: Illegal::NotAdjacent { .. }, .. })
            }
            Rule::ViaWorm | Rule::CardLeftInWorm if game == Game::BlackHole => worm_move_in_black_hole(),
            Rule::ViaWorm => *finding == Finding::Solved,
            Rule::CardLeftInWorm => matches!(finding, Finding::CardLeftInWormHole { .. }),
            Rule::WormHoleFull => illegal(|r| matches!(r, Illegal::WormHoleFull { .. })),
            Rule::WormHoleEmpty => illegal(|r| *r == Illegal::WormHoleEmpty),
            Rule::WrongWormCard => illegal(|r| matches!(r, Illegal::WrongWormCard { .. })),
            Rule::WormNotAdjacent => {
                matches!(finding, Finding::Illegal { pile: -1, reason: Illegal::NotAdjacent { .. }, .. })
            }
        }
    }
}

/// A base solution, or why there is none: the reference's answer for one puzzle and game.
type Base = Result<Vec<Move>, DeriveError>;

/// The reference's base solutions by (puzzle text, whether Worm Hole moves may be used), so that
/// each distinct puzzle is solved once however many tests derive from it.
#[derive(Debug, Default)]
pub(super) struct Bases(Mutex<HashMap<(String, bool), Base>>);

impl Clone for Bases {
    /// A cache, not state: a clone starts empty rather than copying every solution.
    fn clone(&self) -> Self {
        Bases::default()
    }
}

impl Bases {
    /// The reference's Black Hole solution of `puzzle`, or with `worm`, its Worm Hole solution
    /// when there is no Black Hole one.
    fn base(&self, puzzle: &Puzzle, text: &str, worm: bool, budget: &Budget) -> Base {
        let key = (text.to_string(), worm);
        // Not held while solving: a long search must not block other derivations.
        if let Some(base) = self.0.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return base.clone();
        }
        let mut result = solved(puzzle, Game::BlackHole, budget);
        if worm && result.is_err() {
            result = solved(puzzle, Game::WormHole, budget);
        }
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(key, result.clone());
        result
    }
}

/// The solution text the rule named `rule` derives for a test of `kind` on `instance`, starting
/// from solutions found within `budget` (and kept in `bases`).
pub(super) fn derive(
    bases: &Bases,
    budget: &Budget,
    rule: &str,
    kind: &str,
    instance: Instance<'_>,
) -> Result<String, DeriveError> {
    let parsed = Rule::named(rule)?;
    let wrong_kind =
        |why: &str| DeriveError::WrongKind { rule: rule.to_string(), kind: kind.to_string(), why: why.into() };
    let game = match kind {
        "check" if parsed.worm_only() => {
            return Err(wrong_kind("makes an illegal worm-hole move and needs a `checkworm` test"));
        }
        "check" => Game::BlackHole,
        "checkworm" => Game::WormHole,
        _ => return Err(wrong_kind("makes candidate solutions for `check` and `checkworm` tests only")),
    };
    let rule = parsed;
    let puzzle = parse_puzzle(instance.name, instance.text)
        .map_err(|e| DeriveError::InvalidInstance { message: e.to_string() })?;
    let base = bases.base(&puzzle, instance.text, game == Game::WormHole, budget)?;
    let integers = edit(rule, &puzzle, &base)?;
    let report = check(&puzzle, game, &integers);
    if !rule.promised(game, &report.finding) {
        let reason = format!("the edited solution gives `{}` instead", report.finding);
        return Err(DeriveError::NotApplicable { rule: rule.to_string(), reason });
    }
    Ok(format_solution(&integers, rule == Rule::Multiline))
}

fn solved(puzzle: &Puzzle, game: Game, budget: &Budget) -> Base {
    let no_solution = |outcome: &str| DeriveError::NoSolution { game: game.to_string(), outcome: outcome.to_string() };
    match solve(puzzle, game, budget).outcome {
        Outcome::Solved(moves) => Ok(moves),
        Outcome::Unsolvable => Err(no_solution("proved it unsolvable")),
        Outcome::GaveUp => Err(no_solution("gave up within its budget")),
    }
}

/// One move per line for `multiline`, else every pair on one line; always a final newline.
fn format_solution(integers: &[i64], multiline: bool) -> String {
    let mut out = String::new();
    for (i, value) in integers.iter().enumerate() {
        if i > 0 {
            out.push(if multiline && i % 2 == 0 { '\n' } else { ' ' });
        }
        out.push_str(&value.to_string());
    }
    out.push('\n');
    out
}

/// The table while replaying a (legal) base solution: pile heights, the hole and the worm hole.
struct Replay<'a> {
    puzzle: &'a Puzzle,
    heights: Vec<usize>,
    hole: Card,
    worm: Option<Card>,
}

impl<'a> Replay<'a> {
    /// The table after the first `moves` of `base`.
    fn after(puzzle: &'a Puzzle, base: &[Move]) -> Self {
        let mut replay =
            Replay { puzzle, heights: puzzle.piles.iter().map(Vec::len).collect(), hole: puzzle.hole, worm: None };
        for mv in base {
            replay.play(*mv);
        }
        replay
    }

    fn play(&mut self, mv: Move) {
        match mv {
            Move::Play { pile, card } => {
                self.heights[pile] -= 1;
                self.hole = card;
            }
            Move::ToWorm { pile, card } => {
                self.heights[pile] -= 1;
                self.worm = Some(card);
            }
            Move::FromWorm { card } => {
                self.hole = card;
                self.worm = None;
            }
        }
    }

    fn top(&self, pile: usize) -> Option<Card> {
        self.heights[pile].checked_sub(1).map(|i| self.puzzle.piles[pile][i])
    }

    /// The card under the top of `pile`, if it has two or more.
    fn under_top(&self, pile: usize) -> Option<Card> {
        self.heights[pile].checked_sub(2).map(|i| self.puzzle.piles[pile][i])
    }

    /// The first pile whose top card may not be played onto the hole, and that card.
    fn blocked_top(&self) -> Option<(usize, Card)> {
        (0..self.heights.len())
            .filter_map(|pile| self.top(pile).map(|card| (pile, card)))
            .find(|&(_, card)| !self.puzzle.deck.adjacent(card, self.hole))
    }
}

/// Move indices from the middle of `n` moves to the end, then from the start to the middle.
fn from_middle(n: usize) -> impl Iterator<Item = usize> {
    (n / 2..n).chain(0..n / 2)
}

fn pairs(moves: &[Move]) -> impl Iterator<Item = i64> + '_ {
    moves.iter().flat_map(|mv| <[i64; 2]>::from(mv.pair()))
}

/// `base[..i]`, then `inserted`, then `base[resume..]`, as integers.
fn splice(base: &[Move], i: usize, inserted: &[(i64, i64)], resume: usize) -> Vec<i64> {
    let middle = inserted.iter().flat_map(|&(pile, card)| [pile, card]);
    pairs(&base[..i]).chain(middle).chain(pairs(&base[resume..])).collect()
}

fn card(card: Card) -> i64 {
    i64::from(card)
}

/// The rule being applied to the legal, winning `base`, and the steps every rule is made of.
struct Editor<'a> {
    rule: Rule,
    puzzle: &'a Puzzle,
    base: &'a [Move],
}

/// What makes an edit at move `i`, given the table before it (`None`: not there).
type Make<'m> = &'m dyn Fn(usize, &Replay) -> Option<Vec<i64>>;

impl<'a> Editor<'a> {
    fn not_applicable(&self, reason: &str) -> DeriveError {
        DeriveError::NotApplicable { rule: self.rule.to_string(), reason: reason.to_string() }
    }

    /// The table after the first `i` moves.
    fn at(&self, i: usize) -> Replay<'a> {
        Replay::after(self.puzzle, &self.base[..i])
    }

    /// Move `i` as a play from a pile, if it is one.
    fn play(&self, i: usize) -> Option<(usize, Card)> {
        match self.base[i] {
            Move::Play { pile, card } => Some((pile, card)),
            Move::ToWorm { .. } | Move::FromWorm { .. } => None,
        }
    }

    /// The first index (from the middle) where `make` can build the edit.
    fn find(&self, make: Make<'_>, reason: &str) -> Result<Vec<i64>, DeriveError> {
        from_middle(self.base.len()).find_map(|i| make(i, &self.at(i))).ok_or_else(|| self.not_applicable(reason))
    }

    /// `base` with moves `from..to` replaced by `moves`.
    fn splice(&self, from: usize, moves: &[(i64, i64)], to: usize) -> Vec<i64> {
        splice(self.base, from, moves, to)
    }

    /// A play from a pile sent through the worm hole instead (a legal detour).
    fn via_worm(&self) -> Result<Vec<i64>, DeriveError> {
        self.find(
            &|i, table| {
                let (pile, played) = self.play(i)?;
                table.worm.is_none().then(|| self.splice(i, &[(pile as i64, -card(played)), (-1, card(played))], i + 1))
            },
            "no move from a pile is made while the worm hole is empty",
        )
    }

    /// Two cards put into the worm hole, one after the other.
    fn worm_hole_full(&self) -> Result<Vec<i64>, DeriveError> {
        self.find(
            &|i, table| {
                let (pile, played) = self.play(i)?;
                if table.worm.is_some() {
                    return None;
                }
                let mut after = self.at(i);
                after.play(Move::ToWorm { pile, card: played });
                let (other, second) = (0..self.puzzle.piles.len()).find_map(|q| after.top(q).map(|c| (q, c)))?;
                Some(self.splice(i, &[(pile as i64, -card(played)), (other as i64, -card(second))], i + 1))
            },
            "no two cards are ever left in the piles while the worm hole is empty",
        )
    }

    /// A card played from the worm hole while it is empty.
    fn worm_hole_empty(&self) -> Result<Vec<i64>, DeriveError> {
        self.find(
            &|i, table| {
                let (_, played) = self.play(i)?;
                table.worm.is_none().then(|| self.splice(i, &[(-1, card(played))], i))
            },
            "no move from a pile is made while the worm hole is empty",
        )
    }

    /// A card put into the worm hole, then another played from it.
    fn wrong_worm_card(&self) -> Result<Vec<i64>, DeriveError> {
        self.find(
            &|i, table| {
                let (pile, played) = self.play(i)?;
                if table.worm.is_some() {
                    return None;
                }
                let wrong = other_card_of_rank(self.puzzle, played);
                Some(self.splice(i, &[(pile as i64, -card(played)), (-1, card(wrong))], i + 1))
            },
            "no move from a pile is made while the worm hole is empty",
        )
    }

    /// A card that does not fit the hole, put through the worm hole to it.
    fn worm_not_adjacent(&self) -> Result<Vec<i64>, DeriveError> {
        self.find(
            &|i, table| {
                if table.worm.is_some() {
                    return None;
                }
                let (pile, blocked) = table.blocked_top()?;
                Some(self.splice(i, &[(pile as i64, -card(blocked)), (-1, card(blocked))], i))
            },
            "every top card always fits the hole while the worm hole is empty",
        )
    }
}

/// Applies `rule` to the legal, winning `base`, giving the candidate's integers.
fn edit(rule: Rule, puzzle: &Puzzle, base: &[Move]) -> Result<Vec<i64>, DeriveError> {
    let n = base.len();
    let editor = Editor { rule, puzzle, base };
    if n == 0 {
        return match rule {
            Rule::Reference | Rule::Multiline => Ok(Vec::new()),
            _ => Err(editor.not_applicable("the puzzle is solved by the empty solution, so there is nothing to edit")),
        };
    }
    match rule {
        Rule::Reference | Rule::Multiline => Ok(pairs(base).collect()),
        Rule::OneShort => Ok(pairs(&base[..n - 1]).collect()),
        Rule::Dangling => {
            let mut integers: Vec<i64> = pairs(base).collect();
            integers.pop();
            Ok(integers)
        }
        Rule::WrongCard => editor.find(
            &|i, table| {
                let (pile, _) = editor.play(i)?;
                let under = table.under_top(pile)?;
                Some(editor.splice(i, &[(pile as i64, card(under))], i + 1))
            },
            "no move plays from a pile holding two or more cards",
        ),
        Rule::EmptyPile => (0..n - 1)
            .find_map(|i| {
                let (pile, _) = editor.play(i)?;
                let emptied = editor.at(i).heights[pile] == 1;
                emptied.then(|| editor.splice(i + 1, &[(pile as i64, card(base[i + 1].card()))], i + 1))
            })
            .ok_or_else(|| editor.not_applicable("no pile is emptied before the last move")),
        Rule::PileOutOfRange => editor.find(
            &|i, _| {
                let (_, played) = editor.play(i)?;
                Some(editor.splice(i, &[(puzzle.piles.len() as i64, card(played))], i + 1))
            },
            "the solution has no move from a pile",
        ),
        Rule::NotAdjacentFirst => {
            let (pile, blocked) =
                editor.at(0).blocked_top().ok_or_else(|| editor.not_applicable("every top card fits the hole"))?;
            Ok(editor.splice(0, &[(pile as i64, card(blocked))], 0))
        }
        Rule::NotAdjacentLater => (1..n)
            .filter(|&i| i >= n / 2)
            .chain(1..n / 2)
            .find_map(|i| {
                let (pile, blocked) = editor.at(i).blocked_top()?;
                Some(editor.splice(i, &[(pile as i64, card(blocked))], i))
            })
            .ok_or_else(|| editor.not_applicable("after the first move, every top card always fits the hole")),
        Rule::ViaWorm => editor.via_worm(),
        Rule::WormHoleFull => editor.worm_hole_full(),
        Rule::WormHoleEmpty => editor.worm_hole_empty(),
        Rule::WrongWormCard => editor.wrong_worm_card(),
        Rule::WormNotAdjacent => editor.worm_not_adjacent(),
        Rule::CardLeftInWorm => match base[n - 1] {
            Move::Play { pile, card: last } => Ok(editor.splice(n - 1, &[(pile as i64, -card(last))], n)),
            // A Worm Hole solution ending with the worm-hole card: stop before playing it.
            Move::FromWorm { .. } => Ok(pairs(&base[..n - 1]).collect()),
            Move::ToWorm { .. } => Err(editor.not_applicable("the solution ends by filling the worm hole")),
        },
    }
}

/// A card other than `card` for a wrong worm-hole claim: one of the same rank (so that the only
/// fault is the card's identity) when the deck has another suit, else the next card.
fn other_card_of_rank(puzzle: &Puzzle, card: Card) -> Card {
    let deck = puzzle.deck;
    if card + deck.ranks <= deck.size() {
        card + deck.ranks
    } else if card > deck.ranks {
        card - deck.ranks
    } else {
        card % deck.size() + 1
    }
}

#[cfg(test)]
mod tests;
