//! Stored results: what determines a build or a run → its [`BuildReport`] or [`RunOutcome`],
//! kept on disk under the output folder as each finishes, so that marking again after a crash or
//! Ctrl-C does only the missing work.
//!
//! A key is a digest of everything that determines the result: the harness version, the
//! student and the submission's content, the build configuration, and for a run the launch command, the test's
//! command word, its puzzle and input, and its limits. The expected answer is not part of it:
//! verdicts are judged afresh from the stored output every time, so a fixed suite or rebuilt
//! reference re-judges without re-running anything.
//!
//! A result is trusted only if it is ours: each file carries its key and a digest of the key
//! and its content, so a file edited by hand (even into valid JSON), or copied under another
//! key, is redone and listed ([`ResultStore::distrusted`]). The store is locked while a marking
//! uses it: a second marking into the same output folder refuses, naming the first.

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
    /// Held (an exclusive `flock`) while this store is in use; released when dropped.
    _lock: std::fs::File,
    /// Stored results that failed their digest, in the order met.
    distrusted: std::sync::Mutex<Vec<PathBuf>>,
}

/// Why a store cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is in use by another marking ({holder}); wait for it to finish, or mark into another --out", path.display())]
    Locked { path: PathBuf, holder: String },
}

/// A result as written: the value, its key, and a digest of both.
#[derive(Serialize, serde::Deserialize)]
struct Sealed<T> {
    key: String,
    digest: String,
    value: T,
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
    /// Opens (making it if need be) the store of the output folder `out`, and locks it.
    pub fn open(out: &Path, reuse: bool) -> Result<ResultStore, StoreError> {
        use std::io::{Read, Seek, Write};
        let dir = out.join(STORE_DIR);
        let path = dir.join("lock");
        let io = |source| StoreError::Io { path: path.clone(), source };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut lock =
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
        // Non-blocking, so it cannot hang.
        if let Err(error) = crate::fsutil::try_lock(&lock) {
            if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(io(error));
            }
            let mut holder = String::new();
            let _ = lock.read_to_string(&mut holder);
            let holder =
                if holder.trim().is_empty() { "holder unknown".to_string() } else { holder.trim().to_string() };
            return Err(StoreError::Locked { path: out.to_path_buf(), holder });
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let since = crate::clock::utc_timestamp(std::time::SystemTime::now());
        let holder = format!("bhgrade pid {} on {} since {since}", std::process::id(), host.trim());
        lock.set_len(0).and_then(|()| lock.rewind()).and_then(|()| lock.write_all(holder.as_bytes())).map_err(io)?;
        Ok(ResultStore { dir, reuse, _lock: lock, distrusted: Default::default() })
    }

    /// The stored results that were not trusted (their digest did not match) and so redone.
    pub fn distrusted(&self) -> Vec<PathBuf> {
        self.distrusted.lock().unwrap_or_else(|e| e.into_inner()).clone()
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
            &config.limits.digest_text(),
        ])
    }

    /// The key of one run of a built submission: `identity` is what the plan says determines
    /// the run (the launch command, the command word, a digest of its input, ...).
    pub fn run_key(build: &Key, identity: &[String], limits: &Limits) -> Key {
        let limits = limits.digest_text();
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

    /// A result that is missing or unreadable (say, cut short by a crash) is simply redone; one
    /// whose digest does not match its key and content is redone and remembered.
    fn load<T: Serialize + DeserializeOwned>(&self, key: &Key, kind: &str) -> Option<T> {
        if !self.reuse {
            return None;
        }
        let path = self.path(key, kind);
        let bytes = std::fs::read(&path).ok()?;
        let trusted = serde_json::from_slice::<Sealed<T>>(&bytes)
            .ok()
            .filter(|sealed| sealed.key == key.0 && seal(key, &sealed.value).is_some_and(|d| d == sealed.digest));
        if trusted.is_none() {
            // A result may be looked up more than once (for reuse, then for the runs to do).
            let mut distrusted = self.distrusted.lock().unwrap_or_else(|e| e.into_inner());
            if !distrusted.contains(&path) {
                distrusted.push(path);
            }
        }
        trusted.map(|sealed| sealed.value)
    }

    fn save<T: Serialize>(&self, key: &Key, kind: &str, value: &T) -> std::io::Result<()> {
        let path = self.path(key, kind);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let digest = seal(key, value).ok_or_else(|| std::io::Error::other("cannot serialise a result"))?;
        let sealed = Sealed { key: key.0.clone(), digest, value };
        write_atomically(&path, &serde_json::to_vec(&sealed).map_err(std::io::Error::other)?)
    }
}

/// The digest a stored result carries: of its key and its content as serialised.
fn seal<T: Serialize>(key: &Key, value: &T) -> Option<String> {
    let content = serde_json::to_string(value).ok()?;
    Some(digest(&["bhgrade stored result", &key.0, &content]).0)
}

fn digest(parts: &[&str]) -> Key {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    Key(format!("{:x}", hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::BuildVerdict;

    fn report(detail: &str) -> BuildReport {
        BuildReport {
            verdict: BuildVerdict::Ok,
            log_tail: String::new(),
            wall: std::time::Duration::from_millis(5),
            detail: detail.into(),
        }
    }

    #[test]
    fn a_stored_result_edited_into_valid_json_is_not_trusted() {
        let out = tempfile::tempdir().unwrap();
        let store = ResultStore::open(out.path(), true).unwrap();
        let key = digest(&["a build"]);
        store.save_build(&key, &report("built")).unwrap();
        assert_eq!(store.load_build(&key).map(|r| r.detail), Some("built".to_string()));
        let path = store.path(&key, "build");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"built\"", "\"forged\"")).unwrap();
        assert!(store.load_build(&key).is_none(), "an edited result is redone");
        // The same content under another key is not this key's result either.
        let other = digest(&["another build"]);
        std::fs::create_dir_all(store.path(&other, "build").parent().unwrap()).unwrap();
        std::fs::write(store.path(&other, "build"), text).unwrap();
        assert!(store.load_build(&other).is_none(), "a result copied under another key is redone");
        assert_eq!(store.distrusted(), vec![path, store.path(&other, "build")]);
        assert!(store.load_build(&digest(&["never stored"])).is_none());
        assert_eq!(store.distrusted().len(), 2, "a missing result is not a distrusted one");
    }

    #[test]
    fn a_second_store_on_the_same_folder_is_refused_naming_the_first() {
        let out = tempfile::tempdir().unwrap();
        let first = ResultStore::open(out.path(), true).unwrap();
        let Err(StoreError::Locked { holder, .. }) = ResultStore::open(out.path(), true) else {
            panic!("a second store was opened")
        };
        assert!(holder.contains(&format!("pid {}", std::process::id())), "{holder}");
        drop(first);
        assert!(ResultStore::open(out.path(), true).is_ok(), "the lock goes with the first store");
    }
}
