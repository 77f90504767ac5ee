//! Necessary conditions for a state to be winnable: a state failing one is dead.
//!
//! Input: a [`Board`] and a state's row and grace flag. Output: [`Feasibility::feasible`], a
//! `false` of which is a proof that no sequence of moves leaves one pile, and afterwards the
//! degree of each card in that row ([`Feasibility::degree`], for move ordering). Each test costs
//! `O(len)`: on bit masks for rows of up to 64 piles, on counts per rank and suit (touching only
//! the ids in the row) for longer ones; a unit test checks the two agree.
//!
//! # The cover tree, and the tests it gives
//!
//! A pile disappears only when a card is put onto it, so in a won game every card but the last
//! is covered exactly once, by a card in the row at that moment, which stays until it is covered
//! in turn, later. So the edges "covered → coverer" lead from every card to the last one: a
//! spanning tree. A plain move's two cards match; only the grace move's need not. Cards never
//! come back, so every state on the way to a win has such a tree for its own row.
//!
//! **Connectivity.** The matching graph of the row (cards joined when they share a rank or a
//! suit) has one component, or at most two while the grace is unused: the cover tree spans the
//! row with matching edges, but for the grace move's, and a spanning tree less one edge leaves
//! two components.
//!
//! **Left pendants.** Call a card a *left pendant* when exactly one other card of the row
//! matches it, and that partner lies to its left. Without grace a row has at most one. Let `x`
//! be one, with partner `y`. A card that covers `x` must match it, so it is `y`, and it must
//! then be to the right of `x`. Cards move only left, so `y` gets right of `x` only if `x` jumps
//! over it with a move of 3; but `x` moves only onto a card that matches it, that is onto `y`,
//! which it then covers rather than jumps. So nothing ever covers `x`: it is the last card, and
//! two left pendants would both be. (Cards only leave the row, so `x` gains no matches.) With
//! the grace unused, the grace move may move `x` or cover it, and one grace move can serve two
//! left pendants (one the mover, one the covered), so up to three are allowed.
//!
//! **A split row** (the grace unused, two components). The cover tree's one non-matching edge,
//! the grace move's, joins the two components. The grace covers the card at position 0 then,
//! and the card at position 0 changes only by a plain move onto it, from a matching card: so
//! the grace covers a card `c` of the component `B` of the card now at position 0, moved by a
//! card of the other component `A`, which holds the last card. Every card of `B` but `c` is
//! covered before the grace, by a card of `B`. A left pendant of `B` can only be `c` (nothing
//! plain covers it, as above), so `B` has at most one; a left pendant of `A` is the last card
//! or the grace's mover, so `A` has at most two.
//!
//! **Where a left pendant's partner stands** (without grace, rows of 3 or more). With `x`, `y`
//! as above: once `x` covers `y`, `x` matches nothing, so any other card left could never be
//! covered (its chain of coverers would have to end at `x`); so `x` covering `y` is the last
//! move, `x` does not move before it, and `y` is never covered before it (else `x` would match
//! nothing with cards left). `y` stays left of `x`, so the row of 3 before the end is
//! `[z y x]`, `[y z x]` or `[y x z]`; only the first can be won (`y` onto `z`, then `x` onto
//! `y`): in `[y z x]` nothing but `z` onto `y` moves, in `[y x z]` `z` cannot move (it matches
//! not `x`, and 3 places left is off the row) nor be covered. So `y` ends at position 1, and
//! positions never grow:
//! - `y` at position 0 is dead;
//! - `y` at position 1 with `x` not at 2 is dead. `y` must stay at 1, so the cards between
//!   `y` and `x` can never all go: covering one puts its coverer in its place, between them;
//!   one leaves leftwards only onto `y` (fatal) or by a move of 3 from position 3 to 0, which
//!   leaves the card at position 2 between them; and `x` and `y` do not move.
//!
//! **The partner's partner.** With `x`, `y` as above, the row of 3 is `[z y x]` with `z` a
//! match of `y` other than `x`. Say `y` has exactly one such match `z`, left of it: then `y`
//! does not move before the end (onto `x` or onto `z` early would leave cards that nothing can
//! cover), `z` is never covered and stays left of `y`, and the cards between `z` and `y` must
//! all go. As above, the last of them leaves only by a move of 3 from just right of `z` to two
//! places left of it (covering one puts the coverer between; onto `z` is fatal), which needs
//! `z` at position 2 or more. Positions never grow, so `z` at position 0 or 1 with a card
//! between `z` and `y` is dead.

use super::board::{Board, Step};

/// Scratch for the tests; which kind depends on the row's length.
#[derive(Clone, Debug)]
pub enum Feasibility {
    Masks(MaskTests),
    Counts(CountTests),
}

impl Feasibility {
    pub fn new(board: &Board) -> Self {
        if board.masks.is_empty() && !board.cards.is_empty() {
            Feasibility::Counts(CountTests::new(board))
        } else {
            Feasibility::Masks(MaskTests::default())
        }
    }

    /// Whether the state passes every test of the module doc.
    pub fn feasible(&mut self, board: &Board, row: &[u32], grace_left: bool) -> bool {
        if row.len() <= 1 {
            return true;
        }
        match self {
            Feasibility::Masks(tests) => tests.feasible(board, row, grace_left),
            Feasibility::Counts(tests) => tests.feasible(board, row, grace_left),
        }
    }

    /// Whether the cards of `row` but its first form one component of the matching graph.
    pub fn connected_without_front(&mut self, board: &Board, row: &[u32]) -> bool {
        match self {
            Feasibility::Masks(_) => {
                let live = row[1..].iter().fold(0, |live, &pile| live | 1 << pile);
                MaskTests::components(live, row[1], board).0 <= 1
            }
            Feasibility::Counts(tests) => tests.components(board, &row[1..], 1) <= 1,
        }
    }

    /// Whether the child of `row` that moves the pile at `from` onto the one at `to` passes
    /// every test; `row` must be the row last given to [`Self::load`], and `grace_left` the
    /// child's flag. Rows of up to 64 piles test the child without making it.
    pub fn feasible_child(&mut self, board: &Board, row: &mut Vec<u32>, step: Step, grace_left: bool) -> bool {
        if row.len() <= 2 {
            return true;
        }
        match self {
            Feasibility::Masks(tests) => {
                tests.feasible_child(board, row, step.from as usize, step.to as usize, grace_left)
            }
            Feasibility::Counts(tests) => {
                let covered = row[step.to as usize];
                row[step.to as usize] = row[step.from as usize];
                let moved = row.remove(step.from as usize);
                let feasible = tests.feasible(board, row, grace_left);
                row.insert(step.from as usize, moved);
                row[step.to as usize] = covered;
                feasible
            }
        }
    }

    /// Prepares [`Self::degree`] for `row`.
    pub fn load(&mut self, board: &Board, row: &[u32]) {
        match self {
            Feasibility::Masks(tests) => tests.load(row),
            Feasibility::Counts(tests) => tests.load(board, row),
        }
    }

    /// How many other cards of the row last given to [`Self::load`] or [`Self::feasible`]
    /// match `pile`'s card.
    pub fn degree(&self, board: &Board, pile: u32) -> u32 {
        match self {
            Feasibility::Masks(tests) => (board.masks[pile as usize] & tests.live).count_ones(),
            Feasibility::Counts(tests) => {
                let (r, s) = tests.nodes(board, pile);
                tests.count[r] + tests.count[s] - 2
            }
        }
    }
}

/// The split-row test of the module doc: with the grace unused and two components, the left
/// pendants outside the pile-0 card's component (`elsewhere`) and in it (`with_front`).
fn split_pendants_allowed(elsewhere: usize, with_front: usize) -> bool {
    elsewhere <= 2 && with_front <= 1
}

/// The last two tests of the module doc, on the one left pendant of a plain row of 3 or more: the
/// pendant at position `pendant`, whose partner is pile `partner`, in the row `piles` (as
/// original positions; `matches` tells whether two of them match).
fn last_card_can_end(
    piles: impl Iterator<Item = u32>,
    pendant: usize,
    partner: u32,
    matches: impl Fn(u32, u32) -> bool,
) -> bool {
    // The partner's position, and its other matches (how many, and where the last one is).
    let (mut at, mut others, mut other_at) = (None, 0, 0);
    for (position, pile) in piles.enumerate() {
        if pile == partner {
            at = Some(position);
        } else if position != pendant && matches(pile, partner) {
            others += 1;
            other_at = position;
        }
    }
    let Some(at) = at else { return true };
    if !(at >= 2 || (at == 1 && pendant == 2)) {
        return false;
    }
    // The partner's one other match must end at position 0 next to it, with nothing between.
    !(others == 1 && other_at < at && at - other_at > 1 && other_at <= 1)
}

/// The tests on bit masks of original positions (rows of up to 64 piles).
#[derive(Clone, Debug, Default)]
pub struct MaskTests {
    /// The original positions in the row last loaded.
    live: u64,
}

impl MaskTests {
    fn load(&mut self, row: &[u32]) {
        self.live = row.iter().fold(0, |live, &pile| live | 1 << pile);
    }

    fn feasible(&mut self, board: &Board, row: &[u32], grace_left: bool) -> bool {
        self.load(row);
        Self::scan(board, self.live, row.len(), row.iter().copied(), grace_left)
    }

    /// The tests on the child of the row last given to [`Self::load`] that moves the pile at
    /// `from` onto the one at `to`, without making it: the child's piles are listed in place.
    fn feasible_child(&self, board: &Board, row: &[u32], from: usize, to: usize, grace_left: bool) -> bool {
        let live = self.live & !(1 << row[to]);
        let piles = (0..row.len()).filter(|&i| i != from).map(|i| row[if i == to { from } else { i }]);
        Self::scan(board, live, row.len() - 1, piles, grace_left)
    }

    /// The tests on a row given as its `len` piles in order, whose set is `live`.
    fn scan(board: &Board, live: u64, len: usize, piles: impl Iterator<Item = u32> + Clone, grace_left: bool) -> bool {
        let limit = if grace_left { 3 } else { 1 };
        let (mut left, mut pendants, mut last, mut pendant_set) = (0u64, 0, (0, 0), 0u64);
        let mut front = None;
        for (position, pile) in piles.clone().enumerate() {
            front.get_or_insert(pile);
            let matches = board.masks[pile as usize] & live;
            if matches == 0 && !grace_left {
                return false;
            }
            if matches & (matches.wrapping_sub(1)) == 0 && matches & left != 0 {
                pendants += 1;
                if pendants > limit {
                    return false;
                }
                last = (matches.trailing_zeros(), position);
                pendant_set |= 1 << pile;
            }
            left |= 1 << pile;
        }
        let matches = |a: u32, b: u32| board.masks[a as usize] >> b & 1 == 1;
        if !grace_left && pendants == 1 && len >= 3 && !last_card_can_end(piles, last.1, last.0, matches) {
            return false;
        }
        let Some(front) = front else { return true };
        let (components, first) = Self::components(live, front, board);
        if !grace_left || components == 1 {
            return components == 1;
        }
        components == 2
            && split_pendants_allowed(
                pendants - (pendant_set & first).count_ones() as usize,
                (pendant_set & first).count_ones() as usize,
            )
    }

    /// The components of the matching graph on the cards of `live` (counting up to 3), and the
    /// component of `first` (a card of `live`).
    fn components(live: u64, first: u32, board: &Board) -> (usize, u64) {
        let mut unseen = live;
        let mut components = 0;
        let mut first_component = 0;
        while unseen != 0 && components < 3 {
            components += 1;
            let before = unseen;
            let seed = if components == 1 { 1 << first } else { unseen & unseen.wrapping_neg() };
            let mut frontier = seed;
            unseen &= !frontier;
            while frontier != 0 {
                let pile = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let new = board.masks[pile] & unseen;
                unseen &= !new;
                frontier |= new;
            }
            if components == 1 {
                first_component = before & !unseen;
            }
        }
        (components, first_component)
    }
}

/// The tests on counts per rank and suit id (rows of any length).
#[derive(Clone, Debug)]
pub struct CountTests {
    /// Union-find parents: rank ids first, then suit ids.
    parent: Vec<u32>,
    /// The epoch in which each node was last counted as a root.
    seen: Vec<u32>,
    epoch: u32,
    ranks: u32,
    /// Per rank id, then per suit id: the row's cards of it, and the sum of their positions.
    count: Vec<u32>,
    position_sum: Vec<u64>,
    /// The left pendants found by the last [`Self::few_left_pendants`].
    pendants: Vec<u32>,
}

impl CountTests {
    pub(super) fn new(board: &Board) -> Self {
        let nodes = board.ranks + board.suits;
        CountTests {
            parent: vec![0; nodes],
            seen: vec![0; nodes],
            epoch: 0,
            ranks: board.ranks as u32,
            count: vec![0; nodes],
            position_sum: vec![0; nodes],
            pendants: Vec::new(),
        }
    }

    fn nodes(&self, board: &Board, pile: u32) -> (usize, usize) {
        (board.rank[pile as usize] as usize, (self.ranks + board.suit[pile as usize]) as usize)
    }

    fn feasible(&mut self, board: &Board, row: &[u32], grace_left: bool) -> bool {
        if !self.few_left_pendants(board, row, grace_left) {
            return false;
        }
        let components = self.components(board, row, 1 + usize::from(grace_left));
        if !grace_left || components == 1 {
            return components == 1;
        }
        if components > 2 {
            return false;
        }
        let front = self.find(board.rank[row[0] as usize]);
        let pendants = std::mem::take(&mut self.pendants);
        let with_front = pendants.iter().filter(|&&pile| self.find(board.rank[pile as usize]) == front).count();
        self.pendants = pendants;
        split_pendants_allowed(self.pendants.len() - with_front, with_front)
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    /// Union-find over rank and suit ids: each card links its rank to its suit, and two cards
    /// are in one component exactly when a chain of shared ranks and suits joins them.
    /// The components of the row's matching graph, counting up to `limit + 1`; afterwards
    /// [`Self::find`] names each card's component by the root of its rank.
    fn components(&mut self, board: &Board, row: &[u32], limit: usize) -> usize {
        for &pile in row {
            let (r, s) = self.nodes(board, pile);
            self.parent[r] = r as u32;
            self.parent[s] = s as u32;
        }
        for &pile in row {
            let (r, s) = self.nodes(board, pile);
            let (a, b) = (self.find(r as u32), self.find(s as u32));
            self.parent[a as usize] = b;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Stamps from 2^32 epochs ago could alias: start afresh.
            self.seen.fill(0);
            self.epoch = 1;
        }
        let mut roots = 0;
        for &pile in row {
            let root = self.find(board.rank[pile as usize]) as usize;
            if self.seen[root] != self.epoch {
                self.seen[root] = self.epoch;
                roots += 1;
                if roots > limit {
                    return roots;
                }
            }
        }
        roots
    }

    /// The left-pendant tests; a card's partner is found from the position sums, since with two
    /// cards of a rank (or suit) the partner's position is the sum less the card's own.
    /// Counts the row's cards of each rank and suit, with the sums of their positions.
    fn load(&mut self, board: &Board, row: &[u32]) {
        for &pile in row {
            let (r, s) = self.nodes(board, pile);
            self.count[r] = 0;
            self.count[s] = 0;
            self.position_sum[r] = 0;
            self.position_sum[s] = 0;
        }
        for (position, &pile) in row.iter().enumerate() {
            let (r, s) = self.nodes(board, pile);
            self.count[r] += 1;
            self.count[s] += 1;
            self.position_sum[r] += position as u64;
            self.position_sum[s] += position as u64;
        }
    }

    fn few_left_pendants(&mut self, board: &Board, row: &[u32], grace_left: bool) -> bool {
        let limit = if grace_left { 3 } else { 1 };
        self.load(board, row);
        let (mut pendants, mut last) = (0, (0, 0));
        self.pendants.clear();
        for (position, &pile) in row.iter().enumerate() {
            let (r, s) = self.nodes(board, pile);
            // Two cards never share both rank and suit, so the matches add up.
            let partner_by = match (self.count[r], self.count[s]) {
                (2, 1) => r,
                (1, 2) => s,
                _ => continue,
            };
            let partner = (self.position_sum[partner_by] - position as u64) as usize;
            if partner < position {
                pendants += 1;
                if pendants > limit {
                    return false;
                }
                last = (row[partner], position);
                self.pendants.push(pile);
            }
        }
        let matches = |a: u32, b: u32| board.matches(a, b);
        grace_left || pendants != 1 || row.len() < 3 || last_card_can_end(row.iter().copied(), last.1, last.0, matches)
    }
}
