//! Watching a started run until its program exits: the [`Running`] supervisor (which kills and
//! reaps the whole run if it is dropped early), its pipes and the run's [`Limits`] → what was
//! [`Watched`] (when it exited, which limits stopped it, its peak memory without a cgroup, how
//! long the harness itself was stopped meanwhile).
//!
//! The CPU time of the whole run is read every few dozen milliseconds, and the run is killed
//! once it is past the CPU limit. Killing spares the supervisor at first (it must live to sweep
//! what escaped the process group, and to report); only if the run is still there a second
//! later is the supervisor killed too. The wall-clock limit stops programs that wait, not
//! programs that compute slowly because the machine is busy: at the deadline, a run whose CPU
//! time still grows is given more time, in steps, up to a hard cap (see [`STILL_COMPUTING`]).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::cgroup::RunCgroup;
use super::io::{ExitWatch, Pump};
use super::outcome::{Limits, SandboxError};
use super::procs;

/// The spawned supervisor until it is reaped; dropping it early (on a harness error) kills
/// the whole run and reaps it, so that no error path leaks processes.
pub(crate) struct Running {
    pub(crate) pid: i32,
    /// The supervisor's only child is the init of the run's PID namespace.
    pub(crate) init: bool,
    pub(crate) cgroup: Option<RunCgroup>,
    pub(crate) reaped: bool,
    /// The run writes into a tmpfs of its own (`root.rs`), shown at `/tmp` in its root: its
    /// pages are the run's memory too.
    pub(crate) own_tmpfs: bool,
    /// Its submission's disk of its own (a tmpfs), with the bytes in use there when it
    /// started: what it writes there (a build, into its copy) is memory too, which a memory
    /// cgroup would charge it.
    pub(crate) copy_disk: Option<(PathBuf, u64)>,
}

impl Running {
    /// CPU time of the whole run so far: its cgroup's, else the supervisor's tree in /proc.
    pub(crate) fn tree_cpu(&self) -> Duration {
        match self.cgroup.as_ref().and_then(RunCgroup::cpu_time) {
            Some(cpu) => cpu,
            None => procs::tree_cpu(self.pid),
        }
    }

    /// The supervisor and, with a PID namespace, its init: the run's own processes, which a
    /// kill spares at first and whose memory is not the program's.
    fn spared(&self) -> Vec<i32> {
        std::iter::once(self.pid).chain(if self.init { procs::children(self.pid) } else { Vec::new() }).collect()
    }

    /// The memory the run holds without a memory cgroup to count it: the resident memory of
    /// the program's processes (every process of the run's tree but the supervisor and its
    /// init), what it wrote into its own tmpfs and into its submission's, and the memory files it holds open unmapped
    /// (files no process maps are pages all the same: see `held`). Resident memory by the cheap per-process counters, and when the sum is over
    /// `limit`, by the proportional figure (pages shared after a fork counted once) that decides.
    pub(crate) fn tree_memory(&self, limit: u64) -> u64 {
        let spared = self.spared();
        let mut pids = procs::tree(self.pid);
        pids.retain(|p| !spared.contains(p));
        // Seen through a program's root: the init's own is out of reach to an ordinary user.
        let written = if self.own_tmpfs {
            pids.iter().find_map(|&p| procs::tmpfs_bytes(p, super::root::PRIVATE_TMP))
        } else {
            None
        };
        let in_copy = self
            .copy_disk
            .as_ref()
            .and_then(|(path, at_start)| procs::tmpfs_used(path).map(|now| now.saturating_sub(*at_start)));
        let unseen = written.unwrap_or(0) + in_copy.unwrap_or(0) + super::held::unmapped_memfd_bytes(&pids);
        let quick = procs::memory_of(&pids, false) + unseen;
        if quick <= limit {
            return quick;
        }
        procs::memory_of(&pids, true) + unseen
    }

    pub(crate) fn signal_all(&self, sig: i32) {
        procs::signal_group(self.pid, sig);
        if let Some(cg) = &self.cgroup {
            cg.signal_all(sig);
        }
    }

    /// SIGKILL every process of the run but the supervisor and, with a PID namespace, its init,
    /// which then kills and reaps the rest of the namespace (so that their CPU time is counted).
    pub(crate) fn kill_all_but_supervisor(&self) {
        let spared = self.spared();
        let mut pids = procs::group_members(self.pid, self.pid);
        if let Some(cg) = &self.cgroup {
            pids.extend(cg.members());
        }
        pids.retain(|p| !spared.contains(p));
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

/// How much more wall-clock time a run still computing at its wall limit is given at a time.
const WALL_EXTENSION: Duration = Duration::from_secs(1);
/// A run is stopped at this many times its wall limit even if it is still computing.
const WALL_CAP_FACTOR: u32 = 4;
/// The share of one core a run must have used since the last look to count as computing: a
/// program starved on a machine with a load of 50 per core still gets this much; one that
/// sleeps or blocks gets nothing.
const STILL_COMPUTING: f64 = 0.01;
/// A wait that overran its wake-up time by more than this means the harness was not running
/// (stopped, or the machine suspended), not that it was slow: a loaded machine delays a wake-up
/// by milliseconds.
const HARNESS_PAUSE: Duration = Duration::from_millis(250);
/// While the program is being killed, signals are repeated this often (the cgroup may list
/// new processes forked just before the first signal); the second round includes the
/// supervisor.
const RESIGNAL: Duration = Duration::from_secs(1);
/// How often the run's CPU time is read: a cgroup file is cheap; a walk of /proc (without a
/// cgroup) costs a millisecond or so.
const CPU_CHECK_CGROUP: Duration = Duration::from_millis(25);
const CPU_CHECK_PROC: Duration = Duration::from_millis(100);
/// How often the resident memory of the run's processes is read without a memory cgroup
/// (the run's tree from the kernel's children lists, then two counters per process): a
/// program that allocates as fast as one core can fault pages in gets some 100 MiB past the
/// limit between two looks.
pub(crate) const MEMORY_CHECK: Duration = Duration::from_millis(25);
/// Within [`MEMORY_NEAR`] of the limit, memory is read five times as often, so that such a
/// program overshoots by a few MiB (a Python loop appending 4 MiB buffers under 256 MiB: 2–11
/// MiB past it, against 30–64 MiB at 25 ms), while a program far below its limit costs no more.
pub(crate) const MEMORY_CHECK_NEAR: Duration = Duration::from_millis(5);
const MEMORY_NEAR: u64 = 192 << 20;

/// Whether the run's CPU time grew by at least [`STILL_COMPUTING`] of the wall time since the
/// last look (`mark`: when that was and the CPU time then), and moves the mark to now.
fn still_computing(mark: &mut (Instant, Duration), now: Instant, cpu: Duration) -> bool {
    let (then, cpu_then) = *mark;
    *mark = (now, cpu);
    cpu.saturating_sub(cpu_then).as_secs_f64() >= STILL_COMPUTING * now.saturating_duration_since(then).as_secs_f64()
}

/// When to read the run's resident memory next, after reading `resident` against `limit`.
fn next_memory_look(resident: u64, limit: u64) -> Duration {
    if limit.saturating_sub(resident) < MEMORY_NEAR {
        MEMORY_CHECK_NEAR
    } else {
        MEMORY_CHECK
    }
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    Running,
    /// SIGTERM sent at the wall limit; SIGKILL at this instant.
    Terminating(Instant),
    /// SIGKILL sent to all but the supervisor; to everything at this instant.
    Killed(Instant),
}

/// What the watch saw, for the run's outcome.
#[derive(Debug)]
pub(crate) struct Watched {
    pub exited_at: Instant,
    pub wall_limit_hit: bool,
    pub cpu_killed: bool,
    pub memory_killed: bool,
    /// The most resident memory measured (0 with a memory cgroup, which measures itself).
    pub memory_peak: u64,
    /// The most CPU time the watch read for the whole run: without a CPU cgroup, what the run
    /// is charged at least, since a kill leaves processes to the PID namespace's teardown,
    /// which adds their CPU time to nobody's rusage.
    pub cpu_seen: Duration,
    /// The second round of SIGKILL reached the supervisor and its init: only then may the run
    /// end without their report.
    pub supervisor_killed: bool,
    /// Time the harness itself was stopped while the run went on.
    pub paused: Duration,
}

/// The clocks of one watch.
struct Watch<'a> {
    limits: &'a Limits,
    grace: Duration,
    deadline: Instant,
    hard_deadline: Instant,
    progress_mark: (Instant, Duration),
    cpu_period: Duration,
    next_cpu_check: Instant,
    /// Without a memory cgroup, the memory limit is this measurement: never an address-space
    /// or data-segment limit, which a JVM (it reserves gigabytes, commits its initial heap and
    /// its threads' stacks up front) cannot live with.
    measure_memory: bool,
    next_memory_check: Instant,
    phase: Phase,
    seen: Watched,
}

impl Watch<'_> {
    fn kill(&mut self, running: &Running, now: Instant) {
        running.kill_all_but_supervisor();
        self.phase = Phase::Killed(now + RESIGNAL);
    }

    fn watching_cpu(&self) -> bool {
        !matches!(self.phase, Phase::Killed(_))
    }

    /// Reads the run's CPU time and memory when due; kills it past either limit (true then).
    fn look(&mut self, running: &Running, now: Instant) -> bool {
        if self.watching_cpu() && now >= self.next_cpu_check {
            self.next_cpu_check = now + self.cpu_period;
            let cpu = running.tree_cpu();
            self.seen.cpu_seen = self.seen.cpu_seen.max(cpu);
            if cpu > self.limits.cpu {
                self.seen.cpu_killed = true;
                self.kill(running, now);
                return true;
            }
        }
        if self.measure_memory && self.watching_cpu() && now >= self.next_memory_check {
            let resident = running.tree_memory(self.limits.memory_bytes);
            self.next_memory_check = now + next_memory_look(resident, self.limits.memory_bytes);
            self.seen.memory_peak = self.seen.memory_peak.max(resident);
            if resident > self.limits.memory_bytes {
                self.seen.memory_killed = true;
                self.kill(running, now);
                return true;
            }
        }
        false
    }

    fn until(&self) -> Instant {
        match self.phase {
            Phase::Running => self.deadline,
            Phase::Terminating(at) | Phase::Killed(at) => at,
        }
    }

    /// The wall deadline or the phase's next step is due: extend, terminate, or kill.
    fn due(&mut self, running: &Running, now: Instant) {
        match self.phase {
            Phase::Running
                if now < self.hard_deadline && still_computing(&mut self.progress_mark, now, running.tree_cpu()) =>
            {
                self.deadline = (now + WALL_EXTENSION).min(self.hard_deadline);
            }
            Phase::Running => {
                self.seen.wall_limit_hit = true;
                // The supervisor blocks it; the program may end cleanly.
                running.signal_all(libc::SIGTERM);
                self.phase = Phase::Terminating(now + self.grace);
            }
            Phase::Terminating(_) => self.kill(running, now),
            Phase::Killed(_) => {
                self.seen.supervisor_killed = true;
                running.signal_all(libc::SIGKILL);
                self.phase = Phase::Killed(now + RESIGNAL);
            }
        }
    }

    fn wake(&self) -> Instant {
        let until = self.until();
        match (self.watching_cpu(), self.measure_memory) {
            (true, true) => until.min(self.next_cpu_check).min(self.next_memory_check),
            (true, false) => until.min(self.next_cpu_check),
            (false, _) => until,
        }
    }

    /// After a wait meant to end at `wake`: time past it beyond [`HARNESS_PAUSE`] is the
    /// harness's own stop (Ctrl-Z, SIGSTOP, a suspended machine) while the run went on, nobody's
    /// to watch and not the run's to be charged.
    fn woke(&mut self, wake: Instant, woke: Instant) {
        let overdue = woke.saturating_duration_since(wake);
        if overdue > HARNESS_PAUSE {
            self.seen.paused += overdue;
            self.deadline += overdue;
            self.hard_deadline += overdue;
        }
    }
}

/// Watch the run started at `started` until its program exits.
pub(crate) fn watch(
    running: &Running,
    pump: &mut Pump,
    exit: &ExitWatch,
    limits: &Limits,
    grace: Duration,
    started: Instant,
    measure_memory: bool,
) -> Result<Watched, SandboxError> {
    let cpu_period =
        if running.cgroup.as_ref().is_some_and(|c| c.cpu_time().is_some()) { CPU_CHECK_CGROUP } else { CPU_CHECK_PROC };
    let mut watch = Watch {
        limits,
        grace,
        deadline: started + limits.wall,
        hard_deadline: started + limits.wall.saturating_mul(WALL_CAP_FACTOR),
        progress_mark: (started, Duration::ZERO),
        cpu_period,
        next_cpu_check: started + cpu_period,
        measure_memory,
        next_memory_check: started + MEMORY_CHECK,
        phase: Phase::Running,
        seen: Watched {
            exited_at: started,
            wall_limit_hit: false,
            cpu_killed: false,
            memory_killed: false,
            memory_peak: 0,
            cpu_seen: Duration::ZERO,
            supervisor_killed: false,
            paused: Duration::ZERO,
        },
    };
    loop {
        let now = Instant::now();
        if watch.look(running, now) {
            continue;
        }
        if now >= watch.until() {
            watch.due(running, now);
            continue;
        }
        let wake = watch.wake();
        let events = pump
            .step(Some(exit.fd()), wake.saturating_duration_since(now))
            .map_err(|source| SandboxError::Os { what: "pipes", source })?;
        let woke = Instant::now();
        watch.woke(wake, woke);
        if events.exited {
            watch.seen.exited_at = woke;
            return Ok(watch.seen);
        }
        if events.cap_hit && watch.watching_cpu() {
            watch.kill(running, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_computes_while_its_cpu_time_grows_by_a_share_of_a_core() {
        let start = Instant::now();
        let mut mark = (start, Duration::ZERO);
        let later = start + Duration::from_secs(10);
        assert!(still_computing(&mut mark, later, Duration::from_millis(500)), "5% of a core: starved, computing");
        assert_eq!(mark, (later, Duration::from_millis(500)));
        let asleep = later + Duration::from_secs(1);
        assert!(!still_computing(&mut mark, asleep, Duration::from_millis(501)), "0.1% of a core: waiting");
    }

    #[test]
    fn memory_is_read_more_often_near_the_limit() {
        let limit = 256 << 20;
        assert_eq!(next_memory_look(0, limit), MEMORY_CHECK);
        assert_eq!(next_memory_look(limit - MEMORY_NEAR, limit), MEMORY_CHECK);
        assert_eq!(next_memory_look(limit - MEMORY_NEAR + 1, limit), MEMORY_CHECK_NEAR);
        assert_eq!(next_memory_look(limit + 1, limit), MEMORY_CHECK_NEAR);
        assert_eq!(next_memory_look(0, 64 << 20), MEMORY_CHECK_NEAR, "a small limit is near from the start");
    }
}
