//! The suites built into the binary (`build.rs`): a name (`cs3105-p1`) → a folder holding the
//! suite, written once per content into the user's cache, so a suite can be named from any
//! folder on a machine with no clone of the repository.

use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

include!(concat!(env!("OUT_DIR"), "/bundled_suites.rs"));

/// The names of the bundled suites, in name order.
pub fn names() -> Vec<&'static str> {
    BUNDLED.iter().map(|(name, _)| *name).collect()
}

/// Where unpacked suites are kept: `$XDG_CACHE_HOME/bhgrade/suites`, `~/.cache/bhgrade/suites`,
/// else a folder of the user's own under the temporary folder.
fn cache_root() -> PathBuf {
    let from_env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match (from_env("XDG_CACHE_HOME"), from_env("HOME")) {
        (Some(cache), _) => cache.join("bhgrade/suites"),
        (None, Some(home)) => home.join(".cache/bhgrade/suites"),
        // SAFETY: getuid(2) cannot fail.
        (None, None) => std::env::temp_dir().join(format!("bhgrade-suites-{}", unsafe { libc::getuid() })),
    }
}

/// The folder of the bundled suite `name`, written if it is not there yet; `None` when no
/// bundled suite has that name.
pub fn unpack(name: &str) -> Option<io::Result<PathBuf>> {
    let (_, files) = BUNDLED.iter().find(|(bundled, _)| *bundled == name)?;
    Some(unpack_into(&cache_root(), name, files))
}

fn unpack_into(root: &Path, name: &str, files: &[(&str, &[u8])]) -> io::Result<PathBuf> {
    let mut digest = Sha256::new();
    for (path, bytes) in files {
        digest.update(path.as_bytes());
        digest.update([0]);
        digest.update((bytes.len() as u64).to_le_bytes());
        digest.update(bytes);
    }
    let hex: String = digest.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    // Named by its content: a newer bhgrade with other tests never reads an older copy.
    let folder = root.join(format!("{name}-{hex}"));
    if folder.join(super::SUITE_FILE).is_file() {
        return Ok(folder);
    }
    std::fs::create_dir_all(root)?;
    let staging = tempfile::Builder::new().prefix(&format!(".{name}-")).tempdir_in(root)?;
    for (path, bytes) in files {
        let target = staging.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap_or(staging.path()))?;
        std::fs::write(&target, bytes)?;
    }
    // Readable by the user programs run as (they are given the puzzles' paths); a temporary
    // folder is made private.
    std::fs::set_permissions(staging.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    match std::fs::rename(staging.path(), &folder) {
        // The staging folder is the suite now; dropping it finds nothing left to remove.
        Ok(()) => Ok(folder),
        // Another bhgrade unpacked the same suite first: theirs is the same.
        Err(_) if folder.join(super::SUITE_FILE).is_file() => Ok(folder),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_bundled_suites_are_built_in_and_unpack_once() {
        assert_eq!(names(), ["cs3105-p1", "lbs-2022"]);
        let root = tempfile::tempdir().unwrap();
        let (_, files) = BUNDLED[0];
        let first = unpack_into(root.path(), "cs3105-p1", files).unwrap();
        let again = unpack_into(root.path(), "cs3105-p1", files).unwrap();
        assert_eq!(first, again);
        let on_disk = std::fs::read(first.join("suite.yaml")).unwrap();
        assert_eq!(
            on_disk,
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/cs3105-p1/suite.yaml")).unwrap()
        );
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1, "no staging folder is left");
    }
}
