//! The course starter's generator (`GEN`), byte for byte.
//!
//! Input: `seed`, number of cards, ranks, suits, piles. Output: the puzzle file text the starter's
//! `BHMain GEN` prints, built on a faithful port of `java.util.Random`.

/// The text `java BHMain GEN seed cards ranks suits piles` prints.
pub fn generate(seed: i64, cards: u32, ranks: u32, suits: u32, piles: u32) -> String {
    let _ = (seed, cards, ranks, suits, piles);
    todo!()
}
