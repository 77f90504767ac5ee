//! The table under both solvers' memos of dead states: an exact, memory-bounded hash set of
//! fixed-width keys.
//!
//! Input: keys as slices of `u64` words, all of one width, whose first word is never zero (each
//! game's key format sets a guard bit there), with their [`KeySet::hash`]. Output:
//! [`KeySet::contains`] answers and memory figures ([`KeySet::len`], [`KeySet::bytes`]).
//!
//! Keys are stored whole, never as a hash or signature: a collision between two different
//! states would make a solver call a solvable state dead, i.e. claim a wrong "unsolvable".
//! The games differ only in when the first table is made and how big it is, so those are the
//! caller's: `MIN_SLOTS` and [`KeySet::with_slots`].

/// Multiplier of the Fx hash (rustc's `FxHasher`), whose high bits of a product mix well.
const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The table fills to at most 3/4 of its slots, so linear probing stays short.
const MAX_LOAD_NUM: usize = 3;
const MAX_LOAD_DEN: usize = 4;

/// A set of keys in one open-addressing table with linear probing; an empty table first grows
/// to `MIN_SLOTS` slots (a power of two).
#[derive(Debug)]
pub struct KeySet<const MIN_SLOTS: usize> {
    width: usize,
    /// `slots * width` words; a slot whose first word is 0 is empty.
    table: Vec<u64>,
    /// `log2(slots)`.
    bits: u32,
    len: usize,
    max_bytes: usize,
}

impl<const MIN_SLOTS: usize> KeySet<MIN_SLOTS> {
    /// An empty set for keys of `width` words that never allocates more than `max_bytes`.
    /// Nothing is allocated before the first insertion: a search that decides at once (or a
    /// huge layout's, whose keys are long) pays nothing for a table it does not use.
    pub fn new(width: usize, max_bytes: usize) -> Self {
        assert!(width >= 1, "keys have at least the guard word");
        KeySet { width, table: Vec::new(), bits: 0, len: 0, max_bytes }
    }

    /// [`Self::new`], with a first table of `slots` slots (a power of two) made at once if it
    /// fits the memory bound.
    pub fn with_slots(width: usize, max_bytes: usize, slots: usize) -> Self {
        debug_assert!(slots.is_power_of_two());
        let mut set = Self::new(width, max_bytes);
        if slots * width * 8 <= max_bytes {
            set.table = vec![0; slots * width];
            set.bits = slots.trailing_zeros();
        }
        set
    }

    /// The number of keys stored (the set never shrinks).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key is stored: then a lookup need not even hash its key.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Words per key.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.table.len() * 8
    }

    #[inline]
    fn slots(&self) -> usize {
        self.table.len() / self.width
    }

    /// The hash of `key`, for [`Self::prefetch`] and [`Self::contains`]: worked out once per
    /// key by a caller that asks both.
    #[inline]
    pub fn hash(key: &[u64]) -> u64 {
        let mut hash = 0u64;
        for &word in key {
            hash = (hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
        }
        hash
    }

    /// The home slot of a key of hash `hash`: the high bits of a multiplicative hash are its
    /// well-mixed ones.
    #[inline]
    fn home(&self, hash: u64) -> usize {
        (hash >> (64 - self.bits)) as usize
    }

    /// Asks the processor to load the home slot of the key of hash `hash` into the cache ahead
    /// of a lookup: the search does other work meanwhile, instead of waiting for one cache miss
    /// per lookup.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if !self.is_empty() {
            prefetch(&self.table[self.home(hash) * self.width]);
        }
    }

    /// Whether `key`, of hash `hash` ([`Self::hash`]), is stored.
    #[inline]
    pub fn contains(&self, key: &[u64], hash: u64) -> bool {
        debug_assert_eq!(key.len(), self.width);
        debug_assert_eq!(hash, Self::hash(key));
        if self.is_empty() {
            return false;
        }
        let mask = self.slots() - 1;
        let mut slot = self.home(hash);
        if self.width == 1 {
            // The common case (every standard Black Hole deal): one word per key, compared
            // directly.
            let key = key[0];
            loop {
                match self.table[slot] {
                    0 => return false,
                    stored if stored == key => return true,
                    _ => slot = (slot + 1) & mask,
                }
            }
        }
        loop {
            let stored = &self.table[slot * self.width..(slot + 1) * self.width];
            if stored[0] == 0 {
                return false;
            }
            // Word by word: most slots differ in the first word, and a slice comparison would
            // call `memcmp` for every probe.
            if stored.iter().zip(key).all(|(a, b)| a == b) {
                return true;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Stores `key` if there is room within the memory bound; when the set is full it drops
    /// the key, which only costs pruning later.
    pub fn insert(&mut self, key: &[u64]) {
        debug_assert_eq!(key.len(), self.width);
        debug_assert!(key[0] != 0, "keys carry a guard bit in the first word");
        if (self.len + 1) * MAX_LOAD_DEN > self.slots() * MAX_LOAD_NUM && !self.grow() {
            return;
        }
        let mask = self.slots() - 1;
        let mut slot = self.home(Self::hash(key));
        loop {
            let stored = &mut self.table[slot * self.width..(slot + 1) * self.width];
            if stored[0] == 0 {
                stored.copy_from_slice(key);
                self.len += 1;
                return;
            }
            if stored.iter().zip(key).all(|(a, b)| a == b) {
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Doubles the table if the doubled table fits the memory bound; says whether it did.
    fn grow(&mut self) -> bool {
        let new_slots = (self.slots() * 2).max(MIN_SLOTS);
        if new_slots * self.width * 8 > self.max_bytes {
            return false;
        }
        let old = std::mem::replace(&mut self.table, vec![0; new_slots * self.width]);
        self.bits = new_slots.trailing_zeros();
        self.len = 0;
        for key in old.chunks_exact(self.width) {
            if key[0] != 0 {
                self.insert(key);
            }
        }
        true
    }
}

/// A hint to load the cache line holding `word`; nothing on targets without one.
#[inline]
pub(crate) fn prefetch(word: &u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint to the cache: it reads nothing the program sees and
        // never faults, and the pointer comes from a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(word).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: usize = 1 << 8;
    type Set = KeySet<MIN>;

    fn has(set: &Set, key: &[u64]) -> bool {
        set.contains(key, Set::hash(key))
    }

    #[test]
    fn stores_exact_keys_of_any_width() {
        for width in [1, 2, 3, 5] {
            for mut set in [Set::new(width, 1 << 24), Set::with_slots(width, 1 << 24, 4)] {
                let key = |i: u64| -> Vec<u64> { (0..width as u64).map(|w| (i << 1 | 1) ^ (w << 40)).collect() };
                for i in 0..5000 {
                    set.insert(&key(i));
                }
                assert_eq!(set.len(), 5000);
                assert!((0..5000).all(|i| has(&set, &key(i))));
                assert!(!(5000..10000).any(|i| has(&set, &key(i))));
            }
        }
    }

    #[test]
    fn a_full_set_stops_inserting_but_stays_exact() {
        let mut set = Set::new(1, MIN * 8);
        for i in 1..=(MIN as u64 * 4) {
            set.insert(&[i]);
        }
        assert_eq!(set.len(), MIN * MAX_LOAD_NUM / MAX_LOAD_DEN);
        assert_eq!(set.bytes(), MIN * 8);
        // Everything stored is found; nothing else is.
        let stored = (1..=(MIN as u64 * 4)).filter(|&i| has(&set, &[i])).count();
        assert_eq!(stored, set.len());
        assert!(!has(&set, &[u64::MAX]));
    }

    #[test]
    fn a_zero_budget_stores_nothing() {
        for mut set in [Set::new(2, 0), Set::with_slots(2, 0, 4)] {
            set.insert(&[1, 2]);
            assert!(!has(&set, &[1, 2]));
            assert_eq!(set.bytes(), 0);
        }
    }
}
