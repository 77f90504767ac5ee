//! Random play: the paper's iterative sampling (§3.2), a probe being one game played with a
//! legal move chosen uniformly at random until none is left.
//!
//! Input: a [`Layout`], a [`Variant`], a number of probes and a [`SplitMix64`]. Output: the
//! number of the first probe that won, if any. Under the common variant a probe can go round
//! for ever (Twos moving between first-column gaps), so a probe stops, lost, after
//! [`MAX_PROBE_MOVES`] moves; under the basic one no game is that long.

use super::model::{Layout, Variant};
use crate::rng::SplitMix64;

/// The longest a probe may play: over twice the longest basic game of any deck the parser takes.
pub const MAX_PROBE_MOVES: usize = 100_000;

/// Plays one random game from `layout`; whether it was won.
pub fn probe(layout: &Layout, variant: Variant, rng: &mut SplitMix64) -> bool {
    let mut position = layout.clone();
    let mut place = position.places();
    let mut moves = Vec::new();
    for _ in 0..MAX_PROBE_MOVES {
        position.moves_into(variant, position.gaps(), &mut moves);
        if moves.is_empty() {
            return position.is_won(variant);
        }
        let m = moves[rng.index(moves.len())];
        position.play(m, &mut place);
    }
    false
}

/// Plays up to `probes` random games; the 1-based number of the first that won.
pub fn sample(layout: &Layout, variant: Variant, probes: u32, rng: &mut SplitMix64) -> Option<u32> {
    (1..=probes).find(|_| probe(layout, variant, rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gaps::parse::parse_layout;

    #[test]
    fn a_forced_game_is_won_by_every_probe_and_a_stuck_one_by_none() {
        let stuck = parse_layout("s", "3 2\n1 2 3 0\n4 6 0 5\n").unwrap();
        let mut rng = SplitMix64::new(1);
        assert_eq!(sample(&stuck, Variant::Basic, 10, &mut rng), None);
        // One move only, and it wins: card 3 after card 2.
        let won = parse_layout("w", "3 2\n1 2 0 3\n4 5 6 0\n").unwrap();
        assert_eq!(sample(&won, Variant::Basic, 10, &mut rng), Some(1));
    }
}
