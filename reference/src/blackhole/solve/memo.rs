//! The memo of dead states: an exact, memory-bounded hash set of fixed-width keys.
//!
//! Input: position keys as slices of `u64` words (all of one width, built by
//! [`super::key::KeyLayout`]). Output: [`DeadSet::contains`] answers and memory figures
//! ([`DeadSet::peak_len`], [`DeadSet::bytes`]).
//!
//! Keys are stored whole, never as a hash or signature: a collision between two different
//! states would make the solver call a solvable state dead, i.e. report a wrong "unsolvable".

/// Multiplier of the Fx hash (rustc's `FxHasher`), whose high bits of a product mix well.
const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The hash set fills to at most 3/4 of its slots: linear probing stays short.
const MAX_LOAD_NUM: usize = 3;
const MAX_LOAD_DEN: usize = 4;

/// The smallest table: big enough that easy deals never grow it, small enough to be cheap to
/// allocate and zero once per solve.
const MIN_SLOTS: usize = 1 << 10;

/// The most bytes the first table takes ([`MIN_SLOTS`] slots of keys up to 8 words).
const FIRST_TABLE_BYTES: usize = MIN_SLOTS * 8 * 8;

/// A set of dead-state keys in one open-addressing table with linear probing.
///
/// Every key is `width` words. A zero first word marks an empty slot: key layouts set a guard
/// bit in the first word, so no real key starts with zero.
#[derive(Debug)]
pub struct DeadSet {
    width: usize,
    /// `slots * width` words.
    table: Vec<u64>,
    /// `log2(slots)`.
    bits: u32,
    len: usize,
    max_bytes: usize,
    peak_len: usize,
}

impl DeadSet {
    /// An empty set for keys of `width` words that never allocates more than `max_bytes`
    /// (beyond a first table of at most [`MIN_SLOTS`] slots, if even that does not fit).
    pub fn new(width: usize, max_bytes: usize) -> Self {
        assert!(width >= 1, "keys have at least the guard word");
        // Very wide keys (huge layouts) start with fewer slots, so that making the table costs
        // no more than [`FIRST_TABLE_BYTES`]; it doubles as it fills like any other.
        let fit = (FIRST_TABLE_BYTES / (width * 8)).clamp(2, MIN_SLOTS);
        let first = 1 << fit.ilog2();
        let slots = if first * width * 8 <= max_bytes { first } else { 0 };
        DeadSet { width, table: vec![0; slots * width], bits: slots.trailing_zeros(), len: 0, max_bytes, peak_len: 0 }
    }

    /// The number of keys stored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.table.len() * 8
    }

    /// The most keys ever stored (the set never shrinks, so this is [`Self::len`]).
    pub fn peak_len(&self) -> usize {
        self.peak_len
    }

    fn slots(&self) -> usize {
        self.table.len() / self.width
    }

    fn home(&self, key: &[u64]) -> usize {
        let mut hash = 0u64;
        for &word in key {
            hash = (hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
        }
        // The high bits of a multiplicative hash are its well-mixed ones.
        (hash >> (64 - self.bits)) as usize
    }

    /// Asks the processor to load the home slots of `keys` (one after another, `width` words
    /// each) into the cache, ahead of [`Self::contains`] on each: the search does other work
    /// meanwhile, instead of waiting for one cache miss per lookup.
    pub fn prefetch(&self, keys: &[u64]) {
        if self.len == 0 {
            return;
        }
        for key in keys.chunks_exact(self.width) {
            prefetch(&self.table[self.home(key) * self.width]);
        }
    }

    /// Whether `key` is stored.
    pub fn contains(&self, key: &[u64]) -> bool {
        debug_assert_eq!(key.len(), self.width);
        if self.len == 0 {
            return false;
        }
        let mask = self.slots() - 1;
        let mut slot = self.home(key);
        if self.width == 1 {
            // The common case (every standard deal): one word per key, compared directly.
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
        debug_assert!(key[0] != 0, "key layouts set a guard bit in the first word");
        if (self.len + 1) * MAX_LOAD_DEN > self.slots() * MAX_LOAD_NUM && !self.grow() {
            return;
        }
        let mask = self.slots() - 1;
        let mut slot = self.home(key);
        loop {
            let range = slot * self.width..(slot + 1) * self.width;
            let stored = &mut self.table[range];
            if stored[0] == 0 {
                stored.copy_from_slice(key);
                self.len += 1;
                self.peak_len = self.peak_len.max(self.len);
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
        let old_slots = self.slots();
        let new_slots = if old_slots == 0 { MIN_SLOTS } else { old_slots * 2 };
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
fn prefetch(word: &u64) {
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

    #[test]
    fn stores_exact_keys_of_any_width() {
        for width in [1, 2, 3] {
            let mut set = DeadSet::new(width, 1 << 24);
            let key = |i: u64| -> Vec<u64> { (0..width as u64).map(|w| (i << 1 | 1) ^ (w << 40)).collect() };
            for i in 0..5000 {
                set.insert(&key(i));
            }
            assert_eq!(set.len(), 5000);
            for i in 0..5000 {
                assert!(set.contains(&key(i)));
            }
            for i in 5000..10000 {
                assert!(!set.contains(&key(i)));
            }
        }
    }

    #[test]
    fn a_full_set_stops_inserting_but_stays_exact() {
        let mut set = DeadSet::new(1, MIN_SLOTS * 8);
        for i in 1..=(MIN_SLOTS as u64 * 4) {
            set.insert(&[i]);
        }
        assert_eq!(set.len(), MIN_SLOTS * MAX_LOAD_NUM / MAX_LOAD_DEN);
        assert_eq!(set.bytes(), MIN_SLOTS * 8);
        // Everything stored is found; nothing else is.
        let stored = (1..=(MIN_SLOTS as u64 * 4)).filter(|&i| set.contains(&[i])).count();
        assert_eq!(stored, set.len());
        assert!(!set.contains(&[u64::MAX]));
    }

    #[test]
    fn a_zero_budget_stores_nothing() {
        let mut set = DeadSet::new(2, 0);
        set.insert(&[1, 2]);
        assert!(!set.contains(&[1, 2]));
        assert_eq!(set.bytes(), 0);
    }
}
