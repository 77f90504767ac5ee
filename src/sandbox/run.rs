//! One run from start to finish: a [`Command`] and its [`Limits`] → a [`RunOutcome`].
//!
//! Order matters at the end of a run: the main process is noticed exiting but left unreaped
//! (a zombie keeps its pid and process-group id from being reused), then everything else of
//! the run is killed, then the main process is reaped, then the pipes are drained briefly.

use std::path::Path;
use std::time::{Duration, Instant};

use super::cgroup::RunCgroup;
use super::io::{ExitWatch, Pump};
use super::{child, procs, Command, Exit, Limits, RunOutcome, Sandbox, SandboxError};

/// While the program is being killed, signals are repeated this often (the cgroup may list
/// new processes forked just before the first signal).
const RESIGNAL: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy)]
enum Phase {
    Running,
    /// SIGTERM sent at the wall limit; SIGKILL at this instant.
    Terminating(Instant),
    /// SIGKILL sent; sent again at this instant.
    Killed(Instant),
}

/// The spawned main process until it is reaped; dropping it early (on a harness error)
/// kills the whole run and reaps it, so that no error path leaks processes.
struct Running {
    pid: i32,
    cgroup: Option<RunCgroup>,
    reaped: bool,
}

impl Running {
    fn signal_all(&self, sig: i32) {
        procs::signal_group(self.pid, sig);
        if let Some(cg) = &self.cgroup {
            cg.signal_all(sig);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            self.signal_all(libc::SIGKILL);
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            let _ = procs::reap(self.pid);
        }
    }
}

fn os(what: &'static str) -> impl FnOnce(std::io::Error) -> SandboxError {
    move |source| SandboxError::Os { what, source }
}

pub(crate) fn run(sb: &Sandbox, cmd: &Command, limits: &Limits) -> Result<RunOutcome, SandboxError> {
    let scratch = tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(&sb.scratch_root)
        .map_err(|source| SandboxError::Scratch { path: sb.scratch_root.clone(), source })?;
    let run_as = sb.run_as();
    if let Some(ids) = run_as {
        std::os::unix::fs::chown(scratch.path(), Some(ids.uid), Some(ids.gid))
            .map_err(|source| SandboxError::Scratch { path: scratch.path().to_path_buf(), source })?;
    }
    let cgroup = match &sb.cgroups {
        Some(setup) => Some(setup.create(limits, sb.policy.pids_max)?),
        None => None,
    };
    let memory_cgroup = sb.memory_cgroup_active();
    let plan = child::Plan {
        cmd,
        scratch: scratch.path(),
        path: &sb.policy.path,
        join_fds: cgroup.as_ref().map(RunCgroup::join_fds).unwrap_or_default(),
        rlimits: child::rlimits(limits, &sb.policy, !memory_cgroup),
        unshare_net: sb.netns.is_ok(),
        run_as,
    };
    let started = Instant::now();
    let mut child = child::spawn(plan)
        .map_err(|source| SandboxError::Spawn { program: cmd.program.to_string_lossy().into_owned(), source })?;
    let mut running = Running { pid: child.id() as i32, cgroup, reaped: false };
    let pid = running.pid;
    let watch = ExitWatch::new(pid, sb.pidfd.is_ok()).map_err(os("watching the program"))?;
    let mut pump = Pump::new(&mut child, &cmd.stdin, limits.output_bytes).map_err(os("pipes"))?;

    let deadline = started + limits.wall;
    let mut phase = Phase::Running;
    let mut wall_limit_hit = false;
    let exited_at = loop {
        let now = Instant::now();
        let until = match phase {
            Phase::Running => deadline,
            Phase::Terminating(at) | Phase::Killed(at) => at,
        };
        if now >= until {
            match phase {
                Phase::Running => {
                    wall_limit_hit = true;
                    running.signal_all(libc::SIGTERM);
                    phase = Phase::Terminating(now + sb.policy.grace);
                }
                Phase::Terminating(_) | Phase::Killed(_) => {
                    running.signal_all(libc::SIGKILL);
                    phase = Phase::Killed(now + RESIGNAL);
                }
            }
            continue;
        }
        let events = pump.step(Some(watch.fd()), until - now).map_err(os("pipes"))?;
        if events.exited {
            break Instant::now();
        }
        if events.cap_hit && !matches!(phase, Phase::Killed(_)) {
            running.signal_all(libc::SIGKILL);
            phase = Phase::Killed(now + RESIGNAL);
        }
    };

    // The main process is a zombie now, so its process-group id cannot name a stranger.
    let mut leftovers = !procs::group_members(pid, pid).is_empty();
    procs::signal_group(pid, libc::SIGKILL);
    if let Some(cg) = &running.cgroup {
        leftovers |= cg.members().iter().any(|&p| p != pid);
        cg.kill_all(Some(pid))?;
    }
    let reaped = procs::reap(pid).map_err(os("reaping the program"));
    running.reaped = reaped.is_ok();
    let reaped = reaped?;

    let drain_until = Instant::now() + sb.policy.drain;
    if pump.drain(drain_until).map_err(os("pipes"))? {
        // Still open: a process escaped both the group and any cgroup (setsid without
        // cgroups). The pipes lead to it.
        let holders = procs::pipe_holders(&pump.open_inodes());
        leftovers |= !holders.is_empty();
        for holder in holders {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(holder, libc::SIGKILL) };
        }
        pump.drain(Instant::now() + sb.policy.drain).map_err(os("pipes"))?;
        pump.close_all();
    }

    let (oom_kills, memory_peak_bytes) = match running.cgroup.take() {
        Some(cg) => {
            let stats = (cg.oom_kills(), cg.peak_bytes());
            cg.remove()?;
            stats
        }
        None => (0, None),
    };
    remove_scratch(scratch)?;

    let stderr = std::mem::take(&mut pump.err.buf);
    let memory_limit_hit =
        oom_kills > 0 || memory_reported(reaped.exit, &stderr, !memory_cgroup, reaped.max_rss_kb, limits.memory_bytes);
    Ok(RunOutcome {
        exit: reaped.exit,
        wall_limit_hit,
        cpu_limit_hit: reaped.exit == Exit::Signal(libc::SIGXCPU) || reaped.cpu > limits.cpu,
        memory_limit_hit,
        stdout: std::mem::take(&mut pump.out.buf),
        stdout_truncated: pump.out.truncated,
        stderr_truncated: pump.err.truncated,
        stderr,
        wall: exited_at - started,
        cpu: reaped.cpu,
        peak_rss_kb: reaped.max_rss_kb,
        memory_peak_bytes,
        leftovers_killed: leftovers,
        stdin_unwritten: pump.unwritten(),
    })
}

/// Whether a failed program says it ran out of memory. A JVM reports its own heap
/// exhaustion (its heap is sized from the cgroup limit); without a memory cgroup, allocations
/// fail against `RLIMIT_DATA` and programs say so in their own words, or die near the limit.
fn memory_reported(exit: Exit, stderr: &[u8], fallback: bool, rss_kb: u64, limit: u64) -> bool {
    if exit.success() {
        return false;
    }
    let says = |needle: &str| stderr.windows(needle.len()).any(|w| w == needle.as_bytes());
    if says("java.lang.OutOfMemoryError") {
        return true;
    }
    fallback
        && (says("MemoryError")
            || says("Cannot allocate memory")
            || says("out of memory")
            || says("insufficient memory")
            || rss_kb.saturating_mul(1024) >= limit / 10 * 9)
}

/// Remove a run's scratch folder even when the program took its own permissions away.
fn remove_scratch(scratch: tempfile::TempDir) -> Result<(), SandboxError> {
    let path = scratch.path().to_path_buf();
    if scratch.close().is_ok() {
        return Ok(());
    }
    make_writable(&path);
    match std::fs::remove_dir_all(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(SandboxError::Scratch { path, source }),
    }
}

fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
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
