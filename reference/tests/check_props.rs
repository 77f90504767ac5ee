//! Properties and unit tests of the checker.
//!
//! Input: hand-made puzzles (one test per [`Finding`] and [`Illegal`] variant) and random small
//! generalised puzzles (any `R`, `S`, `P`, uneven and empty piles, partial decks) with random legal
//! play sequences and winning sequences built backwards. Output: pass/fail of the checker against
//! an independent mini-simulator written here.

use bhref::blackhole::check::{check, check_moves, Finding, Illegal};
use bhref::blackhole::model::{Deck, Game, Move, Puzzle};
use bhref::blackhole::parse::parse_puzzle;
use bhref::rng::SplitMix64;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// One test per finding and per reason a move is illegal.

/// 13 ranks, 4 suits; hole 1 (an ace); pile 0 = 3 under 2, pile 1 empty, pile 2 = 4, pile 3 = 14
/// (the three of the second suit).
const SMALL: &str = "13 4 4\n1\n3 2 -1\n-1\n4 -1\n16 -1\n";

fn checked(game: Game, integers: &[i64]) -> (Finding, String, bool) {
    let puzzle = parse_puzzle("small", SMALL).unwrap();
    let report = check(&puzzle, game, integers);
    (report.finding.clone(), report.finding.to_string(), report.is_solution())
}

fn illegal(game: Game, integers: &[i64]) -> (usize, Illegal, String) {
    match checked(game, integers) {
        (Finding::Illegal { index, reason, .. }, text, false) => (index, reason, text),
        other => panic!("expected an illegal move, got {other:?}"),
    }
}

#[test]
fn solved_and_the_empty_solution() {
    let bh = [0, 2, 0, 3, 2, 4, 3, 16];
    let (finding, text, ok) = checked(Game::BlackHole, &bh);
    assert_eq!((finding, text.as_str(), ok), (Finding::Solved, "the moves solve the puzzle", true));
    assert_eq!(checked(Game::WormHole, &bh).0, Finding::Solved);
    let empty = parse_puzzle("e", "5 2 3 7 -1 -1 -1").unwrap();
    assert_eq!(check(&empty, Game::BlackHole, &[]).finding, Finding::Solved);
    assert_eq!(check(&empty, Game::WormHole, &[]).finding, Finding::Solved);
}

#[test]
fn extra_after_win_counts_the_extra_integers() {
    let (finding, text, ok) = checked(Game::BlackHole, &[0, 2, 0, 3, 2, 4, 3, 16, 0, 0, 7]);
    assert_eq!(finding, Finding::ExtraAfterWin { moves: 4, extra_integers: 3 });
    assert_eq!(text, "the puzzle is solved after move 4, but 3 more integers follow");
    assert!(ok, "ruling 2: extra input after a win is ignored");
}

#[test]
fn cards_left_counts_the_worm_hole_card() {
    let (finding, text, ok) = checked(Game::BlackHole, &[0, 2]);
    assert_eq!(finding, Finding::CardsLeft { moves: 1, cards_left: 3 });
    assert_eq!(text, "after 1 move was played, 3 cards are left in play");
    assert!(!ok);
    let (finding, ..) = checked(Game::WormHole, &[2, -4]);
    assert_eq!(finding, Finding::CardsLeft { moves: 1, cards_left: 4 });
}

#[test]
fn card_left_in_worm_hole_is_a_loss() {
    let (finding, text, ok) = checked(Game::WormHole, &[3, -16, 0, 2, 0, 3, 2, 4]);
    assert_eq!(finding, Finding::CardLeftInWormHole { moves: 4, card: 16 });
    assert_eq!(text, "after 4 moves the piles are empty but card 16 is left in the worm hole");
    assert!(!ok);
    assert_eq!(checked(Game::WormHole, &[3, -16, 0, 2, 0, 3, 2, 4, -1, 16]).0, Finding::Solved);
}

#[test]
fn dangling_integer() {
    let (index, reason, text) = illegal(Game::BlackHole, &[0, 2, 0]);
    assert_eq!((index, reason), (1, Illegal::DanglingInteger));
    assert_eq!(text, "move 2: the pile 0 has no card after it (an odd number of integers)");
}

#[test]
fn pile_out_of_range() {
    let (index, reason, text) = illegal(Game::BlackHole, &[4, 2]);
    assert_eq!((index, reason), (0, Illegal::PileOutOfRange { piles: 4 }));
    assert_eq!(text, "move 1 (pile 4, card 2): there is no pile 4; piles are numbered 0 to 3");
    assert_eq!(illegal(Game::WormHole, &[-2, 2]).1, Illegal::PileOutOfRange { piles: 4 });
    assert_eq!(illegal(Game::BlackHole, &[i64::MAX, 2]).1, Illegal::PileOutOfRange { piles: 4 });
    // Without piles the game is won before any move, so only a hand-built finding says this.
    let none = Finding::Illegal { index: 0, pile: 0, card: Some(2), reason: Illegal::PileOutOfRange { piles: 0 } };
    assert_eq!(none.to_string(), "move 1 (pile 0, card 2): there is no pile 0; the puzzle has no piles");
}

#[test]
fn bad_card() {
    let (_, reason, text) = illegal(Game::BlackHole, &[0, 0]);
    assert_eq!(reason, Illegal::BadCard);
    assert_eq!(text, "move 1 (pile 0, card 0): 0 is not a card");
    assert_eq!(illegal(Game::WormHole, &[-1, -2]).1, Illegal::BadCard);
    assert_eq!(illegal(Game::BlackHole, &[-1, -2]).1, Illegal::BadCard);
}

#[test]
fn empty_pile() {
    let (_, reason, text) = illegal(Game::BlackHole, &[1, 2]);
    assert_eq!(reason, Illegal::EmptyPile);
    assert_eq!(text, "move 1 (pile 1, card 2): pile 1 is empty");
    assert_eq!(illegal(Game::WormHole, &[1, -2]).1, Illegal::EmptyPile);
}

#[test]
fn wrong_card() {
    let (_, reason, text) = illegal(Game::BlackHole, &[0, 2, 0, 42]);
    assert_eq!(reason, Illegal::WrongCard { top: 3 });
    assert_eq!(text, "move 2 (pile 0, card 42): card 42 is not on top of pile 0; the top is 3");
    let (_, reason, text) = illegal(Game::WormHole, &[0, -3]);
    assert_eq!(reason, Illegal::WrongCard { top: 2 });
    assert_eq!(text, "move 1 (pile 0, card -3): card 3 is not on top of pile 0; the top is 2");
    assert_eq!(illegal(Game::BlackHole, &[0, 1 << 40]).1, Illegal::WrongCard { top: 2 });
}

#[test]
fn not_adjacent_from_a_pile_and_from_the_worm_hole() {
    let (_, reason, text) = illegal(Game::BlackHole, &[2, 4]);
    assert_eq!(reason, Illegal::NotAdjacent { hole: 1 });
    assert_eq!(text, "move 1 (pile 2, card 4): card 4 is not adjacent in rank to 1, the card in the black hole");
    assert_eq!(illegal(Game::BlackHole, &[3, 16]).1, Illegal::NotAdjacent { hole: 1 });
    let (index, reason, _) = illegal(Game::WormHole, &[2, -4, -1, 4]);
    assert_eq!((index, reason), (1, Illegal::NotAdjacent { hole: 1 }));
}

#[test]
fn worm_move_in_black_hole() {
    let (_, reason, text) = illegal(Game::BlackHole, &[0, -2]);
    assert_eq!(reason, Illegal::WormMoveInBlackHole);
    assert_eq!(text, "move 1 (pile 0, card -2): a worm-hole move is not allowed in Black Hole");
    assert_eq!(illegal(Game::BlackHole, &[-1, 2]).1, Illegal::WormMoveInBlackHole);
}

#[test]
fn worm_hole_full() {
    let (index, reason, text) = illegal(Game::WormHole, &[2, -4, 0, -2]);
    assert_eq!((index, reason), (1, Illegal::WormHoleFull { worm: 4 }));
    assert_eq!(text, "move 2 (pile 0, card -2): the worm hole already holds card 4");
}

#[test]
fn worm_hole_empty() {
    let (_, reason, text) = illegal(Game::WormHole, &[-1, 2]);
    assert_eq!(reason, Illegal::WormHoleEmpty);
    assert_eq!(text, "move 1 (pile -1, card 2): the worm hole is empty");
}

#[test]
fn wrong_worm_card() {
    let (_, reason, text) = illegal(Game::WormHole, &[0, -2, -1, 3]);
    assert_eq!(reason, Illegal::WrongWormCard { worm: 2 });
    assert_eq!(text, "move 2 (pile -1, card 3): card 3 is not in the worm hole; it holds 2");
}

#[test]
fn legal_moves_and_check_moves() {
    let puzzle = parse_puzzle("small", SMALL).unwrap();
    let report = check(&puzzle, Game::WormHole, &[0, 2, 2, -4, 0, 3, -1, 4, 0, 9]);
    let legal = vec![
        Move::Play { pile: 0, card: 2 },
        Move::ToWorm { pile: 2, card: 4 },
        Move::Play { pile: 0, card: 3 },
        Move::FromWorm { card: 4 },
    ];
    assert_eq!(report.finding, Finding::Illegal { index: 4, pile: 0, card: Some(9), reason: Illegal::EmptyPile });
    assert_eq!(report.legal_moves, legal);
    assert_eq!(check_moves(&puzzle, Game::WormHole, &legal).finding, Finding::CardsLeft { moves: 4, cards_left: 1 });
}

// ---------------------------------------------------------------------------------------------
// The independent mini-simulator and random play.

/// The rules restated from `practical.md` with no code shared with the checker.
#[derive(Clone)]
struct Sim {
    ranks: u32,
    piles: Vec<Vec<u32>>,
    hole: u32,
    worm: Option<u32>,
    worm_allowed: bool,
}

impl Sim {
    fn new(puzzle: &Puzzle, game: Game) -> Self {
        Sim {
            ranks: puzzle.deck.ranks,
            piles: puzzle.piles.clone(),
            hole: puzzle.hole,
            worm: None,
            worm_allowed: game == Game::WormHole,
        }
    }

    /// One rank up or down, wrapping: with one rank everything is adjacent.
    fn adjacent(&self, a: u32, b: u32) -> bool {
        let (ra, rb) = ((a - 1) % self.ranks, (b - 1) % self.ranks);
        (ra + 1) % self.ranks == rb || (rb + 1) % self.ranks == ra
    }

    fn won(&self) -> bool {
        self.worm.is_none() && self.piles.iter().all(Vec::is_empty)
    }

    /// Every legal move as its pair of integers.
    fn moves(&self) -> Vec<(i64, i64)> {
        let mut moves = Vec::new();
        for (p, pile) in self.piles.iter().enumerate() {
            if let Some(&top) = pile.last() {
                if self.adjacent(top, self.hole) {
                    moves.push((p as i64, i64::from(top)));
                }
                if self.worm_allowed && self.worm.is_none() {
                    moves.push((p as i64, -i64::from(top)));
                }
            }
        }
        if let Some(w) = self.worm {
            if self.adjacent(w, self.hole) {
                moves.push((-1, i64::from(w)));
            }
        }
        moves
    }

    /// Plays a pair if it is legal.
    fn play(&mut self, pile: i64, card: i64) -> bool {
        if !self.moves().contains(&(pile, card)) {
            return false;
        }
        if pile == -1 {
            self.worm = None;
            self.hole = card as u32;
        } else {
            let top = self.piles[pile as usize].pop().unwrap();
            if card < 0 {
                self.worm = Some(top);
            } else {
                self.hole = top;
            }
        }
        true
    }

    fn cards_left(&self) -> usize {
        self.piles.iter().map(Vec::len).sum::<usize>() + usize::from(self.worm.is_some())
    }
}

/// Whether `integers` is exactly a winning sequence of legal moves.
fn sim_solves(puzzle: &Puzzle, game: Game, integers: &[i64]) -> bool {
    let mut sim = Sim::new(puzzle, game);
    integers.len().is_multiple_of(2) && integers.chunks(2).all(|pair| sim.play(pair[0], pair[1])) && sim.won()
}

/// A random small generalised puzzle: a partial shuffled deck dealt unevenly.
fn random_puzzle(ranks: u32, suits: u32, piles: usize, rng: &mut SplitMix64) -> Puzzle {
    let mut cards: Vec<u32> = (1..=ranks * suits).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.index(i + 1));
    }
    let mut layout = vec![Vec::new(); piles];
    for &card in &cards[1..] {
        let slot = rng.index(piles + 1);
        if slot < piles {
            layout[slot].push(card);
        }
    }
    Puzzle { deck: Deck { ranks, suits }, hole: cards[0], piles: layout }
}

/// A Black Hole puzzle with a known solution: a random walk of adjacent cards from the hole,
/// dealt so that each pile's cards come off in walk order.
fn winnable_puzzle(ranks: u32, suits: u32, piles: usize, rng: &mut SplitMix64) -> (Puzzle, Vec<i64>) {
    let deck = Deck { ranks, suits };
    let mut remaining: Vec<u32> = (1..=deck.size()).collect();
    let hole = remaining.swap_remove(rng.index(remaining.len()));
    let mut layout = vec![Vec::new(); piles];
    let mut solution = Vec::new();
    let mut current = hole;
    loop {
        let next: Vec<usize> = (0..remaining.len()).filter(|&i| deck.adjacent(remaining[i], current)).collect();
        if next.is_empty() || rng.index(8) == 0 {
            break;
        }
        current = remaining.swap_remove(next[rng.index(next.len())]);
        let pile = rng.index(piles);
        layout[pile].push(current);
        solution.extend([pile as i64, i64::from(current)]);
    }
    for pile in &mut layout {
        pile.reverse();
    }
    (Puzzle { deck, hole, piles: layout }, solution)
}

/// Every single-integer change, deletion of one integer and deletion of one move of a winning
/// sequence breaks it (each argued in the test below); insertions and swaps may or may not, and
/// there the checker must agree with the simulator.
fn assert_corruptions_caught(puzzle: &Puzzle, game: Game, solution: &[i64], rng: &mut SplitMix64) {
    let agrees = |integers: &[i64]| {
        let solved = check(puzzle, game, integers).finding == Finding::Solved;
        assert_eq!(solved, sim_solves(puzzle, game, integers), "checker and simulator disagree on {integers:?}");
        solved
    };
    let mut after = solution.to_vec();
    after.extend([0, 1]);
    let extra = check(puzzle, game, &after).finding;
    assert_eq!(extra, Finding::ExtraAfterWin { moves: solution.len() / 2, extra_integers: 2 });
    for i in 0..solution.len() {
        let v = solution[i];
        // A card is on top of exactly one pile (cards are unique), so changing a pile or a card
        // names something that is not there; `p c` → `p -c` leaves `c` in the worm hole, as no
        // later move of the original mentions `c`; `p -c` → `p c` leaves the later `-1 c` with an
        // empty worm hole.
        for w in [v + 1, v - 1, -v, 0, -1, 1, 1000, rng.index(60) as i64 - 10] {
            if w != v {
                let mut changed = solution.to_vec();
                changed[i] = w;
                assert!(!agrees(&changed), "changing integer {i} to {w} still solves: {changed:?}");
            }
        }
        // An odd number of integers never solves.
        let mut shorter = solution.to_vec();
        shorter.remove(i);
        assert!(!agrees(&shorter));
    }
    for m in 0..solution.len() / 2 {
        // The moved card stays where it was (on its pile, or in the worm hole), so the game is
        // never won.
        let mut without = solution.to_vec();
        without.drain(2 * m..2 * m + 2);
        assert!(!agrees(&without), "dropping move {m} still solves");
        let mut inserted = solution.to_vec();
        let pile = rng.index(puzzle.piles.len() + 1) as i64 - 1;
        let card = rng.index(puzzle.deck.size() as usize + 1) as i64 * if rng.index(3) == 0 { -1 } else { 1 };
        inserted.splice(2 * m..2 * m, [pile, card]);
        agrees(&inserted);
        if m + 1 < solution.len() / 2 {
            let mut swapped = solution.to_vec();
            swapped[2 * m..2 * m + 4].rotate_left(2);
            agrees(&swapped);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_play_checks_like_the_simulator(
        ranks in 1u32..=6, suits in 1u32..=4, piles in 0usize..=5, worm: bool, seed: u64,
    ) {
        let mut rng = SplitMix64::new(seed);
        let puzzle = random_puzzle(ranks, suits, piles, &mut rng);
        let game = if worm { Game::WormHole } else { Game::BlackHole };
        let mut sim = Sim::new(&puzzle, game);
        let mut sequence: Vec<i64> = Vec::new();
        let mut prefixes = vec![(0, sim.cards_left(), sim.worm)];
        loop {
            let moves = sim.moves();
            if moves.is_empty() {
                break;
            }
            let (pile, card) = moves[rng.index(moves.len())];
            prop_assert!(sim.play(pile, card));
            sequence.extend([pile, card]);
            prefixes.push((sequence.len(), sim.cards_left(), sim.worm));
        }
        let won = sim.won();
        for &(len, cards_left, worm) in &prefixes {
            let report = check(&puzzle, game, &sequence[..len]);
            let moves = len / 2;
            prop_assert_eq!(report.legal_moves.len(), moves);
            let expected = if len == sequence.len() && won {
                Finding::Solved
            } else if let (Some(card), 1) = (worm, cards_left) {
                Finding::CardLeftInWormHole { moves, card }
            } else {
                Finding::CardsLeft { moves, cards_left }
            };
            prop_assert_eq!(report.finding, expected);
            if len < sequence.len() {
                let dangling = check(&puzzle, game, &sequence[..len + 1]).finding;
                let is_dangling =
                    matches!(dangling, Finding::Illegal { index, reason: Illegal::DanglingInteger, .. } if index == moves);
                prop_assert!(is_dangling, "{:?}", dangling);
            }
        }
        let pairs: Vec<(i64, i64)> = check(&puzzle, game, &sequence).legal_moves.iter().map(Move::pair).collect();
        prop_assert_eq!(pairs, sequence.chunks(2).map(|p| (p[0], p[1])).collect::<Vec<_>>());
        if won {
            assert_corruptions_caught(&puzzle, game, &sequence, &mut rng);
        }
    }

    #[test]
    fn built_winning_sequences_check_and_corruptions_are_caught(
        ranks in 1u32..=13, suits in 1u32..=4, piles in 1usize..=6, seed: u64,
    ) {
        let mut rng = SplitMix64::new(seed);
        let (puzzle, solution) = winnable_puzzle(ranks, suits, piles, &mut rng);
        // A Black Hole solution is a Worm Hole solution that never uses the worm hole.
        for game in [Game::BlackHole, Game::WormHole] {
            prop_assert_eq!(check(&puzzle, game, &solution).finding, Finding::Solved);
            assert_corruptions_caught(&puzzle, game, &solution, &mut rng);
        }
    }
}
