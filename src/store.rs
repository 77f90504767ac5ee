//! Stored results: what determines a build or a run → its [`BuildReport`] or [`RunOutcome`],
//! kept on disk under the output folder as each finishes, so that marking again after a crash or
//! Ctrl-C does only the missing work.
//!
//! A key is a digest of everything that determines the result: the harness version, the
//! student and the submission's content, the build configuration, and for a run the launch command, the test's
//! command word, its puzzle and input, and its limits. The expected answer is not part of it:
//! verdicts are judged afresh from the stored output every time, so a fixed suite or rebuilt
//! reference re-judges without re-running anything.

use std::path::{Path, PathBuf};

use serde::{de::DeserializeOwned, Serialize};
use sha2::{Digest, Sha256};

use crate::build::{BuildConfig, BuildReport};
use crate::fsutil::write_atomically;
use crate::sandbox::{Limits, RunOutcome};
use crate::verdict::Attempt;

/// Where results are kept inside the output folder.
pub const STORE_DIR: &str = ".bhgrade-results";

/// The results of earlier marking runs into the same output folder.
pub struct ResultStore {
    dir: PathBuf,
    /// False with `--force`: everything is redone (and stored again).
    reuse: bool,
}

/// A run's result as stored: the outcome that counts, and the time figures of every run made
/// to confirm it (one, or two when the first ended just past its CPU limit), so that a verdict
/// reused later says how it was reached.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct StoredRun {
    pub outcome: RunOutcome,
    pub attempts: Vec<Attempt>,
}

/// What identifies a stored result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key(String);

impl ResultStore {
    pub fn new(out: &Path, reuse: bool) -> ResultStore {
        ResultStore { dir: out.join(STORE_DIR), reuse }
    }

    /// The key of a submission's build. The student's name is part of it so that each report
    /// shows its own runs, even when two students hand in the same files.
    pub fn build_key(student: &str, submission_digest: &str, config: &BuildConfig) -> Key {
        digest(&[
            env!("CARGO_PKG_VERSION"),
            student,
            submission_digest,
            &config.srcdir,
            &config.script,
            &config.command.join("\0"),
            &limits_text(&config.limits),
        ])
    }

    /// The key of one run of a built submission: `identity` is what the plan says determines
    /// the run (the launch command, the command word, a digest of its input, ...).
    pub fn run_key(build: &Key, identity: &[String], limits: &Limits) -> Key {
        let limits = limits_text(limits);
        let parts: Vec<&str> = std::iter::once(build.0.as_str())
            .chain(identity.iter().map(String::as_str))
            .chain([limits.as_str()])
            .collect();
        digest(&parts)
    }

    pub fn load_build(&self, key: &Key) -> Option<BuildReport> {
        self.load(key, "build")
    }

    pub fn save_build(&self, key: &Key, report: &BuildReport) -> std::io::Result<()> {
        self.save(key, "build", report)
    }

    pub fn load_run(&self, key: &Key) -> Option<StoredRun> {
        self.load(key, "run")
    }

    pub fn save_run(&self, key: &Key, run: &StoredRun) -> std::io::Result<()> {
        self.save(key, "run", run)
    }

    fn path(&self, key: &Key, kind: &str) -> PathBuf {
        self.dir.join(&key.0[..2]).join(format!("{}.{kind}.json", key.0))
    }

    /// A result that is missing or unreadable (say, cut short by a crash) is simply redone.
    fn load<T: DeserializeOwned>(&self, key: &Key, kind: &str) -> Option<T> {
        if !self.reuse {
            return None;
        }
        let bytes = std::fs::read(self.path(key, kind)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn save<T: Serialize>(&self, key: &Key, kind: &str, value: &T) -> std::io::Result<()> {
        let path = self.path(key, kind);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        write_atomically(&path, &serde_json::to_vec(value).map_err(std::io::Error::other)?)
    }
}

fn limits_text(limits: &Limits) -> String {
    format!("{:?}/{:?}/{}/{}", limits.wall, limits.cpu, limits.memory_bytes, limits.output_bytes)
}

fn digest(parts: &[&str]) -> Key {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    Key(format!("{:x}", hasher.finalize()))
}
