//! The pile-order test: can a walk of hole ranks with given edge counts take every pile
//! top-down?
//!
//! Input: the ranks of every pile ([`PileOrder::new`]), then per position the pile heights and
//! the hole's rank ([`PileOrder::load`]), then the edge counts of candidate walks from
//! [`super::walk`] ([`PileOrder::slack`] once per position, [`PileOrder::allows`] per end
//! rank). Output: `false` when no walk with those counts can respect the piles.
//!
//! In Worm Hole a card can reach the black hole after cards below it, by way of the worm hole;
//! [`PileOrder::load_worm`] tests the weaker condition that still holds there.

use super::walk::{Crossings, LOW_VALUES};

/// The most ranks the test handles: a cut is a pair of cycle edges, and all `R (R - 1) / 2`
/// cuts must fit in a `u128`. (Larger decks just skip the test, which only costs pruning.)
const MAX_RANKS: u32 = 16;

/// Needs above this count as this (testing a smaller need only loses pruning).
const MAX_NEED: usize = 8;

/// Rows of needs are kept for at most this many bytes; a larger deal skips the test.
const MAX_TABLE_BYTES: usize = 32 << 20;

/// A set of cuts, one bit per pair of edges `a < b`.
type CutSet = u128;

/// `needs[j]`: the cuts that need at least `j` crossings (for `j >= 2`; lower entries unused).
type Needs = [CutSet; MAX_NEED + 1];

/// The pile-order test over all cuts of the rank cycle.
///
/// Removing two edges `a < b` of the cycle (edge `k` joins ranks `k` and `k + 1`) splits the
/// ranks into two arcs, `a+1 ..= b` and the rest; call the one holding the hole's rank near. A
/// walk that crosses the cut `m = e_a + e_b` times visits ranks in `m + 1` blocks, alternately
/// near and far, the first near. A pile's cards are played top-down, so their blocks never
/// decrease, and a card's block is near or far as its rank is. A pile whose ranks, top-down,
/// start far and switch sides `j` times needs blocks up to `1 + j` (`j` if it starts near): the
/// cut's *need* is the most any pile needs, and `m` must be at least that. So a walk whose
/// counts cross some cut fewer times than it needs is impossible. Sound, then: it only rejects
/// walks that no order of play can follow.
///
/// All cuts are tested at once, as bit sets. The needs of one pile at one height, for one hole
/// rank, are computed once ([`Self::row`]); a position's needs are the union of its piles'. On
/// an odd cycle the edge counts are `(E_k ∓ 1) / 2`, the sign fixed by the end rank, so each
/// cut's *slack* `E_a + E_b - 2 need` is classified once per position ([`Self::slack`]) and
/// each end rank then costs a few set operations ([`Self::allows`]).
#[derive(Clone, Debug)]
pub struct PileOrder {
    enabled: bool,
    ranks: usize,
    /// The cuts that remove the edges of a mask.
    edges: EdgeTables,
    /// `far[s * R + r]`: the cuts that put rank `r` on the other side from rank `s`.
    far: Vec<CutSet>,
    all: CutSet,
    /// Each pile's ranks, bottom first.
    piles: Vec<Vec<u32>>,
    /// `first[p]`: the row index of pile `p` at height 1 (for hole rank 0).
    first: Vec<usize>,
    /// The largest need worth telling apart: no pile needs more than its height.
    levels: usize,
    /// Row `(first[p] + h - 1) * R + hole` holds the needs of pile `p` at height `h` with the
    /// hole at rank `hole`, for `2..=levels` (`levels - 1` sets from `row * (levels - 1)`),
    /// filled on first use (`built[row]`).
    rows: Vec<CutSet>,
    built: Vec<bool>,
    /// For each end rank, its [`Crossings::plus`] mask and the cuts whose two edges are both in
    /// it (counts rounded down) or both outside it (rounded up).
    ends: Vec<EndCuts>,
    /// The loaded position's needs and the largest of them.
    need: Needs,
    most: usize,
}

/// What an end rank's walk crosses, as [`PileOrder::allows`] needs it.
#[derive(Clone, Copy, Debug)]
struct EndCuts {
    plus: u64,
    both_plus: CutSet,
    both_minus: CutSet,
}

/// A position's cuts by slack (see [`PileOrder`]); slack is always even.
#[derive(Clone, Copy, Debug)]
pub struct Slack {
    /// Some cut has slack below -2: no end rank crosses it often enough.
    hopeless: bool,
    /// Cuts with slack -2: both edge counts must be rounded up.
    tight: CutSet,
    /// Cuts with slack 0: not both edge counts may be rounded down.
    level: CutSet,
}

impl Slack {
    const NONE: Slack = Slack { hopeless: false, tight: 0, level: 0 };
}

impl PileOrder {
    /// The test for piles with these ranks (bottom first) in a deck of `ranks` ranks; disabled
    /// when the deck has too many ranks, too few, or too many cards.
    pub fn new(ranks: u32, piles: &[Vec<u32>]) -> Self {
        let cards: usize = piles.iter().map(Vec::len).sum();
        let row_bytes = std::mem::size_of::<Needs>();
        let enabled = (3..=MAX_RANKS).contains(&ranks)
            && cards.saturating_mul(ranks as usize).saturating_mul(row_bytes) <= MAX_TABLE_BYTES;
        let r = if enabled { ranks as usize } else { 0 };
        let mut cuts = 0;
        let mut edge_cuts = vec![0; r];
        // `inner[rank]`: the cuts whose arc `a+1 ..= b` holds `rank`.
        let mut inner = vec![0 as CutSet; r];
        for a in 0..r {
            for b in a + 1..r {
                let bit = 1 << cuts;
                edge_cuts[a] |= bit;
                edge_cuts[b] |= bit;
                for cuts in &mut inner[a + 1..=b] {
                    *cuts |= bit;
                }
                cuts += 1;
            }
        }
        let far = (0..r * r).map(|i| inner[i / r] ^ inner[i % r]).collect();
        let all = if cuts == 128 { CutSet::MAX } else { (1 << cuts) - 1 };
        let mut first = Vec::with_capacity(piles.len());
        let mut rows = 0;
        for pile in piles {
            first.push(rows);
            rows += pile.len();
        }
        let rows = if enabled { rows * r } else { 0 };
        let levels = piles.iter().map(Vec::len).max().unwrap_or(0).clamp(2, MAX_NEED);
        let mut order = PileOrder {
            enabled,
            ranks: r,
            edges: EdgeTables::new(&edge_cuts),
            far,
            all,
            piles: piles.to_vec(),
            first,
            levels,
            rows: vec![0; rows * (levels - 1)],
            built: vec![false; rows],
            ends: Vec::new(),
            need: [0; MAX_NEED + 1],
            most: 0,
        };
        order.ends = (0..r)
            .map(|t| {
                let plus = Crossings::plus_for_end(r, t);
                let full = (1u64 << r) - 1;
                EndCuts { plus, both_plus: order.edges.pairs(plus), both_minus: order.edges.pairs(full & !plus) }
            })
            .collect();
        order
    }

    /// Takes a new Black Hole position: the pile heights and the hole's rank.
    pub fn load(&mut self, hole: u32, heights: &[u32]) {
        self.need = [0; MAX_NEED + 1];
        self.most = 0;
        if !self.enabled {
            return;
        }
        // Standard deals have piles of three: two levels, kept in registers.
        match self.levels - 1 {
            1 => self.load_levels::<1>(hole, heights),
            2 => self.load_levels::<2>(hole, heights),
            3 => self.load_levels::<3>(hole, heights),
            _ => self.load_levels::<{ MAX_NEED - 1 }>(hole, heights),
        }
        self.most = (2..=self.levels).rev().find(|&j| self.need[j] != 0).unwrap_or(0);
    }

    /// [`Self::load`] for `N >= levels - 1` levels.
    fn load_levels<const N: usize>(&mut self, hole: u32, heights: &[u32]) {
        let stride = self.levels - 1;
        let mut need = [0 as CutSet; N];
        for (p, &h) in heights.iter().enumerate() {
            // Single cards never need more than one crossing, which every walk gives a cut
            // with cards on its far side (the walk test keeps the used edges connected).
            if h >= 2 {
                let row = self.row(p, h as usize, hole as usize);
                for (need, &pile) in need.iter_mut().zip(&self.rows[row..row + stride]) {
                    *need |= pile;
                }
            }
        }
        self.need[2..2 + stride].copy_from_slice(&need[..stride]);
    }

    /// Where in `rows` the needs of pile `p` at height `h` with the hole at rank `hole` start,
    /// computed on first use.
    #[inline]
    fn row(&mut self, p: usize, h: usize, hole: usize) -> usize {
        let index = (self.first[p] + h - 1) * self.ranks + hole;
        if !self.built[index] {
            self.build_row(index, p, h, hole);
        }
        index * (self.levels - 1)
    }

    #[cold]
    fn build_row(&mut self, index: usize, p: usize, h: usize, hole: usize) {
        let stride = self.levels - 1;
        let far = &self.far[hole * self.ranks..][..self.ranks];
        // `blocks[j]`: the cuts for which the pile so far needs at least `j` crossings.
        let mut blocks: Needs = [0; MAX_NEED + 1];
        let mut cards = self.piles[p][..h].iter().rev();
        if let Some(&top) = cards.next() {
            let mut side = far[top as usize];
            blocks[0] = self.all;
            blocks[1] = side;
            let mut tallest = 1;
            for &rank in cards {
                let next = far[rank as usize];
                let switch = next ^ side;
                tallest = (tallest + 1).min(MAX_NEED);
                for j in (1..=tallest).rev() {
                    blocks[j] |= blocks[j - 1] & switch;
                }
                side = next;
            }
        }
        self.rows[index * stride..][..stride].copy_from_slice(&blocks[2..=self.levels]);
        self.built[index] = true;
    }

    /// Takes a new Worm Hole position: the hole's rank, the worm card's rank if any, and each
    /// pile's remaining ranks, bottom first. Only cuts crossed once are tested.
    ///
    /// Sound: a walk that crosses a cut once plays all near cards, then all far ones. A far card
    /// above a near card in its pile must leave the pile during the near part, when it cannot be
    /// played: it goes into the worm hole and stays there until the far part. So does a far card
    /// already in the worm hole. The worm hole holds one card, so a cut where two cards need it
    /// needs at least two crossings.
    pub fn load_worm(&mut self, hole: u32, worm: Option<u32>, heights: &[u32]) {
        self.need = [0; MAX_NEED + 1];
        self.most = 0;
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
        for (pile, &h) in self.piles.iter().zip(heights) {
            let mut near_below = 0 as CutSet;
            for &rank in &pile[..h as usize] {
                add(far[rank as usize] & near_below);
                near_below |= self.all & !far[rank as usize];
            }
        }
        self.need[2] = two;
        self.most = if two != 0 { 2 } else { 0 };
    }

    /// The loaded position's cuts by slack, for the edges of a walk by their `E_k`
    /// ([`Crossings::low`], the same for every end rank).
    ///
    /// With `i_k = (E_k + 1) / 2` and `q = i_a + i_b`, a cut needing `n` has slack `2 (q - n)`:
    /// it is hopeless when `q < n`, tight when `q = n` and level when `q = n + 1`.
    pub fn slack(&self, low: &[u64; LOW_VALUES]) -> Slack {
        // A need of one is always met (see `load`).
        if self.most < 2 {
            return Slack::NONE;
        }
        // Standard deals need at most 3 (piles of three): their buffers are filled, for every
        // position, only as far as that needs.
        if self.most <= 3 {
            self.slack_upto::<5>(low)
        } else {
            self.slack_upto::<{ MAX_NEED + 2 }>(low)
        }
    }

    /// [`Self::slack`] with buffers of `N >= most + 2` entries.
    fn slack_upto<const N: usize>(&self, low: &[u64; LOW_VALUES]) -> Slack {
        let most = self.most;
        // `once[i]`, `twice[i]`: the cuts with at least one edge, and with both, of `i_k = i`;
        // only `i <= most + 1 < LOW_VALUES - 1` can make a cut short or tight or level.
        let mut once = [0 as CutSet; N];
        let mut twice = [0 as CutSet; N];
        for i in 0..=most + 1 {
            once[i] = self.edges.once(low[i]);
            twice[i] = self.edges.pairs(low[i]);
        }
        // `sums[q]`: the cuts with `i_a + i_b = q`.
        let mut sums = [0 as CutSet; N];
        for (q, sum) in sums.iter_mut().enumerate().take(most + 2) {
            *sum = if q % 2 == 0 { twice[q / 2] } else { 0 };
            for i in 0..q.div_ceil(2) {
                *sum |= once[i] & once[q - i];
            }
        }
        let mut slack = Slack::NONE;
        let mut below = sums[0];
        for n in 2..=most {
            // `below`: the cuts with `q < n`.
            below |= sums[n - 1];
            let exactly = self.need[n] & !self.need.get(n + 1).copied().unwrap_or(0);
            slack.hopeless |= self.need[n] & below != 0;
            slack.tight |= exactly & sums[n];
            slack.level |= exactly & sums[n + 1];
        }
        slack
    }

    /// Whether the walk `crossings` (of the position `slack` was computed for) crosses every
    /// cut at least as often as it needs.
    ///
    /// Twice a cut's crossings are `E_a + E_b - s_a - s_b`, with `s_k = 1` for an edge in
    /// [`Crossings::plus`] and `-1` otherwise; enough when the slack is at least `s_a + s_b`.
    pub fn allows(&self, slack: &Slack, crossings: &Crossings) -> bool {
        if slack.hopeless {
            return false;
        }
        if slack.tight == 0 && slack.level == 0 {
            return true;
        }
        let (both_plus, both_minus) = match self.ends.get(crossings.end) {
            Some(end) if end.plus == crossings.plus => (end.both_plus, end.both_minus),
            _ => {
                let full = (1u64 << self.ranks) - 1;
                (self.edges.pairs(crossings.plus & full), self.edges.pairs(full & !crossings.plus))
            }
        };
        slack.tight & !both_minus == 0 && slack.level & both_plus == 0
    }

    /// [`Self::slack`] and [`Self::allows`] in one, for a single walk.
    #[cfg(test)]
    pub fn allow(&self, crossings: &Crossings) -> bool {
        self.allows(&self.slack(&crossings.low), crossings)
    }
}

/// The cuts with an edge in a mask of edges, and with both edges in it, by table lookup: a
/// mask of up to 16 edges is split into its low and high bytes.
#[derive(Clone, Debug)]
struct EdgeTables {
    /// `once[half][byte]`: the cuts with an edge in `byte` (edges `8 half ..`).
    once: [Vec<CutSet>; 2],
    /// `pairs[half][byte]`: the cuts with both edges in `byte`.
    pairs: [Vec<CutSet>; 2],
}

impl EdgeTables {
    fn new(edge_cuts: &[CutSet]) -> Self {
        let half = |high: usize| {
            let mut once = vec![0 as CutSet; 256];
            let mut pairs = vec![0 as CutSet; 256];
            for byte in 1..256usize {
                let lowest = byte.trailing_zeros() as usize;
                let rest = byte & (byte - 1);
                let cuts = edge_cuts.get(8 * high + lowest).copied().unwrap_or(0);
                once[byte] = once[rest] | cuts;
                pairs[byte] = pairs[rest] | (once[rest] & cuts);
            }
            (once, pairs)
        };
        let ((once_low, pairs_low), (once_high, pairs_high)) = (half(0), half(1));
        EdgeTables { once: [once_low, once_high], pairs: [pairs_low, pairs_high] }
    }

    #[inline]
    fn split(edges: u64) -> (usize, usize) {
        ((edges & 0xff) as usize, (edges >> 8 & 0xff) as usize)
    }

    /// The cuts with at least one edge in `edges`.
    #[inline]
    fn once(&self, edges: u64) -> CutSet {
        let (low, high) = Self::split(edges);
        self.once[0][low] | self.once[1][high]
    }

    /// The cuts with both edges in `edges` (one in each byte, or both in one).
    #[inline]
    fn pairs(&self, edges: u64) -> CutSet {
        let (low, high) = Self::split(edges);
        self.pairs[0][low] | self.pairs[1][high] | (self.once[0][low] & self.once[1][high])
    }
}

#[cfg(test)]
mod tests;
