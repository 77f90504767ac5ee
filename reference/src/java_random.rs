//! A faithful port of `java.util.Random`, as far as the starters' generators use it (both
//! games' `GEN`).
//!
//! Input: a 64-bit seed. Output: the same stream of `next(bits)`, `nextInt()` and
//! `nextInt(bound)` values the JDK produces for that seed, as the Java SE API documentation
//! specifies them: a 48-bit linear congruential generator (multiplier `0x5DEECE66D`, addend
//! `0xB`), the seed scrambled with the multiplier, `nextInt(bound)` with its power-of-two fast
//! path and its rejection loop.

/// The LCG multiplier, also used to scramble the seed.
const MULTIPLIER: i64 = 0x5_DEEC_E66D;
/// The LCG addend.
const ADDEND: i64 = 0xB;
/// The state is 48 bits wide.
const MASK: i64 = (1 << 48) - 1;

/// `java.util.Random`: same seed, same numbers, bit for bit.
///
/// ```
/// use bhref::blackhole::generate::JavaRandom;
/// let mut rnd = JavaRandom::new(42);
/// assert_eq!(rnd.next_int_bounded(10), 0); // new Random(42).nextInt(10)
/// assert_eq!(rnd.next_int_bounded(10), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JavaRandom {
    /// The 48-bit state (always in `0..2^48`).
    seed: i64,
}

impl JavaRandom {
    /// `new Random(seed)`: the state is `(seed ^ 0x5DEECE66D) & (2^48 - 1)`.
    pub fn new(seed: i64) -> Self {
        JavaRandom { seed: (seed ^ MULTIPLIER) & MASK }
    }

    /// `next(bits)` for `1 <= bits <= 32`: advances the state and returns its top `bits` bits,
    /// as a Java `int` (so `next(32)` may be negative).
    pub fn next(&mut self, bits: u32) -> i32 {
        debug_assert!((1..=32).contains(&bits), "next(bits) takes 1..=32 bits, got {bits}");
        self.seed = (self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        // Java: (int) (seed >>> (48 - bits)); the state is non-negative so >> equals >>>, and the
        // cast keeps the low 32 bits.
        (self.seed >> (48 - bits)) as i32
    }

    /// `nextInt()`: 32 random bits.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`: uniform in `0..bound`.
    ///
    /// # Panics
    /// When `bound <= 0`, where Java throws `IllegalArgumentException`.
    pub fn next_int_bounded(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive, got {bound}");
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            // A power of two: the high bits, (int) ((bound * (long) r) >> 31).
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        // for (int u = r; u - (r = u % bound) + m < 0; u = next(31));
        // The test relies on Java's wrapping int arithmetic: it is negative exactly when `u`
        // falls in the incomplete last block of `bound` values.
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }
}

/// The deck of `ranks * suits` cards `1..=R*S` shuffled as the 2022 starter shuffles it (and
/// Gaps' generator after it): with `rnd = new Random(seed)`, for `i` from `0` to `N-2` swap
/// `cards[i]` with `cards[i + rnd.nextInt(N-i)]`.
///
/// # Panics
/// When `ranks * suits` exceeds `i32::MAX`, where Java's `int` arithmetic would overflow (and
/// no such deck would fit in memory anyway).
pub fn shuffled_deck(seed: i64, ranks: u32, suits: u32) -> Vec<u32> {
    let size = ranks
        .checked_mul(suits)
        .filter(|&n| i32::try_from(n).is_ok())
        .unwrap_or_else(|| panic!("a deck of {ranks} x {suits} cards is beyond Java's int"));
    let mut cards: Vec<u32> = (1..=size).collect();
    let mut rnd = JavaRandom::new(seed);
    for i in 0..size.saturating_sub(1) {
        // size - i >= 2 here and size < 2^31: a positive Java int.
        let bound = i32::try_from(size - i).expect("bound fits in an int");
        let j = i as usize + rnd.next_int_bounded(bound) as usize;
        cards.swap(i as usize, j);
    }
    cards
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws `n` values of `nextInt(bound)` from `new Random(seed)`.
    fn draws(seed: i64, bound: i32, n: usize) -> Vec<i32> {
        let mut rnd = JavaRandom::new(seed);
        (0..n).map(|_| rnd.next_int_bounded(bound)).collect()
    }

    // Every expected value below was printed by OpenJDK 17's java.util.Random.

    #[test]
    fn next_int_bounded_matches_java_for_seed_42() {
        assert_eq!(draws(42, 10, 10), [0, 3, 8, 4, 0, 5, 5, 8, 9, 3]);
    }

    #[test]
    fn next_int_matches_java() {
        let mut rnd = JavaRandom::new(42);
        let got: Vec<i32> = (0..5).map(|_| rnd.next_int()).collect();
        assert_eq!(got, [-1_170_105_035, 234_785_527, -1_360_544_799, 205_897_768, 1_325_939_940]);
    }

    #[test]
    fn power_of_two_bounds_take_the_fast_path() {
        assert_eq!(draws(42, 16, 8), [11, 0, 10, 0, 4, 15, 4, 11]);
        assert_eq!(draws(123_456_789, 1 << 30, 5), [713_005_482, 819_604_800, 490_648_241, 273_664_172, 419_303_145]);
        assert_eq!(draws(7, 1, 3), [0, 0, 0]);
    }

    #[test]
    fn large_bounds_go_through_the_rejection_loop() {
        assert_eq!(
            draws(0, 1_500_000_000, 8),
            [
                516_548_029,
                1_302_116_447,
                1_368_843_515,
                663_681_053,
                1_182_054_491,
                251_269_761,
                1_283_218_719,
                715_581_077
            ]
        );
        assert_eq!(draws(-1, i32::MAX, 5), [577_549_913, 943_952_225, 26_349_579, 1_176_895_439, 1_421_815_604]);
        // 1000 draws consume 1401 calls of next(31) in Java (401 rejections); the 1001st draw:
        let mut rnd = JavaRandom::new(0);
        for _ in 0..1000 {
            rnd.next_int_bounded(1_500_000_000);
        }
        assert_eq!(rnd.next_int_bounded(1_500_000_000), 932_766_568);
    }

    #[test]
    fn extreme_seeds_are_scrambled_like_java() {
        assert_eq!(draws(i64::MIN, 51, 6), [18, 28, 37, 2, 47, 50]);
        assert_eq!(draws(i64::MAX, 51, 6), [5, 8, 21, 8, 17, 30]);
    }

    #[test]
    #[should_panic(expected = "bound must be positive")]
    fn non_positive_bound_panics_like_java_throws() {
        JavaRandom::new(1).next_int_bounded(0);
    }
}
