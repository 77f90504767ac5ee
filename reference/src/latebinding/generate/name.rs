//! Instances named after the 2022 starter's generator: a layout file called
//! `seedSEED.pP.rR.sS.txt`, as the course named its files (e.g. `seed16.p24.r8.s3.txt`) → the
//! [`GenName`] it spells, and so the text `GEN SEED P R S` prints.
//!
//! One family of the course's own files is misnamed (`late-binding.md`: the `*.p16.r10.s4.txt`
//! files hold layouts with `S = 6`); a suite that copies them must rename them, and
//! `bhgrade regen --check` says which.

use std::path::Path;

use crate::latebinding::parse::MAX_CARDS;

use super::generate;

/// The arguments of `GEN seed [P] [R] [S]` that a file name spells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenName {
    pub seed: i64,
    pub piles: u32,
    pub ranks: u32,
    pub suits: u32,
}

/// The digits after `prefix` in `field`, as a number (no sign, no empty number).
fn number(field: &str, prefix: &str) -> Option<u32> {
    let digits = field.strip_prefix(prefix)?;
    let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    plain.then(|| digits.parse().ok()).flatten()
}

impl GenName {
    /// The generator's arguments if `file`'s name is `seedSEED.pP.rR.sS.txt` (the seed may be
    /// negative) and the layout is one the parser accepts (`R`, `S`, `P` at least 1, no more
    /// piles than cards: the starter would print a header promising cards it cannot deal).
    pub fn parse(file: &str) -> Option<GenName> {
        let stem = Path::new(file).file_name()?.to_str()?.strip_suffix(".txt")?;
        let fields: Vec<&str> = stem.split('.').collect();
        let [seed, piles, ranks, suits] = fields.as_slice() else {
            return None;
        };
        let seed = seed.strip_prefix("seed")?;
        let (negative, seed) = match seed.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, seed),
        };
        let magnitude = i64::from(number(seed, "")?);
        let name = GenName {
            seed: if negative { -magnitude } else { magnitude },
            piles: number(piles, "p")?,
            ranks: number(ranks, "r")?,
            suits: number(suits, "s")?,
        };
        let size = u64::from(name.ranks) * u64::from(name.suits);
        let dealt = name.piles >= 1 && u64::from(name.piles) <= size;
        (name.ranks >= 1 && name.suits >= 1 && dealt && size <= MAX_CARDS).then_some(name)
    }

    /// The starter's call, e.g. `GEN 16 24 8 3`.
    pub fn call(&self) -> String {
        format!("GEN {} {} {} {}", self.seed, self.piles, self.ranks, self.suits)
    }

    /// The text `GEN` prints for these arguments.
    pub fn text(&self) -> String {
        generate(self.seed, self.piles, self.ranks, self.suits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_spell_the_generator_arguments() {
        let name = GenName::parse("instances/seed16.p24.r8.s3.txt").unwrap();
        assert_eq!(name, GenName { seed: 16, piles: 24, ranks: 8, suits: 3 });
        assert_eq!(name.call(), "GEN 16 24 8 3");
        assert_eq!(GenName::parse("seed-7.p5.r3.s2.txt").unwrap().seed, -7);
        assert_eq!(GenName::parse("seed1.p5.r3.s2.txt").unwrap().text(), "3 2 5\n4 5 1 3 2 \n");
        for other in [
            "layout.txt",
            "seed1.p5.r3.txt",
            "seed1.p5.r3.s2.sol",
            "seed1.p5.rx.s2.txt",
            "seed1.p0.r3.s2.txt",
            "seed1.p7.r3.s2.txt",
            "seed1.r3.p5.s2.txt",
            "seed+1.p5.r3.s2.txt",
            "1-51-13-4-17.txt",
        ] {
            assert_eq!(GenName::parse(other), None, "{other}");
        }
    }
}
