//! The run's root, built inside its init: the steps that `root.rs` planned (as C strings)
//! → a mount namespace whose `/` is a fresh, read-only tmpfs holding only those steps' mounts
//! and a `/proc` of the run's own PID namespace, the marker's whole file system detached.
//!
//! What [`build`] does, in order (isolate's `box_inside()`, bubblewrap's `setup_newroot()`):
//!
//! 1. a mount namespace of its own, whose mounts never propagate back to the machine;
//! 2. a small tmpfs over the run folder's empty `root/`: the new root, empty;
//! 3. every step: a folder, a link, a read-only or writable bind mount of a folder or a file of
//!    the machine at the same path, or the `/proc` of the run's PID namespace;
//! 4. `pivot_root` into it, and the old root detached: nothing else of the machine is left to
//!    reach, by any path, name a socket by, chmod, watch or stat;
//! 5. the new root made read-only.
//!
//! Plain system calls on buffers of the stack only: this runs in a fork of a multi-threaded
//! harness (see `parked.rs`). Bind mounts keep their source's locked flags (an ordinary user's
//! user namespace may add restrictions to a mount, never lift one), read with `statvfs`.

use std::ffi::CStr;
use std::io;

/// The kinds of step, the first byte of each step's target string.
pub(crate) const READ_DIR: u8 = b'r';
pub(crate) const WRITE_DIR: u8 = b'w';
pub(crate) const READ_FILE: u8 = b'f';
pub(crate) const DEVICE: u8 = b'c';
pub(crate) const LINK: u8 = b'l';
pub(crate) const PROC: u8 = b'p';
pub(crate) const DIR: u8 = b'd';
/// A tmpfs at a path of the machine's (outside the root), with `u/` and `w/` for an overlay.
pub(crate) const UPPER: u8 = b'u';
/// An overlay of the machine's folder at the same path in the root, over the last `UPPER`.
pub(crate) const OVERLAY: u8 = b'o';
/// A folder of the last `UPPER` (its source names it: [`TMPFS_HOME`] or [`TMPFS_TMP`]),
/// writable in the root.
pub(crate) const RUN_DIR: u8 = b'h';
/// The folders of a run's tmpfs for its `HOME` and its `/tmp` (beside `u/` and `w/`).
pub(crate) const TMPFS_HOME: &str = "/home";
pub(crate) const TMPFS_TMP: &str = "/tmp";

/// Room for the new root's path joined with one step's target.
const PATH_ROOM: usize = 8192;

/// Which step failed (its index; `u32::MAX` for the set-up around the steps) and its errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failed {
    pub step: u32,
    pub errno: i32,
}

const AROUND: u32 = u32::MAX;

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

fn check(step: u32, r: libc::c_int) -> Result<(), Failed> {
    if r == 0 {
        Ok(())
    } else {
        Err(Failed { step, errno: errno() })
    }
}

/// `root` followed by `target` (absolute), NUL-terminated, in `out`; the length without NUL.
fn join(root: &[u8], target: &[u8], out: &mut [u8; PATH_ROOM]) -> Option<usize> {
    let len = root.len() + target.len();
    if len + 1 > PATH_ROOM {
        return None;
    }
    out[..root.len()].copy_from_slice(root);
    out[root.len()..len].copy_from_slice(target);
    out[len] = 0;
    Some(len)
}

/// Make every folder of `path[..len]` from `from` on (the new root's own path exists), the
/// last one too when `last` is set. Folders that exist already are fine.
unsafe fn make_folders(path: &mut [u8; PATH_ROOM], from: usize, len: usize, last: bool) -> libc::c_int {
    let mut i = from + 1;
    while i <= len {
        if i == len && !last {
            break;
        }
        if i == len || path[i] == b'/' {
            let saved = path[i];
            path[i] = 0;
            let r = libc::mkdir(path.as_ptr().cast(), 0o755);
            path[i] = saved;
            if r != 0 && errno() != libc::EEXIST {
                return -1;
            }
        }
        i += 1;
    }
    0
}

/// The flags a remount of a bind at `path` must keep: those the kernel may have locked.
unsafe fn kept_flags(path: *const libc::c_char) -> Option<libc::c_ulong> {
    let mut st: libc::statvfs = std::mem::zeroed();
    if libc::statvfs(path, &mut st) != 0 {
        return None;
    }
    let f = st.f_flag;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_RDONLY, libc::MS_RDONLY),
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    if f & (libc::ST_NOATIME | libc::ST_RELATIME) == 0 {
        flags |= libc::MS_STRICTATIME;
    }
    Some(flags)
}

/// Bind `source` at `target` (recursively: an ordinary user may not split a mount from the
/// ones locked beneath it), then remount it with `add` on top of what it keeps.
unsafe fn bind(source: *const libc::c_char, target: *const libc::c_char, add: libc::c_ulong) -> libc::c_int {
    let none = std::ptr::null::<libc::c_char>();
    if libc::mount(source, target, none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0 {
        return -1;
    }
    let Some(kept) = kept_flags(target) else { return -1 };
    let flags = libc::MS_REMOUNT | libc::MS_BIND | kept | add;
    libc::mount(none, target, none, flags, std::ptr::null())
}

/// An empty file to bind a file over.
unsafe fn make_file(path: *const libc::c_char) -> libc::c_int {
    let fd = libc::open(path, libc::O_RDONLY | libc::O_CREAT | libc::O_CLOEXEC | libc::O_NOFOLLOW, 0o444);
    if fd < 0 {
        return -1;
    }
    libc::close(fd);
    0
}

/// A tmpfs at `at` (a folder of the machine's) with options `options`, holding `u/` and `w/` for
/// an overlay, and `home/` and `tmp/` for the run, which belong to the tmpfs's owner (`uid=`).
unsafe fn upper(at: &[u8], options: *const libc::c_char) -> libc::c_int {
    let mut path = [0u8; PATH_ROOM];
    let Some(len) = join(at, b"", &mut path) else { return -1 };
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    if libc::mount(c"tmpfs".as_ptr(), path.as_ptr().cast(), c"tmpfs".as_ptr(), flags, options.cast()) != 0 {
        return -1;
    }
    let mut st: libc::stat = std::mem::zeroed();
    if libc::stat(path.as_ptr().cast(), &mut st) != 0 {
        return -1;
    }
    for (sub, owned, mode) in [
        (&b"/u"[..], false, 0o755),
        (b"/w", false, 0o755),
        (TMPFS_HOME.as_bytes(), true, 0o755),
        (TMPFS_TMP.as_bytes(), true, 0o1777),
    ] {
        let mut folder = [0u8; PATH_ROOM];
        if join(&path[..len], sub, &mut folder).is_none() || libc::mkdir(folder.as_ptr().cast(), 0o755) != 0 {
            return -1;
        }
        let folder = folder.as_ptr().cast::<libc::c_char>();
        if owned && (libc::chown(folder, st.st_uid, st.st_gid) != 0 || libc::chmod(folder, mode) != 0) {
            return -1;
        }
    }
    0
}

/// The overlay of the machine's `folder` at `at` in the root: `upper/u` first takes the
/// folder's owner and mode (the overlay shows its root as `u/` is), then the mount.
unsafe fn overlay(folder: &[u8], upper: &[u8], at: *const libc::c_char, options: *const libc::c_char) -> libc::c_int {
    let (mut lower, mut top) = ([0u8; PATH_ROOM], [0u8; PATH_ROOM]);
    if join(folder, b"", &mut lower).is_none() || join(upper, b"/u", &mut top).is_none() {
        *libc::__errno_location() = libc::ENAMETOOLONG;
        return -1;
    }
    let mut st: libc::stat = std::mem::zeroed();
    if libc::stat(lower.as_ptr().cast(), &mut st) != 0
        || libc::chown(top.as_ptr().cast(), st.st_uid, st.st_gid) != 0
        || libc::chmod(top.as_ptr().cast(), st.st_mode & 0o7777) != 0
    {
        return -1;
    }
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    libc::mount(c"overlay".as_ptr(), at, c"overlay".as_ptr(), flags, options.cast())
}

/// One step: `target` begins with its kind; `source` is the machine's path (or a link's text,
/// or mount options); `last_upper` the target of the last `UPPER` step.
unsafe fn step<'a>(
    root: &[u8],
    target: &'a CStr,
    source: *const libc::c_char,
    last_upper: &mut &'a [u8],
) -> libc::c_int {
    let target = target.to_bytes();
    let Some((&kind, target)) = target.split_first() else { return -1 };
    if kind == UPPER {
        *last_upper = target;
        return upper(target, source);
    }
    let mut path = [0u8; PATH_ROOM];
    let Some(len) = join(root, target, &mut path) else {
        *libc::__errno_location() = libc::ENAMETOOLONG;
        return -1;
    };
    let whole_folder = matches!(kind, READ_DIR | WRITE_DIR | PROC | DIR | OVERLAY | RUN_DIR);
    if make_folders(&mut path, root.len(), len, whole_folder) != 0 {
        return -1;
    }
    let at = path.as_ptr().cast::<libc::c_char>();
    match kind {
        DIR => 0,
        READ_DIR => bind(source, at, libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV),
        WRITE_DIR => bind(source, at, libc::MS_NOSUID | libc::MS_NODEV),
        READ_FILE => match make_file(at) {
            0 => bind(source, at, libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV),
            r => r,
        },
        DEVICE => match make_file(at) {
            0 => bind(source, at, libc::MS_NOSUID | libc::MS_NOEXEC),
            r => r,
        },
        LINK => libc::symlink(source, at),
        OVERLAY => overlay(target, last_upper, at, source),
        RUN_DIR => {
            let mut from = [0u8; PATH_ROOM];
            if join(last_upper, CStr::from_ptr(source).to_bytes(), &mut from).is_none() {
                *libc::__errno_location() = libc::ENAMETOOLONG;
                return -1;
            }
            bind(from.as_ptr().cast(), at, libc::MS_NOSUID | libc::MS_NODEV)
        }
        PROC => {
            let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            libc::mount(c"proc".as_ptr(), at, c"proc".as_ptr(), flags, std::ptr::null())
        }
        _ => {
            *libc::__errno_location() = libc::EINVAL;
            -1
        }
    }
}

/// Build the run's root at `root` (an empty folder of the machine's) from `steps` (target,
/// source, target, source...), and move into it.
///
/// # Safety
/// In the init of a run's new PID namespace (or a probe's), before it forks the program; every
/// pointer a live NUL-terminated string.
pub(crate) unsafe fn build(root: &CStr, steps: &[*const libc::c_char]) -> Result<(), Failed> {
    let none = std::ptr::null::<libc::c_char>();
    check(AROUND, libc::unshare(libc::CLONE_NEWNS))?;
    check(AROUND, libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()))?;
    // Folders and links only: its files are bind mounts, its bytes nothing but their names.
    let options = c"size=1m,nr_inodes=4096,mode=0755";
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    check(AROUND, libc::mount(c"tmpfs".as_ptr(), root.as_ptr(), c"tmpfs".as_ptr(), flags, options.as_ptr().cast()))?;
    let root_bytes = root.to_bytes();
    let mut last_upper: &[u8] = b"";
    for (index, pair) in steps.chunks(2).enumerate() {
        let [target, source] = pair else { return Err(Failed { step: index as u32, errno: libc::EINVAL }) };
        check(index as u32, step(root_bytes, CStr::from_ptr(*target), *source, &mut last_upper))?;
    }
    check(AROUND, libc::chdir(root.as_ptr()))?;
    // The old root goes beneath the new one, then is detached: both at ".", as runc does.
    check(AROUND, libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as libc::c_int)?;
    check(AROUND, libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
    check(AROUND, libc::chdir(c"/".as_ptr()))?;
    let read_only = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV;
    check(AROUND, libc::mount(none, c"/".as_ptr(), none, read_only, std::ptr::null()))?;
    Ok(())
}

/// Empty this process's command line (its arguments are the harness's, and the marker's),
/// so that `/proc/1/cmdline` of a run shows nothing; and make it undumpable, so that no
/// program of the run may read its environment or memory. Best effort: a kernel without
/// these fields in `/proc/self/stat` leaves the command line as it is.
///
/// # Safety
/// In a forked child, before it starts the program.
pub(crate) unsafe fn forget_command_line() {
    libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0);
    let fd = libc::open(c"/proc/self/stat".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return;
    }
    let mut buf = [0u8; 2048];
    let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
    libc::close(fd);
    if n <= 0 {
        return;
    }
    let text = &buf[..n as usize];
    // Fields after the command's name (which may hold spaces and parentheses) start at 3.
    let Some(close) = text.iter().rposition(|&b| b == b')') else { return };
    let mut field = 2;
    let (mut arg_start, mut arg_end) = (0usize, 0usize);
    let mut value = 0usize;
    for &b in &text[close + 1..] {
        if b == b' ' || b == b'\n' {
            match field {
                48 => arg_start = value,
                49 => arg_end = value,
                _ => {}
            }
            field += 1;
            value = 0;
        } else if b.is_ascii_digit() {
            value = value.wrapping_mul(10).wrapping_add(usize::from(b - b'0'));
        }
    }
    if arg_start != 0 && arg_end > arg_start {
        std::ptr::write_bytes(arg_start as *mut u8, 0, arg_end - arg_start);
    }
}

/// Whether a run can get a root of its own here: a child unshares what a run's supervisor does
/// (a PID namespace, inside a user namespace for an ordinary user), and its first child, PID 1
/// of that namespace, builds a root of `/usr` alone in a throwaway folder and looks at it.
pub(crate) fn probe(scratch: &std::path::Path) -> Result<(), String> {
    let folder = tempfile::Builder::new()
        .prefix("probe-root-")
        .tempdir_in(scratch)
        .map_err(|e| format!("a folder for the probe: {e}"))?;
    let steps = [c"r/usr".to_owned(), c"/usr".to_owned(), c"p/proc".to_owned(), c"".to_owned()];
    // SAFETY: system calls only.
    probe_steps(folder.path(), &steps, || unsafe {
        if libc::access(c"/usr/bin".as_ptr(), libc::F_OK) != 0 {
            102
        } else if libc::access(c"/proc/self/stat".as_ptr(), libc::F_OK) != 0 {
            103
        } else if libc::access(c"/tmp".as_ptr(), libc::F_OK) == 0 {
            // The machine's root is still there.
            104
        } else {
            0
        }
    })
}

/// Build a root in `folder` (its `root/`) from `steps` in PID 1 of a fresh PID namespace (as a
/// run's supervisor makes it), then `check` there: `Ok` when both succeed, else what failed.
pub(crate) fn probe_steps(
    folder: &std::path::Path,
    steps: &[std::ffi::CString],
    check: impl Fn() -> libc::c_int,
) -> Result<(), String> {
    let root_dir = folder.join("root");
    std::fs::create_dir_all(&root_dir).map_err(|e| format!("{}: {e}", root_dir.display()))?;
    let root = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(root_dir.as_os_str()))
        .map_err(|_| "a NUL byte in the scratch folder's path".to_string())?;
    let pointers: Vec<*const libc::c_char> = steps.iter().map(|s| s.as_ptr()).collect();
    let flags = super::procs::unshare_flags(libc::CLONE_NEWPID);
    let ids = (super::procs::uid(), super::procs::gid());
    // SAFETY: system calls only, in both children, on strings made before the fork.
    let ended = unsafe {
        super::procs::in_child(|| {
            if libc::unshare(flags) != 0 {
                return 100;
            }
            // As a run's supervisor does: in a user namespace, the harness's own ids mapped, or
            // nothing made in the root would have an owner.
            if flags & libc::CLONE_NEWUSER != 0 && super::procs::map_own_ids(ids.0, ids.1).is_err() {
                return 106;
            }
            let init = super::procs::in_child(|| match build(&root, &pointers) {
                Err(failed) => failed.errno.min(99),
                Ok(()) if libc::getpid() != 1 => 101,
                Ok(()) => check(),
            });
            match init {
                Ok(super::outcome::Exit::Code(code)) => code,
                Ok(super::outcome::Exit::Signal(_)) | Err(_) => 105,
            }
        })
    };
    match ended.map_err(|e| format!("the probe: {e}"))? {
        super::outcome::Exit::Code(0) => Ok(()),
        super::outcome::Exit::Code(100) => Err("no PID namespace to build a root in".into()),
        super::outcome::Exit::Code(106) => Err("no user namespace whose ids could be mapped".into()),
        super::outcome::Exit::Code(errno @ 1..=99) => {
            Err(format!("building a root of its own: {}", io::Error::from_raw_os_error(errno)))
        }
        other => Err(format!("the probe's root was not as built ({other:?})")),
    }
}
