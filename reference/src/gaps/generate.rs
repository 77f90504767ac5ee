//! The generator (`GEN seed [R] [S]`): a seeded deal, the same on every machine, that a Java
//! starter can print byte for byte.
//!
//! Input: a seed (any Java `long`), ranks `R` and suits `S`. Output: the deal as a [`Layout`]
//! ([`deal`]) or as its layout text ([`generate`]); [`GenName`], a file name that spells the
//! call. The algorithm (`docs/gaps.md`, "The generator"): the deck `1..=R*S` shuffled as Late
//! Binding's starter shuffles it ([`shuffled_deck`]: `java.util.Random(seed)`, for `i` from 0
//! to `N-2` swap `cards[i]` with `cards[i + nextInt(N-i)]`), dealt row by row, `R` cards to a
//! row; then each Ace leaves a gap where it lay, and row `s` gets the Ace of suit `s` in front.
//!
//! ```
//! let text = bhref::gaps::generate::generate(1, 3, 2);
//! assert_eq!(text, "3 2\n1 0 5 0\n4 3 2 6\n");
//! ```

use std::path::Path;

use super::model::{Deck, Layout, GAP};
use super::parse::{MAX_CARDS, MAX_SIDE};
use crate::java_random::shuffled_deck;

/// The default `R` and `S` of `GEN`: the standard 52-card deal.
pub const DEFAULT_RANKS: u32 = 13;
pub const DEFAULT_SUITS: u32 = 4;

/// The deal `GEN seed ranks suits` prints, as a [`Layout`].
pub fn deal(seed: i64, ranks: u32, suits: u32) -> Layout {
    let deck = Deck { ranks, suits };
    let shuffled = shuffled_deck(seed, ranks, suits);
    let mut cells = Vec::with_capacity(shuffled.len() + suits as usize);
    for (suit, row) in shuffled.chunks(ranks as usize).enumerate() {
        cells.push(suit as u32 * ranks + 1);
        cells.extend(row.iter().map(|&card| if deck.rank(card) == 0 { GAP } else { card }));
    }
    Layout { deck, cells }
}

/// The layout text of `GEN seed ranks suits`.
pub fn generate(seed: i64, ranks: u32, suits: u32) -> String {
    deal(seed, ranks, suits).to_string()
}

/// The arguments of `GEN seed [R] [S]` that an instance file's name spells:
/// `gaps-seedSEED.rR.sS.txt`, e.g. `gaps-seed7.r13.s4.txt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenName {
    pub seed: i64,
    pub ranks: u32,
    pub suits: u32,
}

impl GenName {
    /// The arguments `file`'s name spells, when the parser would take such a deal.
    pub fn parse(file: &str) -> Option<GenName> {
        let stem = Path::new(file).file_name()?.to_str()?.strip_suffix(".txt")?;
        let [seed, ranks, suits] = stem.split('.').collect::<Vec<_>>()[..] else { return None };
        let plain = |text: &str| text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty();
        let seed = seed.strip_prefix("gaps-seed")?;
        let digits = seed.strip_prefix('-').unwrap_or(seed);
        let (ranks, suits) = (ranks.strip_prefix('r')?, suits.strip_prefix('s')?);
        if !plain(digits) || !plain(ranks) || !plain(suits) {
            return None;
        }
        let name = GenName { seed: seed.parse().ok()?, ranks: ranks.parse().ok()?, suits: suits.parse().ok()? };
        let fits = (2..=MAX_SIDE).contains(&name.ranks) && (1..=MAX_SIDE).contains(&name.suits);
        (fits && name.ranks * name.suits <= MAX_CARDS).then_some(name)
    }

    /// The call, e.g. `GEN 7 13 4`.
    pub fn call(&self) -> String {
        format!("GEN {} {} {}", self.seed, self.ranks, self.suits)
    }

    /// The text `GEN` prints for these arguments.
    pub fn text(&self) -> String {
        generate(self.seed, self.ranks, self.suits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gaps::parse::parse_layout;

    #[test]
    fn every_deal_parses_and_holds_its_aces_in_front() {
        for (seed, ranks, suits) in [(1, 13, 4), (-5, 4, 4), (99, 13, 6), (3, 2, 1)] {
            let text = generate(seed, ranks, suits);
            let layout = parse_layout("gen", &text).unwrap();
            assert_eq!(layout.to_string(), text);
            assert_eq!(layout.cells.iter().filter(|&&c| c == GAP).count(), suits as usize);
        }
    }

    #[test]
    fn names_spell_the_call() {
        let name = GenName::parse("instances/gaps-seed7.r13.s4.txt").unwrap();
        assert_eq!((name.call(), name.text()), ("GEN 7 13 4".to_string(), generate(7, 13, 4)));
        assert_eq!(GenName::parse("gaps-seed-2.r4.s4.txt").unwrap().seed, -2);
        for other in ["seed7.p17.r13.s4.txt", "gaps-seed7.r1.s4.txt", "gaps-seed7.r13.s4", "gaps-seedx.r4.s4.txt"] {
            assert_eq!(GenName::parse(other), None, "{other}");
        }
    }
}
