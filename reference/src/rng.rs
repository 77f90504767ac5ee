//! [`SplitMix64`]: the small deterministic generator the reference's tests and benches draw
//! random puzzles and layouts from, so that a failure names a seed that reproduces it.
//!
//! Input: a 64-bit seed. Output: a fixed sequence of 64-bit numbers, and numbers below a bound
//! taken from them. Not for anything the reference decides: the solvers and the generators never
//! use it (`GEN` is [`crate::java_random::JavaRandom`], byte for byte the starter's). Beside it,
//! [`scramble`]: the one hash the solvers' restarts order equal moves by (an order, never an
//! answer).
//!
//! ```
//! use bhref::rng::SplitMix64;
//! let mut rng = SplitMix64::new(7);
//! let first = rng.next_u64();
//! assert_eq!(SplitMix64::new(7).next_u64(), first);
//! assert!(rng.below(6) < 6);
//! ```

/// Sebastiano Vigna's SplitMix64: one addition and two multiplications per number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator whose sequence `seed` names.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (by remainder: the slight bias does not matter for tests).
    ///
    /// # Panics
    /// When `n` is 0.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }

    /// An index in `0..n`, drawn as [`SplitMix64::below`] draws it.
    ///
    /// # Panics
    /// When `n` is 0.
    pub fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A hash of `value` under `seed`, for sorting by: a restart of a search orders moves by it, so
/// that each seed gives another order (both solvers' restarts use it).
#[inline]
pub fn scramble(seed: u64, value: u64) -> u64 {
    (value ^ seed.wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_splitmix64s() {
        // The published first outputs for seed 0, the reference values of Vigna's C code.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let (mut a, mut b) = (SplitMix64::new(99), SplitMix64::new(99));
        assert_eq!(a.below(1000), b.index(1000) as u32);
    }
}
