//! The search's view of a puzzle: its fixed [`Layout`] and the changing [`Position`].
//!
//! Input: a [`Puzzle`] and a [`Game`]. Output: a [`Layout`] (ranks of every pile, the unit and
//! twin-pile facts the prunes need, and the [`KeyLayout`] that packs positions into exact keys)
//! and a [`Position`] that plays and takes back [`Step`]s while keeping its key up to date.

use crate::blackhole::model::{Card, Game, Puzzle};

use super::key::KeyLayout;
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
    /// [`Step::ToWorm`] then [`Step::Play`] from the same pile: the only way the search uses
    /// the worm hole (see [`prune::worm_then_play`]).
    WormPlay(u32),
}

/// What taking a step back needs: the step, the card(s) it moved and the hole's rank before it.
#[derive(Clone, Copy, Debug)]
pub struct Played {
    pub step: Step,
    pub card: Card,
    /// For [`Step::WormPlay`], the card played after `card` went into the worm hole.
    pub second: Card,
    prev_hole: u32,
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
    /// `prefix[p][h - 1]`: the class of the bottom `h` ranks of pile `p`: equal for two
    /// (pile, height) pairs exactly when their heights are equal and so are their ranks, bottom
    /// to top (see [`prefix_ids`]).
    pub prefix: Vec<Vec<u32>>,
    /// The number of prefix classes (every id in `prefix` is below it).
    pub prefixes: usize,
    /// For each pile `p`, the earlier piles `q` whose bottom cards share `p`'s ranks, with the
    /// length of the common bottom run of ranks (at least 1), for [`prune::has_earlier_twin`]:
    /// quadratic in the piles, so only for layouts of at most [`FEW_PILES`] piles (empty
    /// otherwise), where it is the fastest test; larger ones use `prefix`.
    pub twins: Vec<Vec<(u32, u32)>>,
    pub key: KeyLayout,
}

/// The most piles for which [`Layout::twins`] is listed.
pub const FEW_PILES: usize = 64;

/// Numbers the bottom runs of ranks of every pile: `ids[p][h - 1]` is equal for `(p, h)` and
/// `(q, g)` exactly when `h == g` and `piles[p][..h] == piles[q][..h]`. Ids are dense, from 1, in
/// order of first appearance (pile by pile, bottom up); the second value is one past the
/// largest.
///
/// The runs form a trie (a run's parent is the run one card shorter), so each id is found from
/// its parent's id and its top rank in one hash lookup: O(cards) in all, where comparing piles
/// pairwise would be quadratic in the number of piles.
pub fn prefix_ids(piles: &[Vec<u32>]) -> (Vec<Vec<u32>>, usize) {
    let mut children: std::collections::HashMap<(u32, u32), u32> = std::collections::HashMap::new();
    let mut next = 1u32;
    let ids = piles
        .iter()
        .map(|ranks| {
            let mut parent = 0u32;
            ranks
                .iter()
                .map(|&rank| {
                    parent = *children.entry((parent, rank)).or_insert_with(|| {
                        next += 1;
                        next - 1
                    });
                    parent
                })
                .collect()
        })
        .collect();
    (ids, next as usize)
}

impl Layout {
    pub fn new(puzzle: &Puzzle, game: Game) -> Self {
        let deck = puzzle.deck;
        let cards = puzzle.piles.clone();
        let pile_ranks: Vec<Vec<u32>> = cards.iter().map(|pile| pile.iter().map(|&c| deck.rank(c)).collect()).collect();
        let unit = pile_ranks.iter().map(|ranks| prune::unit_flags(ranks)).collect();
        let few = pile_ranks.len() <= FEW_PILES;
        let twins = (0..if few { pile_ranks.len() } else { 0 })
            .map(|p| {
                (0..p)
                    .filter_map(|q| {
                        let common = pile_ranks[p].iter().zip(&pile_ranks[q]).take_while(|(a, b)| a == b).count();
                        (common > 0).then_some((q as u32, common as u32))
                    })
                    .collect()
            })
            .collect();
        let (prefix, prefixes) = prefix_ids(&pile_ranks);
        let key = KeyLayout::with_prefixes(&pile_ranks, &prefix, prefixes, deck.ranks);
        Layout { game, ranks: deck.ranks, cards, pile_ranks, unit, prefix, prefixes, twins, key }
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
    /// How often each remnant class occurs (kept for updating the key).
    occurrences: Vec<u32>,
    /// Each pile's top rank and the rank beneath it ([`NO_CARD`] where there is none): the
    /// search scans these for the moves, in one array, rather than every pile's ranks.
    pub tops: Vec<u32>,
    pub unders: Vec<u32>,
    /// The ranks of the bottom cards of non-empty piles, as a mask (bit `r` for rank `r`; every
    /// rank from 64 on is set): the ranks a Black Hole game can end with (see
    /// [`super::search::last_card_ranks`]).
    pub ends: u64,
    /// How many non-empty piles have a bottom card of each rank, for `ends` (empty for decks of
    /// more than 64 ranks, whose `ends` is always full).
    bottoms: Vec<u32>,
}

/// The rank in [`Position::tops`] and [`Position::unders`] where a pile has no such card: no
/// rank is adjacent to it.
pub const NO_CARD: u32 = u32::MAX;

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
        let (key, occurrences) = layout.key.start(&heights, hole);
        let remaining = heights.iter().sum();
        let piles = heights.len();
        let mut pos = Position {
            // Raised to the real heights below, which fills the fields that follow them.
            heights: vec![0; piles],
            hole,
            worm: None,
            counts,
            remaining,
            key,
            occurrences,
            tops: vec![NO_CARD; piles],
            unders: vec![NO_CARD; piles],
            ends: if layout.ranks > 64 { u64::MAX } else { 0 },
            // Past 64 ranks the mask stays full, as `last_card_ranks` defines it.
            bottoms: vec![0; if layout.ranks > 64 { 0 } else { layout.ranks as usize }],
        };
        for (p, &h) in heights.iter().enumerate() {
            pos.set_height(layout, p, h);
        }
        pos
    }

    /// Sets pile `p`'s height to `h`, keeping `tops`, `unders` and `ends`.
    fn set_height(&mut self, layout: &Layout, p: usize, h: u32) {
        let ranks = &layout.pile_ranks[p];
        let old = std::mem::replace(&mut self.heights[p], h);
        self.tops[p] = if h > 0 { ranks[h as usize - 1] } else { NO_CARD };
        self.unders[p] = if h > 1 { ranks[h as usize - 2] } else { NO_CARD };
        if (h == 0) != (old == 0) {
            if let Some(count) = self.bottoms.get_mut(ranks[0] as usize) {
                if h == 0 {
                    *count -= 1;
                } else {
                    *count += 1;
                }
                let bit = 1u64 << ranks[0];
                self.ends = if *count > 0 { self.ends | bit } else { self.ends & !bit };
            }
        }
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
        layout.key.set_hole(&mut self.key, rank);
        self.hole = rank;
    }

    fn set_worm(&mut self, layout: &Layout, worm: Option<Card>, rank_plus_one: u32) {
        layout.key.set_worm(&mut self.key, rank_plus_one);
        self.worm = worm;
    }

    fn lower(&mut self, layout: &Layout, p: usize) -> (Card, u32) {
        let h = self.heights[p];
        debug_assert!(h > 0);
        layout.key.lower(&mut self.key, &mut self.occurrences, p, h);
        self.set_height(layout, p, h - 1);
        let top = h as usize - 1;
        (layout.cards[p][top], layout.pile_ranks[p][top])
    }

    fn raise(&mut self, layout: &Layout, p: usize) {
        let h = self.heights[p] + 1;
        layout.key.raise(&mut self.key, &mut self.occurrences, p, h);
        self.set_height(layout, p, h);
    }

    /// Turns `key`, a copy of this position's key, into the key after [`Step::Play`] from
    /// pile `p`, without making the move.
    pub fn key_after_play(&self, layout: &Layout, p: usize, key: &mut [u64]) {
        let h = self.heights[p];
        layout.key.lowered(key, &self.occurrences, p, h);
        layout.key.set_hole(key, layout.pile_ranks[p][h as usize - 1]);
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
            Step::WormPlay(p) => {
                let first = self.apply(layout, Step::ToWorm(p));
                let second = self.apply(layout, Step::Play(p));
                return Played { step, card: first.card, second: second.card, prev_hole };
            }
        };
        Played { step, card, second: 0, prev_hole }
    }

    /// Takes back the step that `played` records (the last one made).
    pub fn undo(&mut self, layout: &Layout, played: Played) {
        let rank = (played.card - 1) % layout.ranks;
        match played.step {
            Step::WormPlay(p) => {
                self.undo(layout, Played { step: Step::Play(p), card: played.second, ..played });
                self.undo(layout, Played { step: Step::ToWorm(p), ..played });
                return;
            }
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::blackhole::model::Deck;

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
        // The scanned copies of the piles' top ranks, and the mask of bottom ranks, follow.
        let scanned = |pos: &Position| {
            for p in 0..3 {
                let h = pos.heights[p] as usize;
                let rank = |i: usize| layout.pile_ranks[p][i];
                assert_eq!(pos.tops[p], if h > 0 { rank(h - 1) } else { NO_CARD });
                assert_eq!(pos.unders[p], if h > 1 { rank(h - 2) } else { NO_CARD });
            }
            assert_eq!(pos.ends, super::super::search::last_card_ranks(&layout, &pos.heights));
        };
        scanned(&pos);
        for step in [Step::Play(0), Step::ToWorm(2), Step::Play(0), Step::FromWorm, Step::WormPlay(2), Step::Play(2)] {
            undo.push(pos.apply(&layout, step));
            assert!(!seen.contains(&pos.key), "every step here reaches a new position: {step:?}");
            seen.push(pos.key.clone());
            scanned(&pos);
        }
        assert_eq!(pos.ends, 0b11, "the bottom cards 2 and 40 (ranks 1 and 0) are left; pile 1 is empty");
        while let Some(played) = undo.pop() {
            pos.undo(&layout, played);
            scanned(&pos);
        }
        assert_eq!(pos.key, start);
        assert_eq!(pos.heights, vec![3, 0, 9]);
        assert_eq!(pos.hole, 0);
    }
}

#[cfg(test)]
mod prefix_tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn prefix_ids_are_equal_exactly_for_equal_bottom_runs() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..200 {
            let piles: Vec<Vec<u32>> =
                (0..rng.below(12)).map(|_| (0..rng.below(5)).map(|_| rng.below(3)).collect()).collect();
            let (ids, count) = prefix_ids(&piles);
            for (p, a) in piles.iter().enumerate() {
                for (q, b) in piles.iter().enumerate() {
                    for h in 1..=a.len() {
                        for g in 1..=b.len() {
                            let same = h == g && a[..h] == b[..g];
                            assert_eq!(ids[p][h - 1] == ids[q][g - 1], same, "{piles:?} {p}/{h} {q}/{g}");
                            assert!((ids[p][h - 1] as usize) < count);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_twin_rule_by_prefix_ids_is_the_rule_as_stated() {
        let mut rng = SplitMix64::new(8);
        for _ in 0..300 {
            let piles: Vec<Vec<u32>> =
                (0..rng.below(10)).map(|_| (0..rng.below(5)).map(|_| rng.below(3)).collect()).collect();
            let (ids, _) = prefix_ids(&piles);
            let heights: Vec<u32> = piles.iter().map(|p| rng.below(p.len() as u32 + 1)).collect();
            let twins: Vec<Vec<(u32, u32)>> = (0..piles.len())
                .map(|p| {
                    (0..p)
                        .filter_map(|q| {
                            let common = piles[p].iter().zip(&piles[q]).take_while(|(a, b)| a == b).count();
                            (common > 0).then_some((q as u32, common as u32))
                        })
                        .collect()
                })
                .collect();
            for p in 0..piles.len() {
                let h = heights[p];
                if h == 0 {
                    continue;
                }
                let by_ids = (0..p).any(|q| heights[q] == h && ids[q][h as usize - 1] == ids[p][h as usize - 1]);
                assert_eq!(by_ids, prune::has_earlier_twin(&twins[p], &heights, h), "{piles:?} {heights:?} {p}");
            }
        }
    }
}
