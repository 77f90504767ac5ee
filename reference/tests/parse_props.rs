//! Properties of the puzzle parser and the solution reader.
//!
//! Input: random valid puzzles (from a seed), random garbage, and the fixture puzzles under
//! `fixtures/puzzles/{good,bad}`. Output: pass/fail of the round trip, the no-panic guarantee,
//! the exact error messages of the bad fixtures and the positions errors point at.

use std::collections::HashSet;
use std::path::PathBuf;

use bhref::blackhole::model::{Deck, Puzzle};
use bhref::blackhole::parse::{parse_puzzle, read_integers};
use bhref::rng::SplitMix64;
use proptest::prelude::*;

use crate::tokens::{join, position_of_token};

/// A random valid puzzle: a partial, shuffled deck dealt unevenly (some piles may be empty).
fn random_puzzle(ranks: u32, suits: u32, piles: usize, seed: u64) -> Puzzle {
    let mut rng = SplitMix64::new(seed);
    let mut cards: Vec<u32> = (1..=ranks * suits).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.index(i + 1));
    }
    let mut layout = vec![Vec::new(); piles];
    for &card in &cards[1..] {
        // One slot past the last pile leaves the card out of the layout.
        let slot = rng.index(piles + 1);
        if slot < piles {
            layout[slot].push(card);
        }
    }
    Puzzle { deck: Deck { ranks, suits }, hole: cards[0], piles: layout }
}

fn assert_valid(puzzle: &Puzzle) {
    let deck = puzzle.deck;
    assert!(deck.ranks >= 1 && deck.suits >= 1);
    let mut seen = HashSet::new();
    for &card in std::iter::once(&puzzle.hole).chain(puzzle.piles.iter().flatten()) {
        assert!(deck.contains(card), "card {card} outside the deck");
        assert!(seen.insert(card), "card {card} twice");
    }
}

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/puzzles").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn good_fixtures_parse_and_round_trip() {
    let files = fixtures("good");
    assert!(files.len() >= 5);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let puzzle = parse_puzzle("good", &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_valid(&puzzle);
        assert_eq!(parse_puzzle("again", &puzzle.to_string()), Ok(puzzle));
    }
}

/// Each bad fixture fails with exactly the message in its sibling `.err` file, which names the
/// file as the tools are given it (the bare file name).
#[test]
fn bad_fixtures_fail_with_their_messages() {
    let files = fixtures("bad");
    let names: Vec<String> = files.iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    for required in ["duplicate", "card-zero", "out-of-range", "too-few-piles", "text-mid-layout", "empty-file"] {
        assert!(names.iter().any(|n| n == required), "missing fixture bad/{required}.txt");
    }
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("err")).unwrap();
        let error = parse_puzzle(&name, &text).expect_err(&name);
        assert_eq!(error.to_string(), expected.trim_end(), "{name}");
    }
}

#[test]
fn a_header_asking_for_a_huge_layout_fails_fast_without_allocating() {
    let error = parse_puzzle("big", "1000 1000 1000000 1").unwrap_err();
    assert!(error.found.contains("end of input (only 0 of 1000000 piles are complete)"), "{error}");
    assert!(parse_puzzle("big", "1000 1000 1000001 1").is_err());
    assert!(parse_puzzle("big", "4294967296 4294967296 1 1 -1").is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn display_then_parse_gives_the_puzzle_back(
        ranks in 1u32..=13, suits in 1u32..=6, piles in 0usize..=8, seed: u64,
    ) {
        let puzzle = random_puzzle(ranks, suits, piles, seed);
        prop_assert_eq!(parse_puzzle("p", &puzzle.to_string()), Ok(puzzle));
    }

    /// Line breaks mean nothing, trailing text is ignored, and a non-integer anywhere before the
    /// layout ends is reported at exactly its line and column.
    #[test]
    fn whitespace_is_free_and_errors_point_at_the_bad_token(
        ranks in 1u32..=13, suits in 1u32..=4, piles in 0usize..=6, seed: u64,
        seps in prop::collection::vec(0usize..6, 1..8), victim: prop::sample::Index,
    ) {
        let puzzle = random_puzzle(ranks, suits, piles, seed);
        let mut tokens: Vec<String> = puzzle.to_string().split_whitespace().map(str::to_string).collect();
        let layout_len = tokens.len();
        tokens.extend(["trailing".to_string(), "0".to_string(), "x".to_string()]);
        let text = join(&tokens, &seps);
        prop_assert_eq!(parse_puzzle("p", &text), Ok(puzzle));

        let index = victim.index(layout_len);
        tokens[index] = "x".to_string();
        let text = join(&tokens, &seps);
        let error = parse_puzzle("p", &text).unwrap_err();
        prop_assert_eq!((error.line, error.column), position_of_token(&text, index));
        prop_assert_eq!(error.found.as_str(), "`x`");
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(puzzle) = parse_puzzle("p", &text) {
            assert_valid(&puzzle);
        }
        let _ = read_integers(&text);
    }

    /// Soups of plausible tokens reach every error path; whatever parses is valid and round-trips.
    #[test]
    fn token_soups_never_panic(
        tokens in prop::collection::vec(
            prop_oneof![
                4 => (-2i64..12).prop_map(|n| n.to_string()),
                2 => Just("-1".to_string()),
                1 => "[0-9]{10,25}",
                1 => "-[0-9]{10,25}",
                1 => prop::sample::select(vec!["x", "+3", "1.5", "\u{a0}2", "--1", "-", "+", "é", "\u{feff}1"])
                    .prop_map(str::to_string),
            ],
            0..40,
        ),
        seps in prop::collection::vec(0usize..6, 1..8),
    ) {
        let text = join(&tokens, &seps);
        match parse_puzzle("soup", &text) {
            Ok(puzzle) => {
                assert_valid(&puzzle);
                prop_assert_eq!(parse_puzzle("p", &puzzle.to_string()), Ok(puzzle));
            }
            Err(error) => {
                prop_assert!(error.line >= 1 && error.column >= 1);
                prop_assert!(error.to_string().starts_with("soup:"));
            }
        }
    }

    /// Ruling 1: the integers up to the first token that is not one (or not a Java `int`).
    #[test]
    fn read_integers_stops_at_the_first_non_integer(
        tokens in prop::collection::vec(
            prop_oneof![
                6 => any::<i32>().prop_map(|n| (n.to_string(), true)),
                1 => (2_147_483_648i64..i64::MAX).prop_map(|n| (n.to_string(), false)),
                1 => "[a-z.,#-]{1,4}".prop_map(|t| (t, false)),
            ],
            0..30,
        ),
        seps in prop::collection::vec(0usize..6, 1..8),
    ) {
        let texts: Vec<String> = tokens.iter().map(|(t, _)| t.clone()).collect();
        let expected: Vec<i64> = tokens
            .iter()
            .take_while(|(t, is_int)| *is_int || t.parse::<i32>().is_ok())
            .map(|(t, _)| t.parse().unwrap())
            .collect();
        prop_assert_eq!(read_integers(&join(&texts, &seps)), expected);
    }
}
