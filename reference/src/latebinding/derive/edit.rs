//! The edits of the Late Binding derive rules: a [`Rule`], the layout and a legal, winning base
//! solution (plain, or with grace where the layout has no plain one) → the candidate's integers
//! `n c1 d1 ... cn dn`, or a [`DeriveError`] saying why the rule cannot be applied here.
//!
//! Three shapes of edit:
//! - **Cut or recount** the base (`one-short`, `count-too-large`, `dangling`).
//! - **Insert** one illegal move before move `i`, `i` from the middle of the solution on and
//!   then from the start ([`from_middle`]), keeping every base move: the illegal move leaves the
//!   row as it was, so a checker that skips it wins with the rest and says `true`. Where a rule
//!   can make its illegal move sharper (only one thing wrong with it), every insertion point is
//!   tried for that first, then for the looser form.
//! - **Grace moves and a new ending** (`far-grace`, `grace-already-used`): after the base's
//!   first `i` moves, one or two grace moves onto pile 0, then the reference's plain solution of
//!   the row they leave, so that the only fault (or, with grace, none) is the grace moves
//!   themselves: a checker that allows what they do finds a win.

use crate::referee::DeriveError;

use super::Rule;
use crate::latebinding::model::{cards_match, play_in_row, Card, Deck, Layout, Move, Variant};
use crate::latebinding::solve::{solve, Budget, Outcome};

/// Plain solves tried, at most, in search of a winning ending after grace moves: a bound on a
/// derivation's cost on a layout where no grace move leads to a win.
const MAX_ENDINGS: usize = 400;

/// The nodes each of those solves may use (course-sized rows need a few hundred).
const ENDING_NODES: u64 = 50_000;

/// A move as the candidate writes it: the card's value, then the destination.
type Pair = (i64, i64);

fn pair(mv: &Move) -> Pair {
    (i64::from(mv.card), mv.to as i64)
}

/// The candidate `count`, then every move of `moves`.
fn candidate(count: usize, moves: impl IntoIterator<Item = Pair>) -> Vec<i64> {
    std::iter::once(count as i64).chain(moves.into_iter().flat_map(|(card, to)| [card, to])).collect()
}

/// The row while a legal solution is replayed: the top cards left to right, the cards covered
/// so far (in order) and whether the grace has been used.
#[derive(Clone, Debug)]
pub(super) struct Replay {
    deck: Deck,
    pub(super) row: Vec<Card>,
    covered: Vec<Card>,
    pub(super) grace_used: bool,
}

impl Replay {
    /// The row of `layout` after `moves` (legal ones, with or without grace).
    pub(super) fn after(layout: &Layout, moves: &[Move]) -> Self {
        let mut replay = Replay { deck: layout.deck, row: layout.row.clone(), covered: Vec::new(), grace_used: false };
        for &mv in moves {
            replay.play(mv);
        }
        replay
    }

    /// Plays a move known to be legal (a move that is not legal without grace uses it).
    fn play(&mut self, mv: Move) {
        let from = self.row.iter().position(|&c| c == mv.card).expect("a legal move's card is in the row");
        if !self.plain_legal(from, mv.to) {
            self.grace_used = true;
        }
        self.covered.push(self.row[mv.to]);
        play_in_row(&mut self.row, from, mv.to);
    }

    fn matching(&self, a: usize, b: usize) -> bool {
        cards_match(self.deck, self.row[a], self.row[b])
    }

    /// Whether the card at `from` may go onto position `to` without grace.
    fn plain_legal(&self, from: usize, to: usize) -> bool {
        to < from && matches!(from - to, 1 | 3) && self.matching(from, to)
    }

    /// The positions from which a move onto pile 0 can only be the grace move because of its
    /// distance: 2, then 4 and on (the nearest misses first).
    fn far_positions(&self) -> Vec<usize> {
        (2..self.row.len()).filter(|&p| p != 3).collect()
    }

    /// Every position from which a move onto pile 0 is not legal without grace: the far ones,
    /// then 1 and 3 where the cards do not match.
    fn grace_positions(&self) -> Vec<usize> {
        let near = [1, 3].into_iter().filter(|&p| p < self.row.len() && !self.plain_legal(p, 0));
        self.far_positions().into_iter().chain(near).collect()
    }

    /// The card at `position` put onto `to`, as a pair.
    fn pair(&self, position: usize, to: usize) -> Pair {
        (i64::from(self.row[position]), to as i64)
    }
}

/// Move indices from the middle of `n` moves to the end, then from the start to the middle.
fn from_middle(n: usize) -> impl Iterator<Item = usize> {
    (n / 2..n).chain(0..n / 2)
}

/// A way to make an illegal move from the row before base move `i`, or `None` where it cannot.
type Pick<'a> = &'a dyn Fn(&Replay, usize) -> Option<Pair>;

/// `base` with an illegal move inserted before move `i`: the first `picks` makes at any `i`
/// (from the middle), trying each pick over the whole solution before the next one.
fn insert(layout: &Layout, base: &[Move], picks: &[Pick<'_>]) -> Option<Vec<i64>> {
    let replays: Vec<Replay> = (0..base.len()).map(|i| Replay::after(layout, &base[..i])).collect();
    picks.iter().find_map(|pick| {
        from_middle(base.len()).find_map(|i| {
            let bad = pick(&replays[i], i)?;
            let moves = base[..i].iter().map(pair).chain([bad]).chain(base[i..].iter().map(pair));
            Some(candidate(base.len() + 1, moves))
        })
    })
}

/// The first illegal move from position `p` onto `p - k` (for `k` in `distances`, then `p` from
/// the left), not onto pile 0, with the cards matching or not as `matching` says.
fn leftward(replay: &Replay, distances: &[usize], matching: bool) -> Option<Pair> {
    distances.iter().find_map(|&k| {
        (k + 1..replay.row.len()).find(|&p| replay.matching(p, p - k) == matching).map(|p| replay.pair(p, p - k))
    })
}

/// Applies `rule` to the legal, winning `base`, giving the candidate's integers.
pub(super) fn edit(rule: Rule, layout: &Layout, base: &[Move], budget: &Budget) -> Result<Vec<i64>, DeriveError> {
    let n = base.len();
    let not_applicable =
        |reason: &str| DeriveError::NotApplicable { rule: rule.to_string(), reason: reason.to_string() };
    let all = || base.iter().map(pair);
    // Distances that are never legal: 2, then 4 and on.
    let far: Vec<usize> = (2..layout.row.len()).filter(|&k| k != 3).collect();
    match rule {
        Rule::Reference | Rule::Multiline | Rule::GraceSolution => Ok(candidate(n, all())),
        Rule::CountTooLarge => Ok(candidate(n + 1, all())),
        _ if n == 0 => Err(not_applicable("the layout has one pile, so no moves win it and there is none to edit")),
        Rule::OneShort => Ok(candidate(n - 1, base[..n - 1].iter().map(pair))),
        Rule::Dangling => {
            let mut integers = candidate(n, all());
            integers.pop();
            Ok(integers)
        }
        // A card a move has covered (the latest), else a card of the deck that the layout lacks.
        Rule::CardNotInRow => {
            let absent = (1..=layout.deck.size()).find(|card| !layout.row.contains(card));
            let covered: Pick<'_> = &|r, i| r.covered.last().map(|&card| (i64::from(card), base[i].to as i64));
            let lacking: Pick<'_> = &|_, i| absent.map(|card| (i64::from(card), base[i].to as i64));
            insert(layout, base, &[covered, lacking]).ok_or_else(|| {
                not_applicable("no move covers a card before the middle and the layout holds the whole deck")
            })
        }
        Rule::CardAtPositionZero => insert(layout, base, &[&|r, _| Some(r.pair(0, 0))])
            .ok_or_else(|| not_applicable("no move to insert before")),
        // Sharpest: a card moved 1 or 3 places *right* onto a card it matches (a checker that
        // measures distance without its sign accepts it); else the moved card onto itself.
        Rule::DestinationOutOfRange => {
            let rightward: Pick<'_> = &|r, _| {
                let len = r.row.len();
                (1..len)
                    .flat_map(|p| [(p, p + 1), (p, p + 3)])
                    .find(|&(p, q)| q < len && r.matching(p, q))
                    .map(|(p, q)| r.pair(p, q))
            };
            let onto_itself: Pick<'_> = &|r, i| {
                let p = r.row.iter().position(|&c| c == base[i].card)?;
                Some(r.pair(p, p))
            };
            insert(layout, base, &[rightward, onto_itself]).ok_or_else(|| not_applicable("no move to insert before"))
        }
        // Sharpest: onto a matching card 2 places left (else 4, 5, ...); else any card 2 places left.
        Rule::NotOneOrThree => {
            let matching: Pick<'_> = &|r, _| leftward(r, &far, true);
            let any: Pick<'_> = &|r, _| leftward(r, &[2], false).or_else(|| leftward(r, &[2], true));
            insert(layout, base, &[matching, any]).ok_or_else(|| {
                not_applicable("the row never has 4 piles or more, which a move of 2 places not onto pile 0 needs")
            })
        }
        Rule::CardsDoNotMatch => insert(layout, base, &[&|r, _| leftward(r, &[1, 3], false)]).ok_or_else(|| {
            not_applicable("no card ever has a card it does not match 1 or 3 places to its left, other than at pile 0")
        }),
        Rule::FarGrace => with_grace_moves(layout, base, budget, Graces::OneFar).ok_or_else(|| {
            not_applicable("no grace move from 2 or more than 3 places onto pile 0 leaves a row that can still be won")
        }),
        Rule::GraceAlreadyUsed => with_grace_moves(layout, base, budget, Graces::Second)
            .ok_or_else(|| not_applicable("no second grace move onto pile 0 leaves a row that can still be won")),
    }
}

/// Which grace moves [`with_grace_moves`] inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Graces {
    /// One, while the grace is unused, from 2 or more than 3 places.
    OneFar,
    /// A second one: two when the grace is still unused, else one.
    Second,
}

/// The base's first `i` moves (for `i` from the middle), the grace moves `graces` asks for, and
/// a plain ending that wins from the row they leave; `None` when no such solution is found
/// within [`MAX_ENDINGS`] plain solves.
fn with_grace_moves(layout: &Layout, base: &[Move], budget: &Budget, graces: Graces) -> Option<Vec<i64>> {
    let ending_budget = Budget { max_nodes: budget.max_nodes.min(ENDING_NODES), ..budget.clone() };
    let mut tries = MAX_ENDINGS;
    from_middle(base.len()).find_map(|i| {
        let replay = Replay::after(layout, &base[..i]);
        let count = match (graces, replay.grace_used) {
            (Graces::OneFar, true) => return None,
            (Graces::OneFar, false) | (Graces::Second, true) => 1,
            (Graces::Second, false) => 2,
        };
        let ending = grace_then_win(&replay, count, graces == Graces::OneFar, &ending_budget, &mut tries)?;
        Some(candidate(i + ending.len(), base[..i].iter().chain(&ending).map(pair)))
    })
}

/// `count` grace moves onto pile 0 from `replay`'s row (from far positions only with `far`),
/// then the moves of a plain win; `tries` counts the plain solves left.
fn grace_then_win(replay: &Replay, count: usize, far: bool, budget: &Budget, tries: &mut usize) -> Option<Vec<Move>> {
    if count == 0 {
        *tries = tries.checked_sub(1)?;
        let row = Layout { deck: replay.deck, row: replay.row.clone() };
        return match solve(&row, Variant::Plain, budget).outcome {
            Outcome::Solved(moves) => Some(moves),
            Outcome::Unsolvable | Outcome::GaveUp => None,
        };
    }
    let positions = if far { replay.far_positions() } else { replay.grace_positions() };
    positions.into_iter().find_map(|p| {
        if *tries == 0 {
            return None;
        }
        let grace = Move { card: replay.row[p], to: 0 };
        let mut next = replay.clone();
        next.play(grace);
        let rest = grace_then_win(&next, count - 1, far, budget, tries)?;
        Some(std::iter::once(grace).chain(rest).collect())
    })
}
