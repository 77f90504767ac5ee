//! A `/proc` of the run's own: in the init of a run's PID namespace, before it starts the
//! program, [`mount_own_proc`] makes a mount namespace and mounts a fresh procfs over `/proc`,
//! so that the run lists its own processes only (not the marker's, not other students' runs
//! with their command lines), and `/proc/net` is its empty network namespace's. [`probe`] tries
//! the same in a throwaway pair of processes.
//!
//! Made when the run starts, not when its supervisor is parked: a mount namespace copies the
//! mount table as it is when it is made, and a submission's own file system (`quota.rs`) may
//! be mounted after the supervisor was parked, on a machine whose mounts do not propagate.
//! Landlock's read rule on `/proc` still covers the new procfs: it is mounted on top of the
//! old one, whose root holds the rule.

use std::io;

/// Make this process's own mount namespace, keep its mounts from propagating back, and mount
/// a procfs of its PID namespace over `/proc`. Plain system calls only (between fork and exec).
///
/// # Safety
/// In the init of a new PID namespace, before it forks the program.
pub(crate) unsafe fn mount_own_proc() -> io::Result<()> {
    let fail = || Err(io::Error::last_os_error());
    if libc::unshare(libc::CLONE_NEWNS) != 0 {
        return fail();
    }
    let none = std::ptr::null::<libc::c_char>();
    if libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
        return fail();
    }
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    if libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null()) != 0 {
        return fail();
    }
    Ok(())
}

/// Whether a run can get its own `/proc` here: a child unshares what a run's supervisor does
/// (a PID namespace, inside a user namespace for an ordinary user), and its first child, PID 1
/// of that namespace, mounts its `/proc`.
pub(crate) fn probe() -> Result<(), String> {
    let flags = super::procs::unshare_flags(libc::CLONE_NEWPID);
    // SAFETY: system calls only, in both children.
    let ended = unsafe {
        super::procs::in_child(|| {
            if libc::unshare(flags) != 0 {
                return 100;
            }
            let init = super::procs::in_child(|| match mount_own_proc() {
                Ok(()) if libc::getpid() == 1 => 0,
                Ok(()) => 102,
                Err(e) => e.raw_os_error().unwrap_or(libc::EIO).min(99),
            });
            match init {
                Ok(super::Exit::Code(code)) => code,
                Ok(super::Exit::Signal(_)) | Err(_) => 103,
            }
        })
    };
    match ended.map_err(|e| format!("the probe: {e}"))? {
        super::Exit::Code(0) => Ok(()),
        super::Exit::Code(100) => Err("no PID namespace to mount a /proc of".into()),
        super::Exit::Code(errno @ 1..=99) => {
            Err(format!("mounting a /proc of its own: {}", io::Error::from_raw_os_error(errno)))
        }
        other => Err(format!("the probe ended with {other:?}")),
    }
}
