//! The generator (`GEN seed [W]`): a seeded Superpuzz deal, Gaps' generator's deal of 4 suits of
//! `W` ranks (6, 7 or 8; 6 by default), so that the same seed deals the same cards in both games.
//!
//! Input: a seed and a width. Output: the deal's layout text ([`generate`]); [`SuperpuzzName`],
//! a file name that spells the call.

use std::path::Path;

/// `GEN`'s width when none is given: the seed's 4×6.
pub const DEFAULT_WIDTH: u32 = 6;

/// The widths a deal may have.
pub const WIDTHS: std::ops::RangeInclusive<u32> = 6..=8;

/// The layout text of `GEN seed width`.
pub fn generate(seed: i64, width: u32) -> String {
    crate::gaps::generate::generate(seed, width, 4)
}

/// The arguments of `GEN seed W` that an instance file's name spells: `superpuzz-seedSEED.wW.txt`,
/// e.g. `superpuzz-seed7.w6.txt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuperpuzzName {
    pub seed: i64,
    pub width: u32,
}

impl SuperpuzzName {
    /// The arguments `file`'s name spells, when they make a deal.
    pub fn parse(file: &str) -> Option<SuperpuzzName> {
        let stem = Path::new(file).file_name()?.to_str()?.strip_suffix(".txt")?;
        let (seed, width) = stem.strip_prefix("superpuzz-seed")?.split_once(".w")?;
        let plain = |text: &str| text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty();
        if !plain(seed.strip_prefix('-').unwrap_or(seed)) || !plain(width) {
            return None;
        }
        let name = SuperpuzzName { seed: seed.parse().ok()?, width: width.parse().ok()? };
        WIDTHS.contains(&name.width).then_some(name)
    }

    /// The call, e.g. `GEN 7 6`.
    pub fn call(&self) -> String {
        format!("GEN {} {}", self.seed, self.width)
    }

    /// The text `GEN` prints for these arguments.
    pub fn text(&self) -> String {
        generate(self.seed, self.width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_spell_the_call() {
        let name = SuperpuzzName::parse("instances/superpuzz-seed7.w6.txt").unwrap();
        assert_eq!((name.call(), name.text()), ("GEN 7 6".to_string(), generate(7, 6)));
        assert_eq!(SuperpuzzName::parse("superpuzz-seed-2.w8.txt").unwrap().seed, -2);
        for other in
            ["superpuzz-seed7.w5.txt", "superpuzz-seed7.w9.txt", "gaps-seed7.r6.s4.txt", "superpuzz-seedx.w6.txt"]
        {
            assert_eq!(SuperpuzzName::parse(other), None, "{other}");
        }
    }
}
