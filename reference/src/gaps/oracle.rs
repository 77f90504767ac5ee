//! The second oracle: whether a layout can be won, decided by a breadth-first walk over every
//! reachable position, written apart from the solver so that the two share no search code.
//!
//! Input: a [`Layout`], a [`Variant`] and a cap on positions. Output: a [`Decision`]. Where the
//! solver goes gap by gap on the layout's cells with the Ace column and a packed set, this one
//! keeps only the `S × R` cells right of the Ace column in a plain `HashMap` (each with the position it was reached from) and finds the
//! moves card by card: a card of rank 2 or more may go into the cell right of the card one
//! below it, when that cell is a gap; a Two into a first-column gap (of its own suit's row under
//! the basic variant, any row under the common one). It shares with the solver only the layout
//! it reads and [`Move`], the form it answers in. It is slow and memory-hungry, and meant for
//! suites' `0`s and small decks.

use std::collections::{HashMap, VecDeque};

use super::model::{Layout, Move, Variant};

/// What the oracle found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A won position is reachable by these moves (in the layout's positions).
    Winnable(Vec<Move>),
    /// Every reachable position (`positions` of them) was met and none is won.
    Unwinnable { positions: usize },
    /// More than the cap of positions are reachable: undecided.
    TooLarge { cap: usize },
}

/// The grid right of the Ace column: `rows × ranks` cells, 0 for a gap.
struct Grid {
    rows: usize,
    ranks: usize,
    variant: Variant,
}

impl Grid {
    fn rank(&self, card: u16) -> usize {
        (card as usize - 1) % self.ranks
    }

    fn suit(&self, card: u16) -> usize {
        (card as usize - 1) / self.ranks
    }

    /// Every position one move away from `cells`, with the move as (card, cell).
    fn next(&self, cells: &[u16]) -> Vec<(u16, usize)> {
        let mut at = vec![usize::MAX; self.rows * self.ranks + 1];
        for (cell, &card) in cells.iter().enumerate() {
            if card != 0 {
                at[card as usize] = cell;
            }
        }
        let mut found = Vec::new();
        for card in 1..=(self.rows * self.ranks) as u16 {
            match self.rank(card) {
                0 => {}
                1 => {
                    let rows: Vec<usize> = match self.variant {
                        Variant::Basic => vec![self.suit(card)],
                        Variant::Common => (0..self.rows).collect(),
                    };
                    found.extend(
                        rows.into_iter().map(|row| row * self.ranks).filter(|&c| cells[c] == 0).map(|c| (card, c)),
                    );
                }
                _ => {
                    let below = at[card as usize - 1];
                    let right = below + 1;
                    if below % self.ranks + 1 < self.ranks && cells[right] == 0 {
                        found.push((card, right));
                    }
                }
            }
        }
        found
    }

    fn won(&self, cells: &[u16]) -> bool {
        cells.chunks(self.ranks).enumerate().all(|(row, line)| {
            let first = line[0];
            let suit_ok =
                first != 0 && self.rank(first) == 1 && (self.variant == Variant::Common || self.suit(first) == row);
            suit_ok
                && line[self.ranks - 1] == 0
                && line[..self.ranks - 1].iter().enumerate().all(|(i, &c)| c as usize == first as usize + i)
        })
    }
}

/// Each position met, with the position, card and cell of the move it was first reached by.
/// (Cells are `u16`: the parser takes decks of up to 1000 cards.)
type Parents = HashMap<Vec<u16>, Option<(Vec<u16>, u16, usize)>>;

/// Decides whether `layout` can be won under `variant`, meeting at most `cap` positions.
pub fn decide(layout: &Layout, variant: Variant, cap: usize) -> Decision {
    let ranks = layout.deck.ranks as usize;
    let grid = Grid { rows: layout.rows(), ranks, variant };
    let start: Vec<u16> = layout.cells.chunks(ranks + 1).flat_map(|row| row[1..].iter().map(|&c| c as u16)).collect();
    let mut parent = Parents::new();
    let mut queue = VecDeque::new();
    parent.insert(start.clone(), None);
    queue.push_back(start);
    while let Some(cells) = queue.pop_front() {
        if grid.won(&cells) {
            return Decision::Winnable(line_to(&parent, cells, ranks));
        }
        for (card, cell) in grid.next(&cells) {
            let mut after = cells.clone();
            let from = after.iter().position(|&c| c == card).expect("the card lies somewhere");
            after[from] = 0;
            after[cell] = card;
            if parent.contains_key(&after) {
                continue;
            }
            if parent.len() >= cap {
                return Decision::TooLarge { cap };
            }
            parent.insert(after.clone(), Some((cells.clone(), card, cell)));
            queue.push_back(after);
        }
    }
    Decision::Unwinnable { positions: parent.len() }
}

/// The moves from the start to `cells`, in the layout's positions (a row of `ranks` cells
/// here is a row of `ranks + 1` there).
fn line_to(parent: &Parents, mut cells: Vec<u16>, ranks: usize) -> Vec<Move> {
    let mut line = Vec::new();
    while let Some(Some((before, card, cell))) = parent.get(&cells) {
        line.push(Move { card: u32::from(*card), to: cell / ranks * (ranks + 1) + cell % ranks + 1 });
        cells = before.clone();
    }
    line.reverse();
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gaps::check::check;
    use crate::gaps::model::move_integers;
    use crate::gaps::parse::parse_layout;

    #[test]
    fn the_papers_figure_is_winnable_and_its_line_checks() {
        let layout = parse_layout("f", "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n").unwrap();
        let Decision::Winnable(line) = decide(&layout, Variant::Basic, 1000) else { panic!() };
        let integers = move_integers(&line);
        assert!(check(&layout, Variant::Basic, &integers).is_solution());
        assert_eq!(decide(&layout, Variant::Basic, 3), Decision::TooLarge { cap: 3 });
        let stuck = parse_layout("s", "3 2\n1 2 3 0\n4 6 0 5\n").unwrap();
        assert_eq!(decide(&stuck, Variant::Basic, 10), Decision::Unwinnable { positions: 1 });
    }
}
