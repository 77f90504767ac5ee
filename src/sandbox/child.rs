//! The program's side of a run: a [`ExecSpec`] (command, scratch folder, limits, user) → an
//! [`Exec`] (C strings and numbers: working folder, the paths to try, argv, the scrubbed
//! environment, rlimits, CPUs), which the parked supervisor (`parked.rs`) decodes into a
//! [`Raw`]; then [`become_program`], in the program's own process, applies the limits,
//! `no_new_privs`, the Landlock ruleset, the unprivileged user, a session keyring of its own and
//! the seccomp filter, and execs.
//!
//! [`become_program`] runs between fork and exec in a copy of a multi-threaded process, so it
//! is limited to plain system calls on values prepared before.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::command::Command;
use super::outcome::Limits;
use super::policy::{Policy, RunAs};

pub(crate) struct ExecSpec<'a> {
    pub cmd: &'a Command,
    /// Arguments to exec instead of the command's (inputs staged where the user can read them).
    pub args: &'a [OsString],
    /// The program's HOME and TMPDIR.
    pub home: &'a Path,
    pub path: &'a OsStr,
    pub rlimits: Vec<Rlimit>,
    pub run_as: Option<RunAs>,
    /// The working folder as the box shows it (its real path), when the run has a root of its
    /// own; else the command's.
    pub cwd: &'a Path,
    /// The run's root: its folder, then its steps (`root.rs`); empty without one.
    pub root: Vec<CString>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Rlimit {
    pub resource: Resource,
    pub soft: libc::rlim_t,
    pub hard: libc::rlim_t,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) type Resource = libc::c_int;

/// The limits to set in the child. Hard limits never exceed the harness's own (raising them
/// needs privileges the harness may not have). `nproc`: `RLIMIT_NPROC`, the backstop against a
/// fork bomb where no pids cgroup counts the run's tasks (see [`nproc_backstop`]).
///
/// No memory limit is set here: without a memory cgroup the run's resident memory is measured
/// and the run killed past the limit (`run.rs`). Neither `RLIMIT_AS` (a JVM reserves gigabytes
/// of address space it never touches) nor `RLIMIT_DATA` (a JVM commits its initial heap, a
/// sixty-fourth of the machine's memory, and every thread's stack up front, so a thread fails
/// to start with `OutOfMemoryError: unable to create native thread` while its resident memory
/// is a tenth of the limit) measures what a program uses.
pub(crate) fn rlimits(limits: &Limits, policy: &Policy, nproc: Option<u64>) -> Vec<Rlimit> {
    // The kernel sends SIGXCPU at the soft limit and SIGKILL at the hard one; the extra
    // second keeps the backstop from firing before the measured limit is clearly exceeded.
    let cpu_secs = limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0) + 1;
    let mut wanted = vec![
        (libc::RLIMIT_CPU, cpu_secs, cpu_secs + 1),
        (libc::RLIMIT_FSIZE, policy.file_size_bytes, policy.file_size_bytes),
        (libc::RLIMIT_CORE, 0, 0),
    ];
    if let Some(n) = nproc {
        wanted.push((libc::RLIMIT_NPROC, n, n));
    }
    wanted
        .into_iter()
        .map(|(resource, soft, hard)| {
            let (hard, soft) = match current_hard(resource) {
                Some(cap) => (hard.min(cap), soft.min(cap)),
                None => (hard, soft),
            };
            Rlimit { resource, soft: soft as libc::rlim_t, hard: hard as libc::rlim_t }
        })
        .collect()
}

/// `RLIMIT_NPROC` for programs a root harness runs as `nobody` where no pids cgroup bounds a
/// run: at least 4096, and 256 per CPU of the machine. Threads count as processes, and a JVM
/// with the parallel collector on a many-core box starts one GC thread per core up to 8 and five
/// per eight cores past that, plus compiler threads (a few dozen on 256 cores) and some fifteen
/// of its own: under 300 threads on a 256-core box. The limit counts every process of `nobody`
/// on the machine (every concurrent run's JVM: up to 256 per CPU of the machine fits one JVM per
/// core even on the largest box). In a run's own user namespace (an ordinary user's harness;
/// Linux 5.14 on counts per user namespace) the run is counted alone and gets the pids cgroup's
/// per-run limit instead; the limit is never set for programs that run as the harness's own user
/// in the harness's user namespace, where every process and thread of that user (a desktop
/// session, a browser: thousands) counts too. See `Sandbox::nproc_backstop`.
pub(crate) fn nproc_backstop() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as u64;
    (256 * cpus).max(4096)
}

// rlim_t is not u64 on every target.
#[allow(clippy::unnecessary_cast)]
fn current_hard(resource: Resource) -> Option<u64> {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: pointer to a live local.
    if unsafe { libc::getrlimit(resource, &mut r) } != 0 || r.rlim_max == libc::RLIM_INFINITY {
        return None;
    }
    Some(r.rlim_max as u64)
}

/// The whole environment of the program: nothing of the harness's but what is set here.
pub(crate) fn environment(cmd: &Command, home: &Path, path: &OsStr) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), path.to_os_string()),
        ("HOME".into(), home.as_os_str().to_os_string()),
        ("TMPDIR".into(), home.as_os_str().to_os_string()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    // The harness's own environment never gets here (a marker's JAVA_TOOL_OPTIONS cannot change
    // a student's run); what the command names is the suite's deliberate launch setting.
    for (key, value) in &cmd.env {
        env.retain(|(k, _)| k != key);
        env.push((key.clone(), value.clone()));
    }
    env
}

/// What the program's process needs to exec, built in the harness at run time and sent to the
/// parked supervisor (see `parked.rs`), which has no allocator to build it with.
#[derive(Debug, Clone)]
pub(crate) struct Exec {
    pub cwd: CString,
    /// Paths to try in turn, as `execvp` would search `PATH` (of the program's environment).
    pub candidates: Vec<CString>,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    pub rlimits: Vec<Rlimit>,
    pub run_as: Option<RunAs>,
    /// CPUs to pin the supervisor to before it forks (no cpuset cgroup): a bit per CPU.
    pub affinity: Option<[u64; AFFINITY_WORDS]>,
    /// The run's root for its init to build: its folder, then a target and a source per step.
    pub root: Vec<CString>,
}

/// CPUs that fit in an affinity mask sent to a supervisor.
pub(crate) const AFFINITY_WORDS: usize = 16;

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the command"))
}

impl Exec {
    pub(crate) fn new(plan: &ExecSpec<'_>, affinity: Option<[u64; AFFINITY_WORDS]>) -> io::Result<Exec> {
        let env = environment(plan.cmd, plan.home, plan.path);
        let program = plan.cmd.program.as_bytes();
        let candidates = if program.contains(&b'/') {
            vec![c_string(program)?]
        } else {
            let path = env.iter().find(|(k, _)| k == "PATH").map_or(OsStr::new(""), |(_, v)| v.as_os_str());
            path.as_bytes()
                .split(|&b| b == b':')
                .map(|dir| {
                    let dir = if dir.is_empty() { &b"."[..] } else { dir };
                    c_string(&[dir, b"/", program].concat())
                })
                .collect::<io::Result<Vec<CString>>>()?
        };
        let mut argv = vec![c_string(program)?];
        for arg in plan.args {
            argv.push(c_string(arg.as_bytes())?);
        }
        let envp = env
            .iter()
            .map(|(k, v)| c_string(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<io::Result<Vec<CString>>>()?;
        Ok(Exec {
            cwd: c_string(plan.cwd.as_os_str().as_bytes())?,
            candidates,
            argv,
            envp,
            rlimits: plan.rlimits.clone(),
            run_as: plan.run_as,
            affinity,
            root: plan.root.clone(),
        })
    }
}

/// The errno of the last failed call (EIO if there is none).
fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

/// The program's last steps, in its own process after the supervisor split: limits,
/// `no_new_privs`, Landlock, the user switch, a fresh session keyring, seccomp, then exec.
/// Returns only the errno of what failed.
///
/// # Safety
/// Only in the program's process, between fork and exec: `exec`'s pointers must be valid.
pub(crate) unsafe fn become_program(
    exec: &Raw,
    landlock: Option<RawFd>,
    seccomp: Option<&super::seccomp::Filter>,
    root: Option<&super::supervisor::RootRecipe>,
) -> i32 {
    for r in exec.rlimits {
        let value = libc::rlimit { rlim_cur: r.soft, rlim_max: r.hard };
        if libc::setrlimit(r.resource, &value) != 0 {
            return errno();
        }
    }
    // No set-user-ID program can give back what is taken away below.
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
        return errno();
    }
    if let Some(fd) = landlock {
        if let Some(root) = root {
            // Mounted after the ruleset was made: its /proc, and what the run's tmpfs shows (the
            // overlays of pristine runs, its HOME and /tmp).
            if let Err(e) = super::landlock::allow_reading(fd, c"/proc") {
                return e.raw_os_error().unwrap_or(libc::EIO);
            }
            for target in root.steps.iter().step_by(2) {
                if matches!(**target as u8, super::root_inside::OVERLAY | super::root_inside::RUN_DIR) {
                    if let Err(e) = super::landlock::allow_writing(fd, CStr::from_ptr(target.add(1))) {
                        return e.raw_os_error().unwrap_or(libc::EIO);
                    }
                }
            }
        }
        if let Err(e) = super::landlock::restrict_self(fd) {
            return e.raw_os_error().unwrap_or(libc::EIO);
        }
    }
    // Joining a cgroup and unsharing needed the privileges given up here.
    if let Some(ids) = exec.run_as {
        if let Err(e) = switch_user(ids) {
            return e;
        }
    }
    if libc::chdir(exec.cwd) != 0 {
        return errno();
    }
    // The marker's session keyring (Kerberos caches, tokens) was inherited across the user
    // switch: leave it for a new, empty one of the program's own user, which dies with the
    // run's last process. A kernel without keys has nothing to leak.
    if libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, std::ptr::null::<libc::c_char>()) < 0
        && errno() != libc::ENOSYS
    {
        return errno();
    }
    // After the user switch, which clears it: die with the supervisor.
    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
        return errno();
    }
    // The harness ignores SIGPIPE (the Rust runtime does), and an ignored signal stays
    // ignored across exec: a program must die of a closed pipe as usual.
    let mut action: libc::sigaction = std::mem::zeroed();
    action.sa_sigaction = libc::SIG_DFL;
    libc::sigaction(libc::SIGPIPE, &action, std::ptr::null_mut());
    // Last: the filter denies keyctl, which the step above needed.
    if let Some(filter) = seccomp {
        if let Err(e) = super::seccomp::install(filter) {
            return e.raw_os_error().unwrap_or(libc::EIO);
        }
    }
    exec_first(exec)
}

/// Gives the run's standard streams to `ids` and becomes that user, for good.
unsafe fn switch_user(ids: RunAs) -> Result<(), i32> {
    // The pipes belong to the harness; a program may re-open its own through
    // /dev/stdin (or /proc/self/fd), which checks the owner.
    for fd in 0..3 {
        if libc::fchown(fd, ids.uid, ids.gid) != 0 {
            return Err(errno());
        }
    }
    // The system calls, not the C library's wrappers: those broadcast the change to every
    // thread the library believes in, under a lock that a thread of the harness may have
    // held at the fork, and this process has only the one thread.
    if libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) != 0
        || libc::syscall(libc::SYS_setgid, ids.gid) != 0
        || libc::syscall(libc::SYS_setuid, ids.uid) != 0
    {
        return Err(errno());
    }
    Ok(())
}

/// Execs the first of the candidates that can be run (the errno why none could).
unsafe fn exec_first(exec: &Raw) -> i32 {
    // As execvp: a candidate that is missing is skipped; one that is not executable is
    // remembered; a file without a #! line is run by /bin/sh.
    let mut failure = libc::ENOENT;
    for &candidate in exec.candidates {
        libc::execve(candidate, exec.argv.as_ptr(), exec.envp.as_ptr());
        let mut e = errno();
        if e == libc::ENOEXEC {
            *exec.sh_argv.add(1) = candidate;
            libc::execve(c"/bin/sh".as_ptr(), exec.sh_argv, exec.envp.as_ptr());
            e = errno();
        }
        match e {
            libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
            libc::EACCES => failure = libc::EACCES,
            other => return other,
        }
    }
    failure
}

/// `keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)`: a new anonymous session keyring.
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// An [`Exec`] as the parked supervisor decoded it into its own buffers (see `parked.rs`).
pub(crate) struct Raw<'a> {
    /// The working folder, entered as the program's own user (a folder only root could pass
    /// through is no way in).
    pub cwd: *const libc::c_char,
    pub candidates: &'a [*const libc::c_char],
    /// NULL-terminated.
    pub argv: &'a [*const libc::c_char],
    /// NULL-terminated.
    pub envp: &'a [*const libc::c_char],
    /// `/bin/sh`, a slot for the script, then `argv[1..]`, NULL-terminated.
    pub sh_argv: *mut *const libc::c_char,
    pub rlimits: &'a [Rlimit],
    pub run_as: Option<RunAs>,
}
