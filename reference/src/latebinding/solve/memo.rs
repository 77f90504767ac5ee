//! State keys and the memo of dead states: an exact, memory-bounded hash set of packed keys.
//!
//! Input: a state's row (original positions) and grace flag. Output: its packed key
//! ([`KeyFormat::write`]), and [`DeadSet::contains`] answers with memory figures
//! ([`DeadSet::len`], [`DeadSet::bytes`]).
//!
//! A key is the whole state, bit for bit: word 0 holds a guard bit (so no key is all zeros,
//! which marks an empty slot) and the grace flag, then every pile's original position plus one
//! follows in `bits` bits each, across word boundaries; a shorter row leaves zeros at the end.
//! Keys are stored whole, never as a hash or signature: a collision between two different
//! states would make the solver call a solvable state dead, i.e. claim a wrong "unsolvable".

/// How keys of one board are packed.
#[derive(Clone, Copy, Debug)]
pub struct KeyFormat {
    /// Bits per pile: enough for `P` (positions are stored plus one, so 0 means "no pile").
    bits: u32,
    /// Words per key.
    words: usize,
}

/// Bits of word 0 before the first pile: the guard bit and the grace flag.
const HEADER_BITS: usize = 2;

/// The grace flag's bit in word 0 (set: the grace is still to use).
pub const GRACE_BIT: u64 = 2;

impl KeyFormat {
    /// The format for rows of up to `piles` piles.
    pub fn new(piles: usize) -> Self {
        let bits = usize::BITS - piles.leading_zeros();
        let words = (HEADER_BITS + piles * bits as usize).div_ceil(64);
        KeyFormat { bits: bits.max(1), words }
    }

    pub fn words(&self) -> usize {
        self.words
    }

    /// Writes the key of (`row`, `grace_left`) into `out` (`words()` words).
    pub fn write(&self, row: &[u32], grace_left: bool, out: &mut [u64]) {
        self.start(grace_left, out);
        for (slot, &pile) in row.iter().enumerate() {
            self.put(slot, pile, out);
        }
    }

    /// Writes the key of the state after moving the pile at `from` onto the one at `to` into
    /// `out`, from `parent`, the key before the move, in `O(words)`: slot `to` takes the moved
    /// pile and slot `from` is cut out, the slots after it shifting down. `grace_left` is the
    /// flag after the move.
    pub fn derive(&self, parent: &[u64], from: usize, to: usize, grace_left: bool, out: &mut [u64]) {
        if let ([low, high], [out_low, out_high]) = (parent, &mut *out) {
            // Rows of up to 25 piles: the key is one 128-bit integer.
            let key = u128::from(*low) | u128::from(*high) << 64;
            let child = self.derive_u128(key, from, to, grace_left);
            (*out_low, *out_high) = (child as u64, (child >> 64) as u64);
            return;
        }
        let bits = self.bits as usize;
        let moved = self.get(parent, from);
        let cut = HEADER_BITS + from * bits;
        let (first, offset) = (cut / 64, cut % 64);
        out[..first].copy_from_slice(&parent[..first]);
        // Each word from `first` on is the parent's bits `bits` further up; the first keeps
        // its bits below the cut.
        let above = |word: usize| -> u64 {
            let bit = word * 64 + bits;
            let (i, shift) = (bit / 64, bit % 64);
            let low = parent.get(i).map_or(0, |w| w >> shift);
            let high = if shift == 0 { 0 } else { parent.get(i + 1).map_or(0, |w| w << (64 - shift)) };
            low | high
        };
        let keep = if offset == 0 { 0 } else { u64::MAX >> (64 - offset) };
        out[first] = (parent[first] & keep) | (above(first) & !keep);
        for (word, slot) in out.iter_mut().enumerate().skip(first + 1) {
            *slot = above(word);
        }
        self.clear(to, out);
        self.put(to, moved, out);
        out[0] = (out[0] & !GRACE_BIT) | if grace_left { GRACE_BIT } else { 0 };
    }

    /// [`Self::derive`] on a key of two words.
    fn derive_u128(&self, key: u128, from: usize, to: usize, grace_left: bool) -> u128 {
        let bits = self.bits as usize;
        let mask = (1u128 << bits) - 1;
        let (cut, put) = (HEADER_BITS + from * bits, HEADER_BITS + to * bits);
        let moved = (key >> cut) & mask;
        let below = key & ((1u128 << cut) - 1);
        let above = key.checked_shr((cut + bits) as u32).unwrap_or(0) << cut;
        let child = ((below | above) & !(mask << put)) | moved << put;
        (child & !u128::from(GRACE_BIT)) | if grace_left { u128::from(GRACE_BIT) } else { 0 }
    }

    /// The pile (original position) in `slot` of `key`.
    fn get(&self, key: &[u64], slot: usize) -> u32 {
        let bit = HEADER_BITS + slot * self.bits as usize;
        let (word, shift) = (bit / 64, bit % 64);
        let mut value = key[word] >> shift;
        if shift + self.bits as usize > 64 {
            value |= key[word + 1] << (64 - shift);
        }
        (value & ((1 << self.bits) - 1)) as u32 - 1
    }

    /// Zeroes `slot` of `key`.
    fn clear(&self, slot: usize, key: &mut [u64]) {
        let mask = (1u64 << self.bits) - 1;
        let bit = HEADER_BITS + slot * self.bits as usize;
        let (word, shift) = (bit / 64, bit % 64);
        key[word] &= !(mask << shift);
        if shift + self.bits as usize > 64 {
            key[word + 1] &= !(mask >> (64 - shift));
        }
    }

    fn start(&self, grace_left: bool, out: &mut [u64]) {
        out.fill(0);
        out[0] = 1 | if grace_left { GRACE_BIT } else { 0 };
    }

    /// Writes `pile` (plus one) into `slot`, which is still all zeros.
    #[inline]
    fn put(&self, slot: usize, pile: u32, out: &mut [u64]) {
        let value = u64::from(pile) + 1;
        let bit = HEADER_BITS + slot * self.bits as usize;
        let (word, shift) = (bit / 64, bit % 64);
        out[word] |= value << shift;
        if shift + self.bits as usize > 64 {
            out[word + 1] |= value >> (64 - shift);
        }
    }
}

/// Multiplier of the Fx hash (rustc's `FxHasher`), whose high bits of a product mix well.
const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The table fills to at most 3/4 of its slots, so linear probing stays short.
const MAX_LOAD_NUM: usize = 3;
const MAX_LOAD_DEN: usize = 4;

/// The first table: small enough to allocate and zero for every easy solve.
const MIN_SLOTS: usize = 1 << 8;

/// A set of dead-state keys in one open-addressing table with linear probing.
#[derive(Debug)]
pub struct DeadSet {
    width: usize,
    /// `slots * width` words; a slot whose first word is 0 is empty.
    table: Vec<u64>,
    /// `log2(slots)`.
    bits: u32,
    len: usize,
    max_bytes: usize,
}

impl DeadSet {
    /// An empty set for keys of `width` words that never allocates more than `max_bytes`.
    /// Nothing is allocated before the first insertion: a search that decides at once (or a
    /// huge row's, whose keys are long) pays nothing for a table it does not use.
    pub fn new(width: usize, max_bytes: usize) -> Self {
        DeadSet { width, table: Vec::new(), bits: 0, len: 0, max_bytes }
    }

    /// The number of keys stored (the set never shrinks).
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.table.len() * 8
    }

    fn slots(&self) -> usize {
        self.table.len() / self.width
    }

    /// The hash of `key`, for [`Self::prefetch`] and [`Self::contains`]: worked out once per
    /// key by the caller, which asks both.
    pub fn hash(key: &[u64]) -> u64 {
        let mut hash = 0u64;
        for &word in key {
            hash = (hash.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
        }
        hash
    }

    /// The home slot of a key of hash `hash`: the high bits of a multiplicative hash are its
    /// well-mixed ones.
    fn home(&self, hash: u64) -> usize {
        (hash >> (64 - self.bits)) as usize
    }

    /// Asks the processor to load the home slot of the key of hash `hash` into the cache ahead
    /// of a lookup.
    pub fn prefetch(&self, hash: u64) {
        if self.len > 0 {
            prefetch(&self.table[self.home(hash) * self.width]);
        }
    }

    /// Whether `key`, of hash `hash` ([`Self::hash`]), is stored.
    pub fn contains(&self, key: &[u64], hash: u64) -> bool {
        debug_assert_eq!(key.len(), self.width);
        debug_assert_eq!(hash, Self::hash(key));
        if self.len == 0 {
            return false;
        }
        let mask = self.slots() - 1;
        let mut slot = self.home(hash);
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
        debug_assert!(key[0] != 0, "keys carry a guard bit");
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

    fn key(format: KeyFormat, row: &[u32], grace: bool) -> Vec<u64> {
        let mut out = vec![0; format.words()];
        format.write(row, grace, &mut out);
        out
    }

    #[test]
    fn keys_tell_every_row_and_flag_apart() {
        // 24 piles: 5 bits each, so piles straddle the word boundary at bit 64.
        let format = KeyFormat::new(24);
        assert_eq!(format.words(), 2);
        let row: Vec<u32> = (0..24).rev().collect();
        let mut seen = std::collections::HashSet::new();
        for len in 0..=24 {
            for grace in [false, true] {
                assert!(seen.insert(key(format, &row[..len], grace)), "len {len}");
            }
        }
        let mut swapped = row.clone();
        swapped.swap(12, 13);
        assert_ne!(key(format, &row, false), key(format, &swapped, false));
        assert_eq!(KeyFormat::new(1).words(), 1);
        assert_eq!(KeyFormat::new(52).words(), 5);
        assert_eq!(KeyFormat::new(1 << 20).words(), (2 + 21 * (1usize << 20)).div_ceil(64));
    }

    #[test]
    fn derived_keys_are_the_keys_of_the_moved_rows() {
        for piles in [1usize, 2, 4, 12, 13, 24, 25, 40, 52, 64, 100, 300] {
            let format = KeyFormat::new(piles);
            let row: Vec<u32> = (0..piles as u32).map(|i| (i * 7 + 3) % piles as u32).collect();
            for len in [piles, piles / 2 + 1] {
                let row = &row[..len];
                let parent = key(format, row, true);
                for from in 1..len {
                    for to in [0, from - 1, from.saturating_sub(3)] {
                        let mut moved = row.to_vec();
                        moved[to] = moved[from];
                        moved.remove(from);
                        for grace in [false, true] {
                            let mut out = vec![0; format.words()];
                            format.derive(&parent, from, to, grace, &mut out);
                            assert_eq!(out, key(format, &moved, grace), "piles {piles} len {len} {from}->{to}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn stores_exact_keys_and_stops_at_its_bound() {
        for width in [1, 2, 5] {
            let mut set = DeadSet::new(width, 1 << 20);
            let k = |i: u64| -> Vec<u64> { (0..width as u64).map(|w| (i << 1 | 1) ^ (w << 40)).collect() };
            for i in 0..5000 {
                set.insert(&k(i));
            }
            assert_eq!(set.len(), 5000);
            assert!((0..5000).all(|i| set.contains(&k(i), DeadSet::hash(&k(i)))));
            assert!(!(5000..10000).any(|i| set.contains(&k(i), DeadSet::hash(&k(i)))));
        }
        let mut small = DeadSet::new(1, MIN_SLOTS * 8);
        for i in 1..=(MIN_SLOTS as u64 * 4) {
            small.insert(&[i]);
        }
        assert_eq!(small.len(), MIN_SLOTS * MAX_LOAD_NUM / MAX_LOAD_DEN);
        assert_eq!(
            (1..=(MIN_SLOTS as u64 * 4)).filter(|&i| small.contains(&[i], DeadSet::hash(&[i]))).count(),
            small.len()
        );
        let mut none = DeadSet::new(2, 0);
        none.insert(&[1, 2]);
        assert!(!none.contains(&[1, 2], DeadSet::hash(&[1, 2])));
    }
}
