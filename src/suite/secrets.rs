//! What would give a hidden test away: a verified [`Suite`] → its [`Secret`]s, and a text (a
//! README, a doc, a student's copy of a suite) → the secrets found in it.
//!
//! A hidden test is given away by its id (`part3/hard-unsolvable`, in any quoting) and, when no
//! sample uses its puzzle, by the puzzle itself: its file's name (`123-51-13-4-8`), the
//! generator call that makes it (`GEN 123 51 13 4 8`) or its text; a hidden check test also by
//! its candidate solution. A puzzle a sample uses, or a solution a sample's holds, is the
//! students' already and gives nothing away. Names are matched whole (`part1/one-move-short` is not found in
//! `part1/one-move-short-handout`), texts with every run of white space as one space.

use std::collections::HashSet;
use std::path::Path;

use super::Suite;

/// One thing that gives a hidden test away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Secret {
    /// The hidden test's id.
    pub test: String,
    /// What the needle is: "its id", "its puzzle's file name", ...
    pub what: &'static str,
    pub needle: String,
}

/// Texts shorter than this are too common to stand for one test (`0 0`, an empty solution).
const SHORTEST_TEXT: usize = 24;

/// Every secret of `suite`'s hidden tests.
pub fn secrets(suite: &Suite) -> Vec<Secret> {
    let shown: HashSet<&str> = suite.tests().filter(|t| t.def.visible).map(|t| t.def.puzzle_text.as_str()).collect();
    let samples: Vec<String> =
        suite.tests().filter(|t| t.def.visible).filter_map(|t| t.def.input.as_deref()).map(squeeze).collect();
    let mut found = Vec::new();
    for test in suite.tests().filter(|t| !t.def.visible) {
        let def = &test.def;
        let mut add = |what: &'static str, needle: String| {
            found.push(Secret { test: def.id.clone(), what, needle: squeeze(&needle) });
        };
        add("its id", def.id.clone());
        // A solution a sample's solution holds (the same one, or one that starts it) is the
        // students' already.
        let given = |text: &str| samples.iter().any(|sample| holds_whole(sample, &squeeze(text)));
        if let Some(input) = def.input.as_deref().filter(|input| squeeze(input).len() >= SHORTEST_TEXT && !given(input))
        {
            add("its candidate solution", input.to_string());
        }
        if shown.contains(def.puzzle_text.as_str()) {
            continue;
        }
        let file = def.puzzle.strip_prefix(&suite.dir).unwrap_or(&def.puzzle).display().to_string();
        if let Some(stem) = Path::new(&file).file_stem().and_then(|stem| stem.to_str()) {
            add("its puzzle's file name", stem.to_string());
        }
        if let Some(generated) = suite.referee.instance_from_file_name(&file) {
            add("the generator call that makes its puzzle", generated.call);
        }
        if squeeze(&def.puzzle_text).len() >= SHORTEST_TEXT {
            add("its puzzle", def.puzzle_text.clone());
        }
    }
    found
}

/// The secrets `text` holds, each once.
pub fn found_in<'s>(secrets: &'s [Secret], text: &str) -> Vec<&'s Secret> {
    let text = squeeze(text);
    secrets.iter().filter(|secret| holds_whole(&text, &secret.needle)).collect()
}

/// `text` with every run of white space as one space, trimmed.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `needle` occurs in `text` with no letter, digit, `-` or `_` glued to
/// either end (so an id is not found inside a longer one, nor `1-51-13-4-8` in `11-51-13-4-8`).
fn holds_whole(text: &str, needle: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_whole() {
        assert!(holds_whole("see `part1/one-move-short` here", "part1/one-move-short"));
        assert!(holds_whole("\"part1/one-move-short\"", "part1/one-move-short"));
        assert!(!holds_whole("part1/one-move-short-handout", "part1/one-move-short"));
        assert!(!holds_whole("11-51-13-4-8.txt", "1-51-13-4-8"));
        assert!(holds_whole("instances/123-51-13-4-8.txt", "123-51-13-4-8"));
        assert!(holds_whole("GEN 123 51 13 4 8 in Worm Hole", "GEN 123 51 13 4 8"));
        assert!(!holds_whole("GEN 123 51 13 4 80", "GEN 123 51 13 4 8"));
    }

    #[test]
    fn white_space_does_not_hide_a_text() {
        let secrets = [Secret { test: "p/t".into(), what: "its puzzle", needle: squeeze("5 1 4\n1\n4 -1\n2 -1\n") }];
        assert_eq!(found_in(&secrets, "a puzzle:\n\n    5 1 4 1\n    4 -1 2 -1\n").len(), 1);
    }
}
