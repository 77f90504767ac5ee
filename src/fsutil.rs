//! Small file-system helpers shared by the stages that write files, and the one non-blocking
//! lock (`flock`) that a scratch root, a lent uid and a result store each hold.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to `path` so that a reader never sees a half-written file: write a sibling
/// temporary file, flush it, then rename it over the target.
///
/// The file gets the mode an ordinary new file gets (0666 less the umask: 0644 under the usual
/// umask 0022), not the 0600 of a temporary file, so a teaching assistant on a shared file system
/// can read the reports; a marker who wants them private sets `umask 077`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::Builder::new().permissions(std::fs::Permissions::from_mode(0o666)).tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Gives the owner back every folder below `dir` (0700), so that a tree whose folders a program
/// made unreadable or unwritable can be removed.
pub fn make_writable(dir: &Path) {
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            make_writable(&entry.path());
        }
    }
}

/// An exclusive lock without waiting: `Err` (EWOULDBLOCK) when another process holds it.
pub(crate) fn try_lock(file: &std::fs::File) -> std::io::Result<()> {
    // SAFETY: flock(2) on a descriptor we own; no memory is passed.
    if unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(file), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Release a lock taken by [`try_lock`] now, for every copy of the descriptor: a child another
/// thread forked while it was open holds a copy until it closes its descriptors or execs, and
/// closing ours alone would leave the lock held until then.
pub(crate) fn unlock(file: &std::fs::File) {
    // SAFETY: flock(2) on a descriptor we own; no memory is passed.
    unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(file), libc::LOCK_UN) };
}

/// Hand a tree to the user programs run as (builds write into it).
pub(crate) fn chown_tree(root: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        let entry = entry?;
        std::os::unix::fs::lchown(entry.path(), Some(uid), Some(gid))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_has_the_mode_of_a_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        // SAFETY: umask(2) only sets this process's file-creation mask, and returns the old one.
        let old = unsafe { libc::umask(0o022) };
        write_atomically(&path, b"text").unwrap();
        unsafe { libc::umask(old) };
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }
}
