//! The prunes: rules that drop moves or whole positions without losing any solution.
//!
//! Input: facts about a position (ranks of top cards, unit flags, pile heights, counts of the
//! cards still to play by rank). Output: booleans and filtered candidate lists that
//! [`super::search`] uses to choose which children to explore.
//!
//! Every rule is *local*: it only depends on the position's key (heights, hole rank, worm rank),
//! and it keeps at least one solvable child of every solvable position. By induction on the
//! cards still to play, the pruned search then finds a solution exactly when one exists, and
//! every position it records as dead really is dead, whatever the order of exploration.
//!
//! The proofs below turn a solution `m1 m2 ... mn` from the position into another one. Three of
//! them make the solution shorter (the worm rule) or keep its length and fix its first move (the
//! same-rank and twin-pile rules), so applying them until none applies ends, and the result is a
//! solution whose first move no rule drops.

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

/// A playable card in the candidate list of [`keep_plays`].
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
pub fn keep_plays(candidates: &mut Vec<PlayCandidate>) {
    let mut i = 0;
    while i < candidates.len() {
        let c = candidates[i];
        let dominated = c.unit
            && candidates.iter().enumerate().any(|(j, d)| j != i && d.rank == c.rank && (!d.unit || j < i));
        if dominated {
            candidates.remove(i);
        } else {
            i += 1;
        }
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
/// ranks (from [`super::state::Layout`]).
pub fn has_earlier_twin(twins: &[(u32, u32)], heights: &[u32], h: u32) -> bool {
    twins.iter().any(|&(q, common)| heights[q as usize] == h && common >= h)
}

/// The rank-walk test: whether the cards still to play could, ignoring the piles entirely,
/// follow the hole's rank `start` in some order. A necessary condition for solvability in both
/// games (the worm hole changes the order cards leave the piles in, not the rule that each card
/// reaching the black hole is adjacent to the one before it), so dropping a position that fails
/// it loses nothing.
///
/// The hole's ranks form a walk `start = v0, v1, ..., vn` in the rank graph (a cycle for `R >= 3`)
/// that visits each rank `k` exactly `counts[k]` times. Let `e_j` count the walk's steps over
/// edge `{j, j+1}` and `t` be the last rank. The walk is an Euler trail from `start` to `t` in the
/// multigraph with those edge counts, so `e_{k-1} + e_k = 2 counts[k] + [k = start] - [k = t]`
/// and the edges used are connected; conversely, by Euler's theorem, such edge counts give such
/// a trail. So the test is exact for the relaxation without piles, and it implies the simpler
/// rank-reachability tests (a rank with no cards left between cards still to play makes the
/// edge counts around it zero, which disconnects them).
///
/// `R = 1` always passes (every card follows every card); with `R = 2` the walk alternates, so
/// the other rank needs exactly as many cards as the start rank, or one more.
pub fn rank_walk_feasible(ranks: u32, counts: &[u32], start: u32, remaining: u32) -> bool {
    if remaining == 0 || ranks == 1 {
        return true;
    }
    if ranks == 2 {
        let same = counts[start as usize];
        let other = counts[1 - start as usize];
        return other == same || other == same + 1;
    }
    if ranks % 2 == 1 {
        return odd_cycle_walk(counts, start);
    }
    (0..ranks).any(|t| counts[t as usize] > 0 && cycle_walk_ends_at(counts, start, t))
}

/// [`rank_walk_feasible`] for an odd cycle (the standard deck's 13 ranks), in one pass for the
/// edge counts and one cheap pass per end rank.
///
/// On an odd cycle the edge counts are unique. Solving once without the end rank `t`
/// (`d_k = 2 counts[k] + [k = start]`) gives half-integer counts `E_k / 2` (`E_k` odd: the
/// degrees sum to an odd number). Lowering `d_t` by one subtracts `1/2` from the edges an even
/// number of steps from `t` (going up from edge `t`) and adds `1/2` to the others, so for end
/// `t` the doubled count of edge `k` is `E_k - s_t(k)` with `s_t(k) = +1` if `(k - t) mod R` is
/// even, else `-1`.
fn odd_cycle_walk(counts: &[u32], start: u32) -> bool {
    let r = counts.len();
    let degree = |k: usize| 2 * i64::from(counts[k]) + i64::from(k == start as usize);
    // `a_k = d_k - a_{k-1}`; then `E_k = 2 a_k + (-1)^(k+1) a_{R-1}` and `E_{R-1} = a_{R-1}`.
    let mut chain = [0i64; 64];
    let chain = if r <= 64 { &mut chain[..r] } else { return slow_odd(counts, start) };
    let mut a = 0i64;
    for (k, slot) in chain.iter_mut().enumerate() {
        a = degree(k) - a;
        *slot = a;
    }
    let last = a;
    for (k, slot) in chain.iter_mut().enumerate().take(r - 1) {
        *slot = 2 * *slot + if k % 2 == 1 { last } else { -last };
        if *slot < -1 {
            return false;
        }
    }
    chain[r - 1] = last;
    if last < -1 {
        return false;
    }
    let doubled = &chain[..];
    (0..r).any(|t| {
        if counts[t] == 0 {
            return false;
        }
        let mut runs = 0;
        let edge = |k: usize| doubled[k] - if (k + r - t) % r % 2 == 0 { 1 } else { -1 };
        let mut prev_positive = edge(r - 1) > 0;
        for k in 0..r {
            let e = edge(k);
            if e < 0 {
                return false;
            }
            if e > 0 && !prev_positive {
                runs += 1;
            }
            prev_positive = e > 0;
        }
        runs <= 1
    })
}

/// The general per-end test, for odd cycles too long for [`odd_cycle_walk`]'s buffer.
fn slow_odd(counts: &[u32], start: u32) -> bool {
    (0..counts.len() as u32).any(|t| counts[t as usize] > 0 && cycle_walk_ends_at(counts, start, t))
}

/// Whether, on the cycle of `counts.len() >= 3` ranks, non-negative connected edge counts exist
/// for a walk from `start` to `t` (see [`rank_walk_feasible`]).
///
/// With `x = e_{R-1}`, the equations give `e_k = a_k + (-1)^(k+1) x` where `a_k = d_k - a_{k-1}`
/// and `a_{-1} = 0`. For odd `R` the last equation fixes `x = a_{R-1} / 2`; for even `R` it
/// requires `a_{R-1} = 0` and leaves `x` free in an interval. If that interval holds an inner
/// point every edge count is positive (connected); otherwise only its ends need checking.
fn cycle_walk_ends_at(counts: &[u32], start: u32, t: u32) -> bool {
    let r = counts.len();
    let degree = |k: usize| -> i64 {
        2 * i64::from(counts[k]) + i64::from(k == start as usize) - i64::from(k == t as usize)
    };
    let (mut low, mut high) = (0i64, i64::MAX);
    let mut a = 0i64;
    for k in 0..r - 1 {
        a = degree(k) - a;
        if k % 2 == 1 {
            low = low.max(-a);
        } else {
            high = high.min(a);
        }
    }
    a = degree(r - 1) - a;
    let x = if r % 2 == 1 {
        if a < 0 || a % 2 != 0 {
            return false;
        }
        a / 2
    } else {
        if a != 0 {
            return false;
        }
        if high - low >= 2 {
            return true;
        }
        low
    };
    if x < low || x > high {
        return false;
    }
    if connected(counts, start, t, x) {
        return true;
    }
    // Even `R` with a one-point-wide interval: the other end is the only other choice.
    r % 2 == 0 && high > low && connected(counts, start, t, high)
}

/// Whether the positive edge counts for `x = e_{R-1}` form one run around the cycle.
fn connected(counts: &[u32], start: u32, t: u32, x: i64) -> bool {
    let r = counts.len();
    let degree = |k: usize| -> i64 {
        2 * i64::from(counts[k]) + i64::from(k == start as usize) - i64::from(k == t as usize)
    };
    let mut a = 0i64;
    let mut runs = 0;
    let mut prev_positive = x > 0;
    for k in 0..r {
        let e = if k == r - 1 {
            x
        } else {
            a = degree(k) - a;
            if k % 2 == 1 {
                a + x
            } else {
                a - x
            }
        };
        if e > 0 && !prev_positive {
            runs += 1;
        }
        prev_positive = e > 0;
    }
    runs <= 1
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
    fn twins_need_equal_height_within_the_common_run() {
        let twins = [(0, 2), (1, 1)];
        assert!(has_earlier_twin(&twins, &[2, 5, 2], 2));
        assert!(!has_earlier_twin(&twins, &[3, 5, 3], 3));
        assert!(has_earlier_twin(&twins, &[3, 1, 1], 1));
        assert!(!may_enter_worm(true));
        assert!(may_enter_worm(false));
    }

    /// Brute force over every order of a small multiset of ranks.
    fn walk_exists(ranks: u32, counts: &mut [u32], at: u32) -> bool {
        if counts.iter().all(|&c| c == 0) {
            return true;
        }
        for next in 0..ranks {
            let diff = (next + ranks - at) % ranks;
            let adjacent = diff == 1 || diff == ranks - 1;
            if adjacent && counts[next as usize] > 0 {
                counts[next as usize] -= 1;
                let found = walk_exists(ranks, counts, next);
                counts[next as usize] += 1;
                if found {
                    return true;
                }
            }
        }
        false
    }

    #[test]
    fn rank_walk_matches_brute_force_on_small_multisets() {
        for ranks in 1..=7u32 {
            let max_count = if ranks <= 4 { 3 } else { 2 };
            let combos = (max_count + 1u32).pow(ranks);
            for code in 0..combos {
                let mut counts: Vec<u32> = (0..ranks).map(|k| code / (max_count + 1).pow(k) % (max_count + 1)).collect();
                let remaining = counts.iter().sum();
                for start in 0..ranks {
                    let fast = rank_walk_feasible(ranks, &counts, start, remaining);
                    let slow = walk_exists(ranks, &mut counts, start);
                    assert_eq!(fast, slow, "ranks {ranks} counts {counts:?} start {start}");
                }
            }
        }
    }

    #[test]
    fn the_odd_cycle_shortcut_agrees_with_the_general_test() {
        let mut rng = 12345u64;
        for _ in 0..20000 {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let ranks = [3usize, 5, 7, 13, 65][(rng >> 60) as usize % 5];
            let counts: Vec<u32> = (0..ranks).map(|k| ((rng >> (k % 30 * 2)) & 3) as u32).collect();
            let start = (rng >> 33) as u32 % ranks as u32;
            assert_eq!(odd_cycle_walk(&counts, start), slow_odd(&counts, start), "{counts:?} {start}");
        }
    }

    #[test]
    fn rank_walk_rejects_a_crowded_rank() {
        // Four fives but only one four and one six: at most three fives can be separated.
        let mut counts = vec![0; 13];
        counts[4] = 4;
        counts[3] = 1;
        counts[5] = 1;
        assert!(!rank_walk_feasible(13, &counts, 3, 6));
        counts[4] = 2;
        assert!(rank_walk_feasible(13, &counts, 3, 4));
    }
}
