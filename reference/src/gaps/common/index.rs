//! The table of positions met that the A* and the walk share: a position's 32 bits of hash
//! (its [`tag`]) → its index in the searcher's own list of positions, or the free slot it would
//! take.

use std::hash::{BuildHasher, BuildHasherDefault};

use super::{Position, PositionHasher};

/// The 32 bits of a position's hash the table keeps.
pub(super) fn tag<const WORDS: usize>(position: Position<WORDS>) -> u32 {
    BuildHasherDefault::<PositionHasher>::default().hash_one(position) as u32
}

/// The table of positions met: each one's index in the searcher's list beside 32 bits of its
/// hash (its [`tag`]), in one open-addressing table with linear probing, 8 bytes a slot (0 for an
/// empty one), filled to at most 3/4. Growing it and passing over other positions read only tags,
/// never a position (a cache miss each), and a position's slot can be asked for ahead of its
/// lookup ([`Index::prefetch`]).
pub(super) struct Index {
    /// `(index + 1) << 32 | tag` for each position; a power of two of them.
    slots: Vec<u64>,
    len: usize,
}

/// Where [`Index::find`] found a position: the slot of its index, or the free slot it would
/// take.
pub(super) enum Slot {
    Holds(u32),
    Free(usize),
}

impl Index {
    pub(super) fn new() -> Index {
        Index { slots: vec![0; 1 << 10], len: 0 }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The bytes its slots take.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    /// The first slot to look in for a position of `tag`: the top bits of the tag spread over
    /// 64 bits.
    fn home(&self, tag: u32) -> usize {
        let spread = u64::from(tag).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (spread >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// Asks for the cache line of `tag`'s first slot ahead of [`Self::find`].
    pub(super) fn prefetch(&self, tag: u32) {
        crate::memo::prefetch(&self.slots[self.home(tag)]);
    }

    /// The position of `tag` for which `same` (given its index) holds, or the slot it would take.
    pub(super) fn find(&self, tag: u32, same: impl Fn(u32) -> bool) -> Slot {
        let mask = self.slots.len() - 1;
        let mut slot = self.home(tag);
        loop {
            let kept = self.slots[slot];
            if kept == 0 {
                return Slot::Free(slot);
            }
            let at = (kept >> 32) as u32 - 1;
            if kept as u32 == tag && same(at) {
                return Slot::Holds(at);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Tables the position of `tag` at index `at` in `slot`, which [`Self::find`] gave.
    pub(super) fn fill(&mut self, mut slot: usize, tag: u32, at: u32) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            let doubled = vec![0; self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, doubled);
            for kept in old.into_iter().filter(|&kept| kept != 0) {
                let free = self.free_slot(kept as u32);
                self.slots[free] = kept;
            }
            slot = self.free_slot(tag);
        }
        self.slots[slot] = (u64::from(at) + 1) << 32 | u64::from(tag);
        self.len += 1;
    }

    /// The first empty slot from `tag`'s home on.
    fn free_slot(&self, tag: u32) -> usize {
        let (mask, mut slot) = (self.slots.len() - 1, self.home(tag));
        while self.slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions whose tags collide (seven tags for 5,000 positions) are told apart by `same`,
    /// through the table's growth from 1,024 slots; a position not tabled finds a free slot.
    #[test]
    fn the_index_finds_each_position_by_tag_and_comparison() {
        let mut index = Index::new();
        let tag_of = |position: u32| position % 7;
        for position in 0..5000 {
            let Slot::Free(slot) = index.find(tag_of(position), |at| at == position) else {
                panic!("{position} is found before it is tabled")
            };
            index.fill(slot, tag_of(position), position);
        }
        assert_eq!(index.len(), 5000);
        assert!(index.slots.len() >= 5000 * 4 / 3);
        for position in 0..5000 {
            assert!(matches!(index.find(tag_of(position), |at| at == position), Slot::Holds(at) if at == position));
        }
        assert!(matches!(index.find(tag_of(5000), |at| at == 5000), Slot::Free(_)));
    }
}
