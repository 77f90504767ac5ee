//! The second oracle: whether a layout can be won, decided by a breadth-first walk over every
//! reachable position, written apart from the solver so that the two share no search code.
//!
//! Input: a [`Layout`], a [`Variant`] and a cap on positions. Output: a [`Decision`]. Where the
//! solver goes gap by gap on the layout's cells with the Ace column and a packed set, this one
//! keeps only the `S × R` cells right of the Ace column, packed in a list of its own (each with
//! the move it was reached by), and finds the moves card by card: a card of rank 2 or more may
//! go into the cell right of the card one below it, when that cell is a gap; a Two into a
//! first-column gap (of its own suit's row under the basic variant, any row under the common
//! one). It shares with the solver only the layout it reads and [`Move`], the form it answers
//! in. It meets every position the solver's reductions leave out, and is meant for suites' `0`s,
//! the solver's `0`s and small decks.

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

/// How a position was first reached: from the position met `from`-th, by `card` into `cell`
/// (`from` is `u32::MAX` for the start).
#[derive(Clone, Copy)]
struct Step {
    from: u32,
    card: u16,
    cell: u16,
}

/// Every position met, in the order met (so the breadth-first queue is this list itself), each
/// packed into `words` words of `bits` bits a cell with the step it was first reached by, and an
/// open-addressed table of their places in the list. About 60 bytes a position on a full deck,
/// where a map of vectors took 300, so that the deals whose reachable positions run into the
/// tens of millions fit.
struct Met {
    bits: usize,
    words: usize,
    packed: Vec<u64>,
    steps: Vec<Step>,
    /// A position's place in the list plus one; 0 for an empty slot. Never more than half full.
    slots: Vec<u32>,
}

impl Met {
    fn new(cells: usize, cards: usize) -> Met {
        let bits = (usize::BITS - cards.leading_zeros()) as usize;
        let words = (cells * bits).div_ceil(64);
        Met { bits, words, packed: Vec::new(), steps: Vec::new(), slots: vec![0; 1 << 10] }
    }

    fn len(&self) -> usize {
        self.steps.len()
    }

    fn pack(&self, cells: &[u16], key: &mut [u64]) {
        key.fill(0);
        for (i, &card) in cells.iter().enumerate() {
            let bit = i * self.bits;
            key[bit / 64] |= u64::from(card) << (bit % 64);
            if bit % 64 + self.bits > 64 {
                key[bit / 64 + 1] |= u64::from(card) >> (64 - bit % 64);
            }
        }
    }

    fn unpack(&self, place: usize, cells: &mut [u16]) {
        let key = &self.packed[place * self.words..][..self.words];
        let mask = (1u64 << self.bits) - 1;
        for (i, cell) in cells.iter_mut().enumerate() {
            let bit = i * self.bits;
            let mut value = key[bit / 64] >> (bit % 64);
            if bit % 64 + self.bits > 64 {
                value |= key[bit / 64 + 1] << (64 - bit % 64);
            }
            *cell = (value & mask) as u16;
        }
    }

    fn slot_of(&self, key: &[u64]) -> Result<usize, usize> {
        let hash =
            key.iter().fold(0x9e37_79b9_7f4a_7c15_u64, |hash, &word| (hash ^ word).wrapping_mul(0xff51_afd7_ed55_8ccd));
        let mask = self.slots.len() - 1;
        let mut slot = (hash ^ (hash >> 29)) as usize & mask;
        loop {
            match self.slots[slot] {
                0 => return Err(slot),
                place if self.packed[(place as usize - 1) * self.words..][..self.words] == *key => return Ok(slot),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// Whether `key` was met before.
    fn contains(&self, key: &[u64]) -> bool {
        self.slot_of(key).is_ok()
    }

    /// Adds `key`, not met before, reached by `step`.
    fn add(&mut self, key: &[u64], step: Step) {
        if 2 * (self.len() + 1) > self.slots.len() {
            let mut slots = vec![0; self.slots.len() * 2];
            std::mem::swap(&mut slots, &mut self.slots);
            for place in slots.into_iter().filter(|&place| place != 0) {
                let known = &self.packed[(place as usize - 1) * self.words..][..self.words];
                let slot = self.slot_of(known).expect_err("each position is kept once");
                self.slots[slot] = place;
            }
        }
        let slot = self.slot_of(key).expect_err("a position is added once");
        self.packed.extend_from_slice(key);
        self.steps.push(step);
        self.slots[slot] = u32::try_from(self.len()).expect("fewer positions than the cap");
    }
}

/// The largest cap [`decide`] takes: a position's place in the list must fit its table's slots.
pub const MAX_CAP: usize = u32::MAX as usize - 1;

/// Decides whether `layout` can be won under `variant`, meeting at most `cap` positions (at
/// most [`MAX_CAP`]).
pub fn decide(layout: &Layout, variant: Variant, cap: usize) -> Decision {
    let cap = cap.min(MAX_CAP);
    let ranks = layout.deck.ranks as usize;
    let grid = Grid { rows: layout.rows(), ranks, variant };
    let start: Vec<u16> = layout.cells.chunks(ranks + 1).flat_map(|row| row[1..].iter().map(|&c| c as u16)).collect();
    let mut met = Met::new(start.len(), grid.rows * ranks);
    let mut key = vec![0; met.words];
    met.pack(&start, &mut key);
    met.add(&key, Step { from: u32::MAX, card: 0, cell: 0 });
    let (mut cells, mut after) = (start.clone(), start);
    let mut place = 0;
    while place < met.len() {
        met.unpack(place, &mut cells);
        if grid.won(&cells) {
            return Decision::Winnable(line_to(&met, place, ranks));
        }
        for (card, cell) in grid.next(&cells) {
            after.copy_from_slice(&cells);
            let from = after.iter().position(|&c| c == card).expect("the card lies somewhere");
            after[from] = 0;
            after[cell] = card;
            met.pack(&after, &mut key);
            if met.contains(&key) {
                continue;
            }
            if met.len() >= cap {
                return Decision::TooLarge { cap };
            }
            let step = Step { from: place as u32, card, cell: u16::try_from(cell).expect("at most 1000 cells") };
            met.add(&key, step);
        }
        place += 1;
    }
    Decision::Unwinnable { positions: met.len() }
}

/// The moves from the start to the position met `place`-th, in the layout's positions (a row
/// of `ranks` cells here is a row of `ranks + 1` there).
fn line_to(met: &Met, mut place: usize, ranks: usize) -> Vec<Move> {
    let mut line = Vec::new();
    loop {
        let Step { from, card, cell } = met.steps[place];
        if from == u32::MAX {
            break;
        }
        let cell = usize::from(cell);
        line.push(Move { card: u32::from(card), to: cell / ranks * (ranks + 1) + cell % ranks + 1 });
        place = from as usize;
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

    #[test]
    fn a_position_kept_is_found_again_and_unpacks_to_itself_at_any_width() {
        for cards in [3usize, 52, 100, 1000] {
            let positions: Vec<Vec<u16>> = (0..5_000)
                .map(|seed: usize| (0..cards + 7).map(|i| ((i * 31 + seed * 17) % (cards + 1)) as u16).collect())
                .collect();
            let mut met = Met::new(cards + 7, cards);
            let mut key = vec![0; met.words];
            for (place, cells) in positions.iter().enumerate() {
                met.pack(cells, &mut key);
                if !met.contains(&key) {
                    met.add(&key, Step { from: place as u32, card: 0, cell: 0 });
                }
            }
            let distinct: std::collections::HashSet<&Vec<u16>> = positions.iter().collect();
            assert_eq!(met.len(), distinct.len(), "{cards} cards");
            let mut cells = vec![0; cards + 7];
            for place in 0..met.len() {
                met.unpack(place, &mut cells);
                assert!(distinct.contains(&cells), "{cards} cards: position {place} unpacks to one never kept");
                met.pack(&cells, &mut key);
                assert!(met.contains(&key));
            }
        }
    }
}
