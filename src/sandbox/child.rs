//! Starting the program: a [`Plan`] (command, scratch folder, limits, cgroup to join, the
//! supervisor's namespaces, a Landlock ruleset) → a spawned `std::process::Child`: the run's
//! supervisor (see [`super::supervisor`]), in its own process group, whose descendant execs
//! the program with a scrubbed environment, resource limits, `no_new_privs`, the ruleset, and
//! (when asked) an unprivileged user.
//!
//! Everything in `pre_exec` runs between fork and exec in a copy of a multi-threaded process,
//! so it is limited to plain system calls on values prepared before the fork.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Stdio};

use super::{supervisor, Command, Limits, Policy, RunAs};

/// Variables that make the JVM print "Picked up ..." on stderr (polluting every output) or
/// change its options behind the suite's back.
const DROPPED_VARS: &[&str] = &["JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"];

pub(crate) struct Plan<'a> {
    pub cmd: &'a Command,
    /// Arguments to exec instead of the command's (inputs staged where the user can read them).
    pub args: &'a [OsString],
    /// The program's HOME and TMPDIR.
    pub home: &'a Path,
    pub path: &'a OsStr,
    pub join_fds: Vec<RawFd>,
    pub rlimits: Vec<Rlimit>,
    pub supervisor: supervisor::Plan,
    /// A Landlock ruleset fd to apply in the program.
    pub landlock: Option<RawFd>,
    pub run_as: Option<RunAs>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Rlimit {
    resource: Resource,
    soft: libc::rlim_t,
    hard: libc::rlim_t,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// The limits to set in the child. Hard limits never exceed the harness's own (raising them
/// needs privileges the harness may not have).
pub(crate) fn rlimits(limits: &Limits, policy: &Policy, memory_fallback: bool) -> Vec<Rlimit> {
    // The kernel sends SIGXCPU at the soft limit and SIGKILL at the hard one; the extra
    // second keeps the backstop from firing before the measured limit is clearly exceeded.
    let cpu_secs = limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0) + 1;
    let mut wanted = vec![
        (libc::RLIMIT_CPU, cpu_secs, cpu_secs + 1),
        (libc::RLIMIT_FSIZE, policy.file_size_bytes, policy.file_size_bytes),
        (libc::RLIMIT_CORE, 0, 0),
    ];
    if memory_fallback {
        // Never RLIMIT_AS: the JVM reserves gigabytes of address space and would not start.
        wanted.push((libc::RLIMIT_DATA, limits.memory_bytes, limits.memory_bytes));
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
    for (key, value) in &cmd.env {
        if DROPPED_VARS.iter().any(|d| key == d) {
            continue;
        }
        env.retain(|(k, _)| k != key);
        env.push((key.clone(), value.clone()));
    }
    env
}

pub(crate) fn spawn(plan: Plan<'_>) -> io::Result<Child> {
    let mut command = std::process::Command::new(&plan.cmd.program);
    command
        .args(plan.args)
        .current_dir(&plan.cmd.cwd)
        .env_clear()
        .envs(environment(plan.cmd, plan.home, plan.path))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let Plan { join_fds, rlimits, supervisor, landlock, run_as, .. } = plan;
    let in_child = move || -> io::Result<()> {
        // SAFETY: only async-signal-safe system calls on values prepared before the fork.
        unsafe {
            check(libc::setpgid(0, 0))?;
            // Joining before anything else runs means every descendant is in the cgroup.
            for &fd in &join_fds {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(io::Error::last_os_error());
                }
            }
            // Returns only in the process that becomes the program; the supervisor stays.
            supervisor::split(&supervisor)?;
            for r in &rlimits {
                let value = libc::rlimit { rlim_cur: r.soft, rlim_max: r.hard };
                check(libc::setrlimit(r.resource, &value))?;
            }
            // No set-user-ID program can give back what is taken away below.
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0))?;
            if let Some(fd) = landlock {
                super::landlock::restrict_self(fd)?;
            }
            // Joining a cgroup and unsharing needed the privileges given up here.
            if let Some(ids) = run_as {
                // The pipes belong to the harness; a program may re-open its own through
                // /dev/stdin (or /proc/self/fd), which checks the owner.
                for fd in 0..3 {
                    check(libc::fchown(fd, ids.uid, ids.gid))?;
                }
                check(libc::setgroups(0, std::ptr::null()))?;
                check(libc::setgid(ids.gid))?;
                check(libc::setuid(ids.uid))?;
            }
            // After the user switch, which clears it: die with the supervisor.
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0))?;
        }
        Ok(())
    };
    // SAFETY: `in_child` is async-signal-safe (see above).
    unsafe { command.pre_exec(in_child) };
    command.spawn()
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
