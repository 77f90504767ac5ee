//! The checker: do a list of integers solve a layout?
//!
//! Input: a [`Layout`], a [`Variant`] and the integers of a candidate solution (as
//! [`super::parse::read_integers`] reads them: `card position` pairs, no leading count). Output:
//! a [`CheckReport`] whose [`Finding`] says exactly what happened: solved; which move failed
//! and why ([`Illegal`]), a half move at the end, or the position reached is not won.
//!
//! `CHECK` is `true` exactly when every pair is a legal move in turn and the last leaves the
//! game won (`docs/gaps.md`, "Solutions and the commands"). A won position has no legal move
//! (every gap follows a King), so nothing may follow a solution: there is no reading of extra
//! input to rule on.

use std::fmt;

use super::model::{Layout, Move, Variant, GAP};

/// The result of checking one candidate solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The moves that were legal, in order (all of them when the solution is good).
    pub legal_moves: Vec<Move>,
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
    /// Every move is legal and the game is won after the last.
    Solved,
    /// Move `index` (0-based), `card to`, is illegal.
    Illegal { index: usize, card: i64, to: i64, reason: Illegal },
    /// The moves before it were legal; then one integer, half a move, is left.
    Dangling { moves: usize, card: i64 },
    /// The `moves` moves were legal but the game is not won.
    NotWon { moves: usize, row: usize },
}

/// Why a move is illegal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The card is not a card of the deck (or is an Ace, which never moves).
    NotACard,
    IsAnAce,
    /// The position is not a position of the layout.
    NoSuchPosition {
        positions: usize,
    },
    /// The position holds a card, not a gap.
    NotAGap {
        holds: u32,
    },
    /// The position is in the Ace column.
    AceColumn,
    /// The cell left of the gap is a gap.
    GapOnTheLeft,
    /// The card left of the gap is a King: nothing follows it.
    KingOnTheLeft {
        king: u32,
    },
    /// The card is not the successor (same suit, one higher) of the card on the left.
    NotTheSuccessor {
        left: u32,
        wanted: u32,
    },
    /// A gap in column 1 takes only the Two of its row's suit (basic) or a Two (common).
    NotTheTwo {
        wanted: Option<u32>,
    },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Solved => write!(f, "the moves solve the layout"),
            Finding::Illegal { index, card, to, reason } => {
                write!(f, "move {} (card {card} into position {to}) is illegal: {reason}", index + 1)
            }
            Finding::Dangling { moves, card } => write!(
                f,
                "after {} legal {} one integer, {card}, is left: a move is a card and a position",
                moves,
                if *moves == 1 { "move" } else { "moves" }
            ),
            Finding::NotWon { moves, row } => write!(
                f,
                "after {} legal {} the game is not won: row {row} does not run from its Two to its King with the gap last",
                moves,
                if *moves == 1 { "move" } else { "moves" }
            ),
        }
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::NotACard => write!(f, "there is no such card"),
            Illegal::IsAnAce => write!(f, "the card is an Ace, and Aces never move"),
            Illegal::NoSuchPosition { positions } => {
                write!(f, "positions run from 0 to {}", positions - 1)
            }
            Illegal::NotAGap { holds } => write!(f, "the position holds card {holds}, not a gap"),
            Illegal::AceColumn => write!(f, "the position is in the Ace column"),
            Illegal::GapOnTheLeft => write!(f, "the cell on the gap's left is a gap, so nothing may go there"),
            Illegal::KingOnTheLeft { king } => {
                write!(f, "card {king} on the gap's left is a King, so nothing may go there")
            }
            Illegal::NotTheSuccessor { left, wanted } => write!(
                f,
                "only card {wanted}, the next card of the suit of card {left} on the gap's left, may go there"
            ),
            Illegal::NotTheTwo { wanted: Some(two) } => {
                write!(f, "a gap in the first column takes only the Two of its row's suit, card {two}")
            }
            Illegal::NotTheTwo { wanted: None } => write!(f, "a gap in the first column takes only a Two"),
        }
    }
}

/// Why `card` may not go into position `to` of `layout` under `variant`, if it may not.
pub fn illegal(layout: &Layout, variant: Variant, card: i64, to: i64) -> Option<Illegal> {
    let deck = layout.deck;
    let Some(card) = u32::try_from(card).ok().filter(|&c| deck.contains(c)) else { return Some(Illegal::NotACard) };
    if deck.rank(card) == 0 {
        return Some(Illegal::IsAnAce);
    }
    let positions = layout.cells.len();
    let Some(to) = usize::try_from(to).ok().filter(|&p| p < positions) else {
        return Some(Illegal::NoSuchPosition { positions });
    };
    if layout.cells[to] != GAP {
        return Some(Illegal::NotAGap { holds: layout.cells[to] });
    }
    let column = layout.column(to);
    if column == 0 {
        return Some(Illegal::AceColumn);
    }
    if column == 1 {
        return match variant {
            Variant::Basic => {
                let two = layout.home_card(to / layout.width(), 1);
                (card != two).then_some(Illegal::NotTheTwo { wanted: Some(two) })
            }
            Variant::Common => (!layout.is_two(card)).then_some(Illegal::NotTheTwo { wanted: None }),
        };
    }
    let left = layout.cells[to - 1];
    if left == GAP {
        return Some(Illegal::GapOnTheLeft);
    }
    match layout.successor_wanted(to) {
        None => Some(Illegal::KingOnTheLeft { king: left }),
        Some(wanted) => (card != wanted).then_some(Illegal::NotTheSuccessor { left, wanted }),
    }
}

/// Checks the candidate `integers` against `layout` under `variant`.
pub fn check(layout: &Layout, variant: Variant, integers: &[i64]) -> CheckReport {
    let mut position = layout.clone();
    let mut place = position.places();
    let mut legal_moves = Vec::new();
    let mut pairs = integers.chunks(2);
    for (index, pair) in pairs.by_ref().enumerate() {
        let &[card, to] = pair else {
            let finding = Finding::Dangling { moves: legal_moves.len(), card: pair[0] };
            return CheckReport { legal_moves, finding };
        };
        if let Some(reason) = illegal(&position, variant, card, to) {
            return CheckReport { legal_moves, finding: Finding::Illegal { index, card, to, reason } };
        }
        let m = Move { card: card as u32, to: to as usize };
        position.play(m, &mut place);
        legal_moves.push(m);
    }
    let finding = match first_unwon_row(&position, variant) {
        None => Finding::Solved,
        Some(row) => Finding::NotWon { moves: legal_moves.len(), row },
    };
    CheckReport { legal_moves, finding }
}

/// The first row that keeps `layout` from being won, if any.
fn first_unwon_row(layout: &Layout, variant: Variant) -> Option<usize> {
    (0..layout.rows()).find(|&row| !layout.row_won(row, variant))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gaps::parse::{parse_layout, read_integers};

    /// The paper's Figure 1 (`docs/gaps.md`): 4 suits of 4 ranks.
    const FIGURE: &str = "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n";

    fn finding(variant: Variant, text: &str) -> Finding {
        check(&parse_layout("f", FIGURE).unwrap(), variant, &read_integers(text)).finding
    }

    #[test]
    fn findings_say_what_went_wrong() {
        // The gap at position 8 (row 1, column 3) follows card 4, a King: nothing goes there.
        assert_eq!(
            finding(Variant::Basic, "2 8").to_string(),
            "move 1 (card 2 into position 8) is illegal: the position holds card 6, not a gap"
        );
        assert!(matches!(finding(Variant::Basic, "1 13"), Finding::Illegal { reason: Illegal::IsAnAce, .. }));
        assert!(matches!(finding(Variant::Basic, "17 13"), Finding::Illegal { reason: Illegal::NotACard, .. }));
        assert!(matches!(
            finding(Variant::Basic, "4 20"),
            Finding::Illegal { reason: Illegal::NoSuchPosition { positions: 20 }, .. }
        ));
        // Position 14 (row 2, column 4) follows a gap.
        assert_eq!(
            finding(Variant::Basic, "4 14").to_string(),
            "move 1 (card 4 into position 14) is illegal: the cell on the gap's left is a gap, so nothing may go there"
        );
        // Position 13 (row 2, column 3) follows card 3: only card 4 goes, not 8 (same rank, other suit).
        assert_eq!(finding(Variant::Basic, "8 13").to_string(),
            "move 1 (card 8 into position 13) is illegal: only card 4, the next card of the suit of card 3 on the gap's left, may go there");
        assert_eq!(finding(Variant::Basic, "4 13 3"), Finding::Dangling { moves: 1, card: 3 });
        assert_eq!(finding(Variant::Basic, "4 13"), Finding::NotWon { moves: 1, row: 0 });
        assert_eq!(finding(Variant::Basic, ""), Finding::NotWon { moves: 0, row: 0 });
    }

    #[test]
    fn the_first_column_takes_the_rows_two_or_any_two() {
        let layout = parse_layout("g", "3 2\n1 0 3 2\n4 6 5 0\n").unwrap();
        assert_eq!(
            illegal(&layout, Variant::Basic, 5, 1),
            Some(Illegal::NotTheTwo { wanted: Some(2) }),
            "card 5 is row 1's Two"
        );
        assert_eq!(illegal(&layout, Variant::Common, 5, 1), None);
        assert_eq!(illegal(&layout, Variant::Common, 3, 1), Some(Illegal::NotTheTwo { wanted: None }));
        assert_eq!(illegal(&layout, Variant::Basic, 2, 0), Some(Illegal::NotAGap { holds: 1 }));
        assert_eq!(illegal(&layout, Variant::Basic, 3, 7), Some(Illegal::NotTheSuccessor { left: 5, wanted: 6 }));
        assert_eq!(illegal(&layout, Variant::Basic, 6, 7), None);
        let king_first = parse_layout("g", "3 2\n1 3 0 2\n4 6 5 0\n").unwrap();
        assert_eq!(illegal(&king_first, Variant::Common, 2, 2), Some(Illegal::KingOnTheLeft { king: 3 }));
    }
}
