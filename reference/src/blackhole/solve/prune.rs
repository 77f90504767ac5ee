//! The move prunes: rules that drop moves without losing any solution.
//!
//! Input: facts about a position (ranks and unit flags of top cards, pile heights, twin piles).
//! Output: booleans and filtered candidate lists ([`PlayCandidate`]) that [`super::search`] uses
//! to choose which children to explore.
//!
//! Every rule is *local*: it only depends on the position itself (never on how the search got
//! there), and it keeps at least one solvable child of every solvable position. By induction on
//! the cards still to play, the pruned search then finds a solution exactly when one exists,
//! and every position it records as dead really is dead, whatever the order of exploration.
//!
//! The proofs below turn a solution `m1 m2 ... mn` from the position into another one. The worm
//! rules make it shorter or move a worm move later; the same-rank and twin-pile rules keep its
//! length and change its first move to a kept one, and the worm rules never change a first move
//! that is a play. So applying them until none applies ends, with a solution whose first move no
//! rule drops.

/// `unit[i]`: every card below position `i` (bottom first) has the rank of card `i`.
///
/// A unit card, once it is on top, behaves like a stack of interchangeable cards of one rank:
/// taking it off frees nothing new except more cards of the same rank. The bottom card of a
/// pile is always a unit card.
pub fn unit_flags(ranks: &[u32]) -> Vec<bool> {
    let mut unit = Vec::with_capacity(ranks.len());
    for (i, &r) in ranks.iter().enumerate() {
        unit.push(i == 0 || (unit[i - 1] && ranks[i - 1] == r));
    }
    unit
}

/// A playable card in the candidate list of [`keep_plays_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayCandidate {
    pub pile: u32,
    pub rank: u32,
    pub unit: bool,
}

/// Same-rank dominance: of the cards playable onto the black hole, drops a unit card when
/// another playable card of its rank is kept: for each rank, keeps every non-unit card if there
/// is one, else the first unit card.
///
/// Sound: let `x` (unit, rank `k`) be played first in some solution and `y` be another playable
/// card of rank `k`. All cards must end in the black hole, so `y` leaves its pile later, at time
/// `ty`, onto the hole or into the worm hole. Let `T` be `{x}`, the cards of rank `k` below `x`
/// (all of them, as `x` is unit) and `y`. In the original solution `T`'s cards leave their
/// places at times `0 < t1 < ... < tm = ty` (or later, for the cards below `x` that follow `y`);
/// play `y` at time 0 instead and give the later times, in order, to `x` and the cards below it.
/// Every card of `T` has rank `k`, so each hole or worm move sees the same ranks as before, and
/// `x`'s pile is still emptied top-down. The cards under `y` are uncovered earlier, which never
/// makes a move illegal, and nothing else changes. A card going into the worm hole in the
/// original gets the same treatment (a card of rank `k` goes in, a card of rank `k` comes out),
/// so the rule holds for Worm Hole too. The new solution has the same length and begins with
/// `y`, a kept card.
///
/// So a non-unit card is always kept, and a unit card exactly when no non-unit card of its rank
/// is playable and no unit card of its rank comes before it. Long lists (many piles) are done in
/// two passes with one flag per rank (`keep_plays_by_rank`); short ones, the common case, by
/// comparing pairs. `flags` is the scratch of `keep_plays_by_rank` (one
/// flag per rank, grown as needed and left all zero), so that a search allocates it once.
#[inline]
pub fn keep_plays_with(candidates: &mut Vec<PlayCandidate>, flags: &mut Vec<u8>) {
    if candidates.len() > SHORT_LIST {
        let ranks = candidates.iter().map(|c| c.rank as usize + 1).max().unwrap_or(0);
        if flags.len() < ranks {
            flags.resize(ranks, 0);
        }
        keep_plays_by_rank(candidates, flags);
        return;
    }
    let mut i = 0;
    while i < candidates.len() {
        let c = candidates[i];
        let dominated =
            c.unit && candidates.iter().enumerate().any(|(j, d)| j != i && d.rank == c.rank && (!d.unit || j < i));
        if dominated {
            candidates.remove(i);
        } else {
            i += 1;
        }
    }
}

/// [`keep_plays_with`] with scratch of its own.
#[cfg(test)]
pub fn keep_plays(candidates: &mut Vec<PlayCandidate>) {
    keep_plays_with(candidates, &mut Vec::new());
}

/// The longest candidate list [`keep_plays_with`] compares pairwise.
const SHORT_LIST: usize = 32;

/// [`keep_plays_with`] in linear time, with `flags` (one per rank, all zero; left all zero) as
/// scratch.
fn keep_plays_by_rank(candidates: &mut Vec<PlayCandidate>, flags: &mut [u8]) {
    const NON_UNIT: u8 = 1;
    const UNIT_KEPT: u8 = 2;
    for c in candidates.iter() {
        if !c.unit {
            flags[c.rank as usize] = NON_UNIT;
        }
    }
    candidates.retain(|c| {
        let flag = &mut flags[c.rank as usize];
        if !c.unit {
            return true;
        }
        if *flag != 0 {
            return false;
        }
        *flag = UNIT_KEPT;
        true
    });
    for c in candidates.iter() {
        flags[c.rank as usize] = 0;
    }
}

/// The worm rule: a unit card (in particular a pile's last card) never goes into the worm hole.
///
/// Sound: suppose a solution moves unit card `x` (rank `k`) into the worm hole at time `t` and
/// plays it from there at time `t'`. While `x` sits in the worm hole nothing else can enter it,
/// so between `t` and `t'` the cards under `x` (all of rank `k`) can only be played onto the
/// black hole. Leave `x` on its pile instead, and at each of those plays, and at `t'`, play the
/// top card of `x`'s pile: always a card of rank `k`, as before, and the pile holds one more card
/// than in the original until `t'`, so it is never empty when needed. The worm hole is empty
/// from `t` to `t'`, which no move in between needed. After `t'` the position is the same. The
/// new solution is one move shorter.
pub fn may_enter_worm(unit: bool) -> bool {
    !unit
}

/// The worm-then-play rule: a card goes into the worm hole only to play the card under it at
/// once, so the search moves `x` into the worm hole only when the card under `x` may follow the
/// hole, and then plays it as part of the same step.
///
/// Sound: take a solution (with no unit card entering the worm hole, by [`may_enter_worm`], so
/// `x` has a card `y` under it) that moves `x` into the worm hole at time `t` and plays it from
/// there at `t'`. Until `t'` nothing else can enter the worm hole, so `y` can only leave its pile
/// by being played. If `y` is not played before `t'`, nothing leaves `x`'s pile in between:
/// leave `x` there and play it at `t'` instead (one move shorter). Otherwise `y` is played at
/// some `ty` between, and the moves between `t` and `ty` touch neither `x`'s pile nor the worm
/// hole; moving `x` into the worm hole just before `ty` leaves them all legal. Each change
/// shortens the solution or moves a worm move later, so repeating them ends, and it never
/// changes a first move that is a play.
pub fn worm_then_play(under_playable: bool) -> bool {
    under_playable
}

/// Twin-pile symmetry: whether pile `p` (height `h > 0`) has an earlier twin, a pile `q < p` of
/// the same height whose remaining cards have the same ranks as `p`'s, bottom to top. Only the
/// first pile of a set of twins is played from.
///
/// Sound: swapping the names `p` and `q` in a solution gives a solution (every legality test
/// sees only ranks, and the two piles offer the same ranks at the same heights; a unit card maps
/// to a unit card, so the other rules are unaffected). A solution whose first move takes from
/// `p` becomes one of the same length whose first move takes the same rank from `q`.
///
/// `twins` lists, for `p`, the earlier piles with the length of their common bottom run of
/// ranks ([`super::state::Layout::twins`], for layouts of few piles). On a layout of many piles
/// the search applies the rule through [`super::state::Layout::prefix`] instead (two piles are
/// twins exactly when their bottom runs up to their heights have one prefix id), marking the
/// ids seen while it lists a position's piles, in time linear in the piles; the tests check the
/// two agree.
#[inline]
pub fn has_earlier_twin(twins: &[(u32, u32)], heights: &[u32], h: u32) -> bool {
    twins.iter().any(|&(q, common)| heights[q as usize] == h && common >= h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_flags_mark_same_rank_bottoms() {
        assert_eq!(unit_flags(&[]), Vec::<bool>::new());
        assert_eq!(unit_flags(&[4, 4, 2, 4]), vec![true, true, false, false]);
        assert_eq!(unit_flags(&[1]), vec![true]);
    }

    #[test]
    fn same_rank_units_give_way() {
        let c = |pile, rank, unit| PlayCandidate { pile, rank, unit };
        let mut list = vec![c(0, 3, true), c(1, 3, false), c(2, 5, true), c(3, 5, true), c(4, 3, false)];
        keep_plays(&mut list);
        assert_eq!(list, vec![c(1, 3, false), c(2, 5, true), c(4, 3, false)]);
        let mut alone = vec![c(7, 1, true)];
        keep_plays(&mut alone);
        assert_eq!(alone, vec![c(7, 1, true)]);
    }

    #[test]
    fn long_lists_keep_what_pairwise_comparison_keeps() {
        let mut rng = 99u64;
        for _ in 0..300 {
            let mut list = Vec::new();
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = SHORT_LIST + 1 + (rng >> 58) as usize;
            for pile in 0..len as u32 {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                list.push(PlayCandidate { pile, rank: (rng >> 40) as u32 % 5, unit: rng >> 63 == 1 });
            }
            let mut pairwise = list.clone();
            let mut i = 0;
            while i < pairwise.len() {
                let c = pairwise[i];
                if c.unit && pairwise.iter().enumerate().any(|(j, d)| j != i && d.rank == c.rank && (!d.unit || j < i))
                {
                    pairwise.remove(i);
                } else {
                    i += 1;
                }
            }
            let mut flags = Vec::new();
            keep_plays_with(&mut list, &mut flags);
            assert_eq!(list, pairwise);
            assert!(flags.iter().all(|&f| f == 0));
        }
    }

    #[test]
    fn twins_need_equal_height_within_the_common_run() {
        let twins = [(0, 2), (1, 1)];
        assert!(has_earlier_twin(&twins, &[2, 5, 2], 2));
        assert!(!has_earlier_twin(&twins, &[3, 5, 3], 3));
        assert!(has_earlier_twin(&twins, &[3, 1, 1], 1));
        assert!(!may_enter_worm(true));
        assert!(may_enter_worm(false));
    }
}
