//! Properties of the Late Binding layout parser.
//!
//! Input: random valid layouts (from a seed), their text with random whitespace, one token
//! spoiled in each way the doc calls invalid, random bytes and token soups. Output: pass/fail of
//! the round trip, the positions and messages of errors (file, line and column in every one),
//! and the no-panic guarantee.

use std::collections::HashSet;

use bhref::latebinding::model::{Deck, Layout};
use bhref::latebinding::parse::parse_layout;
use bhref::rng::SplitMix64;
use proptest::prelude::*;

use crate::tokens::{end_of, join, position_of_token};

/// A random valid layout: `piles` distinct cards of the deck in random order.
fn random_layout(ranks: u32, suits: u32, piles: usize, seed: u64) -> Layout {
    let mut rng = SplitMix64::new(seed);
    let mut cards: Vec<u32> = (1..=ranks * suits).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.index(i + 1));
    }
    cards.truncate(piles.clamp(1, cards.len()));
    Layout { deck: Deck { ranks, suits }, row: cards }
}

fn assert_valid(layout: &Layout) {
    assert!(layout.deck.ranks >= 1 && layout.deck.suits >= 1 && !layout.row.is_empty());
    let mut seen = HashSet::new();
    for &card in &layout.row {
        assert!(layout.deck.contains(card), "card {card} outside the deck");
        assert!(seen.insert(card), "card {card} twice");
    }
}

#[test]
fn the_documented_invalid_layouts() {
    let err = |text: &str| parse_layout("l.txt", text).unwrap_err().to_string();
    assert!(err("3 2 3\n1 7 2").starts_with("l.txt:2:3: expected card 2 of 3"));
    assert!(err("3 2 3\n1 2 1").contains("found card 1 a second time (first at line 2, column 1)"));
    assert!(err("3 2 3\n1 2").starts_with("l.txt:2:4: expected card 3 of 3"));
    assert!(err("0 2 1 1").starts_with("l.txt:1:1: expected the number of ranks R"));
    assert!(err("3 0 1 1").starts_with("l.txt:1:3: expected the number of suits S"));
    assert!(err("3 2 0").starts_with("l.txt:1:5: expected the number of piles P"));
    // Integers after the P-th card are ignored, and so is text.
    assert_eq!(parse_layout("l", "3 2 2 1 2 3 3 x").unwrap().row, [1, 2]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn display_then_parse_gives_the_layout_back(
        ranks in 1u32..=13, suits in 1u32..=6, piles in 1usize..=60, seed: u64,
    ) {
        let layout = random_layout(ranks, suits, piles, seed);
        prop_assert_eq!(parse_layout("l", &layout.to_string()), Ok(layout));
    }

    /// Line breaks mean nothing, trailing text is ignored, and a non-integer anywhere in the
    /// layout is reported at exactly its line and column.
    #[test]
    fn whitespace_is_free_and_errors_point_at_the_bad_token(
        ranks in 1u32..=13, suits in 1u32..=4, piles in 1usize..=30, seed: u64,
        seps in prop::collection::vec(0usize..6, 1..8), victim: prop::sample::Index,
    ) {
        let layout = random_layout(ranks, suits, piles, seed);
        let mut tokens: Vec<String> = layout.to_string().split_whitespace().map(str::to_string).collect();
        let layout_len = tokens.len();
        tokens.extend(["7".to_string(), "trailing".to_string(), "x".to_string()]);
        let text = join(&tokens, &seps);
        prop_assert_eq!(parse_layout("l", &text), Ok(layout));

        let index = victim.index(layout_len);
        tokens[index] = "x".to_string();
        let text = join(&tokens, &seps);
        let error = parse_layout("l", &text).unwrap_err();
        prop_assert_eq!((error.line, error.column), position_of_token(&text, index));
        prop_assert_eq!(error.found.as_str(), "`x`");
        let prefix = format!("l:{}:{}: expected ", error.line, error.column);
        prop_assert!(error.to_string().starts_with(&prefix));
    }

    /// Each invalid card (a duplicate, one outside the deck, 0, negative, beyond Java's int) is
    /// reported at its own position; too few cards at the end of the text.
    #[test]
    fn bad_cards_are_reported_where_they_stand(
        ranks in 1u32..=13, suits in 1u32..=4, piles in 2usize..=30, seed: u64,
        seps in prop::collection::vec(0usize..6, 1..8), victim: prop::sample::Index, kind in 0usize..5,
    ) {
        let layout = random_layout(ranks, suits, piles, seed);
        let piles = layout.row.len();
        prop_assume!(piles >= 2, "a one-card deck has no second card to spoil");
        let mut tokens: Vec<String> = layout.to_string().split_whitespace().map(str::to_string).collect();
        // Tokens 0..3 are the header; card k is token 3 + k. A duplicate copies an earlier card.
        let card = 1 + victim.index(piles - 1);
        let (replacement, found) = match kind {
            0 => (layout.row[card - 1].to_string(), "a second time"),
            1 => ((ranks * suits + 1).to_string(), "not a card"),
            2 => ("0".to_string(), "not a card"),
            3 => ("-3".to_string(), "not a card"),
            _ => ("99999999999".to_string(), "not a Java int"),
        };
        tokens[3 + card] = replacement;
        let text = join(&tokens, &seps);
        let error = parse_layout("l", &text).unwrap_err();
        prop_assert_eq!((error.line, error.column), position_of_token(&text, 3 + card));
        prop_assert!(error.found.contains(found), "{}", error);

        tokens.truncate(3 + card);
        let text = join(&tokens, &seps);
        let error = parse_layout("l", &text).unwrap_err();
        prop_assert_eq!((error.line, error.column), end_of(&text));
        let missing = format!("only {card} of {piles} card{}", if piles == 1 { "" } else { "s" });
        prop_assert!(error.found.contains(&missing), "{}", error);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        match parse_layout("bytes", &text) {
            Ok(layout) => assert_valid(&layout),
            Err(error) => prop_assert!(error.line >= 1 && error.column >= 1),
        }
    }

    /// Soups of plausible tokens reach every error path; whatever parses is valid and
    /// round-trips, and every error names the file, line and column.
    #[test]
    fn token_soups_never_panic(
        tokens in prop::collection::vec(
            prop_oneof![
                6 => (-2i64..14).prop_map(|n| n.to_string()),
                1 => "[0-9]{10,25}",
                1 => prop::sample::select(vec!["x", "+3", "1.5", "\u{a0}2", "--1", "-", "é", "\u{feff}1"])
                    .prop_map(str::to_string),
            ],
            0..30,
        ),
        seps in prop::collection::vec(0usize..6, 1..8),
    ) {
        let text = join(&tokens, &seps);
        match parse_layout("soup", &text) {
            Ok(layout) => {
                assert_valid(&layout);
                prop_assert_eq!(parse_layout("l", &layout.to_string()), Ok(layout));
            }
            Err(error) => {
                let prefix = format!("soup:{}:{}: expected ", error.line, error.column);
                prop_assert!(error.to_string().starts_with(&prefix));
            }
        }
    }
}
