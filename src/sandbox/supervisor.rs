//! The per-run supervisor: a [`SplitSpec`] carried into the forked child → three processes, and a
//! [`Report`] (the program's own wait status, and whether it left processes behind) read back
//! by the harness once the run is over.
//!
//! The harness's direct child is the *supervisor* (S), forked ahead of its run (`parked.rs`):
//! [`prepare`] does what needs no run (namespaces, subreaper, signals blocked), [`split`] the
//! rest once the run has arrived. S never execs; it stays in the harness's PID namespace, keeps
//! its privileges, ignores every signal but SIGKILL, and holds no fd but its report pipe. What
//! it starts depends on the machine:
//!
//! - **PID namespace** (root, or an unprivileged user namespace): S unshares `CLONE_NEWPID`
//!   and forks an *init* (I), PID 1 of the new namespace, which forks the *program* (P, PID 2)
//!   and reaps orphans until P exits, then kills and reaps whatever is left (so that its CPU
//!   time is counted in I's rusage, which the kernel's own teardown would not do). When I
//!   exits, the kernel kills every process left in the namespace all the same, so nothing of
//!   the run survives its main process: not a `setsid` escaper, not a fork bomb mid-fork. P is not PID 1, so its signals behave as usual (PID 1 would ignore a
//!   SIGTERM or its own `kill -SEGV`); and P cannot signal I (a namespace's init ignores the
//!   signals it has no handler for) nor see S.
//! - **Subreaper** (no PID namespace): S becomes a child subreaper and forks P itself, so that
//!   orphans of P's tree are re-parented to S rather than to init; when P exits, S kills its
//!   children from `/proc/thread-self/children` round after round until it has none left.
//!
//! Why not wait for P directly from the harness: a process can only wait for its own children,
//! and only a subreaper or a namespace's init inherits the orphans. S reports P's status
//! through a pipe, and also exits the same way (code, or the same signal sent to itself), so
//! that its own wait status and rusage (which includes every process it and I reaped) stand
//! for P's when the report is missing.
//!
//! Every function here runs between fork and exec in a copy of a multi-threaded process: plain
//! system calls on values prepared before the fork. Processes are made with the raw `clone`
//! system call, not `fork(3)`, which would run the C library's fork handlers and could block
//! forever on a lock another harness thread held at the first fork; for the same reason the C
//! library's wrappers that act on every thread (`setuid` and its kin) are not used either.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

/// Fields of the report each supervisor writes: P's wait status, then flags.
const REPORT_LEN: usize = 8;
const FLAG_LEFTOVERS: i32 = 1;
/// I died without reporting (killed by the harness): the status is I's own.
const FLAG_NO_STATUS: i32 = 2;

/// What the child needs to split itself; prepared before the fork.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SplitSpec {
    /// `unshare` flags (`CLONE_NEWPID`, `CLONE_NEWNET`, `CLONE_NEWIPC`, `CLONE_NEWUSER`), 0 for none.
    pub unshare: libc::c_int,
    /// With `CLONE_NEWUSER`: how its ids are mapped.
    pub map_ids: IdMap,
    /// Write end of the report pipe (the only fd S keeps).
    pub report_fd: RawFd,
    /// The harness's pid: S exits at once if its parent is already gone.
    pub harness: i32,
    /// The seccomp filter the program gets just before exec (compiled before any fork).
    pub seccomp: Option<&'static super::seccomp::Filter>,
    /// Its init builds the run's root (`root_inside.rs`) before it starts the program (set only
    /// with `CLONE_NEWPID`).
    pub own_root: bool,
}

/// How a run's user namespace gets its ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdMap {
    /// No user namespace (root).
    None,
    /// The harness's own uid and gid as themselves, written by the child (no user switch is
    /// possible inside).
    Own(u32, u32),
    /// Written by the harness with subordinate ids (`subids.rs`), once the child has unshared
    /// its user namespace and said so on the parked process's socket.
    ByHarness,
}

impl SplitSpec {
    fn pid_namespace(&self) -> bool {
        self.unshare & libc::CLONE_NEWPID != 0
    }
}

/// P's wait status as the supervisor saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Report {
    pub status: i32,
    pub leftovers: bool,
    /// The status is the init's, not the program's (the run was killed from outside).
    pub no_status: bool,
}

impl Report {
    /// Read the report from the pipe after the supervisor was reaped.
    pub(crate) fn read(fd: RawFd) -> Option<Report> {
        let mut buf = [0u8; REPORT_LEN];
        // SAFETY: reading into a live buffer of the given length from an fd we own.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), REPORT_LEN) };
        if n != REPORT_LEN as isize {
            return None;
        }
        let status = i32::from_ne_bytes(buf[..4].try_into().ok()?);
        let flags = i32::from_ne_bytes(buf[4..].try_into().ok()?);
        Some(Report { status, leftovers: flags & FLAG_LEFTOVERS != 0, no_status: flags & FLAG_NO_STATUS != 0 })
    }
}

fn last_errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Close every fd except those in `keep` (sorted ascending).
pub(crate) unsafe fn close_all_but(keep: &[RawFd]) {
    let mut from: libc::c_uint = 0;
    for &fd in keep {
        if fd as libc::c_uint > from {
            close_range(from, fd as libc::c_uint - 1);
        }
        from = fd as libc::c_uint + 1;
    }
    close_range(from, libc::c_uint::MAX);
}

unsafe fn close_range(first: libc::c_uint, last: libc::c_uint) {
    if libc::syscall(libc::SYS_close_range, first, last, 0u32) == 0 {
        return;
    }
    // Before Linux 5.9: one by one, up to the fd limit.
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 { limit.rlim_cur.min(1 << 16) } else { 1024 };
    let end = (u64::from(last) + 1).min(max as u64);
    let mut fd = first as u64;
    while fd < end {
        libc::close(fd as libc::c_int);
        fd += 1;
    }
}

unsafe fn set_signal_mask(how: libc::c_int, set: &libc::sigset_t, old: Option<&mut libc::sigset_t>) {
    let old_ptr = old.map_or(std::ptr::null_mut(), |o| o as *mut libc::sigset_t);
    libc::sigprocmask(how, set, old_ptr);
}

/// The part of the split that can be done before the run is known (by a parked supervisor):
/// die with the harness, unshare the namespaces, become a subreaper without a PID namespace,
/// and block every signal (so that a signal to the run's process group, such as the wall
/// limit's SIGTERM, or from the program cannot end the supervisor before it reports).
/// Returns the signal mask the program must get back.
///
/// # Safety
/// Only in a freshly forked child of the harness.
pub(crate) unsafe fn prepare(plan: &SplitSpec, sock: RawFd) -> io::Result<libc::sigset_t> {
    check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0))?;
    if libc::getppid() != plan.harness {
        libc::_exit(1);
    }
    match plan.map_ids {
        IdMap::ByHarness => {
            if super::subids::await_map(sock, sock).is_err() {
                return Err(io::Error::from_raw_os_error(libc::EPERM));
            }
            check(libc::unshare(plan.unshare & !libc::CLONE_NEWUSER))?;
        }
        IdMap::Own(uid, gid) => {
            check(libc::unshare(plan.unshare))?;
            super::procs::map_own_ids(uid, gid)?;
        }
        IdMap::None if plan.unshare != 0 => check(libc::unshare(plan.unshare))?,
        IdMap::None => {}
    }
    if !plan.pid_namespace() {
        check(libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0))?;
    }
    let mut all: libc::sigset_t = std::mem::zeroed();
    libc::sigfillset(&mut all);
    let mut before: libc::sigset_t = std::mem::zeroed();
    set_signal_mask(libc::SIG_SETMASK, &all, Some(&mut before));
    Ok(before)
}

/// The run's root, for its init to build: the folder it is built in, its steps (`root.rs`), and
/// where to report a step that failed (the exec-error pipe: the run then fails to start).
pub(crate) struct RootRecipe<'a> {
    pub folder: &'a CStr,
    pub steps: &'a [*const libc::c_char],
    pub error_fd: RawFd,
}

/// Split the prepared child: returns `Ok` only in the process that must exec the program
/// (with the signal mask `before` back); the supervisor (and the init) never return.
///
/// # Safety
/// Only in a child after [`prepare`], with `plan.report_fd` open.
pub(crate) unsafe fn split(plan: &SplitSpec, before: &libc::sigset_t, root: Option<&RootRecipe>) -> io::Result<()> {
    let mut status_pipe = [0 as RawFd; 2];
    if libc::pipe2(status_pipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
        return Err(io::Error::last_os_error());
    }
    let child = super::procs::clone_process()?;
    if child == 0 {
        if plan.pid_namespace() {
            if let (true, Some(root)) = (plan.own_root, root) {
                super::root_inside::forget_command_line();
                if let Err(failed) = super::root_inside::build(root.folder, root.steps) {
                    // The run fails to start (a harness failure: the probe built a root here).
                    libc::write(root.error_fd, (&failed.errno as *const i32).cast(), 4);
                    libc::_exit(2);
                }
            }
            let program = super::procs::clone_process()?;
            if program != 0 {
                init(program, status_pipe[1]);
            }
        }
        // The program: its own signal mask back, none of the supervisor's fds.
        libc::close(status_pipe[0]);
        libc::close(status_pipe[1]);
        set_signal_mask(libc::SIG_SETMASK, before, None);
        return Ok(());
    }
    libc::close(status_pipe[1]);
    let mut keep = [status_pipe[0], plan.report_fd];
    keep.sort_unstable();
    // Every copy of the run's pipes and of the harness's socket goes: only the program's may
    // keep a pipe open.
    close_all_but(&keep);
    supervise(plan, child, status_pipe[0])
}

/// PID 1 of the run's namespace: reap everything until the program exits, tell S, and exit
/// (which kills whatever is left in the namespace).
unsafe fn init(program: libc::pid_t, status_fd: RawFd) -> ! {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
    close_all_but(&[status_fd]);
    let mut status = 0;
    loop {
        let r = libc::wait4(-1, &mut status, 0, std::ptr::null_mut());
        if r == program {
            break;
        }
        if r < 0 && last_errno() != libc::EINTR {
            libc::_exit(2);
        }
    }
    // P's children were re-parented to us before P's exit was reported: any still alive are
    // leftovers (zombies are reaped and do not count). They are killed and reaped here rather
    // than left to the kernel's teardown of the namespace, which reaps without adding their
    // CPU time to ours (and so to the supervisor's rusage, the run's figure without cgroups).
    let mut leftovers = false;
    loop {
        let mut ignored = 0;
        let r = libc::wait4(-1, &mut ignored, libc::WNOHANG, std::ptr::null_mut());
        if r > 0 || (r < 0 && last_errno() == libc::EINTR) {
            continue;
        }
        if r < 0 {
            break;
        }
        leftovers = true;
        // From a namespace's init: every other process of the namespace.
        libc::kill(-1, libc::SIGKILL);
        libc::wait4(-1, &mut ignored, 0, std::ptr::null_mut());
    }
    write_report(status_fd, status, if leftovers { FLAG_LEFTOVERS } else { 0 });
    libc::_exit(0)
}

unsafe fn write_report(fd: RawFd, status: i32, flags: i32) {
    let mut buf = [0u8; REPORT_LEN];
    buf[..4].copy_from_slice(&status.to_ne_bytes());
    buf[4..].copy_from_slice(&flags.to_ne_bytes());
    libc::write(fd, buf.as_ptr().cast(), REPORT_LEN);
}

/// S: wait for the program (through I, or directly), kill what it left, report, and exit as
/// the program did.
unsafe fn supervise(plan: &SplitSpec, child: libc::pid_t, status_fd: RawFd) -> ! {
    let (status, flags) = if plan.pid_namespace() {
        let mut buf = [0u8; REPORT_LEN];
        let mut got = 0;
        while got < REPORT_LEN {
            let n = libc::read(status_fd, buf[got..].as_mut_ptr().cast(), REPORT_LEN - got);
            if n > 0 {
                got += n as usize;
            } else if n == 0 || last_errno() != libc::EINTR {
                break;
            }
        }
        let mut init_status = 0;
        while libc::wait4(child, &mut init_status, 0, std::ptr::null_mut()) < 0 && last_errno() == libc::EINTR {}
        if got == REPORT_LEN {
            let status = i32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]]);
            (status, i32::from_ne_bytes([buf[4], buf[5], buf[6], buf[7]]))
        } else {
            (init_status, FLAG_NO_STATUS)
        }
    } else {
        let mut status = 0;
        loop {
            let r = libc::wait4(-1, &mut status, 0, std::ptr::null_mut());
            if r == child {
                break;
            }
            if r < 0 && last_errno() != libc::EINTR {
                libc::_exit(2);
            }
        }
        (status, if sweep() { FLAG_LEFTOVERS } else { 0 })
    };
    write_report(plan.report_fd, status, flags);
    exit_like(status)
}

/// Kill and reap every child of this subreaper until it has none; whether there were any.
unsafe fn sweep() -> bool {
    let mut any = false;
    loop {
        loop {
            let mut ignored = 0;
            let r = libc::wait4(-1, &mut ignored, libc::WNOHANG, std::ptr::null_mut());
            if r > 0 {
                continue;
            }
            if r < 0 {
                return any;
            }
            break;
        }
        any = true;
        if kill_listed_children() == 0 {
            // Children exist but cannot be listed (no /proc): wait for one to die; the
            // harness's process-group and cgroup kills are the backstop.
            let mut ignored = 0;
            libc::wait4(-1, &mut ignored, 0, std::ptr::null_mut());
        }
    }
}

/// SIGKILL every pid in /proc/thread-self/children; returns how many.
unsafe fn kill_listed_children() -> usize {
    let fd = libc::open(c"/proc/thread-self/children".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return 0;
    }
    let mut buf = [0u8; 4096];
    let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
    libc::close(fd);
    let mut killed = 0;
    let mut pid: libc::pid_t = 0;
    for &b in &buf[..n.max(0) as usize] {
        if b.is_ascii_digit() {
            pid = pid * 10 + libc::pid_t::from(b - b'0');
        } else if pid > 0 {
            libc::kill(pid, libc::SIGKILL);
            killed += 1;
            pid = 0;
        }
    }
    if pid > 0 {
        libc::kill(pid, libc::SIGKILL);
        killed += 1;
    }
    killed
}

/// End this process with `status`: the same exit code, or the same signal.
unsafe fn exit_like(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(sig, &action, std::ptr::null_mut());
        let mut only: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, sig);
        libc::kill(libc::getpid(), sig);
        set_signal_mask(libc::SIG_UNBLOCK, &only, None);
        libc::_exit(128 + sig);
    }
    libc::_exit(libc::WEXITSTATUS(status))
}
