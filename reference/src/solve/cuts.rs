//! The pile-order test: can a walk of hole ranks with given edge counts take every pile
//! top-down?
//!
//! Input: the ranks left in each pile and the hole's rank ([`PileOrder::load`], once per
//! position), then the edge counts of candidate walks ([`PileOrder::allow`], from
//! [`super::walk`]). Output: `false` when no walk with those counts can respect the piles.
//!
//! In Worm Hole a card can reach the black hole after cards below it, by way of the worm hole;
//! [`PileOrder::load_worm`] tests the weaker condition that still holds there.

use super::walk::Crossings;

/// The most ranks the test handles: a cut is a pair of cycle edges, and all `R (R - 1) / 2`
/// cuts must fit in a `u128`. (Larger decks just skip the test, which only costs pruning.)
const MAX_RANKS: u32 = 16;

/// Crossing counts above this are not tested (again only a loss of pruning).
const MAX_CROSSINGS: usize = 7;

/// A set of cuts, one bit per pair of edges `a < b`.
type CutSet = u128;

/// The pile-order test over all cuts of the rank cycle.
///
/// Removing two edges `a < b` of the cycle (edge `k` joins ranks `k` and `k + 1`) splits the
/// ranks into two arcs, `a+1 ..= b` and the rest; call the one holding the hole's rank near. A
/// walk that crosses the cut `m = e_a + e_b` times visits ranks in `m + 1` blocks, alternately
/// near and far, the first near. A pile's cards are played top-down, so their blocks never
/// decrease, and a card's block is near or far as its rank is. A pile whose ranks, top-down,
/// start far and switch sides `j` times needs blocks up to `1 + j` (`j` if it starts near): the
/// cut's *need* is the most any pile needs, and `m` must be at least that. The edge counts of a
/// walk are fixed by its end rank (odd `R`), so an end rank whose counts cross some cut fewer
/// times than it needs is impossible. Sound, then: it only rejects walks that no order of play
/// can follow.
///
/// All cuts are tested at once, as bit sets: [`Self::load`] finds, for each `j`, the cuts that
/// need at least `j` crossings; [`Self::allow`] finds the cuts crossed exactly `m` times.
#[derive(Clone, Debug)]
pub struct PileOrder {
    enabled: bool,
    ranks: usize,
    /// `edge_cuts[k]`: the cuts that remove edge `k`.
    edge_cuts: Vec<CutSet>,
    /// `far[s * R + r]`: the cuts that put rank `r` on the other side from rank `s`.
    far: Vec<CutSet>,
    all: CutSet,
    /// `need[j]`: the cuts that need at least `j` crossings, for the loaded position.
    need: [CutSet; MAX_CROSSINGS + 2],
    /// One more than the largest `j` with a non-empty `need[j]` (crossings at or above it are
    /// always enough).
    top: usize,
}

impl PileOrder {
    /// The test for a deck of `ranks` ranks (disabled when the deck has too many).
    pub fn new(ranks: u32) -> Self {
        let enabled = (3..=MAX_RANKS).contains(&ranks);
        let r = if enabled { ranks as usize } else { 0 };
        let mut edge_cuts = vec![0; r];
        // `inner[rank]`: the cuts whose arc `a+1 ..= b` holds `rank`.
        let mut inner = vec![0 as CutSet; r];
        let mut bit = 0;
        for a in 0..r {
            for b in a + 1..r {
                edge_cuts[a] |= 1 << bit;
                edge_cuts[b] |= 1 << bit;
                for cuts in &mut inner[a + 1..=b] {
                    *cuts |= 1 << bit;
                }
                bit += 1;
            }
        }
        let far = (0..r * r).map(|i| inner[i / r] ^ inner[i % r]).collect();
        let all = if bit == 128 { CutSet::MAX } else { (1 << bit) - 1 };
        PileOrder { enabled, ranks: r, edge_cuts, far, all, need: [0; MAX_CROSSINGS + 2], top: 0 }
    }

    /// Takes a new position: the hole's rank and each pile's remaining ranks, bottom first.
    pub fn load<'p>(&mut self, hole: u32, piles: impl Iterator<Item = &'p [u32]>) {
        self.need = [0; MAX_CROSSINGS + 2];
        self.top = 0;
        if !self.enabled {
            return;
        }
        let far = std::mem::take(&mut self.far);
        let far_of_hole = &far[hole as usize * self.ranks..][..self.ranks];
        for pile in piles {
            let far = far_of_hole;
            match *pile {
                // Single cards never need more than one crossing, which every cut tested has.
                [] | [_] => {}
                // The common short piles, worked out: with `f` the far flags top-down, a pile
                // needs two crossings where a far card lies above a near one, and three where
                // it goes far, near, far.
                [below, top] => self.add_need(2, far[top as usize] & !far[below as usize]),
                [bottom, middle, top] => {
                    let (f1, f2, f3) = (far[top as usize], far[middle as usize], far[bottom as usize]);
                    self.add_need(2, (f1 & !f2) | (f2 & !f3));
                    self.add_need(3, f1 & !f2 & f3);
                }
                _ => self.load_tall(far, pile),
            }
        }
        self.far = far;
    }

    /// Adds the cuts `cuts` to those needing at least `j` crossings.
    fn add_need(&mut self, j: usize, cuts: CutSet) {
        self.need[j] |= cuts;
        if cuts != 0 {
            self.top = self.top.max(j);
        }
    }

    /// [`Self::load`] for one pile of any height: counts, for every cut at once, the blocks the
    /// pile needs.
    fn load_tall(&mut self, far: &[CutSet], pile: &[u32]) {
        // `blocks[j]`: the cuts for which this pile so far needs at least `j` crossings.
        let mut blocks = [0 as CutSet; MAX_CROSSINGS + 2];
        let mut cards = pile.iter().rev();
        let Some(&top) = cards.next() else { return };
        let mut side = far[top as usize];
        blocks[0] = self.all;
        blocks[1] = side;
        let mut tallest = 1;
        for &rank in cards {
            let next = far[rank as usize];
            let switch = next ^ side;
            tallest = (tallest + 1).min(MAX_CROSSINGS + 1);
            for j in (1..=tallest).rev() {
                blocks[j] |= blocks[j - 1] & switch;
            }
            side = next;
        }
        for (j, &cuts) in blocks.iter().enumerate().take(tallest + 1).skip(2) {
            self.add_need(j, cuts);
        }
    }

    /// Takes a new Worm Hole position: the hole's rank, the worm card's rank if any, and each
    /// pile's remaining ranks, bottom first. Only cuts crossed once are tested.
    ///
    /// Sound: a walk that crosses a cut once plays all near cards, then all far ones. A far card
    /// above a near card in its pile must leave the pile during the near part, when it cannot be
    /// played: it goes into the worm hole and stays there until the far part. So does a far card
    /// already in the worm hole. The worm hole holds one card, so a cut where two cards need it
    /// needs at least two crossings.
    pub fn load_worm<'p>(&mut self, hole: u32, worm: Option<u32>, piles: impl Iterator<Item = &'p [u32]>) {
        self.need = [0; MAX_CROSSINGS + 2];
        self.top = 0;
        if !self.enabled {
            return;
        }
        let far = &self.far[hole as usize * self.ranks..][..self.ranks];
        // The cuts where at least one, and at least two, cards need the worm hole.
        let (mut one, mut two) = (0 as CutSet, 0 as CutSet);
        let mut add = |cuts: CutSet| {
            two |= one & cuts;
            one |= cuts;
        };
        if let Some(rank) = worm {
            add(far[rank as usize]);
        }
        for pile in piles {
            let mut near_below = 0 as CutSet;
            for &rank in pile {
                add(far[rank as usize] & near_below);
                near_below |= self.all & !far[rank as usize];
            }
        }
        self.need[2] = two;
        if two != 0 {
            self.top = 2;
        }
    }

    /// Whether a walk with these edge counts crosses every cut at least as often as it needs.
    pub fn allow(&self, crossings: &Crossings) -> bool {
        if self.top < 2 {
            return true;
        }
        // `edges[m]`: the edges crossed `m` times, and `class[m]`: the cuts that remove one.
        let mut edges = [0u64; MAX_CROSSINGS + 2];
        let mut class = [0 as CutSet; MAX_CROSSINGS + 2];
        for m in 0..self.top {
            edges[m] = crossings.exactly(m);
            let mut rest = edges[m];
            while rest != 0 {
                class[m] |= self.edge_cuts[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
        }
        // Cuts crossed exactly `m` times, for `1 <= m < top`: edges crossed `j` and `m - j`
        // times. A cut crossed `m` times fails when it needs `m + 1`.
        (1..self.top).all(|m| {
            let mut crossed = 0;
            for j in 0..=m / 2 {
                crossed |= if 2 * j == m { self.pairs_within(edges[j]) } else { class[j] & class[m - j] };
            }
            crossed & self.need[m + 1] == 0
        })
    }

    /// The cuts whose two edges are both in the mask `edges`.
    fn pairs_within(&self, edges: u64) -> CutSet {
        let mut cuts = 0;
        let mut rest = edges;
        while rest != 0 {
            let a = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut others = rest;
            while others != 0 {
                cuts |= self.edge_cuts[a] & self.edge_cuts[others.trailing_zeros() as usize];
                others &= others - 1;
            }
        }
        cuts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `found` with the edge counts of every order of play that takes each pile
    /// top-down, each card adjacent in rank to the one before (brute force).
    fn every_walk(ranks: usize, at: u32, piles: &mut [Vec<u32>], edges: &mut Vec<i64>, found: &mut dyn FnMut(&[i64])) {
        if piles.iter().all(Vec::is_empty) {
            found(edges);
            return;
        }
        for p in 0..piles.len() {
            let Some(&rank) = piles[p].last() else { continue };
            let edge = if (at as usize + 1) % ranks == rank as usize {
                at as usize
            } else if (rank as usize + 1) % ranks == at as usize {
                rank as usize
            } else {
                continue;
            };
            edges[edge] += 1;
            piles[p].pop();
            every_walk(ranks, rank, piles, edges, found);
            piles[p].push(rank);
            edges[edge] -= 1;
        }
    }

    #[test]
    fn never_rejects_the_edge_counts_of_a_real_order_of_play() {
        let mut rng = 99u64;
        let mut next = |n: u64| {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        let (mut walks, mut rejected) = (0, 0);
        for _ in 0..3000 {
            let ranks = [3usize, 5, 7][next(3) as usize];
            let mut piles: Vec<Vec<u32>> =
                (0..1 + next(4)).map(|_| (0..next(6)).map(|_| next(ranks as u64) as u32).collect()).collect();
            let hole = next(ranks as u64) as u32;
            let mut order = PileOrder::new(ranks as u32);
            order.load(hole, piles.iter().map(Vec::as_slice));
            every_walk(ranks, hole, &mut piles, &mut vec![0; ranks], &mut |edges| {
                walks += 1;
                assert!(order.allow(&Crossings::from_counts(edges)), "hole {hole}, edges {edges:?}");
            });
            // And some made-up counts, which it may well reject.
            let made_up: Vec<i64> = (0..ranks).map(|_| next(3) as i64).collect();
            rejected += usize::from(!order.allow(&Crossings::from_counts(&made_up)));
        }
        assert!(walks > 1000 && rejected > 50, "{walks} walks, {rejected} rejected");
    }

    #[test]
    fn a_far_card_above_a_near_one_needs_two_crossings() {
        // Five ranks, the hole at rank 0, one pile holding rank 3 on top of rank 1.
        let mut order = PileOrder::new(5);
        order.load(0, [&[1u32, 3][..]].into_iter());
        // Edges 0-1, 1-2, 2-3 once each: the cut at edges 2 and 4 (far arc {3, 4}) is crossed
        // once, so rank 1 (near) must come before rank 3 (far), but 3 is on top.
        assert!(!order.allow(&Crossings::from_counts(&[1, 1, 1, 0, 0])));
        // Edges 4-0, 3-4, 2-3, 1-2 once each: 0, 4, 3, 2, 1 plays the 3 first, which fits.
        assert!(order.allow(&Crossings::from_counts(&[0, 1, 1, 1, 1])));
        // With the worm hole, the 3 may wait there while the 1 is played.
        order.load_worm(0, None, [&[1u32, 3][..]].into_iter());
        assert!(order.allow(&Crossings::from_counts(&[1, 1, 1, 0, 0])));
        // Not if the worm hole already holds a far card.
        order.load_worm(0, Some(4), [&[1u32, 3][..]].into_iter());
        assert!(!order.allow(&Crossings::from_counts(&[1, 1, 1, 0, 0])));
    }
}
