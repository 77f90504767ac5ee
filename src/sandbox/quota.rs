//! Disk per submission: a folder under the scratch root → a [`PrivateFolder`] on a tmpfs of its
//! own, of [`super::policy::Policy::disk_bytes`], where the harness may mount one (as root), so that a
//! submission that fills its disk (its copy, its build's output, its runs' scratch folders)
//! fails alone, with "No space left on device", and never another student running beside it;
//! and [`scratch_full`]: whether the shared scratch file system itself is full, which is the
//! harness's problem (never stored as a student's result, redone by the next marking).
//!
//! The tmpfs is mounted over the folder in the harness's own mount namespace and detached when
//! the folder goes; a bhgrade killed with its mounts in place leaves them to the next one's
//! sweep ([`unmount_below`]). Its pages are charged to the memory cgroup of whoever wrote them:
//! a build that writes gigabytes there is stopped by its memory limit, if not by the size.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use super::outcome::SandboxError;
use super::subids::SubIds;

/// A folder of one submission's, with its own size limit where the machine allows one; removed
/// (and its tmpfs detached) when dropped.
#[derive(Debug)]
pub struct PrivateFolder {
    dir: Option<tempfile::TempDir>,
    mounted: bool,
    /// Given back to the marker before it is removed: what an ordinary user's subordinate ids
    /// own in it, the marker may not remove (`subids.rs`).
    reclaim: Option<Arc<SubIds>>,
}

impl PrivateFolder {
    pub fn path(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new(""), |d| d.path())
    }

    /// Whether the folder has a size limit of its own.
    pub fn limited(&self) -> bool {
        self.mounted
    }

    /// Its size in bytes, when it has a limit of its own and what was written has filled it
    /// (in bytes or in files): a failure then is the submission's own doing.
    pub fn filled(&self) -> Option<u64> {
        let stats = self.mounted.then(|| statvfs(self.path())).flatten()?;
        // The field types differ between C libraries.
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let (block, total, free, files_free) =
            (stats.f_frsize as u64, stats.f_blocks as u64, stats.f_bavail as u64, stats.f_favail as u64);
        let size = total.saturating_mul(block);
        // Less free than the larger of 1 MiB and a sixty-fourth: no file of a build fits there.
        let full = free.saturating_mul(block) < (size / 64).max(1 << 20) || files_free == 0;
        full.then_some(size)
    }
}

/// The `statvfs` of the file system holding `path`.
fn statvfs(path: &Path) -> Option<libc::statvfs> {
    let target = c_path(path).ok()?;
    // SAFETY: a zeroed statvfs is a valid out-parameter; the path is NUL-terminated.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    (unsafe { libc::statvfs(target.as_ptr(), &mut stats) } == 0).then_some(stats)
}

impl Drop for PrivateFolder {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        if self.mounted {
            // Detached: whatever of the run is still to be reaped cannot keep it busy.
            let _ = unmount(dir.path());
        }
        let path = dir.path().to_path_buf();
        if let Some(subids) = &self.reclaim {
            let _ = subids.chown_tree(&path, None, false);
        }
        if dir.close().is_err() {
            crate::fsutil::make_writable(&path);
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

fn mount_tmpfs(path: &Path, bytes: u64, files: u64) -> io::Result<()> {
    let target = c_path(path)?;
    let options =
        CString::new(format!("size={bytes},nr_inodes={files},mode=0700")).map_err(|_| io::ErrorKind::InvalidInput)?;
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    // SAFETY: NUL-terminated strings that outlive the call.
    let r =
        unsafe { libc::mount(c"tmpfs".as_ptr(), target.as_ptr(), c"tmpfs".as_ptr(), flags, options.as_ptr().cast()) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn unmount(path: &Path) -> io::Result<()> {
    let target = c_path(path)?;
    // SAFETY: a NUL-terminated path.
    if unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A fresh `PREFIX…` folder in `parent`, on a tmpfs of `(bytes, files)` when `limit` says the
/// machine allows one.
/// With `reclaim`, what subordinate ids own in it is given back to the marker before removal.
pub(crate) fn private_folder(
    parent: &Path,
    prefix: &str,
    limit: Option<(u64, u64)>,
    reclaim: Option<Arc<SubIds>>,
) -> io::Result<PrivateFolder> {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(parent)?;
    let mounted = match limit {
        Some((bytes, files)) => {
            mount_tmpfs(dir.path(), bytes, files)?;
            true
        }
        None => false,
    };
    Ok(PrivateFolder { dir: Some(dir), mounted, reclaim })
}

/// Whether a size-limited tmpfs can be mounted (and unmounted) under `scratch_root` here.
pub(crate) fn probe(scratch_root: &Path) -> Result<(), String> {
    if !super::procs::is_root() && super::marker_ns::entered().is_none_or(|ns| ns.disk.is_err()) {
        return Err(format!(
            "only root may mount a file system for each submission, or an ordinary user inside a user and mount \
             namespace of its own; {}",
            super::marker_ns::why_not()
        ));
    }
    let dir = tempfile::Builder::new()
        .prefix("probe-quota-")
        .tempdir_in(scratch_root)
        .map_err(|e| format!("{}: {e}", scratch_root.display()))?;
    mount_tmpfs(dir.path(), 1 << 20, 64).map_err(|e| format!("mounting a tmpfs: {e}"))?;
    unmount(dir.path()).map_err(|e| format!("unmounting a tmpfs: {e}"))
}

/// Detach every mount below `path` (a scratch root a killed bhgrade left), deepest first.
pub(crate) fn unmount_below(path: &Path) {
    let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else { return };
    let mut points: Vec<&str> = table
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .filter(|point| Path::new(point).starts_with(path) && Path::new(point) != path)
        .collect();
    points.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for point in points {
        let _ = unmount(Path::new(point));
    }
}

/// When the file system holding the scratch root `path` is full or nearly (less than 64 MiB
/// free), the error that says so: a build or run that failed then may have failed for want of
/// space that another submission took, which is no fault of its own. It names the copy that
/// holds the most of that disk, so that the marker can tell who filled it.
pub fn scratch_full(path: &Path) -> Option<SandboxError> {
    let stats = statvfs(path)?;
    // The field types differ between C libraries.
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    let free = (stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64);
    if free >= 64 << 20 {
        return None;
    }
    let holder = match largest_copy(path) {
        Some((name, bytes)) => format!("; the most of it held by a copy is {name}'s ({} MiB)", bytes >> 20),
        None => String::new(),
    };
    Some(SandboxError::ScratchFull { path: path.to_path_buf(), holder })
}

/// The copy in the scratch root (`build-…/NAME`, on the root's own file system: one on a tmpfs
/// of its own takes nothing of it) that holds the most bytes, with how many.
fn largest_copy(root: &Path) -> Option<(String, u64)> {
    use std::os::unix::fs::MetadataExt;
    let device = std::fs::symlink_metadata(root).ok()?.dev();
    let mut largest: Option<(String, u64)> = None;
    for folder in std::fs::read_dir(root).ok()?.flatten() {
        let Ok(meta) = folder.path().symlink_metadata() else { continue };
        if !meta.is_dir() || meta.dev() != device {
            continue;
        }
        for copy in std::fs::read_dir(folder.path()).into_iter().flatten().flatten() {
            let bytes = bytes_on(&copy.path(), device);
            if largest.as_ref().is_none_or(|(_, most)| bytes > *most) {
                largest = Some((copy.file_name().to_string_lossy().into_owned(), bytes));
            }
        }
    }
    largest.filter(|(_, bytes)| *bytes > 0)
}

/// The bytes the tree at `path` holds on `device` (links not followed, other file systems not
/// entered).
fn bytes_on(path: &Path, device: u64) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = path.symlink_metadata() else { return 0 };
    if meta.dev() != device {
        return 0;
    }
    let own = meta.blocks() * 512;
    if !meta.is_dir() {
        return own;
    }
    let entries = std::fs::read_dir(path).into_iter().flatten().flatten();
    own + entries.map(|entry| bytes_on(&entry.path(), device)).sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copy named for a full scratch disk is the one holding the most of it: a build folder's
    /// copy, by its name, counted through its folders.
    #[test]
    fn the_largest_copy_is_named() {
        let root = tempfile::tempdir().unwrap();
        for (folder, name, bytes) in [("build-a", "small", 10_000usize), ("build-b", "filler", 300_000)] {
            let copy = root.path().join(folder).join(name).join("deep");
            std::fs::create_dir_all(&copy).unwrap();
            std::fs::write(copy.join("data"), vec![7u8; bytes]).unwrap();
        }
        std::fs::write(root.path().join("stray-file"), vec![7u8; 1_000_000]).unwrap();
        let (name, bytes) = largest_copy(root.path()).expect("a copy");
        assert_eq!(name, "filler");
        assert!(bytes >= 300_000, "{bytes}");
        assert_eq!(largest_copy(&root.path().join("build-a/small/deep/data")), None);
    }
}
