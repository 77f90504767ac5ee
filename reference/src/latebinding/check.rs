//! The checker: does a list of integers solve a layout?
//!
//! Input: a [`Layout`], a [`Variant`] and the integers of a candidate solution (as
//! [`super::parse::read_integers`] reads them). Output: a [`CheckReport`] whose [`Finding`] says
//! exactly what happened: solved; no count; a negative count; which move failed and why
//! ([`Illegal`]); a count larger than the moves given; or piles left at the end.
//!
//! `CHECK` is `true` exactly when (`docs/late-binding.md`, "Solutions and the commands"): the first
//! integer `n` is `>= 0`; at least `2n` integers follow; each move names a card in the row at a
//! position `i >= 1` and a destination `0 <= d < i`, and is legal (or, with grace, the game's one
//! grace move: onto pile 0, the first move that is not legal without grace); and one pile is
//! left. Integers after the `n` moves are ignored. When several of these fail, the finding is
//! the first failure in reading order: the count's sign, then the moves one by one, then the
//! count against the moves given, then the piles left.
//!
//! The row is kept as slots in a Fenwick tree so that finding a card's position and the pile at
//! a position costs `O(log P)`: a hostile solution against a huge layout checks in
//! `O((n + P) log P)`, not `O(n P)`.

use std::fmt;

use super::model::{cards_match, Card, Layout, Move, Variant};
use crate::referee::{agreeing, count as count_of};

/// The result of checking one candidate solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The moves that were legal, in order (all `n` when the solution is good).
    pub legal_moves: Vec<Move>,
    /// The index of the grace move among them, if one was made.
    pub grace_move: Option<usize>,
    /// Integers after the `n` moves, which the contract ignores.
    pub extra_integers: usize,
    pub finding: Finding,
}

impl CheckReport {
    /// What `CHECK` prints: whether the integers solve the layout.
    pub fn is_solution(&self) -> bool {
        self.finding == Finding::Solved
    }
}

/// What checking a candidate solution found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The `n` moves are legal and leave one pile.
    Solved,
    /// The input holds no integer at all, not even the count.
    NoCount,
    /// The count `n` is negative.
    NegativeCount { count: i64 },
    /// Move `index` (0-based), given as `card to`, is illegal. `grace_left`: the game has grace
    /// and it was not used yet (so the explanation can say where a grace move must go).
    Illegal { index: usize, card: i64, to: i64, reason: Illegal, grace_left: bool },
    /// Every complete move given was legal, but fewer than `count` moves were given
    /// (`dangling`: one more integer, half a move, followed them).
    CountLargerThanMovesGiven { count: i64, moves_given: usize, dangling: bool },
    /// The `moves` moves were legal but `piles` piles are left.
    PilesLeft { moves: usize, piles: usize },
}

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The card is not the top card of any pile in the row (or not a card at all).
    CardNotInRow,
    /// The card is at position 0, which has nowhere to go.
    CardAtPositionZero,
    /// The destination is not in `0..position`.
    DestinationOutOfRange { position: usize },
    /// The destination is in range but not 1 or 3 places left of the card.
    NotOneOrThreePlaces { position: usize },
    /// The distance is right but the two top cards share neither rank nor suit.
    CardsDoNotMatch { position: usize, onto: Card },
    /// Onto pile 0 without matching or at another distance, but the grace was used by move
    /// `used_by` (0-based).
    GraceAlreadyUsed { position: usize, onto: Card, used_by: usize },
}

/// A Fenwick tree counting the live slots: prefix sums give a slot's position in the row, and
/// a descent finds the slot at a position.
#[derive(Clone, Debug)]
struct Fenwick {
    tree: Vec<u32>,
}

impl Fenwick {
    /// Every one of `n` slots live.
    fn full(n: usize) -> Self {
        let mut tree = vec![0u32; n + 1];
        for i in 1..=n {
            tree[i] += 1;
            let parent = i + (i & i.wrapping_neg());
            if parent <= n {
                tree[parent] += tree[i];
            }
        }
        Fenwick { tree }
    }

    /// Live slots before `slot`.
    fn before(&self, slot: usize) -> usize {
        let mut i = slot;
        let mut sum = 0;
        while i > 0 {
            sum += self.tree[i] as usize;
            i &= i - 1;
        }
        sum
    }

    fn kill(&mut self, slot: usize) {
        let mut i = slot + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
    }

    /// The live slot at `position` (0-based), which the caller knows exists.
    fn slot_at(&self, position: usize) -> usize {
        let n = self.tree.len() - 1;
        let (mut slot, mut left) = (0, position);
        let mut step = if n == 0 { 0 } else { 1 << n.ilog2() };
        while step > 0 {
            if slot + step <= n && (self.tree[slot + step] as usize) <= left {
                slot += step;
                left -= self.tree[slot] as usize;
            }
            step >>= 1;
        }
        slot
    }
}

/// The row while moves are replayed: each card keeps a slot (its first position, or the slot
/// of the pile it was moved onto) and the tree counts the live ones.
#[derive(Clone, Debug)]
pub struct Table<'a> {
    layout: &'a Layout,
    /// The card shown at each slot (0: a slot whose pile is gone).
    shown: Vec<Card>,
    /// Each card's slot, by card value (`usize::MAX`: not shown).
    slot_of: Vec<usize>,
    live: Fenwick,
    piles: usize,
    grace_used_by: Option<usize>,
    moves_made: usize,
}

impl<'a> Table<'a> {
    /// The starting row of `layout`.
    pub fn new(layout: &'a Layout) -> Self {
        let mut slot_of = vec![usize::MAX; layout.deck.size() as usize + 1];
        for (slot, &card) in layout.row.iter().enumerate() {
            slot_of[card as usize] = slot;
        }
        Table {
            layout,
            shown: layout.row.clone(),
            slot_of,
            live: Fenwick::full(layout.row.len()),
            piles: layout.row.len(),
            grace_used_by: None,
            moves_made: 0,
        }
    }

    /// The number of piles left.
    pub fn piles(&self) -> usize {
        self.piles
    }

    /// The move (0-based) that used the grace, if any.
    pub fn grace_used_by(&self) -> Option<usize> {
        self.grace_used_by
    }

    /// The position of `card` in the row, if it is a top card.
    pub fn position(&self, card: i64) -> Option<usize> {
        let slot = *self.slot_of.get(usize::try_from(card).ok()?)?;
        (slot != usize::MAX).then(|| self.live.before(slot))
    }

    /// The top card of the pile at `position`.
    pub fn card_at(&self, position: usize) -> Option<Card> {
        (position < self.piles).then(|| self.shown[self.live.slot_at(position)])
    }

    /// Plays `card` onto position `to` if that is legal in `variant`; else leaves the table
    /// unchanged and says why not. Returns whether the move used the grace.
    pub fn apply(&mut self, variant: Variant, card: i64, to: i64) -> Result<bool, Illegal> {
        let position = self.position(card).ok_or(Illegal::CardNotInRow)?;
        if position == 0 {
            return Err(Illegal::CardAtPositionZero);
        }
        let Some(to) = usize::try_from(to).ok().filter(|&d| d < position) else {
            return Err(Illegal::DestinationOutOfRange { position });
        };
        let moved = card as Card; // a card in the row, so a valid card number
        let to_slot = self.live.slot_at(to);
        let onto = self.shown[to_slot];
        let distance_ok = matches!(position - to, 1 | 3);
        let matching = cards_match(self.layout.deck, moved, onto);
        let grace = !(distance_ok && matching);
        if grace {
            // The only move that may break the rules: the one grace move, onto pile 0.
            let reason = if !distance_ok {
                Illegal::NotOneOrThreePlaces { position }
            } else {
                Illegal::CardsDoNotMatch { position, onto }
            };
            if variant == Variant::Plain || to != 0 {
                return Err(reason);
            }
            if let Some(used_by) = self.grace_used_by {
                return Err(Illegal::GraceAlreadyUsed { position, onto, used_by });
            }
            self.grace_used_by = Some(self.moves_made);
        }
        let from_slot = self.slot_of[moved as usize];
        self.shown[to_slot] = moved;
        self.shown[from_slot] = 0;
        self.slot_of[moved as usize] = to_slot;
        self.slot_of[onto as usize] = usize::MAX;
        self.live.kill(from_slot);
        self.piles -= 1;
        self.moves_made += 1;
        Ok(grace)
    }
}

/// Checks the integers of a candidate solution against `layout` played as `variant`.
pub fn check(layout: &Layout, variant: Variant, integers: &[i64]) -> CheckReport {
    let mut report =
        CheckReport { legal_moves: Vec::new(), grace_move: None, extra_integers: 0, finding: Finding::Solved };
    let Some((&count, rest)) = integers.split_first() else {
        report.finding = Finding::NoCount;
        return report;
    };
    let Ok(n) = usize::try_from(count) else {
        report.finding = Finding::NegativeCount { count };
        return report;
    };
    let mut table = Table::new(layout);
    for (index, pair) in rest.chunks_exact(2).take(n).enumerate() {
        let (card, to) = (pair[0], pair[1]);
        let grace_left = variant == Variant::Grace && table.grace_used_by().is_none();
        match table.apply(variant, card, to) {
            Ok(used_grace) => {
                if used_grace {
                    report.grace_move = Some(index);
                }
                report.legal_moves.push(Move { card: card as Card, to: to as usize });
            }
            Err(reason) => {
                report.finding = Finding::Illegal { index, card, to, reason, grace_left };
                return report;
            }
        }
    }
    let moves_given = rest.len() / 2;
    if moves_given < n {
        report.finding = Finding::CountLargerThanMovesGiven { count, moves_given, dangling: rest.len() % 2 == 1 };
        return report;
    }
    report.extra_integers = rest.len() - 2 * n;
    if table.piles() != 1 {
        report.finding = Finding::PilesLeft { moves: n, piles: table.piles() };
    }
    report
}

/// Replays moves known to be well-formed (a solver's witness) as the solution `n c1 d1 ...`.
pub fn check_moves(layout: &Layout, variant: Variant, moves: &[Move]) -> CheckReport {
    let mut integers = Vec::with_capacity(1 + 2 * moves.len());
    integers.push(moves.len() as i64);
    for mv in moves {
        integers.extend([i64::from(mv.card), mv.to as i64]);
    }
    check(layout, variant, &integers)
}

/// Explains a finding in one sentence, numbering moves from 1 as a student counts them, e.g.
/// "move 2 (card 5 onto 1): card 5 is at position 2, 1 place right of 1; ...".
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Finding::Solved => f.write_str("the moves solve the layout"),
            Finding::NoCount => f.write_str("there is no integer at all, so not even the number of moves"),
            Finding::NegativeCount { count } => write!(f, "the number of moves, {count}, is negative"),
            Finding::CountLargerThanMovesGiven { count, moves_given, dangling } => {
                let half = if dangling { " and half of one" } else { "" };
                write!(f, "the solution announces {} but gives only {moves_given}{half}", count_of(count, "move"))
            }
            Finding::PilesLeft { moves, piles } => {
                let were = agreeing(moves, "was", "were");
                write!(f, "after {} {were} played, {piles} piles are left, not 1", count_of(moves, "move"))
            }
            Finding::Illegal { index, card, to, reason, grace_left } => {
                write!(f, "move {} (card {card} onto {to}): ", index + 1)?;
                let grace_hint = if grace_left { "; the grace move, still unused, goes onto pile 0 only" } else { "" };
                match reason {
                    Illegal::CardNotInRow => write!(f, "card {card} is not on top of any pile in the row"),
                    Illegal::CardAtPositionZero => write!(f, "card {card} is at position 0 and cannot move left"),
                    Illegal::DestinationOutOfRange { position } => write!(
                        f,
                        "card {card} is at position {position}, so the destination must be 0 to {}",
                        position - 1
                    ),
                    Illegal::NotOneOrThreePlaces { position } => write!(
                        f,
                        "card {card} is at position {position}, {} places right of {to}; a move goes 1 or 3 places left{grace_hint}",
                        position as i64 - to
                    ),
                    Illegal::CardsDoNotMatch { position, onto } => write!(
                        f,
                        "card {card} (at position {position}) and card {onto} share neither rank nor suit{grace_hint}"
                    ),
                    Illegal::GraceAlreadyUsed { position, onto, used_by } => write!(
                        f,
                        "card {card} (at position {position}) cannot go onto {onto} without grace, and move {} used the grace",
                        used_by + 1
                    ),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latebinding::model::Deck;

    #[test]
    fn fenwick_finds_positions_and_slots() {
        for n in [1, 2, 3, 7, 8, 9, 33] {
            let mut tree = Fenwick::full(n);
            let mut live: Vec<usize> = (0..n).collect();
            for victim in [n / 2, 0, n - 1].into_iter().filter(|&v| v < n) {
                if let Some(at) = live.iter().position(|&s| s == victim) {
                    live.remove(at);
                    tree.kill(victim);
                }
                for (position, &slot) in live.iter().enumerate() {
                    assert_eq!(tree.slot_at(position), slot, "n {n}");
                    assert_eq!(tree.before(slot), position, "n {n}");
                }
            }
        }
    }

    #[test]
    fn table_plays_the_worked_example() {
        let layout = Layout { deck: Deck { ranks: 3, suits: 2 }, row: vec![1, 2, 3, 4, 5] };
        let mut table = Table::new(&layout);
        assert_eq!(table.apply(Variant::Plain, 4, 0), Ok(false));
        assert_eq!((table.card_at(0), table.position(5), table.position(1)), (Some(4), Some(3), None));
        assert_eq!(table.apply(Variant::Plain, 5, 0), Ok(false));
        assert_eq!((table.piles(), table.card_at(2), table.card_at(3)), (3, Some(3), None));
    }
}
