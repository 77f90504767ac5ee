//! The rank-walk tests: can the cards still to play follow the hole's rank at all, and can
//! they in an order the piles allow?
//!
//! Input: the number of cards still to play of each rank, the hole's rank and, for the pile
//! test, the ranks left in each pile. Output: booleans; `false` proves the position dead.
//!
//! The pile-order test itself lives in [`super::cuts`]. Both are necessary conditions only
//! (they never reject a solvable position), checked against exhaustive search in this module's
//! tests and in `super::tests`.

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
///
/// `ends` masks the ranks the walk may end at (bit `t` for rank `t`; ranks above 63 are never
/// masked): the caller may know that the last card must have one of a few ranks.
///
/// When `piles` is given (the pile-order test of [`super::cuts::PileOrder`]), it is asked about
/// the edge counts of each walk found, where those are unique (odd `R >= 3`), and the test
/// passes only if some end rank passes both.
pub fn walk_feasible(
    ranks: u32,
    counts: &[u32],
    start: u32,
    remaining: u32,
    ends: u64,
    piles: Option<&mut dyn FnMut(&Crossings) -> bool>,
) -> bool {
    if remaining == 0 || ranks == 1 {
        return true;
    }
    if ranks == 2 {
        let same = counts[start as usize];
        let other = counts[1 - start as usize];
        return other == same || other == same + 1;
    }
    if ranks % 2 == 1 && ranks <= SHORT_CYCLE {
        return odd_cycle_walk::<{ SHORT_CYCLE as usize }>(counts, start, ends, piles);
    }
    if ranks % 2 == 1 && ranks <= MAX_FAST_RANKS {
        return odd_cycle_walk::<{ MAX_FAST_RANKS as usize }>(counts, start, ends, piles);
    }
    // Each end rank costs a pass over the ranks: after `GENERAL_WORK / ranks` of them the test
    // passes, which only loses pruning, so that a node costs time linear in the ranks.
    let most = (GENERAL_WORK / ranks as usize).max(1);
    (0..ranks)
        .filter(|&t| may_end(ends, t) && counts[t as usize] > 0)
        .take(most + 1)
        .enumerate()
        .any(|(tried, t)| tried == most || cycle_walk_ends_at(counts, start, t))
}

/// The ranks the general test may pass over in all, end rank after end rank: every deck of at
/// most 256 ranks is tested exactly for every end rank; a larger one (never a course puzzle)
/// passes once this much work finds no end.
const GENERAL_WORK: usize = 1 << 16;

/// Whether `ends` lets a walk end at rank `t`.
fn may_end(ends: u64, t: u32) -> bool {
    t >= 64 || ends >> t & 1 == 1
}

/// [`walk_feasible`] without the pile-order test or a restriction on the end.
#[cfg(test)]
pub fn rank_walk_feasible(ranks: u32, counts: &[u32], start: u32, remaining: u32) -> bool {
    walk_feasible(ranks, counts, start, remaining, u64::MAX, None)
}

/// The longest cycle [`odd_cycle_walk`] handles (its buffers live on the stack, and arcs of
/// ranks are `u64` masks).
const MAX_FAST_RANKS: u32 = 63;

/// Cycles up to this long (the standard deck's 13 ranks) take [`odd_cycle_walk`] with a
/// buffer of this size: filling the longest one's for every position cost 2% of the search.
const SHORT_CYCLE: u32 = 15;

/// [`walk_feasible`] for an odd cycle of at most `N` ranks (the standard deck's 13 ranks), in
/// one pass for the edge counts and one cheap pass per end rank, with the pile-order test if
/// `piles` is given.
///
/// On an odd cycle the edge counts are unique. Solving once without the end rank `t`
/// (`d_k = 2 counts[k] + [k = start]`) gives half-integer counts `E_k / 2` (`E_k` odd: the
/// degrees sum to an odd number). Lowering `d_t` by one subtracts `1/2` from the edges an even
/// number of steps from `t` (going up from edge `t`) and adds `1/2` to the others, so for end
/// `t` the doubled count of edge `k` is `E_k - s_t(k)` with `s_t(k) = +1` if `(k - t) mod R` is
/// even, else `-1`.
fn odd_cycle_walk<const N: usize>(
    counts: &[u32],
    start: u32,
    ends: u64,
    mut piles: Option<&mut dyn FnMut(&Crossings) -> bool>,
) -> bool {
    let r = counts.len();
    // `a_k = d_k - a_{k-1}`; then `E_k = 2 a_k + (-1)^(k+1) a_{R-1}` and `E_{R-1} = a_{R-1}`.
    let mut chain = [0i64; N];
    let mut a = 0i64;
    // The ranks with cards left.
    let mut present = 0u64;
    for (k, (slot, &count)) in chain.iter_mut().zip(counts).enumerate() {
        a = 2 * i64::from(count) + i64::from(k == start as usize) - a;
        *slot = a;
        present |= u64::from(count > 0) << k;
    }
    let last = a;
    // The edges by `E_k`, for the small values that matter (see [`Crossings`]).
    let mut crossings = Crossings { low: [0; LOW_VALUES], plus: 0, end: 0 };
    for (k, &a) in chain[..r].iter().enumerate() {
        let twice = if k == r - 1 {
            last
        } else if k % 2 == 1 {
            2 * a + last
        } else {
            2 * a - last
        };
        if twice < -1 {
            return false;
        }
        // `twice >= -1` here, so `(twice + 1) / 2` is a shift.
        crossings.low[(((twice + 1) as u64 >> 1) as usize).min(LOW_VALUES - 1)] |= 1 << k;
    }
    let full = (1u64 << r) - 1;
    let negative = crossings.low[0];
    let one = crossings.low[1];
    let mut candidates = present & ends;
    while candidates != 0 {
        let t = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        let plus = Crossings::plus_for_end(r, t);
        // An edge with `E_k = -1` needs `+1/2`; one with `E_k = 1` drops to 0 with `-1/2`.
        if negative & plus != 0 {
            continue;
        }
        let positive = full & !((one & plus) | negative);
        // The used edges must form one run around the cycle: count where runs start.
        let before = ((positive << 1) | (positive >> (r - 1))) & full;
        if (positive & !before).count_ones() > 1 {
            continue;
        }
        crossings.plus = plus;
        crossings.end = t;
        if piles.as_deref_mut().is_none_or(|allow| allow(&crossings)) {
            return true;
        }
    }
    false
}

/// How many values of `E_k` (`-1, 1, 3, ...`) [`Crossings`] tells apart; larger ones share the
/// last entry. Enough for every crossing count the pile-order test looks at.
pub const LOW_VALUES: usize = 12;

/// The edge counts of one end rank's walk on an odd cycle, as halves of odd numbers moved by a
/// half: edge `k` is crossed `(E_k - 1) / 2` times if it is in `plus`, else `(E_k + 1) / 2`.
#[derive(Clone, Copy, Debug)]
pub struct Crossings {
    /// `low[i]`: the edges with `E_k = 2 i - 1` (the last entry: with `E_k` at least that),
    /// the same for every end rank of one position.
    pub low: [u64; LOW_VALUES],
    /// The edges whose count is `(E_k - 1) / 2`.
    pub plus: u64,
    /// The end rank, or past the ranks for counts made up by a test.
    pub end: usize,
}

impl Crossings {
    /// The mask `plus` for end rank `t` on an odd cycle of `r` ranks: `s_t(k) = +1` where
    /// `k - t` is even for `k >= t`, odd for `k < t`.
    pub fn plus_for_end(r: usize, t: usize) -> u64 {
        let full = (1u64 << r) - 1;
        let even = 0x5555_5555_5555_5555 & full;
        let odd = full & !even;
        let below = (1u64 << t) - 1;
        let above = full & !below;
        if t.is_multiple_of(2) {
            (even & above) | (odd & below)
        } else {
            (odd & above) | (even & below)
        }
    }

    /// The crossings of a walk with these edge counts (edge `k` joins ranks `k` and `k + 1`).
    pub fn from_counts(edges: &[i64]) -> Self {
        let mut low = [0; LOW_VALUES];
        for (k, &e) in edges.iter().enumerate() {
            // `E_k = 2 e + 1`, so `i = e + 1`.
            low[((e + 1) as usize).min(LOW_VALUES - 1)] |= 1 << k;
        }
        Crossings { low, plus: (1u64 << edges.len()) - 1, end: usize::MAX }
    }
}

/// The edge counts of the walk from `start` to `t` on an odd cycle (edge `k` joins ranks `k`
/// and `k + 1`), if such a walk exists (see [`walk_feasible`]).
pub fn odd_cycle_edges(counts: &[u32], start: u32, t: u32) -> Option<Vec<i64>> {
    let r = counts.len();
    if r < 3 || r.is_multiple_of(2) || !cycle_walk_ends_at(counts, start, t) {
        return None;
    }
    let degree =
        |k: usize| -> i64 { 2 * i64::from(counts[k]) + i64::from(k == start as usize) - i64::from(k == t as usize) };
    let mut chain = vec![0i64; r];
    let mut a = 0i64;
    for (k, slot) in chain.iter_mut().enumerate() {
        a = degree(k) - a;
        *slot = a;
    }
    let x = a / 2;
    Some(
        (0..r)
            .map(|k| {
                if k == r - 1 {
                    x
                } else if k % 2 == 1 {
                    chain[k] + x
                } else {
                    chain[k] - x
                }
            })
            .collect(),
    )
}

/// Whether, on the cycle of `counts.len() >= 3` ranks, non-negative connected edge counts exist
/// for a walk from `start` to `t` (see [`walk_feasible`]).
///
/// With `x = e_{R-1}`, the equations give `e_k = a_k + (-1)^(k+1) x` where `a_k = d_k - a_{k-1}`
/// and `a_{-1} = 0`. For odd `R` the last equation fixes `x = a_{R-1} / 2`; for even `R` it
/// requires `a_{R-1} = 0` and leaves `x` free in an interval. If that interval holds an inner
/// point every edge count is positive (connected); otherwise only its ends need checking.
fn cycle_walk_ends_at(counts: &[u32], start: u32, t: u32) -> bool {
    let r = counts.len();
    let degree =
        |k: usize| -> i64 { 2 * i64::from(counts[k]) + i64::from(k == start as usize) - i64::from(k == t as usize) };
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
    r.is_multiple_of(2) && high > low && connected(counts, start, t, high)
}

/// Whether the positive edge counts for `x = e_{R-1}` form one run around the cycle.
fn connected(counts: &[u32], start: u32, t: u32, x: i64) -> bool {
    let r = counts.len();
    let degree =
        |k: usize| -> i64 { 2 * i64::from(counts[k]) + i64::from(k == start as usize) - i64::from(k == t as usize) };
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

    /// The general per-end test, which [`odd_cycle_walk`] must agree with.
    fn slow_odd(counts: &[u32], start: u32) -> bool {
        (0..counts.len() as u32).any(|t| counts[t as usize] > 0 && cycle_walk_ends_at(counts, start, t))
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
                let mut counts: Vec<u32> =
                    (0..ranks).map(|k| code / (max_count + 1).pow(k) % (max_count + 1)).collect();
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
            let ranks = [3usize, 5, 7, 13, 15, 17, 63][(rng >> 60) as usize % 7];
            let counts: Vec<u32> = (0..ranks).map(|k| ((rng >> (k % 30 * 2)) & 3) as u32).collect();
            let start = (rng >> 33) as u32 % ranks as u32;
            let fast = odd_cycle_walk::<{ MAX_FAST_RANKS as usize }>(&counts, start, u64::MAX, None);
            assert_eq!(fast, slow_odd(&counts, start), "{counts:?} {start}");
            if ranks <= SHORT_CYCLE as usize {
                let short = odd_cycle_walk::<{ SHORT_CYCLE as usize }>(&counts, start, u64::MAX, None);
                assert_eq!(short, fast, "{counts:?} {start}");
            }
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
