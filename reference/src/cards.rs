//! Cards and decks, as every game of the practicals numbers them: the shared piece each game's
//! model builds on.
//!
//! Input: nothing (plain data). Output: [`Card`] and [`Deck`]. Cards are the integers
//! `1..=R*S`; suit `k` (0-based) holds `k*R+1 ..= k*R+R`, and the rank of card `c` is
//! `(c-1) mod R` (`docs/practical.md`, "The games"; `docs/late-binding.md` numbers them the same).

/// A card: an integer in `1..=deck.size()`.
pub type Card = u32;

/// The shape of a (possibly generalised) pack: `ranks` per suit, `suits` suits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deck {
    pub ranks: u32,
    pub suits: u32,
}

impl Deck {
    /// The number of distinct cards, `R*S`.
    pub fn size(&self) -> u32 {
        self.ranks * self.suits
    }

    /// Whether `card` names a card of this deck.
    pub fn contains(&self, card: Card) -> bool {
        card >= 1 && card <= self.size()
    }

    /// The 0-based rank of `card`.
    pub fn rank(&self, card: Card) -> u32 {
        (card - 1) % self.ranks
    }

    /// Whether two ranks differ by exactly one, wrapping between the lowest and highest rank.
    ///
    /// With `R = 1` every pair is adjacent (the formula gives `0 = R-1`), as the starter code's
    /// own test does; with `R = 2` any two different ranks are adjacent.
    pub fn ranks_adjacent(&self, a: u32, b: u32) -> bool {
        let diff = (a + self.ranks - b) % self.ranks;
        diff == 1 || diff == self.ranks - 1
    }

    /// Whether `a` may be played onto `b` (or `b` onto `a`): their ranks are adjacent.
    pub fn adjacent(&self, a: Card, b: Card) -> bool {
        self.ranks_adjacent(self.rank(a), self.rank(b))
    }
}
