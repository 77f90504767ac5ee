//! Where the cgroup hierarchies are and where this process is in them: `/proc/self/mountinfo`
//! and `/proc/self/cgroup` → the mount of a v1 controller or of the v2 hierarchy, and the
//! folder of the harness's own cgroup there.

use std::fs;
use std::path::{Path, PathBuf};

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;

/// Whether this machine mounts the unified (v2) hierarchy at `/sys/fs/cgroup`.
pub(crate) fn is_cgroup_v2() -> bool {
    statfs_type(Path::new("/sys/fs/cgroup")) == Some(CGROUP2_SUPER_MAGIC)
}

/// The harness's own cgroup v2 folder.
pub(crate) fn own_v2_dir() -> Option<PathBuf> {
    find_mount(None).zip(own_cgroup(None)).map(|(mount, own)| own_dir(&mount, &own))
}

fn statfs_type(path: &Path) -> Option<i64> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: zeroed statfs is a valid out-parameter; `c` is a valid C string.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: see above.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some(st.f_type as i64)
}

/// A mounted cgroup hierarchy: where it is mounted, and which part of it is mounted there.
pub(crate) struct Mount {
    pub(crate) point: PathBuf,
    pub(crate) root: String,
}

/// From /proc/self/mountinfo: the mount of a v1 controller, or of the v2 hierarchy (`None`).
pub(crate) fn find_mount(controller: Option<&str>) -> Option<Mount> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (root, point) = (*left.get(3)?, *left.get(4)?);
        let fstype = *right.first()?;
        let wanted = match controller {
            None => fstype == "cgroup2",
            Some(c) => fstype == "cgroup" && right.get(2)?.split(',').any(|o| o == c),
        };
        wanted.then(|| Mount { point: PathBuf::from(unescape_mountinfo(point)), root: unescape_mountinfo(root) })
    })
}

fn unescape_mountinfo(s: &str) -> String {
    s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
}

/// The harness's own cgroup path in a v1 controller's hierarchy, or the v2 one (`None`).
pub(crate) fn own_cgroup(controller: Option<&str>) -> Option<String> {
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let wanted = match controller {
            None => id == "0" && controllers.is_empty(),
            Some(c) => controllers.split(',').any(|x| x == c),
        };
        wanted.then(|| path.to_string())
    })
}

/// The directory of our own cgroup inside a mount, allowing for a mount of a sub-tree.
pub(crate) fn own_dir(mount: &Mount, own: &str) -> PathBuf {
    let rel = own.strip_prefix(mount.root.as_str()).unwrap_or(own).trim_start_matches('/');
    if rel.is_empty() {
        mount.point.clone()
    } else {
        mount.point.join(rel)
    }
}
