//! Exact keys for positions, up to an equivalence that keeps solvability.
//!
//! Input: the ranks of every pile, bottom first (from [`super::state::Layout`]), and
//! then, move by move, which pile went down or up. Output: a [`KeyLayout`] that maintains a
//! key of `u64` words in O(1) per move, equal for two positions exactly when they are
//! equivalent (see [`KeyLayout`]).

use super::prune;

/// A bit field of a key: which word, and where in it.
#[derive(Clone, Copy, Debug)]
struct Field {
    word: usize,
    shift: u32,
}

/// What the cards left in one pile (its *remnant*) count as in a key.
#[derive(Clone, Copy, Debug)]
enum Remnant {
    /// All cards of one rank (a run of unit cards): only how many there are of that rank
    /// matters.
    Unit { rank: u32 },
    /// Anything else: one of the classes of remnants with identical ranks, bottom to top.
    Class(u32),
}

/// How a position packs into its key: the multiset of its non-unit remnants, the number of
/// cards in unit remnants for each rank, the hole's rank and the worm card's rank.
///
/// Two positions that agree on these four are equivalent: mapping each non-unit remnant to
/// an identical one in the other position, and each play from a unit remnant of rank `r` to a
/// play from any non-empty unit remnant of rank `r`, turns a solution of one into a solution of
/// the other (every legality test sees only ranks; a solution may be taken to move no unit card
/// into the worm hole, by [`prune::may_enter_worm`]; when a non-unit remnant shrinks to a unit
/// one, so does its image). Conversely every field below is a function of the four, so equal
/// keys mean equivalent positions and no collision is possible.
///
/// Encoding: a class with `m` occurrences sets the bits of its first `m` members (the piles
/// that can hold such a remnant, in pile order), which encodes the multiset exactly. The unit
/// counts, hole rank and worm (0 for empty, else rank + 1) are plain fields, each wide enough for
/// every value it can hold. Bit 0 of the first word is a guard bit that is always set, so no key
/// starts with a zero word (the memo's empty-slot marker).
#[derive(Clone, Debug)]
pub struct KeyLayout {
    width: usize,
    /// `remnant[p][h - 1]`: what pile `p` at height `h` counts as.
    remnant: Vec<Vec<Remnant>>,
    /// For each class, one bit per member.
    class_bits: Vec<Vec<Field>>,
    /// For each rank, the number of its cards in unit remnants.
    unit_counts: Vec<Field>,
    hole: Field,
    hole_mask: u64,
    worm: Field,
    worm_mask: u64,
}

/// The number of bits that hold every value in `0..=max`.
fn bits_for(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// Hands out non-overlapping fields, never splitting one across words.
struct Placer {
    word: usize,
    used: u32,
}

impl Placer {
    fn place(&mut self, bits: u32) -> Field {
        if self.used + bits > 64 {
            self.word += 1;
            self.used = 0;
        }
        let field = Field { word: self.word, shift: self.used };
        self.used += bits;
        field
    }
}

impl KeyLayout {
    /// The layout for piles with these ranks (bottom first) in a deck of `ranks` ranks.
    #[cfg(test)]
    pub fn new(pile_ranks: &[Vec<u32>], ranks: u32) -> Self {
        let (prefix, prefixes) = super::state::prefix_ids(pile_ranks);
        Self::with_prefixes(pile_ranks, &prefix, prefixes, ranks)
    }

    /// The layout for piles with these ranks (bottom first) in a deck of `ranks` ranks, with the
    /// piles' bottom runs already numbered by
    /// [`super::state::prefix_ids`] (`prefixes` ids in all): a remnant's class is that of its
    /// run, so finding it costs one lookup, not a search of the earlier piles.
    pub fn with_prefixes(pile_ranks: &[Vec<u32>], prefix: &[Vec<u32>], prefixes: usize, ranks: u32) -> Self {
        let mut placer = Placer { word: 0, used: 1 };
        let hole = placer.place(bits_for(u64::from(ranks) - 1));
        let worm = placer.place(bits_for(u64::from(ranks)));
        let mut unit_max = vec![0u64; ranks as usize];
        let mut remnant: Vec<Vec<Remnant>> = Vec::with_capacity(pile_ranks.len());
        let mut class_bits: Vec<Vec<Field>> = Vec::new();
        // The class of each bottom run of ranks (by its prefix id), once one has been seen:
        // classes are numbered in order of first appearance, pile by pile, bottom up.
        let mut class_of: Vec<u32> = vec![u32::MAX; prefixes];
        for (ranks_p, prefix_p) in pile_ranks.iter().zip(prefix) {
            let unit = prune::unit_flags(ranks_p);
            let mut own = Vec::with_capacity(ranks_p.len());
            for h in 1..=ranks_p.len() {
                if unit[h - 1] {
                    unit_max[ranks_p[0] as usize] += 1;
                    own.push(Remnant::Unit { rank: ranks_p[0] });
                    continue;
                }
                let slot = &mut class_of[prefix_p[h - 1] as usize];
                if *slot == u32::MAX {
                    class_bits.push(Vec::new());
                    *slot = class_bits.len() as u32 - 1;
                }
                let class = *slot;
                class_bits[class as usize].push(placer.place(1));
                own.push(Remnant::Class(class));
            }
            remnant.push(own);
        }
        let unit_counts = unit_max.iter().map(|&max| placer.place(bits_for(max))).collect();
        KeyLayout {
            width: placer.word + 1,
            remnant,
            class_bits,
            unit_counts,
            hole,
            hole_mask: (1u64 << bits_for(u64::from(ranks) - 1)) - 1,
            worm,
            worm_mask: (1u64 << bits_for(u64::from(ranks))) - 1,
        }
    }

    /// Words per key.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The number of remnant classes (the length of the occurrence counts a key needs).
    pub fn classes(&self) -> usize {
        self.class_bits.len()
    }

    /// The key of piles at `heights` with the hole at rank `hole` and an empty worm hole, and
    /// the occurrence count of each class.
    pub fn start(&self, heights: &[u32], hole: u32) -> (Vec<u64>, Vec<u32>) {
        let mut key = vec![0; self.width];
        key[0] = 1;
        let mut occurrences = vec![0; self.classes()];
        for (p, &h) in heights.iter().enumerate() {
            if h > 0 {
                self.enter(&mut key, &mut occurrences, p, h);
            }
        }
        self.set_hole(&mut key, hole);
        (key, occurrences)
    }

    /// Adds the remnant of pile `p` at height `h >= 1`.
    fn enter(&self, key: &mut [u64], occurrences: &mut [u32], p: usize, h: u32) {
        match self.remnant[p][h as usize - 1] {
            Remnant::Unit { rank } => {
                let field = self.unit_counts[rank as usize];
                key[field.word] += u64::from(h) << field.shift;
            }
            Remnant::Class(class) => {
                let count = &mut occurrences[class as usize];
                let field = self.class_bits[class as usize][*count as usize];
                key[field.word] |= 1 << field.shift;
                *count += 1;
            }
        }
    }

    /// Removes the remnant of pile `p` at height `h >= 1`.
    fn leave(&self, key: &mut [u64], occurrences: &mut [u32], p: usize, h: u32) {
        match self.remnant[p][h as usize - 1] {
            Remnant::Unit { rank } => {
                let field = self.unit_counts[rank as usize];
                key[field.word] -= u64::from(h) << field.shift;
            }
            Remnant::Class(class) => {
                let count = &mut occurrences[class as usize];
                *count -= 1;
                let field = self.class_bits[class as usize][*count as usize];
                key[field.word] &= !(1 << field.shift);
            }
        }
    }

    /// Pile `p` goes down from height `h` to `h - 1`.
    pub fn lower(&self, key: &mut [u64], occurrences: &mut [u32], p: usize, h: u32) {
        self.leave(key, occurrences, p, h);
        if h > 1 {
            self.enter(key, occurrences, p, h - 1);
        }
    }

    /// [`Self::lower`] on a copy of a key, leaving the occurrence counts as they are.
    pub fn lowered(&self, key: &mut [u64], occurrences: &[u32], p: usize, h: u32) {
        let left = match self.remnant[p][h as usize - 1] {
            Remnant::Unit { rank } => {
                let field = self.unit_counts[rank as usize];
                key[field.word] -= u64::from(h) << field.shift;
                None
            }
            Remnant::Class(class) => {
                let field = self.class_bits[class as usize][occurrences[class as usize] as usize - 1];
                key[field.word] &= !(1 << field.shift);
                Some(class)
            }
        };
        if h > 1 {
            match self.remnant[p][h as usize - 2] {
                Remnant::Unit { rank } => {
                    let field = self.unit_counts[rank as usize];
                    key[field.word] += u64::from(h - 1) << field.shift;
                }
                Remnant::Class(class) => {
                    let count = occurrences[class as usize] - u32::from(left == Some(class));
                    let field = self.class_bits[class as usize][count as usize];
                    key[field.word] |= 1 << field.shift;
                }
            }
        }
    }

    /// Pile `p` goes up from height `h - 1` to `h`.
    pub fn raise(&self, key: &mut [u64], occurrences: &mut [u32], p: usize, h: u32) {
        if h > 1 {
            self.leave(key, occurrences, p, h - 1);
        }
        self.enter(key, occurrences, p, h);
    }

    pub fn set_hole(&self, key: &mut [u64], rank: u32) {
        let field = self.hole;
        let word = &mut key[field.word];
        *word = (*word & !(self.hole_mask << field.shift)) | (u64::from(rank) << field.shift);
    }

    /// Sets the worm field: 0 for an empty worm hole, else the worm card's rank + 1.
    pub fn set_worm(&self, key: &mut [u64], rank_plus_one: u32) {
        let field = self.worm;
        let word = &mut key[field.word];
        *word = (*word & !(self.worm_mask << field.shift)) | (u64::from(rank_plus_one) << field.shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(layout: &KeyLayout, heights: &[u32], hole: u32) -> Vec<u64> {
        layout.start(heights, hole).0
    }

    #[test]
    fn equivalent_positions_share_a_key_and_others_do_not() {
        // Piles (ranks, bottom first): two identical [2 5], a [2 5 5], a unit [7 7], a [7].
        let piles = vec![vec![2, 5], vec![2, 5], vec![2, 5, 5], vec![7, 7], vec![7]];
        let layout = KeyLayout::new(&piles, 13);
        assert_eq!(layout.width(), 1);
        // Which of the identical piles is lowered does not matter.
        assert_eq!(key_of(&layout, &[1, 2, 3, 2, 1], 0), key_of(&layout, &[2, 1, 3, 2, 1], 0));
        // Nor how the three sevens are split among unit remnants.
        assert_eq!(key_of(&layout, &[2, 2, 3, 1, 1], 0), key_of(&layout, &[2, 2, 3, 2, 0], 0));
        // [2 5 5] lowered to [2 5] is the same remnant as the others.
        assert_eq!(key_of(&layout, &[2, 0, 2, 2, 1], 0), key_of(&layout, &[2, 2, 0, 2, 1], 0));
        // Different multisets, different keys.
        assert_ne!(key_of(&layout, &[2, 2, 3, 2, 1], 0), key_of(&layout, &[2, 2, 3, 2, 0], 0));
        assert_ne!(key_of(&layout, &[2, 1, 3, 2, 1], 0), key_of(&layout, &[2, 2, 2, 2, 1], 0));
        assert_ne!(key_of(&layout, &[2, 2, 3, 2, 1], 0), key_of(&layout, &[2, 2, 3, 2, 1], 1));
    }

    #[test]
    fn moves_update_keys_as_a_fresh_start_would() {
        let piles = vec![vec![2, 5, 9, 5], vec![2, 5], vec![4, 4, 4], vec![], vec![2, 5, 9]];
        let layout = KeyLayout::new(&piles, 13);
        let mut heights = vec![4, 2, 3, 0, 3];
        let (mut key, mut occurrences) = layout.start(&heights, 3);
        // `lowered` on a copy agrees with `lower`, from every pile.
        let every_lowered = |key: &[u64], occurrences: &[u32], heights: &[u32]| {
            for p in (0..heights.len()).filter(|&p| heights[p] > 0) {
                let mut copy = key.to_vec();
                layout.lowered(&mut copy, occurrences, p, heights[p]);
                let mut lower = heights.to_vec();
                lower[p] -= 1;
                assert_eq!(copy, key_of(&layout, &lower, 3), "pile {p} of {heights:?}");
            }
        };
        for &p in &[0usize, 0, 4, 2, 1, 0, 2, 4] {
            every_lowered(&key, &occurrences, &heights);
            layout.lower(&mut key, &mut occurrences, p, heights[p]);
            heights[p] -= 1;
            assert_eq!(key, key_of(&layout, &heights, 3));
        }
        for &p in &[4usize, 2, 0, 1] {
            heights[p] += 1;
            layout.raise(&mut key, &mut occurrences, p, heights[p]);
            assert_eq!(key, key_of(&layout, &heights, 3));
        }
    }

    #[test]
    fn wide_layouts_spill_into_more_words() {
        let piles: Vec<Vec<u32>> = (0..20).map(|p| (0..10).map(|i| (p + i) % 13).collect()).collect();
        let layout = KeyLayout::new(&piles, 13);
        assert!(layout.width() >= 3);
        let tiny = KeyLayout::new(&[vec![], vec![0]], 1);
        assert_eq!(tiny.width(), 1);
    }
}
