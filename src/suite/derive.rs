//! Derived candidate solutions: a check test's `derive: RULE` → the solution text `bhgrade regen`
//! writes to `derived/PART/TEST.sol`, so that a suite author writes only a puzzle and a kind and
//! the suite stays readable without running anything.
//!
//! Input: a [`Rule`], the test's kind (`check` or `checkworm`) and its puzzle. Output: the
//! solution text, or a [`DeriveError`] saying why the rule does not apply to this puzzle.
//!
//! Every rule starts from the reference solver's solution of the puzzle as Black Hole (every
//! Black Hole solution is a Worm Hole solution), or, for a `checkworm` test on a puzzle with
//! none, as Worm Hole. Edits happen at the middle move where they can (scanning on from there,
//! then from the start), so a checker that only looks at the first move is not let off. Each
//! result is replayed through the reference checker and must give the rule's finding; a rule
//! that cannot produce it on a puzzle is an error naming the test, never a silently different
//! test.
//!
//! The rules know Black Hole moves; they are the only game-specific code in the suite loader,
//! and a suite of another game cannot use `derive:`.

use std::collections::HashMap;
use std::fmt;

use bhref::check::{check, Finding, Illegal};
use bhref::model::{Card, Game, Move, Puzzle};
use bhref::parse::parse_puzzle;
use bhref::solve::{solve, Budget, Outcome};

/// The folder, inside a suite, that `bhgrade regen` owns and writes derived solutions into.
pub const DERIVED_DIR: &str = "derived";

/// The game whose moves the rules know.
const GAME: &str = "blackhole";

/// How a check test's candidate solution is derived from the reference's solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    Reference,
    Multiline,
    OneShort,
    Dangling,
    WrongCard,
    EmptyPile,
    PileOutOfRange,
    NotAdjacentFirst,
    NotAdjacentLater,
    ViaWorm,
    WormHoleFull,
    WormHoleEmpty,
    WrongWormCard,
    WormNotAdjacent,
    CardLeftInWorm,
}

impl Rule {
    /// Every rule, in the order `suites/README.md` lists them.
    pub const ALL: [Rule; 15] = [
        Rule::Reference,
        Rule::Multiline,
        Rule::OneShort,
        Rule::Dangling,
        Rule::WrongCard,
        Rule::EmptyPile,
        Rule::PileOutOfRange,
        Rule::NotAdjacentFirst,
        Rule::NotAdjacentLater,
        Rule::ViaWorm,
        Rule::WormHoleFull,
        Rule::WormHoleEmpty,
        Rule::WrongWormCard,
        Rule::WormNotAdjacent,
        Rule::CardLeftInWorm,
    ];

    /// The rule's name in `suite.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Reference => "reference",
            Rule::Multiline => "multiline",
            Rule::OneShort => "one-short",
            Rule::Dangling => "dangling",
            Rule::WrongCard => "wrong-card",
            Rule::EmptyPile => "empty-pile",
            Rule::PileOutOfRange => "pile-out-of-range",
            Rule::NotAdjacentFirst => "not-adjacent-first",
            Rule::NotAdjacentLater => "not-adjacent-later",
            Rule::ViaWorm => "via-worm",
            Rule::WormHoleFull => "worm-hole-full",
            Rule::WormHoleEmpty => "worm-hole-empty",
            Rule::WrongWormCard => "wrong-worm-card",
            Rule::WormNotAdjacent => "worm-not-adjacent",
            Rule::CardLeftInWorm => "card-left-in-worm",
        }
    }

    /// The rule named `name`, if any.
    pub fn parse(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|rule| rule.name() == name)
    }

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

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The names of every rule, for messages.
pub fn rule_names() -> String {
    Rule::ALL.map(Rule::name).join(", ")
}

/// Where a test's derived solution lives, relative to the suite folder.
pub fn derived_file(part: &str, test: &str) -> String {
    format!("{DERIVED_DIR}/{part}/{test}.sol")
}

/// Why a rule could not derive a solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeriveError {
    /// Derivations know only Black Hole moves.
    WrongGame { game: String },
    /// The rule needs a kind it is not given (e.g. a worm-hole rule on a `check` test).
    WrongKind { rule: Rule, kind: String },
    /// The puzzle does not parse.
    InvalidInstance { message: String },
    /// The reference found no solution to start from.
    NoSolution { game: Game, outcome: &'static str },
    /// The rule cannot make its kind of candidate on this puzzle.
    NotApplicable { rule: Rule, reason: String },
}

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeriveError::WrongGame { game } => {
                write!(f, "`derive` is available for game `{GAME}` only, not `{game}`; give a `solution` file")
            }
            DeriveError::WrongKind { rule, kind } => {
                write!(
                    f,
                    "derive rule `{rule}` makes an illegal worm-hole move and needs a `checkworm` test, not `{kind}`"
                )
            }
            DeriveError::InvalidInstance { message } => write!(f, "invalid instance: {message}"),
            DeriveError::NoSolution { game, outcome } => {
                write!(f, "no {game} solution to derive from: the reference solver {outcome}")
            }
            DeriveError::NotApplicable { rule, reason } => write!(f, "derive rule `{rule}` does not apply: {reason}"),
        }
    }
}

impl std::error::Error for DeriveError {}

/// Derives solutions, solving each distinct puzzle once however many tests derive from it.
#[derive(Default)]
pub struct Deriver {
    /// Base solutions by (puzzle text, whether Worm Hole moves may be used).
    bases: HashMap<(String, bool), Result<Vec<Move>, DeriveError>>,
}

impl Deriver {
    /// The solution text `rule` derives for a test of `kind` on the puzzle `text` (named `name`
    /// in messages) of a suite of `game`.
    pub fn derive(
        &mut self,
        game: &str,
        kind: &str,
        rule: Rule,
        name: &str,
        text: &str,
    ) -> Result<String, DeriveError> {
        if game != GAME {
            return Err(DeriveError::WrongGame { game: game.to_string() });
        }
        let game = match kind {
            "check" if rule.worm_only() => return Err(DeriveError::WrongKind { rule, kind: kind.to_string() }),
            "check" => Game::BlackHole,
            "checkworm" => Game::WormHole,
            other => return Err(DeriveError::WrongKind { rule, kind: other.to_string() }),
        };
        let puzzle = parse_puzzle(name, text).map_err(|e| DeriveError::InvalidInstance { message: e.to_string() })?;
        let base = self.base(&puzzle, text, game == Game::WormHole)?;
        let integers = edit(rule, &puzzle, &base)?;
        let report = check(&puzzle, game, &integers);
        if !rule.promised(game, &report.finding) {
            let reason = format!("the edited solution gives `{}` instead", report.finding);
            return Err(DeriveError::NotApplicable { rule, reason });
        }
        Ok(format_solution(&integers, rule == Rule::Multiline))
    }

    /// The reference's Black Hole solution of `puzzle`, or with `worm`, its Worm Hole solution
    /// when there is no Black Hole one.
    fn base(&mut self, puzzle: &Puzzle, text: &str, worm: bool) -> Result<Vec<Move>, DeriveError> {
        let key = (text.to_string(), worm);
        if let Some(base) = self.bases.get(&key) {
            return base.clone();
        }
        let mut result = solved(puzzle, Game::BlackHole);
        if worm && result.is_err() {
            result = solved(puzzle, Game::WormHole);
        }
        self.bases.insert(key, result.clone());
        result
    }
}

fn solved(puzzle: &Puzzle, game: Game) -> Result<Vec<Move>, DeriveError> {
    match solve(puzzle, game, &Budget::default()).outcome {
        Outcome::Solved(moves) => Ok(moves),
        Outcome::Unsolvable => Err(DeriveError::NoSolution { game, outcome: "proved it unsolvable" }),
        Outcome::GaveUp => Err(DeriveError::NoSolution { game, outcome: "gave up within its budget" }),
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

/// Applies `rule` to the legal, winning `base`, giving the candidate's integers.
fn edit(rule: Rule, puzzle: &Puzzle, base: &[Move]) -> Result<Vec<i64>, DeriveError> {
    let n = base.len();
    let not_applicable = |reason: &str| DeriveError::NotApplicable { rule, reason: reason.to_string() };
    let at = |i: usize| Replay::after(puzzle, &base[..i]);
    // The first index (from the middle) where `make` can build the edit.
    let find = |make: &dyn Fn(usize, &Replay) -> Option<Vec<i64>>, reason: &str| {
        from_middle(n).find_map(|i| make(i, &at(i))).ok_or_else(|| not_applicable(reason))
    };
    if n == 0 {
        return match rule {
            Rule::Reference | Rule::Multiline => Ok(Vec::new()),
            _ => Err(not_applicable("the puzzle is solved by the empty solution, so there is nothing to edit")),
        };
    }
    let play = |i: usize| match base[i] {
        Move::Play { pile, card } => Some((pile, card)),
        Move::ToWorm { .. } | Move::FromWorm { .. } => None,
    };
    match rule {
        Rule::Reference | Rule::Multiline => Ok(pairs(base).collect()),
        Rule::OneShort => Ok(pairs(&base[..n - 1]).collect()),
        Rule::Dangling => {
            let mut integers: Vec<i64> = pairs(base).collect();
            integers.pop();
            Ok(integers)
        }
        Rule::WrongCard => find(
            &|i, table| {
                let (pile, _) = play(i)?;
                let under = table.under_top(pile)?;
                Some(splice(base, i, &[(pile as i64, card(under))], i + 1))
            },
            "no move plays from a pile holding two or more cards",
        ),
        Rule::EmptyPile => (0..n - 1)
            .find_map(|i| {
                let (pile, _) = play(i)?;
                let emptied = at(i).heights[pile] == 1;
                emptied.then(|| splice(base, i + 1, &[(pile as i64, card(base[i + 1].card()))], i + 1))
            })
            .ok_or_else(|| not_applicable("no pile is emptied before the last move")),
        Rule::PileOutOfRange => find(
            &|i, _| {
                let (_, played) = play(i)?;
                Some(splice(base, i, &[(puzzle.piles.len() as i64, card(played))], i + 1))
            },
            "the solution has no move from a pile",
        ),
        Rule::NotAdjacentFirst => {
            let (pile, blocked) = at(0).blocked_top().ok_or_else(|| not_applicable("every top card fits the hole"))?;
            Ok(splice(base, 0, &[(pile as i64, card(blocked))], 0))
        }
        Rule::NotAdjacentLater => (1..n)
            .filter(|&i| i >= n / 2)
            .chain(1..n / 2)
            .find_map(|i| {
                let (pile, blocked) = at(i).blocked_top()?;
                Some(splice(base, i, &[(pile as i64, card(blocked))], i))
            })
            .ok_or_else(|| not_applicable("after the first move, every top card always fits the hole")),
        Rule::ViaWorm => find(
            &|i, table| {
                let (pile, played) = play(i)?;
                table
                    .worm
                    .is_none()
                    .then(|| splice(base, i, &[(pile as i64, -card(played)), (-1, card(played))], i + 1))
            },
            "no move from a pile is made while the worm hole is empty",
        ),
        Rule::WormHoleFull => find(
            &|i, table| {
                let (pile, played) = play(i)?;
                if table.worm.is_some() {
                    return None;
                }
                let mut after = Replay::after(puzzle, &base[..i]);
                after.play(Move::ToWorm { pile, card: played });
                let (other, second) = (0..puzzle.piles.len()).find_map(|q| after.top(q).map(|c| (q, c)))?;
                Some(splice(base, i, &[(pile as i64, -card(played)), (other as i64, -card(second))], i + 1))
            },
            "no two cards are ever left in the piles while the worm hole is empty",
        ),
        Rule::WormHoleEmpty => find(
            &|i, table| {
                let (_, played) = play(i)?;
                table.worm.is_none().then(|| splice(base, i, &[(-1, card(played))], i))
            },
            "no move from a pile is made while the worm hole is empty",
        ),
        Rule::WrongWormCard => find(
            &|i, table| {
                let (pile, played) = play(i)?;
                if table.worm.is_some() {
                    return None;
                }
                let wrong = other_card_of_rank(puzzle, played);
                Some(splice(base, i, &[(pile as i64, -card(played)), (-1, card(wrong))], i + 1))
            },
            "no move from a pile is made while the worm hole is empty",
        ),
        Rule::WormNotAdjacent => find(
            &|i, table| {
                if table.worm.is_some() {
                    return None;
                }
                let (pile, blocked) = table.blocked_top()?;
                Some(splice(base, i, &[(pile as i64, -card(blocked)), (-1, card(blocked))], i))
            },
            "every top card always fits the hole while the worm hole is empty",
        ),
        Rule::CardLeftInWorm => match base[n - 1] {
            Move::Play { pile, card: last } => Ok(splice(base, n - 1, &[(pile as i64, -card(last))], n)),
            // A Worm Hole solution ending with the worm-hole card: stop before playing it.
            Move::FromWorm { .. } => Ok(pairs(&base[..n - 1]).collect()),
            Move::ToWorm { .. } => Err(not_applicable("the solution ends by filling the worm hole")),
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
