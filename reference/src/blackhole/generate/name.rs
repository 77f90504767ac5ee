//! Instances named after the course's generator: a puzzle file called
//! `seed-cards-ranks-suits-piles.txt` (as the course named its files) → the [`GenName`] it
//! spells, and so the text the starter's `GEN seed cards ranks suits piles` prints. An organiser
//! can then regenerate such a file, and `bhgrade regen --check` can tell one that no longer
//! matches its name.

use std::path::Path;

use crate::blackhole::parse::MAX_CARDS;

use super::generate;

/// The arguments of `GEN` that a file name spells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenName {
    pub seed: i64,
    pub cards: u32,
    pub ranks: u32,
    pub suits: u32,
    pub piles: u32,
}

impl GenName {
    /// The generator's arguments if `file`'s name is `seed-cards-ranks-suits-piles.txt` (the
    /// seed may be negative) and the deck is one the generator deals.
    pub fn parse(file: &str) -> Option<GenName> {
        let stem = Path::new(file).file_name()?.to_str()?.strip_suffix(".txt")?;
        let (negative, stem) = match stem.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, stem),
        };
        let fields: Vec<&str> = stem.split('-').collect();
        let [seed, cards, ranks, suits, piles] = fields.as_slice() else {
            return None;
        };
        let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if ![seed, cards, ranks, suits, piles].iter().all(|field| digits(field)) {
            return None;
        }
        let seed: i64 = seed.parse().ok()?;
        let name = GenName {
            seed: if negative { -seed } else { seed },
            cards: cards.parse().ok()?,
            ranks: ranks.parse().ok()?,
            suits: suits.parse().ok()?,
            piles: piles.parse().ok()?,
        };
        let size = u64::from(name.ranks) * u64::from(name.suits);
        (name.ranks >= 1 && name.suits >= 1 && name.piles >= 1 && size <= MAX_CARDS).then_some(name)
    }

    /// The starter's call, e.g. `GEN 1 51 13 4 17`.
    pub fn call(&self) -> String {
        format!("GEN {} {} {} {} {}", self.seed, self.cards, self.ranks, self.suits, self.piles)
    }

    /// The text `GEN` prints for these arguments.
    pub fn text(&self) -> String {
        generate(self.seed, self.cards, self.ranks, self.suits, self.piles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_spell_the_generator_arguments() {
        let name = GenName::parse("instances/1-51-13-4-17.txt").unwrap();
        assert_eq!(name, GenName { seed: 1, cards: 51, ranks: 13, suits: 4, piles: 17 });
        assert_eq!(GenName::parse("-7-5-13-4-3.txt").unwrap().seed, -7);
        assert!(name.text().starts_with("13 4 17\n1\n"));
        assert_eq!(name.call(), "GEN 1 51 13 4 17");
        for other in ["handout.txt", "1-51-13-4.txt", "1-51-13-4-17.sol", "1-51-13-x-17.txt", "1-51-0-4-17.txt"] {
            assert_eq!(GenName::parse(other), None, "{other}");
        }
    }

    #[test]
    fn the_text_is_the_starters() {
        let name = GenName::parse("1-4-5-1-2.txt").unwrap();
        assert_eq!(name.text(), "5 1 2\n1\n4 3 -1\n2 5 -1\n");
    }
}
