//! `regen --verify`: a suite folder's stored answers → each solve test's answer seen by the
//! game's second oracle, which shares no search code with the reference solver that gave it.
//!
//! Input: a suite folder that `regen` has brought up to date. Output: [`Verified`]: the
//! folder's differences from the reference when it is not up to date (nothing is verified
//! then: the stored answers would not be the ones marking uses), else an [`Opinion`] per test
//! that reads no input, in suite order, each handed to a callback as it is formed (the slow ones
//! take seconds) and with how long it took.

use std::path::Path;
use std::time::{Duration, Instant};

use bhref::referee::{Expected, Instance, SecondOpinion};

use super::{check, Difference, RegenError};
use crate::suite::{self, ExpectedFile, SuiteError};

/// One stored answer and the second oracle's opinion of it.
#[derive(Clone, Debug)]
pub struct Opinion {
    pub test: String,
    pub kind: String,
    pub answer: String,
    pub opinion: SecondOpinion,
    pub elapsed: Duration,
}

/// What [`verify`] found.
#[derive(Clone, Debug)]
pub enum Verified {
    /// The folder is not what `regen` would make of it: these differences, nothing verified.
    OutOfDate(Vec<Difference>),
    /// Every solve test's opinion, in suite order.
    Checked(Vec<Opinion>),
}

/// Asks the second oracle about every stored answer of a test that reads no input in the suite
/// in `dir`, calling `each` with every opinion as it is formed.
pub fn verify(dir: &Path, mut each: impl FnMut(&Opinion)) -> Result<Verified, RegenError> {
    let differences = check(dir)?;
    if !differences.is_empty() {
        return Ok(Verified::OutOfDate(differences));
    }
    let definition = suite::load_definition(dir)?;
    let stored = ExpectedFile::read(&definition.dir)?;
    let mut opinions = Vec::new();
    for test in definition.tests().filter(|test| !test.task.reads_input) {
        // `check` found an answer for every test, so none is missing here.
        let Some(answer) = stored.tests.get(&test.id) else { continue };
        let expected = Expected {
            answer: answer.answer.clone(),
            detail: answer.detail.clone().unwrap_or_default(),
            nodes: answer.nodes,
            micros: 0,
        };
        let name = test.puzzle.display().to_string();
        let instance = Instance { name: &name, text: &test.puzzle_text };
        let start = Instant::now();
        let opinion = definition
            .referee
            .second_opinion(&test.kind, instance, &expected)
            .map_err(|error| SuiteError::Reference { test: test.id.clone(), error })?;
        let opinion = Opinion {
            test: test.id.clone(),
            kind: test.kind.clone(),
            answer: expected.answer,
            opinion,
            elapsed: start.elapsed(),
        };
        each(&opinion);
        opinions.push(opinion);
    }
    Ok(Verified::Checked(opinions))
}
