//! The course starter's generator (`GEN`), byte for byte.
//!
//! Input: a seed, the number of cards to deal, ranks, suits and piles, as
//! `java BHMain GEN seed [cards=51] [ranks=13] [suits=4] [piles=17]` takes them. Output: the
//! deal as a [`Puzzle`] ([`deal`]) or as the exact text the starter prints ([`generate`]),
//! built on [`JavaRandom`], a faithful port of `java.util.Random`. [`GenName`]: a file name
//! that spells `GEN`'s arguments, as the course named its generated puzzles.
//!
//! The algorithm (`docs/practical.md`, "The starter's generator"):
//! 1. `max = R*S - 1`; `cards[i] = i + 2` for `i` in `0..max` (every card but card 1);
//! 2. with `rnd = new Random(seed)`, for `i` from `0` to `max-2` inclusive, swap `cards[i]` with
//!    `cards[i + rnd.nextInt(max - i)]`;
//! 3. deal the first `min(numcards, max)` cards in order, card `k` onto pile `k mod P`;
//! 4. the hole card is 1;
//! 5. print `R S P`, the hole, then each pile bottom first, every card followed by a space, and
//!    `-1`, one line each (so an empty pile is the line `-1`).
//!
//! Edge cases, where the starter itself would fail or the handout says nothing:
//! - `piles = 0`: the starter divides by zero as soon as it deals a card; here nothing is dealt
//!   and the text is `R S 0` and the hole (a valid puzzle with every card but the hole missing).
//! - `cards > R*S - 1`: only the `R*S - 1` cards that exist are dealt, as the starter does.
//! - `R*S = 1` (`max = 0`): nothing to shuffle or deal; the layout is the hole and `P` empty
//!   piles. `R*S = 0` (outside the puzzle format's `R, S >= 1`) is treated the same way, where
//!   the starter throws `NegativeArraySizeException`.
//!
//! ```
//! // `java BHMain GEN 1 4 5 1 2`: four of the five cards, on two piles.
//! let text = bhref::blackhole::generate::generate(1, 4, 5, 1, 2);
//! assert_eq!(text, "5 1 2\n1\n4 3 -1\n2 5 -1\n");
//! ```

mod name;

pub use crate::java_random::JavaRandom;
pub use name::GenName;

use std::fmt::Write as _;

use crate::blackhole::model::{Card, Deck, Puzzle};

/// The deal `java BHMain GEN seed cards ranks suits piles` prints, as a [`Puzzle`].
///
/// # Panics
/// When `ranks * suits` exceeds `i32::MAX` (Java's `int` arithmetic would overflow there, and
/// such a pack would not fit in memory anyway).
pub fn deal(seed: i64, cards: u32, ranks: u32, suits: u32, piles: u32) -> Puzzle {
    let deck = Deck { ranks, suits };
    let size = ranks
        .checked_mul(suits)
        .filter(|&n| i32::try_from(n).is_ok())
        .unwrap_or_else(|| panic!("a pack of {ranks} x {suits} cards is beyond Java's int"));
    let max = size.saturating_sub(1);
    let mut pack: Vec<Card> = (2..=size).collect();
    debug_assert_eq!(pack.len(), max as usize);

    let mut rnd = JavaRandom::new(seed);
    for i in 0..max.saturating_sub(1) {
        // max - i >= 2 here, and max < 2^31, so the bound is a positive Java int.
        let bound = i32::try_from(max - i).expect("bound fits in an int");
        let j = i as usize + rnd.next_int_bounded(bound) as usize;
        pack.swap(i as usize, j);
    }

    let mut layout: Vec<Vec<Card>> = vec![Vec::new(); piles as usize];
    if piles > 0 {
        let dealt = cards.min(max) as usize;
        for (k, &card) in pack[..dealt].iter().enumerate() {
            layout[k % piles as usize].push(card);
        }
    }
    Puzzle { deck, hole: 1, piles: layout }
}

/// The text `java BHMain GEN seed cards ranks suits piles` prints, byte for byte.
///
/// # Panics
/// As [`deal`].
pub fn generate(seed: i64, cards: u32, ranks: u32, suits: u32, piles: u32) -> String {
    starter_text(&deal(seed, cards, ranks, suits, piles))
}

/// Prints a puzzle the way the starter's generator does: `R S P` and the hole on lines of their
/// own, then one line per pile with a space after every card, ended by `-1`.
///
/// Written out here rather than borrowed from [`Puzzle`]'s `Display`, so that the generator's
/// bytes stay the starter's whatever happens to that; a test checks the two agree today.
fn starter_text(puzzle: &Puzzle) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = writeln!(out, "{} {} {}", puzzle.deck.ranks, puzzle.deck.suits, puzzle.piles.len());
    let _ = writeln!(out, "{}", puzzle.hole);
    for pile in &puzzle.piles {
        for card in pile {
            let _ = write!(out, "{card} ");
        }
        out.push_str("-1\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_deal_uses_every_card_but_the_ace_once() {
        let puzzle = deal(1, 51, 13, 4, 17);
        assert_eq!(puzzle.hole, 1);
        assert_eq!(puzzle.piles.len(), 17);
        assert!(puzzle.piles.iter().all(|p| p.len() == 3));
        let mut all: Vec<Card> = puzzle.piles.concat();
        all.sort_unstable();
        assert_eq!(all, (2..=52).collect::<Vec<_>>());
    }

    #[test]
    fn known_deal_matches_the_java_generator() {
        // `java BHMain GEN 1 51 13 4 17` (fixtures/submissions/correct, the starter's algorithm
        // on OpenJDK 17's java.util.Random); tests/generate_java.rs checks many more.
        let text = generate(1, 51, 13, 4, 17);
        let first_pile = text.lines().nth(2).unwrap();
        assert_eq!(text.lines().count(), 19);
        assert!(first_pile.ends_with(" -1"));
        assert_eq!(text, deal(1, 51, 13, 4, 17).to_string());
    }

    #[test]
    fn text_agrees_with_the_model_display() {
        for (seed, cards, ranks, suits, piles) in [(5, 51, 13, 4, 17), (9, 3, 4, 2, 5), (0, 0, 3, 3, 2)] {
            let puzzle = deal(seed, cards, ranks, suits, piles);
            assert_eq!(generate(seed, cards, ranks, suits, piles), puzzle.to_string());
        }
    }

    #[test]
    fn more_cards_than_the_pack_deals_the_whole_pack() {
        assert_eq!(deal(3, 1000, 13, 4, 17), deal(3, 51, 13, 4, 17));
        assert_eq!(deal(3, 20, 13, 4, 17).cards_in_piles(), 20);
    }

    #[test]
    fn zero_piles_deal_nothing() {
        assert_eq!(generate(1, 51, 13, 4, 0), "13 4 0\n1\n");
    }

    #[test]
    fn a_one_card_pack_has_only_the_hole() {
        assert_eq!(generate(1, 51, 1, 1, 3), "1 1 3\n1\n-1\n-1\n-1\n");
        // A two-card pack: nothing to shuffle, card 2 goes on pile 0.
        assert_eq!(generate(8, 51, 2, 1, 2), "2 1 2\n1\n2 -1\n-1\n");
    }

    #[test]
    fn zero_cards_leave_every_pile_empty() {
        assert_eq!(generate(4, 0, 13, 4, 2), "13 4 2\n1\n-1\n-1\n");
    }
}
