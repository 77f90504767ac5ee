//! The arc-projection test: a deep necessary condition, tried once at the root of a search that
//! turns out hard.
//!
//! Input: a Black Hole [`Position`] of a [`Layout`] on an odd rank cycle, and a budget of game
//! nodes. Output: `true` when the position is proved dead, `false` when not (or out of budget).
//!
//! For an end rank `t`, the walk's edge counts are unique on an odd cycle (see
//! [`super::walk`]). Take an arc `W` of `s` consecutive ranks (`2 <= s <= R - 2`); the walk
//! crosses its two boundary edges exactly `l` and `r` times. *Project* the position onto `W`:
//! keep the `W` cards exactly, in pile order, and replace each maximal run of other cards in a
//! pile by one *token*. The projected game: inside `W`, play an exposed `W` card adjacent to
//! the current rank, or leave `W` over a boundary edge from its end rank; outside, every exposed
//! token is cleared, and `W` is entered over a boundary edge by playing an exposed card of the
//! rank beside it. Each crossing spends one of its edge's count. It is won when everything is
//! played, both counts are spent, and it ends at `t` (outside `W` if `t` is not in it).
//!
//! Sound: split a real solution ending at `t` into its runs inside and outside `W`. A run
//! inside plays `W` cards in pile order, each adjacent to the one before (`s <= R - 2`: no
//! adjacency around the cycle within `W`), and is entered and left over the boundary edges, as
//! many times as the edge counts say. A token's cards are all played outside `W`, the last one
//! during some run outside that starts after the token is exposed (only `W` plays expose a
//! token). Clearing every exposed token at every run outside only adds options, as tokens never
//! change the hole. So the real solution maps to a win of the projected game: a projected game
//! without a win proves that no solution ends at `t`, and when that holds for every end rank the
//! position is dead.
//!
//! The projected game is searched like the real one: a memo of dead states, the rank-walk and
//! pile-order tests on the cycle of the arc's ranks and the outside (a token counts as a card of
//! the outside's rank), and same-rank dominance among `W` cards (whose exchange argument only
//! moves cards of one rank, never a token).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use super::cuts::PileOrder;
use super::prune;
use super::state::{Layout, Position};
use super::walk::{self, Crossings};

/// An item of a projected pile: a `W` card by its offset in the arc, or a token.
type Item = u8;
const TOKEN: Item = u8::MAX;

/// The projected game's state must pack into a `u128`: pile counts of 4 bits each, the place
/// and the two counts of 5 bits each.
const MAX_PILES: usize = 24;
const MAX_ITEMS: usize = 15;
const MAX_CROSSINGS: u32 = 31;

/// Whether the arc-projection test proves `pos` dead (for every end rank in `ends`, a mask of
/// ranks, some arc's game has no win), looking at most at `budget` game states in all and
/// `game_budget` in any one game. A game that runs out ends the test: a game that long is
/// rarely won or lost soon, and a position that needs one is rarely refuted.
/// It gives up (`false`) at `deadline`, if set.
pub fn refutes(
    layout: &Layout,
    pos: &Position,
    ends: u64,
    (budget, game_budget): (u64, u64),
    deadline: Option<Instant>,
) -> bool {
    let ranks = layout.ranks as usize;
    if ranks < 5 || ranks.is_multiple_of(2) || ranks > 63 || pos.remaining == 0 {
        return false;
    }
    let mut budget = budget;
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    if late() {
        return false;
    }
    // Games already played, by arc, counts and where they end: end ranks outside an arc share
    // its games.
    let mut played: HashMap<(usize, usize, u32, u32, u8), bool> = HashMap::new();
    for t in (0..ranks).filter(|&t| pos.counts[t] > 0 && ends >> t & 1 == 1) {
        let Some(edges) = walk::odd_cycle_edges(&pos.counts, pos.hole, t as u32) else { continue };
        let mut refuted = false;
        // Small arcs first: their games are cheap.
        for (size, lo) in (2..=ranks - 2).flat_map(|size| (0..ranks).map(move |lo| (size, lo))) {
            // Projecting costs time linear in the layout, before a game's own clock runs.
            if late() {
                return false;
            }
            let mut allowed = game_budget.min(budget);
            let dead = arc_is_dead(layout, pos, (&edges, t), (lo, size), (&mut allowed, deadline), &mut played);
            budget -= game_budget.min(budget) - allowed;
            match dead {
                Some(true) => {
                    refuted = true;
                    break;
                }
                Some(false) => {}
                None => return false,
            }
        }
        if !refuted {
            return false;
        }
    }
    true
}

/// The piles as the game of the arc `lo..lo+size` (of ranks) sees them: each card of the arc by
/// its offset in it, every run of cards outside it as one token; and how many cards of each
/// offset are left. `None` when the game would be too large to play.
fn project(layout: &Layout, pos: &Position, lo: usize, size: usize) -> Option<(Vec<Vec<Item>>, [u32; 64])> {
    let ranks = layout.ranks as usize;
    let offset = |rank: u32| (rank as usize + ranks - lo) % ranks;
    // Each non-empty pile projects to a pile of the game: too many cannot be packed, and
    // counting them first spares projecting every card of a huge layout to find that out.
    if pos.heights.iter().filter(|&&h| h > 0).count() > MAX_PILES {
        return None;
    }
    let mut piles: Vec<Vec<Item>> = Vec::new();
    let mut left = [0u32; 64];
    for (ranks_p, &h) in layout.pile_ranks.iter().zip(&pos.heights) {
        let cards = &ranks_p[..h as usize];
        if !cards.iter().any(|&c| offset(c) < size) {
            // Tokens alone: cleared at the first run outside, or never needed.
            if !cards.is_empty() {
                piles.push(vec![TOKEN]);
            }
            continue;
        }
        let mut items = Vec::new();
        for &c in cards {
            let o = offset(c);
            if o < size {
                items.push(o as Item);
                left[o] += 1;
            } else if items.last() != Some(&TOKEN) {
                items.push(TOKEN);
            }
        }
        piles.push(items);
    }
    if piles.len() > MAX_PILES || piles.iter().any(|p| p.len() > MAX_ITEMS) {
        return None;
    }
    Some((piles, left))
}

/// Plays the projected game of the arc `lo .. lo + size` for the walk with these edge counts
/// ending at rank `t`; `Some(true)` when it has no win, `None` when out of budget or too big to
/// pack.
fn arc_is_dead(
    layout: &Layout,
    pos: &Position,
    (edges, t): (&[i64], usize),
    (lo, size): (usize, usize),
    (budget, deadline): (&mut u64, Option<Instant>),
    played: &mut HashMap<(usize, usize, u32, u32, u8), bool>,
) -> Option<bool> {
    if *budget == 0 {
        return None;
    }
    let ranks = layout.ranks as usize;
    let offset = |rank: u32| (rank as usize + ranks - lo) % ranks;
    let l = u32::try_from(edges[(lo + ranks - 1) % ranks]).ok()?;
    let r = u32::try_from(edges[(lo + size - 1) % ranks]).ok()?;
    if l > MAX_CROSSINGS || r > MAX_CROSSINGS {
        return None;
    }
    let place = |o: usize| if o < size { o as u8 } else { size as u8 };
    let end = place(offset(t as u32));
    if let Some(&dead) = played.get(&(lo, size, l, r, end)) {
        return Some(dead);
    }
    let (piles, left) = project(layout, pos, lo, size)?;
    // The pile-order test on the cycle of the arc's ranks and the outside (rank `size`).
    let as_ranks: Vec<Vec<u32>> = piles
        .iter()
        .map(|p| p.iter().map(|&i| if i == TOKEN { size as u32 } else { u32::from(i) }).collect())
        .collect();
    let mut game = Game {
        size: size as u8,
        order: PileOrder::new(size as u32 + 1, &as_ranks),
        unit: as_ranks.iter().map(|p| prune::unit_flags(p)).collect(),
        twins: (0..piles.len())
            .map(|p| {
                (0..p)
                    .map(|q| (q, piles[p].iter().zip(&piles[q]).take_while(|(a, b)| a == b).count() as u8))
                    .filter(|&(_, common)| common > 0)
                    .collect()
            })
            .collect(),
        piles: &piles,
        end,
        left,
        heights: Vec::new(),
        dead: HashSet::default(),
        budget: *budget,
        deadline,
    };
    let mut counts: Vec<u8> = piles.iter().map(|p| p.len() as u8).collect();
    let won = game.wins(&mut counts, place(offset(pos.hole)), l, r);
    *budget = game.budget;
    let dead = !won?;
    played.insert((lo, size, l, r, end), dead);
    Some(dead)
}

/// The projected game of one arc (see the module doc). Places are arc offsets `0..size`, and
/// `size` for outside.
struct Game<'a> {
    size: u8,
    order: PileOrder,
    piles: &'a [Vec<Item>],
    /// `unit[p][i]`: every item below item `i` of pile `p` is a `W` card of its rank.
    unit: Vec<Vec<bool>>,
    /// For each pile, the earlier piles with the same bottom items, and how many they share.
    twins: Vec<Vec<(usize, u8)>>,
    end: u8,
    /// `W` cards left, by offset.
    left: [u32; 64],
    /// Scratch for the pile heights of [`PileOrder::load`].
    heights: Vec<u32>,
    dead: HashSet<u128, BuildHasherDefault<KeyHasher>>,
    budget: u64,
    deadline: Option<Instant>,
}

/// A hasher for packed game states: one multiply, whose high bits mix well.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u128(&mut self, key: u128) {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        self.0 = (folded ^ (folded >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 ^= self.0 >> 29;
    }
}

impl Game<'_> {
    /// Whether the game can be won from here: `None` when out of budget.
    fn wins(&mut self, counts: &mut [u8], at: u8, l: u32, r: u32) -> Option<bool> {
        // Outside, every exposed token is cleared (a token never lies on a token).
        let mut cleared = 0u32;
        if at == self.size {
            for (p, count) in counts.iter_mut().enumerate() {
                if *count > 0 && self.piles[p][*count as usize - 1] == TOKEN {
                    *count -= 1;
                    cleared |= 1 << p;
                }
            }
        }
        let won = self.wins_here(counts, at, l, r);
        while cleared != 0 {
            counts[cleared.trailing_zeros() as usize] += 1;
            cleared &= cleared - 1;
        }
        won
    }

    fn wins_here(&mut self, counts: &mut [u8], at: u8, l: u32, r: u32) -> Option<bool> {
        if counts.iter().all(|&c| c == 0) && l == 0 && r == 0 {
            return Some(at == self.end);
        }
        let key = counts.iter().fold(0u128, |key, &c| key << 4 | u128::from(c)) << 15
            | u128::from(at) << 10
            | u128::from(l) << 5
            | u128::from(r);
        // The memo first: one lookup is cheaper than the tests.
        if self.dead.contains(&key) {
            return Some(false);
        }
        self.budget = self.budget.checked_sub(1)?;
        if self.budget.is_multiple_of(1024) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        if !self.walk_edges(at, l, r).is_some_and(|edges| self.piles_possible(counts, at, &edges)) {
            self.dead.insert(key);
            return Some(false);
        }
        let last = self.size - 1;
        // The top items: (item, unit), `TOKEN` for an empty pile.
        let mut tops = [(TOKEN, false); MAX_PILES];
        for (p, &count) in counts.iter().enumerate() {
            if let Some(c) = count.checked_sub(1) {
                tops[p] = (self.piles[p][c as usize], self.unit[p][c as usize]);
            }
        }
        let tops = &tops[..counts.len()];
        // Same-rank dominance, as in the real game (see `prune`): a unit top is not played while
        // a non-unit top of its rank, or a unit one of an earlier pile, is there. By offset:
        // whether some pile has a non-unit top of it, and the first pile with a unit top of it.
        let (mut not_unit, mut first_unit) = (0u64, [u8::MAX; 64]);
        for (p, &(item, unit)) in tops.iter().enumerate().rev() {
            if item == TOKEN {
                continue;
            }
            if unit {
                first_unit[item as usize] = p as u8;
            } else {
                not_unit |= 1 << item;
            }
        }
        for p in 0..counts.len() {
            let (item, unit) = tops[p];
            if item == TOKEN {
                continue;
            }
            // Same-rank dominance and twin piles.
            if unit && (not_unit >> item & 1 == 1 || usize::from(first_unit[item as usize]) < p)
                || self.twins[p].iter().any(|&(q, common)| counts[q] == counts[p] && common >= counts[p])
            {
                continue;
            }
            // From outside, a card beside a boundary edge; inside, a card beside the hole.
            let (l2, r2) = if at == self.size {
                match item {
                    0 if l > 0 => (l - 1, r),
                    x if x == last && r > 0 => (l, r - 1),
                    _ => continue,
                }
            } else if item + 1 == at || at + 1 == item {
                (l, r)
            } else {
                continue;
            };
            counts[p] -= 1;
            self.left[item as usize] -= 1;
            let won = self.wins(counts, item, l2, r2);
            counts[p] += 1;
            self.left[item as usize] += 1;
            if won != Some(false) {
                return won;
            }
        }
        if at == 0 && l > 0 && self.wins(counts, self.size, l - 1, r)? {
            return Some(true);
        }
        if at == last && r > 0 && self.wins(counts, self.size, l, r - 1)? {
            return Some(true);
        }
        self.dead.insert(key);
        Some(false)
    }

    /// The pile-order test of the projected game, with the edge counts of [`Self::walk_edges`]
    /// (tokens count as cards of the outside's rank: each is cleared while the walk is there).
    fn piles_possible(&mut self, counts: &[u8], at: u8, edges: &[i64; 64]) -> bool {
        self.heights.clear();
        self.heights.extend(counts.iter().map(|&c| u32::from(c)));
        self.order.load(u32::from(at), &self.heights);
        let crossings = Crossings::from_counts(&edges[..=self.size as usize]);
        let slack = self.order.slack(&crossings.low);
        self.order.allows(&slack, &crossings)
    }

    /// The rank-walk test of the projected game: on the cycle of the arc's ranks and the
    /// outside (joined to the arc's ends by the `l` and `r` crossings left), the counts of
    /// `W` cards fix every edge count inside the arc; they must be non-negative, consistent,
    /// and the used edges connected. Returns the edge counts, edge `k` joining ranks `k` and
    /// `k + 1` of the cycle `0, 1, ..., size - 1, outside` (so edge `size - 1` is `r`'s and
    /// edge `size` is `l`'s), or `None` when the test fails.
    fn walk_edges(&self, at: u8, l: u32, r: u32) -> Option<[i64; 64]> {
        let size = self.size as usize;
        let outside = u32::from(at == self.size) + u32::from(self.end == self.size);
        if !(l + r + outside).is_multiple_of(2) {
            return None;
        }
        let mut edges = [0i64; 64];
        let mut into = i64::from(l);
        for (k, edge) in edges.iter_mut().enumerate().take(size) {
            let degree = 2 * i64::from(self.left[k]) + i64::from(at as usize == k) - i64::from(self.end as usize == k);
            *edge = degree - into;
            if *edge < 0 {
                return None;
            }
            into = *edge;
        }
        if into != i64::from(r) {
            return None;
        }
        edges[size] = i64::from(l);
        // The used edges must form one run around the cycle: count where runs start.
        let count = size + 1;
        let full = (1u64 << count) - 1;
        let positive = edges[..count].iter().enumerate().fold(0u64, |mask, (k, &e)| mask | u64::from(e > 0) << k);
        let before = ((positive << 1) | (positive >> (count - 1))) & full;
        ((positive & !before).count_ones() <= 1).then_some(edges)
    }
}
