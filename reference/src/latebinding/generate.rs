//! The 2022 starter's generator (`GEN`), byte for byte.
//!
//! Input: a seed and the piles, ranks and suits, as `java LBSMain GEN seed [P=17] [R=13] [S=4]`
//! takes them (piles first, unlike Black Hole's `GEN`). Output: the layout as a [`Layout`]
//! ([`deal`]) or as the exact text the starter prints ([`generate`]), drawn with Black Hole's
//! port of `java.util.Random` ([`crate::java_random::JavaRandom`]). [`GenName`]: a file
//! name that spells `GEN`'s arguments, as the course named its layouts.
//!
//! The algorithm (`docs/late-binding.md`, "The starter's generator"): with `N = R*S`,
//! `cards[i] = i+1`, and `rnd = new Random(seed)`, for `i` from `0` to `N-2` swap `cards[i]`
//! with `cards[i + rnd.nextInt(N-i)]`; the layout is the first `min(P, N)` cards. The text is
//! `R S P`, a line break, every card followed by one space, and a line break.
//!
//! Ruling: the header shows `P` as given, even when `P > N` and only `N` cards follow (the doc
//! says the starter prints `R S P`; such a layout is then invalid, as the course's never were).
//!
//! ```
//! let text = bhref::latebinding::generate::generate(1, 5, 3, 2);
//! assert_eq!(text, "3 2 5\n4 5 1 3 2 \n");
//! ```

mod name;

pub use name::GenName;

use std::fmt::Write as _;

use crate::java_random::shuffled_deck;

use super::model::{Deck, Layout};

/// The default arguments of `GEN seed [P] [R] [S]`.
pub const DEFAULT_PILES: u32 = 17;
pub const DEFAULT_RANKS: u32 = 13;
pub const DEFAULT_SUITS: u32 = 4;

/// The layout `java LBSMain GEN seed piles ranks suits` prints, as a [`Layout`] (its row holds
/// `min(piles, ranks * suits)` cards).
///
/// # Panics
/// When `ranks * suits` exceeds `i32::MAX`, where Java's `int` would overflow.
pub fn deal(seed: i64, piles: u32, ranks: u32, suits: u32) -> Layout {
    let mut row = shuffled_deck(seed, ranks, suits);
    row.truncate(piles as usize);
    Layout { deck: Deck { ranks, suits }, row }
}

/// The text `java LBSMain GEN seed piles ranks suits` prints, byte for byte.
///
/// # Panics
/// When `ranks * suits` exceeds `i32::MAX`, where Java's `int` would overflow.
pub fn generate(seed: i64, piles: u32, ranks: u32, suits: u32) -> String {
    let layout = deal(seed, piles, ranks, suits);
    let mut out = String::new();
    // Written out here rather than borrowed from `Layout`'s `Display`, whose `P` is the row's
    // length: the starter prints the `P` it was given. Writing into a String cannot fail.
    let _ = writeln!(out, "{ranks} {suits} {piles}");
    for card in &layout.row {
        let _ = write!(out, "{card} ");
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_examples() {
        assert_eq!(generate(1, 5, 3, 2), "3 2 5\n4 5 1 3 2 \n");
        assert_eq!(
            generate(1, DEFAULT_PILES, DEFAULT_RANKS, DEFAULT_SUITS),
            "13 4 17\n18 12 50 4 19 1 11 9 43 31 30 8 3 32 49 2 37 \n"
        );
    }

    #[test]
    fn the_text_is_the_layout_display_when_the_deck_is_big_enough() {
        for (seed, piles, ranks, suits) in [(16, 24, 8, 3), (3, 16, 10, 6), (-9, 1, 1, 1), (7, 60, 10, 6)] {
            let layout = deal(seed, piles, ranks, suits);
            assert_eq!(layout.row.len(), piles as usize);
            assert_eq!(generate(seed, piles, ranks, suits), layout.to_string());
        }
    }

    #[test]
    fn more_piles_than_cards_deal_the_whole_deck_under_the_given_header() {
        let layout = deal(2, 10, 3, 2);
        let mut sorted = layout.row.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [1, 2, 3, 4, 5, 6]);
        assert!(generate(2, 10, 3, 2).starts_with("3 2 10\n"));
        assert_eq!(generate(2, 0, 3, 2), "3 2 0\n\n");
    }
}
