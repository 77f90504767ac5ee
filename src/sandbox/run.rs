//! One run from start to finish: a [`Command`] and its [`Limits`] → a [`RunOutcome`], in named
//! steps: where it may run ([`WorkingFolder`]), what it gets ([`prepare`]: its folder, inputs,
//! Landlock ruleset and exec recipe), [`start`] (a parked supervisor takes it), the watch over
//! it (`watch.rs`), [`end`] (everything of it killed and reaped, pipes drained, cgroup read and
//! removed), and its [`outcome`].
//!
//! The harness's child is the run's supervisor (see [`super::supervisor`]), parked ahead of the
//! run (see [`super::parked`]) and handed the run when it starts; it reports the program's wait
//! status through a pipe.
//!
//! Order matters at the end of a run: the supervisor is noticed exiting but left unreaped (a
//! zombie keeps its pid and process-group id from being reused), then everything else of the
//! run is killed, then the supervisor is reaped, then the pipes are drained briefly.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::child::{self, Exec, AFFINITY_WORDS};
use super::command::Command;
use super::io::{ExitWatch, Pump};
use super::landlock::{Access, Ruleset};
use super::outcome::{CpuSource, Exit, Limits, MemorySource, RunOutcome, SandboxError};
use super::parked::{Fds, Parked};
use super::probed::Sandbox;
use super::procs;
use super::quota;
use super::root;
use super::scratch::{self, RunFolder, WorkingFolder};
use super::supervisor::Report;
use super::watch::{self, Running, Watched};

fn os(what: &'static str) -> impl FnOnce(std::io::Error) -> SandboxError {
    move |source| SandboxError::Os { what, source }
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0 as RawFd; 2];
    // SAFETY: pointer to a live array of two fds.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

/// The run's CPUs: as a list for its cpuset, or (no cpuset) as an affinity mask for its
/// supervisor; neither when the command does not ask.
fn pinning(sb: &Sandbox, cpus: &[usize]) -> Result<(Option<String>, Option<[u64; AFFINITY_WORDS]>), SandboxError> {
    if cpus.is_empty() {
        return Ok((None, None));
    }
    let allowed = procs::allowed_cpus().map_err(os("sched_getaffinity"))?;
    if let Some(cpu) = cpus.iter().find(|c| !allowed.contains(c) || **c >= AFFINITY_WORDS * 64) {
        return Err(SandboxError::Setup(format!(
            "CPU {cpu} is not one the harness may use ({})",
            procs::cpu_list(&allowed)
        )));
    }
    if sb.cgroups.as_ref().is_some_and(|c| c.has_cpuset()) {
        return Ok((Some(procs::cpu_list(cpus)), None));
    }
    let mut mask = [0u64; AFFINITY_WORDS];
    for &cpu in cpus {
        mask[cpu / 64] |= 1 << (cpu % 64);
    }
    Ok((None, Some(mask)))
}

/// Wait until the program has exec'd (the exec-error pipe closes) or failed to (it carries the
/// errno); `None` if neither happens within `timeout`.
fn exec_status(fd: &OwnedFd, timeout: Duration) -> Option<Result<(), std::io::Error>> {
    let deadline = Instant::now() + timeout;
    loop {
        let mut pfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let left = deadline.saturating_duration_since(Instant::now());
        let ms = left.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: one live pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n == 0 {
            return None;
        }
        if n < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Some(Err(std::io::Error::last_os_error()));
        }
        let mut errno = [0u8; 4];
        // SAFETY: reading into a live buffer of the given length.
        let got = unsafe { libc::read(fd.as_raw_fd(), errno.as_mut_ptr().cast(), 4) };
        return Some(match got {
            4 => Err(std::io::Error::from_raw_os_error(i32::from_ne_bytes(errno))),
            _ => Ok(()),
        });
    }
}

/// Hand the run to a parked supervisor (one from the pool, else one parked now) and wait for
/// the program's exec. Returns the running supervisor.
fn start(
    sb: &Sandbox,
    cmd: &Command,
    limits: &Limits,
    exec: &Exec,
    cpus: Option<&str>,
    landlock: Option<RawFd>,
    copy_disk: Option<(PathBuf, u64)>,
) -> Result<(Running, [OwnedFd; 3], OwnedFd, Instant), SandboxError> {
    let pool = sb.pool();
    let spawn_err = |source| SandboxError::Spawn { program: cmd.program.to_string_lossy().into_owned(), source };
    let mut from_pool = pool.take().filter(|p| p.fits(exec));
    loop {
        let retry = from_pool.is_some();
        let mut parked = match from_pool.take() {
            Some(p) => p,
            None => pool.recipe().park(Parked::capacity_for(exec))?,
        };
        if let Some(cg) = parked.cgroup_mut() {
            cg.prepare(limits.memory_bytes, cpus)?;
        }
        let (stdin_read, stdin_write) = pipe().map_err(os("pipes"))?;
        let (stdout_read, stdout_write) = pipe().map_err(os("pipes"))?;
        let (stderr_read, stderr_write) = pipe().map_err(os("pipes"))?;
        let (report_read, report_write) = pipe().map_err(os("report pipe"))?;
        let (error_read, error_write) = pipe().map_err(os("exec-error pipe"))?;
        let fds = Fds {
            stdin: stdin_read.as_raw_fd(),
            stdout: stdout_write.as_raw_fd(),
            stderr: stderr_write.as_raw_fd(),
            report: report_write.as_raw_fd(),
            exec_error: error_write.as_raw_fd(),
            landlock,
        };
        let started = Instant::now();
        let (pid, cgroup, sent) = parked.go(exec, &fds);
        // Only the run's processes may hold the other ends now.
        drop((stdin_read, stdout_write, stderr_write, report_write, error_write));
        let own_tmpfs = sb.own_root_active() && sb.pristine.is_ok();
        let running =
            Running { pid, init: sb.pidns.is_ok(), cgroup, reaped: false, own_tmpfs, copy_disk: copy_disk.clone() };
        if let Err(e) = sent {
            // A pooled supervisor that died while parked: park a fresh one.
            if retry {
                drop(running);
                continue;
            }
            return Err(spawn_err(e));
        }
        match exec_status(&error_read, limits.wall.max(Duration::from_secs(5))) {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(spawn_err(e)),
            None => return Err(spawn_err(std::io::Error::from(std::io::ErrorKind::TimedOut))),
        }
        // Read once the supervisor has exited; never waited on.
        // SAFETY: fcntl on an fd we own.
        unsafe { libc::fcntl(report_read.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        return Ok((running, [stdin_write, stdout_read, stderr_read], report_read, started));
    }
}

pub(crate) fn run(sb: &Sandbox, cmd: &Command, limits: &Limits) -> Result<RunOutcome, SandboxError> {
    let place = sb.working_folder(&cmd.cwd);
    if let WorkingFolder::Escapes(why) = &place {
        return Ok(not_started(why));
    }
    if matches!(place, WorkingFolder::InCopy(_)) && !scratch::enterable(&cmd.cwd, sb.host_user_of(cmd)) {
        return Ok(not_started(
            "the working folder may not be entered: an earlier step (such as the build) took its permissions \
             away: the program was not started",
        ));
    }
    // Its home is handed to a user root switches to; a subordinate id's home is in the box's tmpfs.
    let folder = RunFolder::new(&sb.scratch_root, sb.user_of(cmd).filter(|_| sb.subids.is_err()))?;
    let (exec, cpuset, ruleset) = prepare(sb, cmd, limits, &folder, &place)?;
    // Without a memory cgroup to charge them, what it writes on its submission's disk of its own
    // (a build, in its copy) is counted as its memory, from what is there now.
    let copy_disk = match &place {
        WorkingFolder::InCopy(at) if sb.quota.is_ok() && !sb.memory_cgroup_active() => {
            procs::tmpfs_used(at).map(|used| (at.clone(), used))
        }
        WorkingFolder::InCopy(_) | WorkingFolder::Outside | WorkingFolder::Escapes(_) => None,
    };
    let (mut running, pipes, report_read, started) =
        start(sb, cmd, limits, &exec, cpuset.as_deref(), ruleset.as_ref().map(Ruleset::raw_fd), copy_disk)?;
    drop(ruleset);
    let exit = ExitWatch::new(running.pid, sb.pidfd.is_ok()).map_err(os("watching the program"))?;
    let mut pump = Pump::new(pipes, &cmd.stdin, limits.output_bytes).map_err(os("pipes"))?;
    let measure_memory = !sb.memory_cgroup_active();
    let watched = watch::watch(&running, &mut pump, &exit, limits, sb.policy.grace, started, measure_memory)?;
    let ended = end(sb, &mut running, &report_read, &mut pump)?;
    folder.remove()?;
    if let Some(full) = (!ended.exit.success()).then(|| quota::scratch_full(&sb.scratch_root)).flatten() {
        return Err(full);
    }
    outcome(limits, started, watched, ended, pump, !measure_memory)
}

/// A program that could not be started because of what the student did (its working
/// folder removed, or made a link out of the copy): as a shell reports a command it cannot
/// run, exit status 127, with the reason on stderr.
fn not_started(why: &str) -> RunOutcome {
    RunOutcome {
        exit: Exit::Code(127),
        wall_limit_hit: false,
        cpu_limit_hit: false,
        memory_limit_hit: false,
        stdout: Vec::new(),
        stderr: format!("bhgrade: {why}\n").into_bytes(),
        stdout_truncated: false,
        stderr_truncated: false,
        wall: Duration::ZERO,
        cpu: Duration::ZERO,
        cpu_source: CpuSource::Rusage,
        memory_source: MemorySource::Resident,
        peak_rss_kb: 0,
        memory_peak_bytes: None,
        leftovers_killed: false,
        stdin_unwritten: 0,
    }
}

/// What a run gets, made before it starts: the exec recipe (arguments with staged inputs, the
/// scrubbed environment, rlimits, user, CPUs), its cpuset, and its Landlock ruleset.
fn prepare(
    sb: &Sandbox,
    cmd: &Command,
    limits: &Limits,
    folder: &RunFolder,
    place: &WorkingFolder,
) -> Result<(Exec, Option<String>, Option<Ruleset>), SandboxError> {
    let run_as = sb.user_of(cmd);
    let (cpuset, affinity) = pinning(sb, &cmd.cpus)?;
    let (args, inputs) = folder.stage_inputs(&cmd.args, sb.host_user_of(cmd))?;
    let shared = if cmd.reads_shared { sb.readable_folders() } else { Vec::new() };
    let mut access = scratch::access(&sb.policy, cmd, folder, place, shared, inputs);
    let (root, cwd) = if sb.own_root_active() {
        own_root(sb, cmd, limits, folder, place, &mut access)?
    } else {
        (Vec::new(), cmd.cwd.clone())
    };
    let ruleset = match &sb.landlock {
        Ok(abi) => Some(Ruleset::new(*abi, &access).map_err(os("building the Landlock ruleset"))?),
        Err(_) => None,
    };
    let plan = child::ExecSpec {
        cmd,
        args: &args,
        home: &folder.home,
        path: &sb.policy.path,
        rlimits: child::rlimits(limits, &sb.policy, sb.nproc_backstop()),
        run_as,
        cwd: &cwd,
        root,
    };
    let spawn_err = |source| SandboxError::Spawn { program: cmd.program.to_string_lossy().into_owned(), source };
    let exec = Exec::new(&plan, affinity).map_err(spawn_err)?;
    Ok((exec, cpuset, ruleset))
}

/// The run's root (`root.rs`) for its init to build: its folder, then its steps; and the
/// working folder as the box shows it. Adds to `access` the files the box shows in place of the
/// machine's (its accounts), so the ruleset grants what the box holds.
fn own_root(
    sb: &Sandbox,
    cmd: &Command,
    limits: &Limits,
    folder: &RunFolder,
    place: &WorkingFolder,
    access: &mut Access,
) -> Result<(Vec<std::ffi::CString>, std::path::PathBuf), SandboxError> {
    let run_as = sb.user_of(cmd);
    let owner = run_as.map_or((procs::uid(), procs::gid()), |ids| (ids.uid, ids.gid));
    let tmpfs = sb.pristine.is_ok().then(|| root::RunTmpfs {
        at: folder.upper.clone(),
        // Its pages are memory: a memory cgroup counts them; without one, nothing would,
        // so they are bounded by the run's memory limit.
        bytes: if sb.memory_cgroup_active() {
            sb.policy.disk_bytes
        } else {
            sb.policy.disk_bytes.min(limits.memory_bytes)
        },
        files: sb.policy.disk_files,
        owner,
        home: folder.home.clone(),
        pristine: match place {
            WorkingFolder::InCopy(copy) if cmd.pristine => Some(copy.clone()),
            WorkingFolder::InCopy(_) | WorkingFolder::Outside | WorkingFolder::Escapes(_) => None,
        },
        unprivileged: !procs::is_root(),
    });
    let accounts = root::accounts_for(&sb.scratch_root.join(root::ACCOUNTS_FOLDER), owner)
        .map_err(|source| SandboxError::Scratch { path: sb.scratch_root.clone(), source })?;
    let steps = root::plan(access, &accounts, tmpfs.as_ref());
    let steps = root::encode(&steps).map_err(os("planning the run's root"))?;
    // What the box shows in place of the machine's files is what the ruleset grants.
    access.read_files.extend(accounts.iter().map(|(source, _)| source.clone()));
    let folder = std::ffi::CString::new(folder.root.as_os_str().as_encoded_bytes())
        .map_err(|_| SandboxError::Setup("a NUL byte in the scratch folder's path".into()))?;
    // The box holds the copy at its real path: the working folder as it resolves now.
    let cwd = cmd.cwd.canonicalize().unwrap_or_else(|_| cmd.cwd.clone());
    Ok((std::iter::once(folder).chain(steps).collect(), cwd))
}

/// How a run ended, once nothing of it is left.
struct Ended {
    /// The supervisor's report, if it made one.
    report: Option<Report>,
    exit: Exit,
    reaped: procs::Reaped,
    leftovers: bool,
    oom_kills: u64,
    memory_peak_bytes: Option<u64>,
    cgroup_cpu: Option<Duration>,
}

/// Kill and reap everything of the run, drain its pipes, read and remove its cgroup.
fn end(sb: &Sandbox, running: &mut Running, report_read: &OwnedFd, pump: &mut Pump) -> Result<Ended, SandboxError> {
    let pid = running.pid;
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
    if pump.drain(Instant::now() + sb.policy.drain).map_err(os("pipes"))? {
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
    let (oom_kills, memory_peak_bytes, cgroup_cpu) = match running.cgroup.take() {
        Some(cg) => {
            let stats = (cg.oom_kills(), cg.peak_bytes(), cg.cpu_time());
            cg.remove()?;
            stats
        }
        None => (0, None, None),
    };
    Ok(Ended { report, exit, reaped, leftovers, oom_kills, memory_peak_bytes, cgroup_cpu })
}

/// The run's outcome from what the watch saw and how it ended; a supervisor killed from outside
/// is the harness's failure, not an outcome of the program's.
fn outcome(
    limits: &Limits,
    started: Instant,
    watched: Watched,
    ended: Ended,
    mut pump: Pump,
    memory_cgroup: bool,
) -> Result<RunOutcome, SandboxError> {
    if ended.report.is_none_or(|r| r.no_status) && !watched.supervisor_killed && ended.oom_kills == 0 {
        // Killed from outside (an administrator, a system OOM killer): the program's status is
        // unknown, and what happened is not the student's doing.
        return Err(SandboxError::SupervisorLost { exit: ended.reaped.exit.describe() });
    }
    let (cpu, cpu_source) = match ended.cgroup_cpu {
        Some(cpu) => (cpu, CpuSource::Cgroup),
        None => (ended.reaped.cpu.max(watched.cpu_seen), CpuSource::Rusage),
    };
    let exit = ended.exit;
    let stderr = std::mem::take(&mut pump.err.buf);
    // Only a measurement over the limit, or a JVM that found its heap (sized by -Xmx, or by the
    // JVM from the cgroup's limit) full: never a failure to make a thread or a process.
    let memory_limit_hit = ended.oom_kills > 0 || watched.memory_killed || heap_exhausted(exit, &stderr);
    let (memory_source, memory_peak_bytes) = if memory_cgroup {
        (MemorySource::Cgroup, ended.memory_peak_bytes)
    } else {
        (MemorySource::Resident, (watched.memory_peak > 0).then_some(watched.memory_peak))
    };
    Ok(RunOutcome {
        exit,
        wall_limit_hit: watched.wall_limit_hit,
        cpu_limit_hit: watched.cpu_killed || exit == Exit::Signal(libc::SIGXCPU) || cpu > limits.cpu,
        memory_limit_hit,
        stdout: std::mem::take(&mut pump.out.buf),
        stdout_truncated: pump.out.truncated,
        stderr_truncated: pump.err.truncated,
        stderr,
        wall: (watched.exited_at - started).saturating_sub(watched.paused),
        cpu,
        cpu_source,
        memory_source,
        peak_rss_kb: ended.reaped.max_rss_kb,
        memory_peak_bytes,
        leftovers_killed: ended.leftovers,
        stdin_unwritten: pump.unwritten(),
    })
}

/// Whether a failed JVM says its heap (or another pool it sizes from its memory settings) was
/// full. `java.lang.OutOfMemoryError: unable to create native thread` (or `new native thread`)
/// is not one of them: it is a failed `clone` or thread-stack `mmap` (a pids or process limit,
/// or a data-segment limit), which says nothing of the memory the run used; and the words other
/// programs use when an allocation fails ("Cannot allocate memory", `MemoryError`) say nothing
/// of this run's limit either, which is enforced by the cgroup or by measurement, never by
/// making allocations fail.
fn heap_exhausted(exit: Exit, stderr: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"java.lang.OutOfMemoryError";
    if exit.success() {
        return false;
    }
    let mut rest = stderr;
    while let Some(at) = rest.windows(NEEDLE.len()).position(|w| w == NEEDLE) {
        let after = &rest[at + NEEDLE.len()..];
        let line = after.split(|&b| b == b'\n').next().unwrap_or_default();
        let says = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
        if !says(b"native thread") {
            return true;
        }
        rest = after;
    }
    false
}

#[cfg(test)]
impl RunOutcome {
    /// A run that exited with `exit` after printing `stdout`, using `cpu_ms` of CPU time and
    /// touching no limit: what unit tests of the stages after the sandbox start from.
    pub(crate) fn finished(exit: Exit, stdout: &[u8], cpu_ms: u64) -> RunOutcome {
        RunOutcome {
            exit,
            wall_limit_hit: false,
            cpu_limit_hit: false,
            memory_limit_hit: false,
            stdout: stdout.to_vec(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            wall: std::time::Duration::from_millis(cpu_ms + 10),
            cpu: std::time::Duration::from_millis(cpu_ms),
            cpu_source: CpuSource::Rusage,
            memory_source: MemorySource::Cgroup,
            peak_rss_kb: 1,
            memory_peak_bytes: None,
            leftovers_killed: false,
            stdin_unwritten: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_cannot_be_made_is_no_memory_limit() {
        let failed = Exit::Code(1);
        let thread =
            b"[0.1s][warning][os,thread] Failed to start thread \"GC Thread#3\" - pthread_create failed (EAGAIN)\n\
            Exception in thread \"main\" java.lang.OutOfMemoryError: unable to create native thread: possibly out of \
            memory or process/resource limits reached\n\tat java.base/java.lang.Thread.start0(Native Method)\n";
        assert!(!heap_exhausted(failed, thread));
        assert!(!heap_exhausted(failed, b"java.lang.OutOfMemoryError: unable to create new native thread\n"));
        assert!(heap_exhausted(failed, b"Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n"));
        let both = [&thread[..], b"java.lang.OutOfMemoryError: GC overhead limit exceeded\n"].concat();
        assert!(heap_exhausted(failed, &both));
        assert!(!heap_exhausted(Exit::Code(0), b"java.lang.OutOfMemoryError: Java heap space"));
        assert!(!heap_exhausted(failed, b"bash: fork: Cannot allocate memory\n"), "no longer read without a cgroup");
    }
}
