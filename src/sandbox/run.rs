//! One run from start to finish: a [`Command`] and its [`Limits`] → a [`RunOutcome`].
//!
//! The harness's child is the run's supervisor (see [`super::supervisor`]), which reports the
//! program's wait status through a pipe. Killing spares the supervisor at first (it must live
//! to sweep what escaped the process group, and to report); only if the run is still there a
//! second later is the supervisor killed too.
//!
//! Order matters at the end of a run: the supervisor is noticed exiting but left unreaped (a
//! zombie keeps its pid and process-group id from being reused), then everything else of the
//! run is killed, then the supervisor is reaped, then the pipes are drained briefly.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::cgroup::RunCgroup;
use super::io::{ExitWatch, Pump};
use super::landlock::Ruleset;
use super::scratch::{self, RunFolder};
use super::supervisor::{self, Report};
use super::{child, procs, Command, Exit, Limits, RunOutcome, Sandbox, SandboxError};

/// While the program is being killed, signals are repeated this often (the cgroup may list
/// new processes forked just before the first signal); the second round includes the
/// supervisor.
const RESIGNAL: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy)]
enum Phase {
    Running,
    /// SIGTERM sent at the wall limit; SIGKILL at this instant.
    Terminating(Instant),
    /// SIGKILL sent to all but the supervisor; to everything at this instant.
    Killed(Instant),
}

/// The spawned supervisor until it is reaped; dropping it early (on a harness error) kills
/// the whole run and reaps it, so that no error path leaks processes.
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

    /// SIGKILL every process of the run but the supervisor (with a PID namespace, its init
    /// is among them, and takes the whole namespace with it).
    fn kill_all_but_supervisor(&self) {
        let mut pids = procs::group_members(self.pid, self.pid);
        if let Some(cg) = &self.cgroup {
            pids.extend(cg.members().into_iter().filter(|&p| p != self.pid));
        }
        for pid in pids {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
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

/// A close-on-exec pipe: (read end, non-blocking; write end).
fn report_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0 as RawFd; 2];
    // SAFETY: pointer to a live array of two fds.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

pub(crate) fn run(sb: &Sandbox, cmd: &Command, limits: &Limits) -> Result<RunOutcome, SandboxError> {
    let run_as = sb.run_as();
    let folder = RunFolder::new(&sb.scratch_root, run_as)?;
    let (args, inputs) = folder.stage_inputs(&cmd.args, run_as)?;
    let ruleset = match &sb.landlock {
        Ok(abi) => {
            let access = scratch::access(&sb.policy, cmd, &folder, sb.copy_holding(&cmd.cwd), inputs);
            Some(Ruleset::new(*abi, &access).map_err(os("building the Landlock ruleset"))?)
        }
        Err(_) => None,
    };
    let cgroup = match &sb.cgroups {
        Some(setup) => Some(setup.create(limits, sb.policy.pids_max)?),
        None => None,
    };
    let memory_cgroup = sb.memory_cgroup_active();
    let (report_read, report_write) = report_pipe().map_err(os("report pipe"))?;
    let mut namespaces = 0;
    if sb.netns.is_ok() {
        namespaces |= libc::CLONE_NEWNET;
    }
    if sb.pidns.is_ok() {
        namespaces |= libc::CLONE_NEWPID;
    }
    let unshare = procs::unshare_flags(namespaces);
    let plan = child::Plan {
        cmd,
        args: &args,
        home: &folder.home,
        path: &sb.policy.path,
        join_fds: cgroup.as_ref().map(RunCgroup::join_fds).unwrap_or_default(),
        rlimits: child::rlimits(limits, &sb.policy, !memory_cgroup),
        supervisor: supervisor::Plan {
            unshare,
            map_ids: (unshare & libc::CLONE_NEWUSER != 0).then(|| (procs::uid(), procs::gid())),
            report_fd: report_write.as_raw_fd(),
            harness: std::process::id() as i32,
        },
        landlock: ruleset.as_ref().map(Ruleset::raw_fd),
        run_as,
    };
    let started = Instant::now();
    let spawned = child::spawn(plan);
    drop(report_write);
    drop(ruleset);
    let mut child = spawned
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
                    // The supervisor blocks it; the program may end cleanly.
                    running.signal_all(libc::SIGTERM);
                    phase = Phase::Terminating(now + sb.policy.grace);
                }
                Phase::Terminating(_) => {
                    running.kill_all_but_supervisor();
                    phase = Phase::Killed(now + RESIGNAL);
                }
                Phase::Killed(_) => {
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
            running.kill_all_but_supervisor();
            phase = Phase::Killed(now + RESIGNAL);
        }
    };

    // The supervisor is a zombie now, so its process-group id cannot name a stranger. A
    // supervisor that reported has already killed everything the program left (its namespace
    // is gone, or its subreaper sweep found no child left); only without a report is the
    // group searched (/proc, a few milliseconds) to tell whether anything was left.
    let report = Report::read(report_read.as_raw_fd());
    let mut leftovers = match report {
        Some(r) => r.leftovers,
        None => !procs::group_members(pid, pid).is_empty(),
    };
    procs::signal_group(pid, libc::SIGKILL);
    if let Some(cg) = &running.cgroup {
        leftovers |= cg.members().iter().any(|&p| p != pid);
        cg.kill_all(Some(pid))?;
    }
    let reaped = procs::reap(pid).map_err(os("reaping the program"));
    running.reaped = reaped.is_ok();
    let reaped = reaped?;
    // Without a report of the program's status (the supervisor or its init was killed), the
    // supervisor's own status stands for the run's.
    let exit = match report {
        Some(r) if !r.no_status => procs::exit_of(r.status),
        Some(_) | None => reaped.exit,
    };

    let drain_until = Instant::now() + sb.policy.drain;
    if pump.drain(drain_until).map_err(os("pipes"))? {
        // Still open: a process escaped the supervisor, the group and any cgroup. The pipes
        // lead to it.
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
    folder.remove()?;

    let stderr = std::mem::take(&mut pump.err.buf);
    let memory_limit_hit =
        oom_kills > 0 || memory_reported(exit, &stderr, !memory_cgroup, reaped.max_rss_kb, limits.memory_bytes);
    Ok(RunOutcome {
        exit,
        wall_limit_hit,
        cpu_limit_hit: exit == Exit::Signal(libc::SIGXCPU) || reaped.cpu > limits.cpu,
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
