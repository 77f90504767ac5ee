//! An ordinary user's marking → a user and mount namespace of the harness's own, entered once
//! at start ([`enter`]), where each submission's folder can be a size-limited tmpfs as it is
//! under root (`quota.rs`), and the [`SubIds`] that map its runs from inside it ([`subids()`]).
//!
//! Why: without root, a submission's copy was a folder on the shared scratch disk, bounded only
//! per file, so one build that wrote until the disk was full failed its classmates beside it.
//! Only a process with `CAP_SYS_ADMIN` over a mount namespace may mount there, and an ordinary
//! user has that only in a user namespace of its own, as rootless container engines do. The
//! harness enters one while it is still one thread (a threaded process cannot): a child makes
//! the namespaces, the harness maps them (the marker as itself, and its subordinate ids where it
//! has them, with the setuid helpers, which no longer work from inside) and joins them, and the
//! child goes. Every id inside keeps its number on the machine but the lent ones, so the
//! harness's files, paths and permissions are what they were; what is new is that its mounts
//! are its own, gone with it.
//!
//! The harness keeps four capabilities there (mounting, writing its runs' id maps, which it did
//! through the setuid helpers before, and reading what a lent id's processes hold open) and
//! drops the rest, so that it writes no file it could not before. Its mounts are shared with the namespaces its parked supervisors
//! made before them (a tmpfs mounted for a submission reaches every run's), never with the
//! machine's.

use std::io;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;

use super::procs;
use super::subids::{self, Inside, SubIds};

/// What [`enter`] found; unset until it is called (root, the library's own tests).
static ENTERED: OnceLock<Result<Entered, String>> = OnceLock::new();

/// The namespace the harness is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entered {
    /// The subordinate ids mapped into it (the first lent id inside, and how many), if any.
    pub(crate) lent: Option<(u32, u32)>,
    /// Whether each submission's tmpfs can be mounted there and reach its runs, or why not (a
    /// step after joining failed: the harness stays in the namespace, without that disk).
    pub(crate) disk: Result<(), String>,
}

/// Capabilities kept inside: `CAP_SETGID`, `CAP_SETUID` (the runs' id maps), `CAP_SYS_ADMIN`
/// (each submission's tmpfs) and `CAP_DAC_READ_SEARCH` (the memory watcher lists the open files
/// of a run's processes in `/proc`, which are a lent id's and closed to the marker: `held.rs`).
const KEPT_CAPABILITIES: u32 = (1 << 2) | (1 << 6) | (1 << 7) | (1 << 21);

/// Enter the harness's own user and mount namespace (an ordinary user only; root mounts in the
/// machine's), with the subordinate ids `identities` asks for where the marker has them. Call
/// it first, while the process is one thread. Never fails the marking: what went wrong is kept
/// for the disk layer to report, and the harness goes on as before.
pub fn enter(identities: Option<(u32, u32)>) {
    if procs::is_root() || ENTERED.get().is_some() {
        return;
    }
    let _ = ENTERED.set(try_enter(identities));
}

/// The namespace the harness entered, if it did.
pub(crate) fn entered() -> Option<Entered> {
    ENTERED.get()?.as_ref().ok().cloned()
}

/// Why the harness is not in a namespace of its own.
pub(crate) fn why_not() -> String {
    match ENTERED.get() {
        None => "this bhgrade did not enter one (only its command line does, at start)".into(),
        Some(Ok(Entered { disk: Err(why), .. })) => format!("bhgrade entered one, but {why}"),
        Some(Ok(_)) => "bhgrade is in one".into(),
        Some(Err(why)) => format!("bhgrade could not enter one: {why}"),
    }
}

/// The subordinate ids that map runs: from inside the harness's namespace when it entered one
/// with them (written directly), else the machine's (through the setuid helpers).
pub(crate) fn subids(first: u32, count: u32) -> Result<SubIds, String> {
    match ENTERED.get() {
        Some(Ok(Entered { lent: Some((lent_first, lent_count)), .. })) if first == *lent_first => {
            Ok(SubIds::within(first, count.min(*lent_count)))
        }
        Some(Ok(Entered { lent: Some((lent_first, lent_count)), .. })) => Err(format!(
            "bhgrade's namespace maps {lent_count} ids from {lent_first}, not the {count} from {first} asked for"
        )),
        // Where the marker has some, the helpers could not map them into bhgrade's namespace.
        Some(Ok(Entered { lent: None, .. })) => SubIds::find(first, count)
            .and_then(|_| Err("they could not be mapped into bhgrade's own user namespace".to_string())),
        None | Some(Err(_)) => SubIds::find(first, count),
    }
}

fn try_enter(identities: Option<(u32, u32)>) -> Result<Entered, String> {
    let threads = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Threads:").map(|n| n.trim().to_string())));
    if threads.as_deref() != Some("1") {
        return Err("the process already runs more than one thread".into());
    }
    let wanted = identities.and_then(|(first, count)| SubIds::find(first, count).ok());
    let lent = match &wanted {
        Some(ids) => match join(Some(ids)) {
            Ok(()) => {
                let (first, _, count) = ids.lent_range();
                Some((first, count))
            }
            // Without the helpers' maps, the marker's own id alone.
            Err(_) => join(None).map(|()| None)?,
        },
        None => join(None).map(|()| None)?,
    };
    // Joined: whatever fails now leaves the harness in the namespace, without a disk there.
    Ok(Entered { lent, disk: share_mounts().and_then(|()| keep_only(KEPT_CAPABILITIES)) })
}

/// Make the namespace's mounts shared, so that a tmpfs mounted here reaches the parked
/// supervisors' namespaces, copied from this one before it.
fn share_mounts() -> Result<(), String> {
    // SAFETY: a flags-only mount call on a static path.
    let shared = unsafe {
        libc::mount(std::ptr::null(), c"/".as_ptr(), std::ptr::null(), libc::MS_REC | libc::MS_SHARED, std::ptr::null())
    };
    if shared != 0 {
        return Err(format!("sharing its mounts failed: {}", io::Error::last_os_error()));
    }
    Ok(())
}

/// Make the namespaces in a child, map them (with `subids`, else the marker's own ids alone),
/// and join them; the child then goes. The working folder stays what it was.
fn join(subids: Option<&SubIds>) -> Result<(), String> {
    let pipe = || subids::pipe().map_err(|e| format!("pipe: {e}"));
    let (ask, answer) = (pipe()?, pipe()?);
    let here = std::env::current_dir().map_err(|e| format!("finding the working folder: {e}"))?;
    let (uid, gid) = (procs::uid(), procs::gid());
    let by_helpers = subids.is_some();
    // SAFETY: the process is one thread; the child makes plain system calls only.
    let pid = unsafe { procs::clone_process() }.map_err(|e| format!("fork: {e}"))?;
    if pid == 0 {
        // SAFETY: in the fresh child; plain system calls.
        unsafe {
            // Only the harness's ends: the answer's end of the harness's closing is its word to go.
            libc::close(ask.0.as_raw_fd());
            libc::close(answer.1.as_raw_fd());
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
            let made = if by_helpers {
                subids::await_map(ask.1.as_raw_fd(), answer.0.as_raw_fd()).is_ok()
            } else {
                libc::unshare(libc::CLONE_NEWUSER) == 0 && procs::map_own_ids(uid, gid).is_ok()
            };
            let word: &[u8; 1] = if made && libc::unshare(libc::CLONE_NEWNS) == 0 { b"n" } else { b"x" };
            libc::write(ask.1.as_raw_fd(), word.as_ptr().cast(), 1);
            // Held until the harness has joined (it closes its end), then gone.
            let mut byte = 0u8;
            libc::read(answer.0.as_raw_fd(), (&mut byte as *mut u8).cast(), 1);
            libc::_exit(0);
        }
    }
    let (ask_read, ask_write) = ask;
    let (answer_read, answer_write) = answer;
    drop((ask_write, answer_read));
    let joined = (|| {
        if let Some(ids) = subids {
            subids::answer_map(ask_read.as_raw_fd(), answer_write.as_raw_fd(), || ids.map(pid, Inside::Marker))
                .map_err(|e| format!("mapping its subordinate ids: {e}"))?;
        }
        let mut word = 0u8;
        // SAFETY: reading one byte into a live local.
        let n = unsafe { libc::read(ask_read.as_raw_fd(), (&mut word as *mut u8).cast(), 1) };
        if n != 1 || word != b'n' {
            return Err("the kernel refused an unprivileged user or mount namespace".to_string());
        }
        for (kind, flag) in [("user", libc::CLONE_NEWUSER), ("mnt", libc::CLONE_NEWNS)] {
            let ns = std::fs::File::open(format!("/proc/{pid}/ns/{kind}")).map_err(|e| format!("{kind}: {e}"))?;
            // SAFETY: a descriptor of a namespace file, open for the call.
            if unsafe { libc::setns(ns.as_raw_fd(), flag) } != 0 {
                return Err(format!("joining the {kind} namespace: {}", io::Error::last_os_error()));
            }
        }
        Ok(())
    })();
    drop(answer_write);
    let _ = procs::reap(pid);
    // Joining a mount namespace moves to its root: back to where the command line was given,
    // by its path, found afresh among this namespace's mounts (a descriptor kept from before
    // would stay on the machine's, and a rename between the two fails as across devices).
    if joined.is_ok() {
        std::env::set_current_dir(&here)
            .map_err(|e| format!("returning to the working folder {}: {e}", here.display()))?;
    }
    joined
}

/// Keep only the capabilities in the mask `kept` (the effective and permitted sets).
fn keep_only(kept: u32) -> Result<(), String> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // _LINUX_CAPABILITY_VERSION_3: two words of 32 capabilities.
    let mut header = Header { version: 0x2008_0522, pid: 0 };
    let data = [
        Data { effective: kept, permitted: kept, inheritable: 0 },
        Data { effective: 0, permitted: 0, inheritable: 0 },
    ];
    // SAFETY: pointers to a live header and two data words, as capset reads them.
    if unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) } != 0 {
        return Err(format!("dropping its other capabilities failed: {}", io::Error::last_os_error()));
    }
    Ok(())
}
