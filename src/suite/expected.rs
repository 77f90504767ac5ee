//! `expected.json`: the reference's answer for every test, stored beside the suite so that a suite
//! can be read without running anything. Written by `bhgrade regen`, read by
//! [`super::SuiteDefinition::verify`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{SuiteError, EXPECTED_FILE};

/// The stored answers of a suite, by test id (`PART/TEST`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedFile {
    pub suite: String,
    pub tests: BTreeMap<String, StoredAnswer>,
}

/// One stored answer: what the reference said and what it was said about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredAnswer {
    /// The status token a correct program prints first.
    pub answer: String,
    /// Search nodes the reference needed: the test's hardness (deterministic, unlike time).
    pub nodes: u64,
    /// Digest of the puzzle and input the answer was computed from.
    pub input_digest: String,
    /// The test's kind when the answer was computed (stored for tests that read no input, the
    /// solve kinds): with the digest, what lets suite loading trust the answer without solving.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The reference's detail for such a test: its solution, replayed by the checker when the
    /// suite is loaded, or how it proved the puzzle unsolvable (see
    /// [`super::SuiteDefinition::verify`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For a test that credits quality: the best any answer can measure, as the reference
    /// proved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimum: Option<StoredOptimum>,
}

/// The proven best measure of a test's answers, or that no answer has one (`best` absent: the
/// instance is unsolvable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredOptimum {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<u64>,
    #[serde(default)]
    pub unit: String,
    pub how: String,
}

impl StoredOptimum {
    /// What the reference said, as stored.
    pub fn of(optimum: Option<&bhref::referee::Optimum>) -> StoredOptimum {
        match optimum {
            Some(optimum) => StoredOptimum {
                best: Some(optimum.best.value),
                unit: optimum.best.unit.to_string(),
                how: optimum.how.clone(),
            },
            None => StoredOptimum { best: None, unit: String::new(), how: "no answer has a quality to measure".into() },
        }
    }

    /// The best measure; `None` when no answer has one.
    pub fn to_best(&self) -> Option<Best> {
        Some(Best { value: self.best?, unit: self.unit.clone(), how: self.how.clone() })
    }
}

/// The best measure any answer to a test can have, and how the reference proved it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Best {
    pub value: u64,
    /// What is counted, singular (`move`).
    pub unit: String,
    pub how: String,
}

impl ExpectedFile {
    /// Reads `DIR/expected.json`; a suite without one has no stored answers.
    pub fn read(dir: &Path) -> Result<ExpectedFile, SuiteError> {
        let path = dir.join(EXPECTED_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(ExpectedFile::default()),
            Err(error) => return Err(SuiteError::Read { path, error }),
        };
        serde_json::from_str(&text).map_err(|error| SuiteError::ExpectedFile {
            path: path.clone(),
            message: format!("line {} column {}: {error}", error.line(), error.column()),
        })
    }

    /// Writes `DIR/expected.json` atomically, in a stable order so reruns change nothing.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let path = dir.join(EXPECTED_FILE);
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        crate::fsutil::write_atomically(&path, text.as_bytes())
    }
}
