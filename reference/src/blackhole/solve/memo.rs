//! The memo of dead states: Black Hole's sizing of the shared [`crate::memo::KeySet`].
//!
//! Input: position keys as slices of `u64` words (all of one width, built by
//! [`super::key::KeyLayout`]). Output: [`DeadSet::contains`] answers and memory figures
//! ([`DeadSet::peak_len`], [`DeadSet::bytes`]).
//!
//! Unlike Late Binding's, the first table is made with the set, and at a size that easy deals
//! never outgrow, so that they pay for no doubling.

use crate::memo::KeySet;

/// The smallest table: big enough that easy deals never grow it, small enough to be cheap to
/// allocate and zero once per solve.
const MIN_SLOTS: usize = 1 << 10;

/// The most bytes the first table takes ([`MIN_SLOTS`] slots of keys up to 8 words).
const FIRST_TABLE_BYTES: usize = MIN_SLOTS * 8 * 8;

/// A set of dead-position keys; a zero first word never occurs, as key layouts set a guard bit
/// in the first word.
#[derive(Debug)]
pub struct DeadSet(KeySet<MIN_SLOTS>);

impl DeadSet {
    /// An empty set for keys of `width` words that never allocates more than `max_bytes`
    /// (beyond a first table of at most [`MIN_SLOTS`] slots, if even that does not fit).
    pub fn new(width: usize, max_bytes: usize) -> Self {
        assert!(width >= 1, "keys have at least the guard word");
        // Very wide keys (huge layouts) start with fewer slots, so that making the table costs
        // no more than [`FIRST_TABLE_BYTES`]; it doubles as it fills like any other.
        let fit = (FIRST_TABLE_BYTES / (width * 8)).clamp(2, MIN_SLOTS);
        DeadSet(KeySet::with_slots(width, max_bytes, 1 << fit.ilog2()))
    }

    /// The number of keys stored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.0.bytes()
    }

    /// The most keys ever stored: the set never shrinks, so this is its length.
    pub fn peak_len(&self) -> usize {
        self.0.len()
    }

    /// Asks the processor to load the home slots of `keys` (one after another, `width` words
    /// each) into the cache, ahead of [`Self::contains`] on each.
    #[inline]
    pub fn prefetch(&self, keys: &[u64]) {
        if self.0.is_empty() {
            return;
        }
        for key in keys.chunks_exact(self.0.width()) {
            self.0.prefetch(KeySet::<MIN_SLOTS>::hash(key));
        }
    }

    /// Whether `key` is stored.
    #[inline]
    pub fn contains(&self, key: &[u64]) -> bool {
        !self.0.is_empty() && self.0.contains(key, KeySet::<MIN_SLOTS>::hash(key))
    }

    /// Stores `key` if there is room within the memory bound; when the set is full it drops
    /// the key, which only costs pruning later.
    pub fn insert(&mut self, key: &[u64]) {
        self.0.insert(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_table_is_made_at_once_and_bounded() {
        assert_eq!(DeadSet::new(1, 1 << 20).bytes(), MIN_SLOTS * 8);
        assert_eq!(DeadSet::new(64, 1 << 20).bytes(), FIRST_TABLE_BYTES);
        let mut none = DeadSet::new(2, 0);
        none.insert(&[1, 2]);
        assert!(!none.contains(&[1, 2]));
        assert_eq!((none.len(), none.bytes()), (0, 0));
        let mut set = DeadSet::new(2, 1 << 20);
        set.insert(&[3, 4]);
        assert!(set.contains(&[3, 4]) && !set.contains(&[3, 5]));
        assert_eq!(set.peak_len(), 1);
    }
}
