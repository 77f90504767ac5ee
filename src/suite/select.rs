//! Choosing which of a suite's tests to run (`bhgrade test --part/--only/--all`): a verified
//! [`Suite`] and a [`Selection`] → the suite cut down to the tests chosen, each worth what it is
//! worth in the whole suite, and [`LeftOut`], what was not run and what it is worth.

use serde::Serialize;

use super::{Suite, Test};
use crate::score::{from_units, to_units};

/// Which tests to run: a part, one test, and whether hidden tests count (a marker's `--all`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection<'a> {
    /// A part's id (`part1`): only its tests.
    pub part: Option<&'a str>,
    /// One test, by its id (`part2/hard`) or by its name after the part when that is unique.
    pub only: Option<&'a str>,
    /// Hidden tests too; a test named by `only` runs whether hidden or not.
    pub all: bool,
}

/// What a run of some of a suite's tests left out, so that a report can say its marks are not
/// the whole story.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LeftOut {
    /// Hidden tests not run, and the marks they are worth.
    pub hidden_tests: usize,
    pub hidden_marks: f64,
    /// Visible tests not asked for (`--part`, `--only`), and the marks they are worth.
    pub other_tests: usize,
    pub other_marks: f64,
}

impl LeftOut {
    /// Whether anything was left out at all.
    pub fn is_empty(&self) -> bool {
        self.hidden_tests + self.other_tests == 0
    }
}

/// A selection that names what the suite does not have; each lists what it has.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    #[error("no part `{part}` in the suite; it has: {}", known.join(", "))]
    NoPart { part: String, known: Vec<String> },
    #[error("no test `{wanted}` in the suite; its tests are: {}", known.join(", "))]
    NoTest { wanted: String, known: Vec<String> },
    #[error("`{wanted}` names {} tests ({}); give the whole id", matches.len(), matches.join(", "))]
    Ambiguous { wanted: String, matches: Vec<String> },
}

impl Suite {
    /// Keeps the tests `selection` chooses, each worth exactly what it is worth in the whole
    /// suite (its share of its part, in the exact units of [`crate::score`]), so a report shows
    /// the marks the tests run earn out of what they are worth, never a rescaled total. Returns
    /// what was left out: hidden tests, and visible ones not asked for.
    pub fn select(&mut self, selection: &Selection) -> Result<LeftOut, SelectError> {
        if let Some(part) = selection.part.filter(|part| !self.parts.iter().any(|p| p.id == *part)) {
            let known = self.parts.iter().map(|p| p.id.clone()).collect();
            return Err(SelectError::NoPart { part: part.to_string(), known });
        }
        let only = selection.only.map(|wanted| self.find_test(wanted, selection.all)).transpose()?;
        let prefix = selection.part.map(|part| format!("{part}/"));
        Ok(self.keep(|test| {
            let wanted = match (&only, &prefix) {
                (Some(id), _) => test.def.id == *id,
                (None, Some(prefix)) => test.def.id.starts_with(prefix),
                (None, None) => true,
            };
            wanted && (test.def.visible || selection.all || only.is_some())
        }))
    }

    /// The id of the test `wanted` names (its id, or its name after the part when that is
    /// unique), or an error naming the tests there are (the visible ones, unless `all`).
    fn find_test(&self, wanted: &str, all: bool) -> Result<String, SelectError> {
        let names = |id: &str| id == wanted || id.split_once('/').is_some_and(|(_, name)| name == wanted);
        let matches: Vec<String> = self.tests().map(|t| t.def.id.clone()).filter(|id| names(id)).collect();
        match <[String; 1]>::try_from(matches) {
            Ok([id]) => Ok(id),
            Err(matches) if matches.is_empty() => {
                let known = self.tests().filter(|t| all || t.def.visible).map(|t| t.def.id.clone()).collect();
                Err(SelectError::NoTest { wanted: wanted.to_string(), known })
            }
            Err(matches) => Err(SelectError::Ambiguous { wanted: wanted.to_string(), matches }),
        }
    }

    /// Keeps the tests `keep` says, each at its worth in the whole suite, and counts the rest.
    fn keep(&mut self, keep: impl Fn(&Test) -> bool) -> LeftOut {
        let (mut hidden_units, mut other_units) = (0, 0);
        let mut left_out = LeftOut::default();
        for part in &mut self.parts {
            let maxima = part.maxima(|test| test.def.weight);
            let mut kept_units = 0;
            for (mut test, max) in std::mem::take(&mut part.tests).into_iter().zip(maxima) {
                if keep(&test) {
                    test.def.weight = from_units(max);
                    kept_units += max;
                    part.tests.push(test);
                } else if test.def.visible {
                    left_out.other_tests += 1;
                    other_units += max;
                } else {
                    left_out.hidden_tests += 1;
                    hidden_units += max;
                }
            }
            // A student's copy's hidden tests are left out already: only their count and marks.
            if let Some(withheld) = part.withheld.take() {
                left_out.hidden_tests += withheld.tests;
                hidden_units += to_units(withheld.marks);
            }
            part.weight = from_units(kept_units);
        }
        self.parts.retain(|p| !p.tests.is_empty());
        left_out.hidden_marks = from_units(hidden_units);
        left_out.other_marks = from_units(other_units);
        left_out
    }
}
