//! Regeneration: a [`SuiteDefinition`] → its `expected.json`, every answer computed by the
//! reference. What the organiser runs after changing a suite or the reference.

use crate::suite::{self, ExpectedFile, StoredAnswer, SuiteDefinition, SuiteError};

/// Why regeneration failed.
#[derive(Debug, thiserror::Error)]
pub enum RegenError {
    #[error(transparent)]
    Suite(#[from] SuiteError),
    #[error("cannot write {path}: {error}")]
    Write { path: std::path::PathBuf, error: std::io::Error },
}

/// Computes every test's expected answer with the reference.
pub fn expected_answers(definition: &SuiteDefinition) -> Result<ExpectedFile, SuiteError> {
    let mut file = ExpectedFile { suite: definition.name.clone(), ..ExpectedFile::default() };
    for test in definition.tests() {
        let expected = suite::reference_answer(definition.referee.as_ref(), test)?;
        let answer = StoredAnswer { answer: expected.answer, nodes: expected.nodes, input_digest: test.input_digest.clone() };
        file.tests.insert(test.id.clone(), answer);
    }
    Ok(file)
}

/// Recomputes and stores `expected.json`, returning what was stored.
pub fn regenerate(definition: &SuiteDefinition) -> Result<ExpectedFile, RegenError> {
    let file = expected_answers(definition)?;
    file.write(&definition.dir)
        .map_err(|error| RegenError::Write { path: definition.dir.join(suite::EXPECTED_FILE), error })?;
    Ok(file)
}
