//! The search's view of a puzzle: its fixed [`Layout`] and the changing [`Position`].
//!
//! Input: a [`Puzzle`] and a [`Game`]. Output: a [`Layout`] (ranks of every pile, the unit and
//! twin-pile facts the prunes need, and the [`KeyLayout`] that packs positions into exact keys)
//! and a [`Position`] that plays and takes back [`Step`]s while keeping its key up to date.

use crate::model::{Card, Game, Puzzle};

use super::prune;

/// One move as the search makes it: which pile (the card is whatever is on top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Play the top card of the pile onto the black hole.
    Play(u32),
    /// Move the top card of the pile into the (empty) worm hole.
    ToWorm(u32),
    /// Play the worm hole's card onto the black hole.
    FromWorm,
}

/// What taking a step back needs: the step, the card it moved and the hole's rank before it.
#[derive(Clone, Copy, Debug)]
pub struct Played {
    pub step: Step,
    pub card: Card,
    prev_hole: u32,
}

/// A bit field of a key: which word, and where in it.
#[derive(Clone, Copy, Debug)]
struct Field {
    word: usize,
    shift: u32,
}

/// How a position packs into a key of `u64` words: one field per pile height, one for the
/// hole's rank and, in Worm Hole, one for the worm card's rank (0 when empty, else rank + 1).
///
/// The packing is injective (every field is wide enough for every value it can hold, and
/// fields never overlap), so equal keys mean equal (heights, hole rank, worm rank). Bit 0 of
/// the first word is a guard bit that is always set, so no key starts with a zero word (the
/// memo's empty-slot marker).
#[derive(Clone, Debug)]
pub struct KeyLayout {
    width: usize,
    heights: Vec<Field>,
    hole: Field,
    worm: Field,
}

/// The number of bits that hold every value in `0..=max`.
fn bits_for(max: u64) -> u32 {
    64 - max.leading_zeros()
}

impl KeyLayout {
    fn new(pile_lens: &[usize], ranks: u32) -> Self {
        let mut word = 0;
        let mut used = 1; // the guard bit
        let mut place = |bits: u32| {
            if used + bits > 64 {
                word += 1;
                used = 0;
            }
            let field = Field { word, shift: used };
            used += bits;
            field
        };
        let heights = pile_lens.iter().map(|&len| place(bits_for(len as u64))).collect();
        let hole = place(bits_for(u64::from(ranks) - 1));
        let worm = place(bits_for(u64::from(ranks)));
        KeyLayout { width: word + 1, heights, hole, worm }
    }

    /// Words per key.
    pub fn width(&self) -> usize {
        self.width
    }
}

/// The fixed facts about a puzzle that the search consults at every node.
#[derive(Clone, Debug)]
pub struct Layout {
    pub game: Game,
    pub ranks: u32,
    /// Each pile's cards, bottom first.
    pub cards: Vec<Vec<Card>>,
    /// Each pile's ranks, bottom first.
    pub pile_ranks: Vec<Vec<u32>>,
    /// `unit[p][i]`: every card below position `i` of pile `p` has the rank of card `i`.
    pub unit: Vec<Vec<bool>>,
    /// For each pile `p`, the earlier piles `q` whose bottom cards share `p`'s ranks, with the
    /// length of the common bottom run of ranks (at least 1).
    pub twins: Vec<Vec<(u32, u32)>>,
    pub key: KeyLayout,
}

impl Layout {
    pub fn new(puzzle: &Puzzle, game: Game) -> Self {
        let deck = puzzle.deck;
        let cards = puzzle.piles.clone();
        let pile_ranks: Vec<Vec<u32>> =
            cards.iter().map(|pile| pile.iter().map(|&c| deck.rank(c)).collect()).collect();
        let unit = pile_ranks.iter().map(|ranks| prune::unit_flags(ranks)).collect();
        let twins = (0..pile_ranks.len())
            .map(|p| {
                (0..p)
                    .filter_map(|q| {
                        let common = pile_ranks[p].iter().zip(&pile_ranks[q]).take_while(|(a, b)| a == b).count();
                        (common > 0).then_some((q as u32, common as u32))
                    })
                    .collect()
            })
            .collect();
        let lens: Vec<usize> = cards.iter().map(Vec::len).collect();
        Layout { game, ranks: deck.ranks, cards, pile_ranks, unit, twins, key: KeyLayout::new(&lens, deck.ranks) }
    }
}

/// A position of play: pile heights, the hole's rank, the worm card, and running totals.
#[derive(Clone, Debug)]
pub struct Position {
    pub heights: Vec<u32>,
    /// The rank of the card on top of the black hole (only its rank decides what may follow).
    pub hole: u32,
    pub worm: Option<Card>,
    /// Cards still to reach the black hole (in piles or the worm hole), by rank.
    pub counts: Vec<u32>,
    /// Cards still to reach the black hole.
    pub remaining: u32,
    pub key: Vec<u64>,
}

impl Position {
    /// The puzzle's starting position.
    pub fn start(layout: &Layout, puzzle: &Puzzle) -> Self {
        let mut counts = vec![0; layout.ranks as usize];
        for ranks in &layout.pile_ranks {
            for &r in ranks {
                counts[r as usize] += 1;
            }
        }
        let heights: Vec<u32> = layout.cards.iter().map(|p| p.len() as u32).collect();
        let hole = puzzle.deck.rank(puzzle.hole);
        let mut key = vec![0; layout.key.width];
        key[0] = 1;
        for (field, &h) in layout.key.heights.iter().zip(&heights) {
            key[field.word] |= u64::from(h) << field.shift;
        }
        let hole_field = layout.key.hole;
        key[hole_field.word] |= u64::from(hole) << hole_field.shift;
        let remaining = heights.iter().sum();
        Position { heights, hole, worm: None, counts, remaining, key }
    }

    /// Whether every card has reached the black hole.
    pub fn is_won(&self) -> bool {
        self.remaining == 0
    }

    /// The rank of the top card of pile `p`, if it has one.
    #[cfg(test)]
    pub fn top_rank(&self, layout: &Layout, p: usize) -> Option<u32> {
        let h = self.heights[p] as usize;
        (h > 0).then(|| layout.pile_ranks[p][h - 1])
    }

    fn set_hole(&mut self, layout: &Layout, rank: u32) {
        let field = layout.key.hole;
        let word = &mut self.key[field.word];
        *word = (*word & !(mask(layout.ranks - 1) << field.shift)) | (u64::from(rank) << field.shift);
        self.hole = rank;
    }

    fn set_worm(&mut self, layout: &Layout, worm: Option<Card>, rank_plus_one: u32) {
        let field = layout.key.worm;
        let word = &mut self.key[field.word];
        *word = (*word & !(mask(layout.ranks) << field.shift)) | (u64::from(rank_plus_one) << field.shift);
        self.worm = worm;
    }

    fn lower(&mut self, layout: &Layout, p: usize) -> (Card, u32) {
        let h = self.heights[p] as usize;
        debug_assert!(h > 0);
        self.heights[p] -= 1;
        let field = layout.key.heights[p];
        self.key[field.word] -= 1 << field.shift;
        (layout.cards[p][h - 1], layout.pile_ranks[p][h - 1])
    }

    fn raise(&mut self, layout: &Layout, p: usize) {
        self.heights[p] += 1;
        let field = layout.key.heights[p];
        self.key[field.word] += 1 << field.shift;
    }

    /// Makes a legal `step` and returns what [`Self::undo`] needs.
    pub fn apply(&mut self, layout: &Layout, step: Step) -> Played {
        let prev_hole = self.hole;
        let card = match step {
            Step::Play(p) => {
                let (card, rank) = self.lower(layout, p as usize);
                self.set_hole(layout, rank);
                self.counts[rank as usize] -= 1;
                self.remaining -= 1;
                card
            }
            Step::ToWorm(p) => {
                let (card, rank) = self.lower(layout, p as usize);
                self.set_worm(layout, Some(card), rank + 1);
                card
            }
            Step::FromWorm => {
                let card = self.worm.expect("FromWorm needs a card in the worm hole");
                let rank = (card - 1) % layout.ranks;
                self.set_worm(layout, None, 0);
                self.set_hole(layout, rank);
                self.counts[rank as usize] -= 1;
                self.remaining -= 1;
                card
            }
        };
        Played { step, card, prev_hole }
    }

    /// Takes back the step that `played` records (the last one made).
    pub fn undo(&mut self, layout: &Layout, played: Played) {
        let rank = (played.card - 1) % layout.ranks;
        match played.step {
            Step::Play(p) => {
                self.raise(layout, p as usize);
                self.counts[rank as usize] += 1;
                self.remaining += 1;
            }
            Step::ToWorm(p) => {
                self.raise(layout, p as usize);
                self.set_worm(layout, None, 0);
            }
            Step::FromWorm => {
                self.set_worm(layout, Some(played.card), rank + 1);
                self.counts[rank as usize] += 1;
                self.remaining += 1;
            }
        }
        self.set_hole(layout, played.prev_hole);
    }
}

/// The all-ones mask of a field that holds `0..=max`.
fn mask(max: u32) -> u64 {
    let bits = bits_for(u64::from(max));
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Deck;

    #[test]
    fn keys_change_and_return_exactly() {
        let puzzle = Puzzle {
            deck: Deck { ranks: 13, suits: 4 },
            hole: 1,
            piles: vec![vec![2, 3, 15], vec![], vec![40, 27, 14, 28, 41, 12, 13, 26, 52]],
        };
        let layout = Layout::new(&puzzle, Game::WormHole);
        let mut pos = Position::start(&layout, &puzzle);
        let start = pos.key.clone();
        let mut seen = vec![start.clone()];
        let mut undo = Vec::new();
        for step in [Step::Play(0), Step::ToWorm(2), Step::Play(0), Step::FromWorm, Step::Play(2)] {
            undo.push(pos.apply(&layout, step));
            assert!(!seen.contains(&pos.key), "every step here reaches a new position");
            seen.push(pos.key.clone());
        }
        while let Some(played) = undo.pop() {
            pos.undo(&layout, played);
        }
        assert_eq!(pos.key, start);
        assert_eq!(pos.heights, vec![3, 0, 9]);
        assert_eq!(pos.hole, 0);
    }

    #[test]
    fn wide_layouts_spill_into_more_words() {
        let piles: Vec<usize> = vec![1000; 20];
        let layout = KeyLayout::new(&piles, 13);
        assert_eq!(layout.width(), 4); // 20 fields of 10 bits, 6 per word after the guard bit
        let one = KeyLayout::new(&[0, 0, 3], 1);
        assert_eq!(one.width(), 1);
    }
}
