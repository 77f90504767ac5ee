//! Landlock, through its three system calls: a run's [`Access`] list (folders and files it may
//! read, folders it may write) → a [`Ruleset`] fd, built in the harness before the fork and
//! applied in the child with [`restrict_self`] just before exec.
//!
//! Everything not named is out of reach: the suite's expected answers, other students' copies,
//! the harness's home, `/tmp`. Where the kernel's Landlock ABI allows, the ruleset also denies
//! every TCP bind and connect (ABI 4), scopes signals and abstract unix sockets to the run
//! (ABI 6), so a program cannot signal its supervisor or another run even as the same user, and
//! refuses connecting to any unix socket named by path that the run did not make (ABI 9).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
/// Every right of ABI 1 (execute … make symlink).
const ABI1_ALL: u64 = (1 << 13) - 1;
/// Linking or renaming a file into another folder (ABI 2).
const REFER: u64 = 1 << 13;
/// Truncating a file (ABI 3).
const TRUNCATE: u64 = 1 << 14;
/// An ioctl on a character or block device (ABI 5): never granted, so that no device a run
/// may open can be driven beyond reading and writing.
const IOCTL_DEV: u64 = 1 << 15;
/// Connecting to (or sending to) a unix socket named by its path (ABI 9): never granted, so a
/// run reaches no socket it did not make itself, wherever the box may leave one.
const RESOLVE_UNIX: u64 = 1 << 16;
/// Handled where the kernel knows them, and granted beneath no path.
const NEVER_GRANTED: u64 = IOCTL_DEV | RESOLVE_UNIX;
const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

/// Rights that may be granted on a file (the others apply to folders only).
const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version of the running kernel, or why there is none.
pub(crate) fn probe() -> Result<u32, String> {
    // SAFETY: with a null attribute and the version flag, the call only returns a number.
    let abi = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, CREATE_RULESET_VERSION)
    };
    if abi < 0 {
        let err = io::Error::last_os_error();
        let why = match err.raw_os_error() {
            Some(libc::ENOSYS) => "the kernel was built without Landlock",
            Some(libc::EOPNOTSUPP) => "Landlock is disabled at boot (lsm= does not list it)",
            _ => "unusable",
        };
        return Err(format!("landlock_create_ruleset: {err}: {why}"));
    }
    Ok(abi as u32)
}

/// What one run may touch. Paths that do not exist are left out (a rule needs an open fd).
#[derive(Debug, Default, Clone)]
pub(crate) struct Access {
    /// Folders to read and execute from (the system, the JDKs).
    pub read_dirs: Vec<PathBuf>,
    /// Single files to read (a puzzle named on the command line), nothing else beside them.
    pub read_files: Vec<PathBuf>,
    /// Single programs to read and run: the one a command names, where no folder above grants it
    /// (a suite that launches a tool of the marker's by its path).
    pub programs: Vec<PathBuf>,
    /// Folders to read, write, create and delete in (the scratch copy, the run's home).
    pub write_dirs: Vec<PathBuf>,
    /// Device files to read and write (`/dev/null`...), never to drive with ioctls.
    pub devices: Vec<PathBuf>,
}

/// The file-system rights a ruleset of `abi` handles (so denies unless a rule grants them).
fn handled_fs(abi: u32) -> u64 {
    let mut fs_rights = ABI1_ALL;
    if abi >= 2 {
        fs_rights |= REFER;
    }
    if abi >= 3 {
        fs_rights |= TRUNCATE;
    }
    if abi >= 5 {
        fs_rights |= IOCTL_DEV;
    }
    if abi >= 9 {
        fs_rights |= RESOLVE_UNIX;
    }
    fs_rights
}

/// A ruleset ready to be applied in a child.
#[derive(Debug)]
pub(crate) struct Ruleset {
    fd: OwnedFd,
}

impl Ruleset {
    /// Build the ruleset for `abi` (from [`probe`]).
    pub(crate) fn new(abi: u32, access: &Access) -> io::Result<Ruleset> {
        let fs_rights = handled_fs(abi);
        let attr = RulesetAttr {
            handled_access_fs: fs_rights,
            handled_access_net: if abi >= 4 { NET_BIND_TCP | NET_CONNECT_TCP } else { 0 },
            scoped: if abi >= 6 { SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL } else { 0 },
        };
        // Older kernels know a shorter attribute; the fields they do not know must be zero,
        // which they are below ABI 4 and 6.
        let size = match abi {
            0..=3 => 8,
            4 | 5 => 16,
            _ => std::mem::size_of::<RulesetAttr>(),
        };
        // SAFETY: `attr` is a live struct of at least `size` bytes.
        let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const RulesetAttr, size, 0u32) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just returned this fd (close-on-exec) and nobody else owns it.
        let ruleset = Ruleset { fd: unsafe { OwnedFd::from_raw_fd(fd as RawFd) } };
        let read = READ_FILE | READ_DIR | EXECUTE;
        for dir in &access.read_dirs {
            ruleset.allow(dir, read & fs_rights)?;
        }
        for file in &access.read_files {
            ruleset.allow(file, READ_FILE)?;
        }
        for program in &access.programs {
            ruleset.allow(program, READ_FILE | EXECUTE)?;
        }
        for dir in &access.write_dirs {
            ruleset.allow(dir, fs_rights & !NEVER_GRANTED)?;
        }
        for device in &access.devices {
            ruleset.allow(device, (READ_FILE | WRITE_FILE | TRUNCATE) & fs_rights)?;
        }
        Ok(ruleset)
    }

    /// Grant `rights` beneath `path` (or on the file itself). A missing path is skipped.
    fn allow(&self, path: &Path, rights: u64) -> io::Result<()> {
        let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|_| io::ErrorKind::InvalidInput)?;
        // SAFETY: a valid C string; O_PATH opens nothing but a handle.
        let raw = unsafe { libc::open(c_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if raw < 0 {
            let err = io::Error::last_os_error();
            return match err.raw_os_error() {
                Some(libc::ENOENT) | Some(libc::ENOTDIR) => Ok(()),
                _ => Err(io::Error::new(err.kind(), format!("{}: {err}", path.display()))),
            };
        }
        // SAFETY: just opened, owned by nobody else.
        let handle = unsafe { OwnedFd::from_raw_fd(raw) };
        let is_dir = std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false);
        let rights = if is_dir { rights } else { rights & FILE_RIGHTS };
        let rule = PathBeneathAttr { allowed_access: rights, parent_fd: handle.as_raw_fd() };
        // SAFETY: `rule` is a live struct of the layout the kernel expects for this rule type.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd.as_raw_fd(),
                RULE_PATH_BENEATH,
                &rule as *const PathBeneathAttr,
                0u32,
            )
        };
        if r != 0 {
            let err = io::Error::last_os_error();
            return Err(io::Error::new(err.kind(), format!("landlock rule for {}: {err}", path.display())));
        }
        Ok(())
    }

    pub(crate) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Grant reading beneath `path` in a ruleset, from the child (a `/proc` mounted there after
/// the ruleset was built: a rule on the `/proc` underneath does not reach it, since Landlock's
/// walk up from a mount's root skips the mount point when that is itself another mount's root).
/// Async-signal-safe: three system calls.
///
/// # Safety
/// `fd` must be a Landlock ruleset fd.
pub(crate) unsafe fn allow_reading(fd: RawFd, path: &std::ffi::CStr) -> io::Result<()> {
    allow_in_child(fd, path, READ_FILE | READ_DIR)
}

/// Grant everything a writable folder gets beneath `path`, from the child (a pristine run's
/// overlay, mounted after the ruleset was built, over the folder the ruleset's rule is on).
/// Async-signal-safe: four system calls.
///
/// # Safety
/// `fd` must be a Landlock ruleset fd.
pub(crate) unsafe fn allow_writing(fd: RawFd, path: &std::ffi::CStr) -> io::Result<()> {
    let abi = libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, CREATE_RULESET_VERSION);
    if abi < 0 {
        return Err(io::Error::last_os_error());
    }
    allow_in_child(fd, path, handled_fs(abi as u32) & !NEVER_GRANTED)
}

unsafe fn allow_in_child(fd: RawFd, path: &std::ffi::CStr, rights: u64) -> io::Result<()> {
    let handle = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
    if handle < 0 {
        return Err(io::Error::last_os_error());
    }
    let rule = PathBeneathAttr { allowed_access: rights, parent_fd: handle };
    let r = libc::syscall(libc::SYS_landlock_add_rule, fd, RULE_PATH_BENEATH, &rule as *const PathBeneathAttr, 0u32);
    let err = io::Error::last_os_error();
    libc::close(handle);
    if r != 0 {
        return Err(err);
    }
    Ok(())
}

/// Apply a ruleset to the calling process (and everything it will start). Needs
/// `no_new_privs` (or CAP_SYS_ADMIN). Async-signal-safe: one system call.
///
/// # Safety
/// `fd` must be a Landlock ruleset fd.
pub(crate) unsafe fn restrict_self(fd: RawFd) -> io::Result<()> {
    if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel that governs unix sockets by path (ABI 9) has the right handled and granted
    /// beneath no folder, as device ioctls (ABI 5); an older one is never asked for either.
    #[test]
    fn unix_sockets_by_path_are_handled_from_abi_9_and_never_granted() {
        assert_eq!(handled_fs(8) & RESOLVE_UNIX, 0);
        assert_eq!(handled_fs(9) & RESOLVE_UNIX, RESOLVE_UNIX);
        assert_eq!(handled_fs(4) & IOCTL_DEV, 0);
        for abi in 1..=9 {
            let writable = handled_fs(abi) & !NEVER_GRANTED;
            assert_eq!(writable & (RESOLVE_UNIX | IOCTL_DEV), 0, "ABI {abi}");
            assert_eq!(writable & WRITE_FILE, WRITE_FILE, "ABI {abi}");
        }
    }
}
