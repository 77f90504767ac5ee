//! Tests of the solver and of each prune against exhaustive search.
//!
//! Input: small random generalised puzzles built directly as [`Puzzle`]s. Output: assertions
//! that every prune keeps a solvable child of every solvable position, and that [`solve`]
//! agrees with exhaustive search.

use std::collections::HashMap;

use super::arcs;
use super::prune::{self, PlayCandidate};
use super::search::{self, Search};
use super::state::{Layout, Position, Step};
use super::walk;
use super::*;
use crate::blackhole::model::Deck;
use crate::rng::SplitMix64;

/// A random puzzle: `R` in 1..=5, `S` in 1..=4, up to 5 piles, some cards left out.
fn random_puzzle(rng: &mut SplitMix64, max_cards: usize) -> Puzzle {
    let deck = Deck { ranks: 1 + rng.below(5), suits: 1 + rng.below(4) };
    let mut cards: Vec<u32> = (1..=deck.size()).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let hole = cards.pop().expect("a deck has a card");
    let keep = (rng.below(cards.len() as u32 + 1) as usize).min(max_cards);
    cards.truncate(keep);
    let piles = rng.below(6) as usize;
    let mut layout = vec![Vec::new(); piles];
    if piles > 0 {
        for card in cards {
            layout[rng.below(piles as u32) as usize].push(card);
        }
    }
    Puzzle { deck, hole, piles: layout }
}

/// Exhaustive search over positions, memoised on the full key (no prunes).
struct Exhaustive<'a> {
    layout: &'a Layout,
    /// Solvability by the raw position (heights, hole rank, worm card): independent of the
    /// solver's key.
    known: HashMap<(Vec<u32>, u32, Option<u32>), bool>,
}

fn raw(pos: &Position) -> (Vec<u32>, u32, Option<u32>) {
    (pos.heights.clone(), pos.hole, pos.worm)
}

impl Exhaustive<'_> {
    /// Every legal step, with no prune.
    fn all_steps(&self, pos: &Position) -> Vec<Step> {
        let layout = self.layout;
        let adjacent = |rank: u32| Deck { ranks: layout.ranks, suits: 1 }.ranks_adjacent(rank, pos.hole);
        let mut steps = Vec::new();
        for p in 0..pos.heights.len() {
            if let Some(rank) = pos.top_rank(layout, p) {
                if adjacent(rank) {
                    steps.push(Step::Play(p as u32));
                }
                if layout.game == Game::WormHole && pos.worm.is_none() {
                    steps.push(Step::ToWorm(p as u32));
                }
            }
        }
        if let Some(worm) = pos.worm {
            if adjacent((worm - 1) % layout.ranks) {
                steps.push(Step::FromWorm);
            }
        }
        steps
    }

    fn solvable(&mut self, pos: &mut Position) -> bool {
        if pos.is_won() {
            return true;
        }
        if let Some(&known) = self.known.get(&raw(pos)) {
            return known;
        }
        let mut found = false;
        for step in self.all_steps(pos) {
            let played = pos.apply(self.layout, step);
            found = self.solvable(pos);
            pos.undo(self.layout, played);
            if found {
                break;
            }
        }
        self.known.insert(raw(pos), found);
        found
    }

    fn child_solvable(&mut self, pos: &mut Position, step: Step) -> bool {
        let played = pos.apply(self.layout, step);
        let found = self.solvable(pos);
        pos.undo(self.layout, played);
        found
    }
}

/// Calls `check` on every position reachable from the start of `puzzle` in `game`.
fn for_each_position(puzzle: &Puzzle, game: Game, mut check: impl FnMut(&Layout, &mut Position, &mut Exhaustive)) {
    let layout = Layout::new(puzzle, game);
    let mut exhaustive = Exhaustive { layout: &layout, known: HashMap::new() };
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![Position::start(&layout, puzzle)];
    while let Some(mut pos) = stack.pop() {
        if !seen.insert(raw(&pos)) {
            continue;
        }
        check(&layout, &mut pos, &mut exhaustive);
        for step in exhaustive.all_steps(&pos) {
            let mut child = pos.clone();
            child.apply(&layout, step);
            stack.push(child);
        }
    }
}

/// Runs `check` over the positions of many random puzzles in both games.
fn over_random_positions(cases: u64, check: impl Fn(&Layout, &mut Position, &mut Exhaustive)) {
    for seed in 0..cases {
        let mut rng = SplitMix64::new(seed);
        let puzzle = random_puzzle(&mut rng, 9);
        for game in [Game::BlackHole, Game::WormHole] {
            for_each_position(&puzzle, game, &check);
        }
    }
}

#[test]
fn dropped_unit_plays_have_a_solvable_same_rank_alternative() {
    over_random_positions(600, |layout, pos, ex| {
        let mut all = Vec::new();
        for p in 0..pos.heights.len() {
            if let Some(rank) = pos.top_rank(layout, p) {
                if (Deck { ranks: layout.ranks, suits: 1 }).ranks_adjacent(rank, pos.hole) {
                    let unit = layout.unit[p][pos.heights[p] as usize - 1];
                    all.push(PlayCandidate { pile: p as u32, rank, unit });
                }
            }
        }
        let mut kept = all.clone();
        prune::keep_plays(&mut kept);
        for dropped in all.iter().filter(|c| !kept.contains(c)) {
            if ex.child_solvable(pos, Step::Play(dropped.pile)) {
                let rescued =
                    kept.iter().filter(|k| k.rank == dropped.rank).any(|k| ex.child_solvable(pos, Step::Play(k.pile)));
                assert!(rescued, "dropping pile {} lost every solution", dropped.pile);
            }
        }
    });
}

#[test]
fn unit_cards_never_need_the_worm_hole() {
    over_random_positions(600, |layout, pos, ex| {
        if layout.game != Game::WormHole || pos.worm.is_some() || pos.is_won() || !ex.solvable(pos) {
            return;
        }
        let others: Vec<Step> = ex
            .all_steps(pos)
            .into_iter()
            .filter(|&s| match s {
                Step::ToWorm(p) => prune::may_enter_worm(layout.unit[p as usize][pos.heights[p as usize] as usize - 1]),
                _ => true,
            })
            .collect();
        assert!(
            others.iter().any(|&s| ex.child_solvable(pos, s)),
            "the worm rule lost every solution: {:?} {:?} hole {} worm {:?} steps {:?} kept {:?}",
            layout.cards,
            pos.heights,
            pos.hole,
            pos.worm,
            ex.all_steps(pos),
            others
        );
    });
}

#[test]
fn twin_piles_are_interchangeable() {
    over_random_positions(600, |layout, pos, ex| {
        for p in 0..pos.heights.len() {
            let h = pos.heights[p];
            if h == 0 || !prune::has_earlier_twin(&layout.twins[p], &pos.heights, h) {
                continue;
            }
            let twin = (0..p).find(|&q| {
                pos.heights[q] == h && layout.pile_ranks[q][..h as usize] == layout.pile_ranks[p][..h as usize]
            });
            let q = twin.expect("has_earlier_twin names a real twin") as u32;
            for (from_p, from_q) in [(Step::Play(p as u32), Step::Play(q)), (Step::ToWorm(p as u32), Step::ToWorm(q))] {
                if ex.all_steps(pos).contains(&from_p) {
                    assert_eq!(ex.child_solvable(pos, from_p), ex.child_solvable(pos, from_q));
                }
            }
        }
    });
}

#[test]
fn positions_with_equal_keys_are_equally_solvable() {
    for seed in 0..400 {
        let mut rng = SplitMix64::new(seed);
        let puzzle = random_puzzle(&mut rng, 10);
        for game in [Game::BlackHole, Game::WormHole] {
            let mut by_key: HashMap<Vec<u64>, bool> = HashMap::new();
            for_each_position(&puzzle, game, |_, pos, ex| {
                let solvable = ex.solvable(pos);
                let first = *by_key.entry(pos.key.clone()).or_insert(solvable);
                assert_eq!(first, solvable, "{puzzle} {game}: equal keys, different answers");
            });
        }
    }
}

#[test]
fn solvable_positions_pass_the_rank_walk_test() {
    over_random_positions(600, |layout, pos, ex| {
        if ex.solvable(pos) {
            assert!(walk::rank_walk_feasible(layout.ranks, &pos.counts, pos.hole, pos.remaining));
        }
    });
}

#[test]
fn solvable_positions_pass_the_pile_order_tests() {
    // Longer piles than elsewhere, so that cuts needing two or three crossings occur.
    let mut rejected = 0;
    for seed in 0..1500 {
        let mut rng = SplitMix64::new(seed ^ 0x5eed);
        let mut puzzle = random_puzzle(&mut rng, 11);
        if puzzle.deck.ranks < 3 {
            puzzle.deck.ranks += 2;
        }
        for game in [Game::BlackHole, Game::WormHole] {
            for_each_position(&puzzle, game, |layout, pos, ex| {
                let mut memo = memo::DeadSet::new(layout.key.width(), 1 << 16);
                let mut search = Search::new(layout, pos.clone(), &mut memo);
                let feasible = search.feasible();
                if ex.solvable(pos) {
                    assert!(feasible, "{puzzle} {game}: a solvable position failed the pile-order test");
                } else if !feasible && walk::rank_walk_feasible(layout.ranks, &pos.counts, pos.hole, pos.remaining) {
                    rejected += 1;
                }
            });
        }
    }
    assert!(rejected > 0, "the pile-order tests should catch some dead positions the walk misses");
}

#[test]
fn a_black_hole_game_ends_with_a_bottom_card() {
    // Ranks 0..5: piles [1 4], [3], [] and [2 2]: the last card is a 1, a 3 or a 2.
    let puzzle =
        Puzzle { deck: Deck { ranks: 5, suits: 4 }, hole: 1, piles: vec![vec![2, 5], vec![4], vec![], vec![3, 8]] };
    let layout = Layout::new(&puzzle, Game::BlackHole);
    assert_eq!(search::last_card_ranks(&layout, &[2, 1, 0, 2]), 0b1110);
    assert_eq!(search::last_card_ranks(&layout, &[1, 0, 0, 1]), 0b0110);
    assert_eq!(search::last_card_ranks(&layout, &[0, 0, 0, 0]), 0);
}

#[test]
fn a_deck_of_more_than_64_ranks_keeps_every_end_rank() {
    // 70 ranks, one suit: the hole is rank 0 and the piles climb 1, 2, 3, 4, one card each, so
    // piles empty on the way. Past 64 ranks no end rank is masked (`last_card_ranks`), and the
    // position's kept mask must agree at every node (a debug assertion in the search).
    let puzzle = Puzzle { deck: Deck { ranks: 70, suits: 1 }, hole: 1, piles: (2..=5).map(|c| vec![c]).collect() };
    let layout = Layout::new(&puzzle, Game::BlackHole);
    let mut pos = Position::start(&layout, &puzzle);
    assert_eq!(pos.ends, u64::MAX);
    pos.apply(&layout, Step::Play(0));
    assert_eq!(pos.ends, search::last_card_ranks(&layout, &pos.heights));
    assert!(matches!(solve(&puzzle, Game::BlackHole, &Budget::default()).outcome, Outcome::Solved(_)));
}

#[test]
fn the_arc_projection_never_refutes_a_solvable_position() {
    let mut refuted = 0;
    for seed in 0..200 {
        let mut rng = SplitMix64::new(seed ^ 0xa4c5);
        // Arcs need an odd cycle of at least five ranks; fuller layouts than elsewhere.
        let deck = Deck { ranks: [5, 7][seed as usize % 2], suits: 3 };
        let mut cards: Vec<u32> = (1..=deck.size()).collect();
        for i in (1..cards.len()).rev() {
            cards.swap(i, rng.below(i as u32 + 1) as usize);
        }
        let hole = cards.pop().expect("a deck has a card");
        cards.truncate(15);
        let mut piles = vec![Vec::new(); 4 + rng.below(3) as usize];
        for card in cards {
            let p = rng.below(piles.len() as u32) as usize;
            piles[p].push(card);
        }
        let puzzle = Puzzle { deck, hole, piles };
        for_each_position(&puzzle, Game::BlackHole, |layout, pos, ex| {
            let ends = search::last_card_ranks(layout, &pos.heights);
            if arcs::refutes(layout, pos, ends, (1_000_000, 1_000_000), None) {
                assert!(!ex.solvable(pos), "{puzzle}: the arc test refuted a solvable position");
                // Count the refutations the other tests miss.
                let mut memo = memo::DeadSet::new(layout.key.width(), 1 << 16);
                refuted += usize::from(Search::new(layout, pos.clone(), &mut memo).feasible());
            }
        });
    }
    assert!(refuted > 20, "the arc test should catch dead positions the other tests miss: {refuted}");
}

#[test]
fn all_prunes_together_keep_a_solvable_child() {
    over_random_positions(600, |layout, pos, ex| {
        if pos.is_won() || !ex.solvable(pos) {
            return;
        }
        let mut memo = memo::DeadSet::new(layout.key.width(), 1 << 20);
        let mut search = Search::new(layout, pos.clone(), &mut memo);
        let mut kept = Vec::new();
        search.children(&mut kept);
        assert!(kept.into_iter().any(|s| ex.child_solvable(pos, s)), "the prunes lost every solution");
    });
}

#[test]
fn solve_agrees_with_exhaustive_search_and_witnesses_check() {
    agrees_with_exhaustive_search(RESTART_UNIT);
}

#[test]
fn restarting_after_every_node_or_so_agrees_with_exhaustive_search() {
    // Tiny puzzles rarely need a second run at the real unit: runs of 1, 1, 2, 1, ... nodes
    // restart all the time, each in another order, sharing the memo.
    agrees_with_exhaustive_search(1);
}

#[test]
fn luby_s_sequence_starts_as_published() {
    let terms: Vec<u64> = (1..=16).map(luby).collect();
    assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1]);
    assert_eq!(luby(u64::MAX), 1 << 63);
}

fn agrees_with_exhaustive_search(unit: u64) {
    for seed in 0..3000 {
        let mut rng = SplitMix64::new(seed ^ 0xabcdef);
        let puzzle = random_puzzle(&mut rng, 12);
        for game in [Game::BlackHole, Game::WormHole] {
            let layout = Layout::new(&puzzle, game);
            let mut ex = Exhaustive { layout: &layout, known: HashMap::new() };
            let expected = ex.solvable(&mut Position::start(&layout, &puzzle));
            let solution = solve_restarting(&puzzle, game, &Budget::default(), unit);
            match solution.outcome {
                Outcome::Solved(moves) => {
                    assert!(expected, "{puzzle} {game}");
                    assert_eq!(check::check_moves(&puzzle, game, &moves).finding, Finding::Solved);
                }
                Outcome::Unsolvable => assert!(!expected, "{puzzle} {game}"),
                Outcome::GaveUp => panic!("gave up on a tiny puzzle"),
            }
        }
    }
}

#[test]
fn budgets_give_up_instead_of_guessing() {
    // 13 ranks, one suit, the hole an ace and the rest dealt so that the search must wander.
    let puzzle = Puzzle {
        deck: Deck { ranks: 13, suits: 4 },
        hole: 1,
        piles: (0..17).map(|p| (0..3).map(|i| 2 + p * 3 + i).collect()).collect(),
    };
    let tiny = Budget { max_nodes: 1, ..Budget::default() };
    assert_eq!(solve(&puzzle, Game::BlackHole, &tiny).outcome, Outcome::GaveUp);
    let timed = Budget { time: Some(std::time::Duration::ZERO), max_nodes: u64::MAX, ..Budget::default() };
    let outcome = solve(&puzzle, Game::BlackHole, &timed).outcome;
    assert!(matches!(outcome, Outcome::GaveUp | Outcome::Solved(_) | Outcome::Unsolvable));
}

#[test]
fn worm_moves_wait_for_the_card_below() {
    // Every solvable Worm Hole position has a solution whose worm moves are each followed at
    // once by a play from the same pile: check it by searching only such solutions.
    over_random_positions(400, |layout, pos, ex| {
        if layout.game != Game::WormHole || pos.is_won() || !ex.solvable(pos) {
            return;
        }
        let kept: Vec<Step> = ex
            .all_steps(pos)
            .into_iter()
            .filter_map(|s| match s {
                Step::ToWorm(p) => {
                    let h = pos.heights[p as usize] as usize;
                    let under_playable = h >= 2
                        && (Deck { ranks: layout.ranks, suits: 1 })
                            .ranks_adjacent(layout.pile_ranks[p as usize][h - 2], pos.hole);
                    prune::worm_then_play(under_playable).then_some(Step::WormPlay(p))
                }
                other => Some(other),
            })
            .collect();
        assert!(kept.into_iter().any(|s| ex.child_solvable(pos, s)), "worm-then-play lost every solution");
    });
}

#[test]
fn empty_layouts_are_solved_by_no_moves() {
    for piles in [vec![], vec![vec![], vec![]]] {
        let puzzle = Puzzle { deck: Deck { ranks: 13, suits: 4 }, hole: 7, piles };
        for game in [Game::BlackHole, Game::WormHole] {
            assert_eq!(solve(&puzzle, game, &Budget::default()).outcome, Outcome::Solved(vec![]));
        }
    }
}

#[test]
fn worm_hole_needs_the_worm_emptied() {
    // Hole 1 (ace); pile 0 holds a 5 under a 2: only Worm Hole can solve it, via the worm.
    let deck = Deck { ranks: 13, suits: 1 };
    let puzzle = Puzzle { deck, hole: 1, piles: vec![vec![3, 2, 4]] };
    assert_eq!(solve(&puzzle, Game::BlackHole, &Budget::default()).outcome, Outcome::Unsolvable);
    let Outcome::Solved(moves) = solve(&puzzle, Game::WormHole, &Budget::default()).outcome else {
        panic!("Worm Hole solves it");
    };
    assert_eq!(check::check_moves(&puzzle, Game::WormHole, &moves).finding, Finding::Solved);
    // A memo too small to hold anything changes nothing but speed.
    let starved = Budget { memo_bytes: 0, ..Budget::default() };
    assert!(matches!(solve(&puzzle, Game::WormHole, &starved).outcome, Outcome::Solved(_)));
}
