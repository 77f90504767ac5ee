//! The checker: does a list of integers solve a puzzle?
//!
//! Input: a [`Puzzle`], a [`Game`] and the integers of a candidate solution (as
//! [`super::parse::read_integers`] reads them, per ruling 1 of `docs/practical.md`). Output: a
//! [`CheckReport`] whose [`Finding`] says exactly what happened: solved, which move failed and
//! why, what was left at the end, or a win followed by more input (ruling 2, its own finding so
//! that suite validation can reject tests whose answer would turn on it).

use std::fmt;

use crate::blackhole::model::{Card, Game, Move, Puzzle};
use crate::referee::{agreeing, count};

/// The result of checking one candidate solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The moves that were legal, in order (all of them when the solution is good).
    pub legal_moves: Vec<Move>,
    pub finding: Finding,
}

impl CheckReport {
    /// The first line the reference prints for this check: whether the input solves the puzzle.
    ///
    /// A win followed by more input counts as solved, as the handout says extra input "can be
    /// ignored" (ruling 2: a suite never relies on this case).
    pub fn is_solution(&self) -> bool {
        match self.finding {
            Finding::Solved | Finding::ExtraAfterWin { .. } => true,
            Finding::Illegal { .. } | Finding::CardsLeft { .. } | Finding::CardLeftInWormHole { .. } => false,
        }
    }
}

/// What checking a candidate solution found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Every move was legal and the game is won after the last one.
    Solved,
    /// The game was won after `moves` moves, and `extra_integers` more integers followed.
    ExtraAfterWin { moves: usize, extra_integers: usize },
    /// Move `index` (0-based) given as `pile card` (or a lone dangling `pile`) is illegal.
    Illegal { index: usize, pile: i64, card: Option<i64>, reason: Illegal },
    /// Every move was legal, but cards remain in the piles.
    CardsLeft { moves: usize, cards_left: usize },
    /// The piles are empty but a card remains in the worm hole (Worm Hole's win needs it empty).
    CardLeftInWormHole { moves: usize, card: Card },
}

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// An odd integer at the end of the input: a pile with no card.
    DanglingInteger,
    /// The pile number is not `-1` (worm hole) nor in `0..piles`.
    PileOutOfRange { piles: usize },
    /// The card number is 0, or a worm-hole move names a negative card (`-1 -c`).
    BadCard,
    /// The pile has no cards left.
    EmptyPile,
    /// The named card is not the top card of the pile.
    WrongCard { top: Card },
    /// The card is not adjacent in rank to the card on top of the black hole.
    NotAdjacent { hole: Card },
    /// A worm-hole move (`-1 c` or `p -c`) in a game of Black Hole.
    WormMoveInBlackHole,
    /// A card moved into the worm hole while it already holds one.
    WormHoleFull { worm: Card },
    /// A card played from the worm hole while it is empty.
    WormHoleEmpty,
    /// The card named for a move from the worm hole is not the one in it.
    WrongWormCard { worm: Card },
}

/// The state of play while replaying moves: pile heights, the hole card and the worm hole.
#[derive(Clone, Debug)]
pub struct Table<'a> {
    puzzle: &'a Puzzle,
    heights: Vec<usize>,
    hole: Card,
    worm: Option<Card>,
    cards_left: usize,
}

impl<'a> Table<'a> {
    /// The starting position of `puzzle`: full piles, the puzzle's hole card, an empty worm hole.
    pub fn new(puzzle: &'a Puzzle) -> Self {
        Table {
            puzzle,
            heights: puzzle.piles.iter().map(Vec::len).collect(),
            hole: puzzle.hole,
            worm: None,
            cards_left: puzzle.cards_in_piles(),
        }
    }

    /// Whether every pile and the worm hole are empty.
    pub fn is_won(&self) -> bool {
        self.cards_left == 0 && self.worm.is_none()
    }

    /// The card on top of the black hole.
    pub fn hole(&self) -> Card {
        self.hole
    }

    /// Decodes the pair `pile card` into a move of `game`, or says why no such move exists.
    pub fn decode(&self, game: Game, pile: i64, card: i64) -> Result<Move, Illegal> {
        let piles = self.heights.len();
        if card == 0 || (pile == -1 && card < 0) {
            return Err(Illegal::BadCard);
        }
        let card_number = Card::try_from(card.unsigned_abs()).unwrap_or(Card::MAX);
        if pile == -1 {
            return match game {
                Game::BlackHole => Err(Illegal::WormMoveInBlackHole),
                Game::WormHole => Ok(Move::FromWorm { card: card_number }),
            };
        }
        let index = usize::try_from(pile).ok().filter(|&p| p < piles);
        let Some(index) = index else {
            return Err(Illegal::PileOutOfRange { piles });
        };
        match (card < 0, game) {
            (false, _) => Ok(Move::Play { pile: index, card: card_number }),
            (true, Game::BlackHole) => Err(Illegal::WormMoveInBlackHole),
            (true, Game::WormHole) => Ok(Move::ToWorm { pile: index, card: card_number }),
        }
    }

    /// Plays `mv` if it is legal, else leaves the table unchanged and says why not.
    pub fn apply(&mut self, mv: Move) -> Result<(), Illegal> {
        let deck = self.puzzle.deck;
        match mv {
            Move::Play { pile, card } | Move::ToWorm { pile, card } => {
                let height = self.heights[pile];
                if height == 0 {
                    return Err(Illegal::EmptyPile);
                }
                let top = self.puzzle.piles[pile][height - 1];
                if top != card {
                    return Err(Illegal::WrongCard { top });
                }
                if let Move::ToWorm { .. } = mv {
                    if let Some(worm) = self.worm {
                        return Err(Illegal::WormHoleFull { worm });
                    }
                    self.worm = Some(card);
                } else {
                    if !deck.adjacent(card, self.hole) {
                        return Err(Illegal::NotAdjacent { hole: self.hole });
                    }
                    self.hole = card;
                }
                self.heights[pile] = height - 1;
                self.cards_left -= 1;
            }
            Move::FromWorm { card } => {
                let Some(worm) = self.worm else {
                    return Err(Illegal::WormHoleEmpty);
                };
                if worm != card {
                    return Err(Illegal::WrongWormCard { worm });
                }
                if !deck.adjacent(card, self.hole) {
                    return Err(Illegal::NotAdjacent { hole: self.hole });
                }
                self.hole = card;
                self.worm = None;
            }
        }
        Ok(())
    }
}

/// Checks the integers of a candidate solution against `puzzle` played as `game`.
pub fn check(puzzle: &Puzzle, game: Game, integers: &[i64]) -> CheckReport {
    let mut table = Table::new(puzzle);
    let mut legal_moves = Vec::new();
    let mut pairs = integers.chunks(2);
    let finding = loop {
        if table.is_won() {
            let extra_integers = integers.len() - 2 * legal_moves.len();
            break if extra_integers == 0 {
                Finding::Solved
            } else {
                Finding::ExtraAfterWin { moves: legal_moves.len(), extra_integers }
            };
        }
        let index = legal_moves.len();
        match pairs.next() {
            None => {
                break match table.worm {
                    Some(card) if table.cards_left == 0 => Finding::CardLeftInWormHole { moves: index, card },
                    _ => Finding::CardsLeft {
                        moves: index,
                        cards_left: table.cards_left + usize::from(table.worm.is_some()),
                    },
                };
            }
            Some(&[pile]) => {
                break Finding::Illegal { index, pile, card: None, reason: Illegal::DanglingInteger };
            }
            Some(&[pile, card]) => {
                let result = table.decode(game, pile, card).and_then(|mv| table.apply(mv).map(|()| mv));
                match result {
                    Ok(mv) => legal_moves.push(mv),
                    Err(reason) => break Finding::Illegal { index, pile, card: Some(card), reason },
                }
            }
            Some(_) => unreachable!("chunks(2) yields one or two integers"),
        }
    };
    CheckReport { legal_moves, finding }
}

/// Replays moves known to be well-formed (a solver's witness) and reports what happened.
pub fn check_moves(puzzle: &Puzzle, game: Game, moves: &[Move]) -> CheckReport {
    let integers: Vec<i64> = moves.iter().flat_map(|mv| <[i64; 2]>::from(mv.pair())).collect();
    check(puzzle, game, &integers)
}

/// Explains a finding in one sentence, numbering moves from 1 as a student counts them, e.g.
/// "move 7 (pile 3, card 42): card 42 is not on top of pile 3; the top is 17".
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Finding::Solved => f.write_str("the moves solve the puzzle"),
            Finding::ExtraAfterWin { moves, extra_integers } => {
                let follow = agreeing(extra_integers, "follows", "follow");
                write!(
                    f,
                    "the puzzle is solved after move {moves}, but {} {follow}",
                    count(extra_integers, "more integer")
                )
            }
            Finding::CardsLeft { moves, cards_left } => {
                let were = agreeing(moves, "was", "were");
                let left = count(cards_left, "card");
                write!(
                    f,
                    "after {} {were} played, {left} {} left in play",
                    count(moves, "move"),
                    agreeing(cards_left, "is", "are")
                )
            }
            Finding::CardLeftInWormHole { moves, card } => {
                write!(f, "after {} the piles are empty but card {card} is left in the worm hole", count(moves, "move"))
            }
            Finding::Illegal { index, pile, card, reason } => {
                let number = index + 1;
                let Some(card) = card else {
                    return write!(
                        f,
                        "move {number}: the pile {pile} has no card after it (an odd number of integers)"
                    );
                };
                write!(f, "move {number} (pile {pile}, card {card}): ")?;
                let shown = card.unsigned_abs();
                match reason {
                    Illegal::DanglingInteger => f.write_str("dangling integer"),
                    // Unreachable through `check` (a layout without piles is won at once), but a
                    // finding built by hand must not print "0 to -1".
                    Illegal::PileOutOfRange { piles: 0 } => {
                        write!(f, "there is no pile {pile}; the puzzle has no piles")
                    }
                    Illegal::PileOutOfRange { piles } => {
                        write!(f, "there is no pile {pile}; piles are numbered 0 to {}", piles - 1)
                    }
                    Illegal::BadCard => write!(f, "{card} is not a card"),
                    Illegal::EmptyPile => write!(f, "pile {pile} is empty"),
                    Illegal::WrongCard { top } => {
                        write!(f, "card {shown} is not on top of pile {pile}; the top is {top}")
                    }
                    Illegal::NotAdjacent { hole } => {
                        write!(f, "card {shown} is not adjacent in rank to {hole}, the card in the black hole")
                    }
                    Illegal::WormMoveInBlackHole => f.write_str("a worm-hole move is not allowed in Black Hole"),
                    Illegal::WormHoleFull { worm } => write!(f, "the worm hole already holds card {worm}"),
                    Illegal::WormHoleEmpty => f.write_str("the worm hole is empty"),
                    Illegal::WrongWormCard { worm } => {
                        write!(f, "card {shown} is not in the worm hole; it holds {worm}")
                    }
                }
            }
        }
    }
}
