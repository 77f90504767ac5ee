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

/// Where unpacked suites are kept: `$XDG_CACHE_HOME/bhgrade/suites` or
/// `~/.cache/bhgrade/suites` (`None` without either variable).
fn cache_root() -> Option<PathBuf> {
    let from_env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match (from_env("XDG_CACHE_HOME"), from_env("HOME")) {
        (Some(cache), _) => Some(cache.join("bhgrade/suites")),
        (None, Some(home)) => Some(home.join(".cache/bhgrade/suites")),
        (None, None) => None,
    }
}

/// A folder of the user's own under the temporary folder: where suites go when there is no
/// cache folder or it cannot be written (a read-only home).
fn temporary_root() -> PathBuf {
    // SAFETY: getuid(2) cannot fail.
    std::env::temp_dir().join(format!("bhgrade-suites-{}", unsafe { libc::getuid() }))
}

/// The folder of the bundled suite `name`, written if it is not there yet; `None` when no
/// bundled suite has that name.
pub fn unpack(name: &str) -> Option<io::Result<PathBuf>> {
    let (_, files) = BUNDLED.iter().find(|(bundled, _)| *bundled == name)?;
    let cached = cache_root().map(|root| unpack_into(&root, name, files));
    Some(match cached {
        Some(Ok(folder)) => Ok(folder),
        Some(Err(_)) | None => unpack_into(&temporary_root(), name, files),
    })
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
    // 0755 whatever the umask (a umask of 002 would make it group-writable, and refused).
    std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o755).create(root)?;
    own_folder(root)?;
    if folder.join(super::SUITE_FILE).is_file() {
        return Ok(folder);
    }
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

/// Refuses a root another user could have filled (a folder planted in a shared temporary
/// folder, with a suite of fewer or other tests under the name a bhgrade would reuse): it must
/// be a real folder, this user's, and writable by no one else.
fn own_folder(root: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(root)?;
    // SAFETY: getuid(2) cannot fail.
    let ours = meta.is_dir() && meta.uid() == unsafe { libc::getuid() } && meta.mode() & 0o022 == 0;
    match ours {
        true => Ok(()),
        false => Err(io::Error::other(format!(
            "{} is not a folder of this user's own, writable by no one else",
            root.display()
        ))),
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

    #[test]
    fn a_root_others_can_write_is_never_read() {
        use std::os::unix::fs::PermissionsExt;
        let planted = tempfile::tempdir().unwrap();
        std::fs::set_permissions(planted.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let (_, files) = BUNDLED[0];
        let error = unpack_into(planted.path(), "cs3105-p1", files).unwrap_err();
        assert!(error.to_string().contains("writable by no one else"), "{error}");
    }
}
