//! State keys and the memo of dead states: an exact, memory-bounded hash set of packed keys.
//!
//! Input: a state's row (original positions) and grace flag. Output: its packed key
//! ([`KeyFormat::write`]), and the [`DeadSet`] that stores the keys of dead states (the shared
//! [`crate::memo::KeySet`], sized for Late Binding).
//!
//! A key is the whole state, bit for bit: word 0 holds a guard bit (so no key is all zeros,
//! which marks an empty slot) and the grace flag, then every pile's original position plus one
//! follows in `bits` bits each, across word boundaries; a shorter row leaves zeros at the end.
//! Keys are stored whole, never as a hash or signature: a collision between two different
//! states would make the solver call a solvable state dead, i.e. claim a wrong "unsolvable".

use crate::memo::KeySet;

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

/// The first table: small enough to allocate and zero for every easy solve. It is made at the
/// first insertion ([`KeySet::new`]), so a search that decides at once allocates nothing.
const MIN_SLOTS: usize = 1 << 8;

/// A set of dead-state keys ([`KeyFormat`]'s, whose guard bit keeps any from being all zeros).
pub type DeadSet = KeySet<MIN_SLOTS>;

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
}
