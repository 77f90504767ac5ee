//! The "run" stage: one untrusted [`Command`] under [`Limits`] → one [`RunOutcome`].
//!
//! A [`Sandbox`] is probed once per marking run ([`Sandbox::probe_with`], with a [`Policy`] made
//! from an [`Isolation`] mode): it finds out which isolation mechanisms this machine offers
//! (cgroup v1 or v2 memory, pids, cpuset and CPU-time accounting, PID, network and IPC
//! namespaces, a `/proc` of the run's own, keyrings, seccomp, Landlock, an unprivileged user,
//! a disk of each submission's own, a pidfd) and reports them as [`Layer`]s. Then
//! [`Sandbox::run`] may be called from many threads at once; each call:
//!
//! - makes a fresh run folder (the program's `HOME` and `TMPDIR`) and removes it afterwards;
//! - hands the run to a per-run supervisor parked ahead of time in its own session (no
//!   controlling terminal), process group, cgroup and namespaces (`sandbox/parked.rs`,
//!   `sandbox/pool.rs`), which pins itself to the run's CPUs when no cpuset does, and starts
//!   the program with a cleared environment, resource limits, a Landlock ruleset that leaves it
//!   only its scratch copy to write and five device files, an unprivileged user, a session
//!   keyring of its own and the seccomp filter (the supervisor's design is described in
//!   `sandbox/supervisor.rs`);
//! - feeds `stdin` through a pipe and reads stdout and stderr with a byte cap, all from one
//!   `poll` loop on the calling thread, so that no pipe can block the run past its limits;
//! - checks the CPU time of the run's whole process tree every few dozen milliseconds and
//!   kills the tree once it is past the CPU limit;
//! - on the wall-clock limit sends SIGTERM to the run, then SIGKILL after a grace;
//! - once the program has exited, makes sure nothing of it is left: the supervisor's namespace
//!   or subreaper sweep, then the process group and the cgroup.
//!
//! Under Landlock, a program may write only to its run folder and to the declared copy
//! ([`Sandbox::add_copy`]) its working folder is in, and read only the system folders and the
//! files named on its command line: a suite's expected answers and other students' work are
//! out of its reach. As root, programs run as `nobody`, and inputs that user cannot reach are
//! staged into the run folder.
//!
//! Failures of the harness itself are [`SandboxError`]s; everything the program does (crash,
//! hang, flood, exhaust memory) is described by a successful [`RunOutcome`].
//!
//! ```no_run
//! use bhgrade::sandbox::{Command, Limits, Sandbox};
//! use std::time::Duration;
//! let sandbox = Sandbox::probe(std::path::Path::new("/tmp/bhgrade-scratch"))?;
//! let cmd = Command::new("/bin/echo", "/tmp").arg("hello");
//! let limits = Limits {
//!     wall: Duration::from_secs(2),
//!     cpu: Duration::from_secs(1),
//!     memory_bytes: 256 << 20,
//!     output_bytes: 1 << 20,
//! };
//! let outcome = sandbox.run(&cmd, &limits)?;
//! assert_eq!(outcome.stdout, b"hello\n");
//! # Ok::<(), bhgrade::sandbox::SandboxError>(())
//! ```

mod cgroup;
mod cgroup_delegate;
mod cgroup_mount;
mod cgroup_probe;
mod child;
#[cfg(test)]
mod containment_tests;
mod io;
#[cfg(test)]
mod isolation_tests;
mod landlock;
mod layers;
mod own_scope;
mod parked;
mod policy;
mod pool;
mod procs;
mod quota;
mod root;
mod root_inside;
mod run;
mod scratch;
mod seccomp;
mod supervisor;
#[cfg(test)]
mod tests;
mod watch;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use cgroup::record_scope_failure;
pub use layers::{Layer, LayerName};
pub use own_scope::{own_scope, OwnScope, ScopeRequest};

/// Whether this machine mounts the unified cgroup hierarchy (v2) at `/sys/fs/cgroup`.
pub fn is_cgroup_v2() -> bool {
    cgroup_mount::is_cgroup_v2()
}

/// Whether systemd is this machine's init (what gives bhgrade a delegated scope on v2).
pub fn under_systemd() -> bool {
    use cgroup::CgroupFs;
    cgroup::Kernel.under_systemd()
}

/// Whether bhgrade runs as root (what the isolation advice depends on).
pub fn is_root() -> bool {
    procs::is_root()
}

/// bhgrade's effective uid.
pub fn uid() -> u32 {
    procs::uid()
}

/// The local user name of `uid`, from `/etc/passwd`.
pub fn user_name(uid: u32) -> Option<String> {
    procs::user_name(uid)
}
pub use policy::{Isolation, Policy, RunAs, DEFAULT_PATH, DEVICES, SYSTEM_FOLDERS};
pub use quota::{scratch_full, PrivateFolder};
pub use scratch::{sweep_stale, ScratchRoot, Swept};

/// Resource limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time from spawn to exit, a backstop for programs that wait: a run still going
    /// at it is stopped unless its CPU time is still growing (it is computing, slowly because
    /// the machine is busy), in which case it goes on, up to four times this.
    pub wall: Duration,
    /// CPU time (user + system) of the run's whole process tree: checked every few dozen
    /// milliseconds (from the run's cgroup, else from /proc), and the tree is killed once past
    /// it; `RLIMIT_CPU` a little above it is a per-process backstop.
    pub cpu: Duration,
    /// Memory of the whole run: the limit of its memory cgroup, or without one, the resident
    /// memory of all its processes, measured every 25 ms (the run is killed once past it).
    pub memory_bytes: u64,
    /// Cap on each of stdout and stderr; going past it ends the run (an output limit).
    pub output_bytes: usize,
}

/// One program to run: exec'd directly, never through a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    /// Written to the program's standard input through a pipe, which is then closed.
    pub stdin: Vec<u8>,
    /// Extra variables on top of the scrubbed environment (may override `PATH`, `HOME`...).
    pub env: Vec<(OsString, OsString)>,
    /// The CPUs (numbers as in `/proc/cpuinfo`) the run's whole process tree may use; empty:
    /// inherit the harness's. Set as the `cpuset.cpus` of the run's cgroup where the cpuset
    /// controller is available (the program cannot widen it), else as the affinity of the
    /// supervisor before it forks anything (which a program could widen with
    /// `sched_setaffinity`). A CPU the harness may not use is a [`SandboxError::Setup`].
    pub cpus: Vec<usize>,
}

impl Command {
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Command {
        Command {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            stdin: Vec::new(),
            env: Vec::new(),
            cpus: Vec::new(),
        }
    }

    /// Pin the run's whole process tree to these CPUs (see [`Command::cpus`]).
    pub fn cpus(mut self, cpus: impl IntoIterator<Item = usize>) -> Command {
        self.cpus = cpus.into_iter().collect();
        self
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Command {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Command {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Command {
        self.stdin = bytes.into();
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Command {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// How the main process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl Exit {
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }

    /// `exit status 3` or `signal 9 (SIGKILL)`, for reports.
    pub fn describe(self) -> String {
        match self {
            Exit::Code(code) => format!("exit status {code}"),
            Exit::Signal(sig) => match signal_name(sig) {
                Some(name) => format!("signal {sig} ({name})"),
                None => format!("signal {sig}"),
            },
        }
    }
}

/// The conventional name of a signal number, if it is one of the usual ones.
pub fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// Where [`RunOutcome::cpu`] was measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuSource {
    /// The run's cgroup (`cpuacct.usage` in v1, `cpu.stat` `usage_usec` in v2): every process
    /// of the run, whoever reaped it, to the microsecond.
    Cgroup,
    /// The supervisor's rusage: every process of the run, since the supervisor (or its init)
    /// reaps them all, at the kernel's tick granularity. Results stored before this field
    /// existed were measured so.
    #[default]
    Rusage,
}

/// What measured the memory of a run (and enforced its limit): [`RunOutcome::memory_source`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemorySource {
    /// The run's memory cgroup: the kernel kills at the limit (an OOM kill), and its peak is
    /// the cgroup's (page cache included). Results stored before this field existed were
    /// limited so, or by `RLIMIT_DATA`.
    #[default]
    Cgroup,
    /// No memory cgroup: the resident memory (anonymous and shared-memory pages, shared pages
    /// split among the processes sharing them) of every process of the run, summed from /proc
    /// every 25 ms; the run is killed once the sum is past the limit. Its peak is the largest
    /// sum seen.
    Resident,
}

/// Everything observed about one run. The flags are independent observations; deciding a
/// verdict from them (in a fixed order) is the caller's job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub exit: Exit,
    /// The run was still going at the wall-clock limit and was killed.
    pub wall_limit_hit: bool,
    /// The run's CPU time went past the limit (it was killed then, or ended just past it), or
    /// the `RLIMIT_CPU` backstop killed a process.
    pub cpu_limit_hit: bool,
    /// The run's memory went past the limit: the cgroup's OOM killer fired, or (no memory
    /// cgroup) its measured resident memory did and the run was killed; or a JVM reported its
    /// heap full (`java.lang.OutOfMemoryError`, but never `unable to create native thread`,
    /// which is a failed thread creation, not memory used).
    pub memory_limit_hit: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// More than `output_bytes` was written to stdout: the run was killed, the rest dropped.
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub wall: Duration,
    /// User + system time of every process of the run.
    pub cpu: Duration,
    /// Where `cpu` was measured.
    #[serde(default)]
    pub cpu_source: CpuSource,
    /// What measured the run's memory and enforced its limit.
    #[serde(default)]
    pub memory_source: MemorySource,
    /// Largest resident set of the process or any child it waited for (`ru_maxrss`).
    pub peak_rss_kb: u64,
    /// Peak memory of the run as `memory_source` measured it: the cgroup's (page cache
    /// included) when the kernel reports it, else the largest resident memory seen.
    pub memory_peak_bytes: Option<u64>,
    /// Processes of the run were still alive after the main one exited (and were killed).
    pub leftovers_killed: bool,
    /// Bytes of `stdin` the program never read before it exited or closed its input.
    pub stdin_unwritten: usize,
}

impl RunOutcome {
    /// stdout or stderr went past the output cap.
    pub fn output_limit_hit(&self) -> bool {
        self.stdout_truncated || self.stderr_truncated
    }
}

/// A failure of the harness (never the program's fault): the run could not be carried out or
/// observed properly, so its outcome must not be scored.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("scratch folder {path}: {source}")]
    Scratch { path: PathBuf, source: std::io::Error },
    #[error("cgroup {path}: {source}")]
    Cgroup { path: PathBuf, source: std::io::Error },
    #[error("processes of cgroup {path} survived SIGKILL: {pids:?}")]
    Unkillable { path: PathBuf, pids: Vec<i32> },
    #[error("could not start {program}: {source}")]
    Spawn { program: String, source: std::io::Error },
    #[error("{what}: {source}")]
    Os { what: &'static str, source: std::io::Error },
    #[error("{0}")]
    Setup(String),
    /// The run failed while the scratch file system had no room left: perhaps for want of the
    /// space another submission took, so never the student's result.
    #[error("the scratch file system holding {path} is full: the run failed for want of space, not by its own doing")]
    ScratchFull { path: PathBuf },
    /// The run's supervisor (or its init) was killed from outside before it could report the
    /// program's status ({exit}): the run is done again, and never counted against the student.
    #[error("the run's supervisor was killed from outside ({exit}) before it could report")]
    SupervisorLost { exit: String },
}

/// The probed machine: which mechanisms each run gets. Cheap to share between threads.
#[derive(Debug)]
pub struct Sandbox {
    scratch_root: PathBuf,
    policy: Policy,
    cgroups: Option<Arc<cgroup::Setup>>,
    cgroup_layers: Vec<Layer>,
    /// How runs are pinned to CPUs: by a cpuset (what it is), or why not.
    cpuset: Result<String, String>,
    /// Supervisors parked ahead of their runs; made at the first run.
    pool: OnceLock<pool::Pool>,
    pidfd: Result<(), String>,
    netns: Result<(), String>,
    pidns: Result<(), String>,
    ipcns: Result<(), String>,
    /// Whether each run gets a root of its own, built up from nothing (with a `/proc` of its own
    /// PID namespace), proven here.
    own_root: Result<(), String>,
    /// The files the box shows in place of the machine's (its `/etc/passwd` and `/etc/group`).
    accounts: Vec<(PathBuf, PathBuf)>,
    /// The filter every program gets, proven on this kernel.
    seccomp: Result<&'static seccomp::Filter, String>,
    /// Whether the kernel has keyrings (each run then gets a session keyring of its own).
    keyring: Result<(), String>,
    /// Whether each submission's folder can get a size-limited tmpfs of its own.
    quota: Result<(), String>,
    /// The kernel's Landlock ABI version.
    landlock: Result<u32, String>,
    run_as: Result<Option<RunAs>, String>,
    /// Private copies that programs started inside them may write to (see [`Sandbox::add_copy`]).
    copies: Mutex<Vec<PathBuf>>,
    /// Folders every program may read (see [`Sandbox::add_readable`]).
    readable: Mutex<Vec<PathBuf>>,
}

impl Sandbox {
    /// Probe with the default (`auto`) [`Policy`].
    pub fn probe(scratch_root: &Path) -> Result<Sandbox, SandboxError> {
        Sandbox::probe_with(scratch_root, Policy::default())
    }

    /// Find out what this machine offers. Missing mechanisms are not errors (they show in
    /// [`Sandbox::layers`]); an unusable scratch root is.
    pub fn probe_with(scratch_root: &Path, policy: Policy) -> Result<Sandbox, SandboxError> {
        let scratch_err = |source| SandboxError::Scratch { path: scratch_root.to_path_buf(), source };
        std::fs::create_dir_all(scratch_root).map_err(scratch_err)?;
        let scratch_root = scratch_root.canonicalize().map_err(scratch_err)?;
        tempfile::Builder::new().prefix("probe-").tempdir_in(&scratch_root).map_err(scratch_err)?;
        let (cgroups, cgroup_layers, cpuset) = if policy.use_cgroups {
            cgroup_probe::probe(policy.cgroup_parent.as_deref())
        } else {
            (None, cgroup::disabled_layers(), Err("cgroups disabled by policy".to_string()))
        };
        let run_as = match policy.run_as {
            None => Ok(None),
            Some(ids) if procs::is_root() => {
                if ids.uid == 0 {
                    Err("run_as names root itself".to_string())
                } else {
                    Ok(Some(ids))
                }
            }
            Some(_) => Err("the harness is not root, so it cannot switch user".to_string()),
        };
        let run_as = match run_as {
            Ok(Some(ids)) => {
                // The programs' user must be able to pass through to its scratch folders.
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&scratch_root, std::fs::Permissions::from_mode(0o711)).map_err(scratch_err)?;
                if scratch::searchable(&scratch_root, ids) {
                    Ok(Some(ids))
                } else {
                    Err(format!(
                        "uid {} cannot reach the scratch folder {} (a folder above it is private)",
                        ids.uid,
                        scratch_root.display()
                    ))
                }
            }
            other => other,
        };
        let disabled = || Err("disabled by policy".to_string());
        let (own_root, accounts) = if policy.own_root && policy.pid_namespace {
            let ids = match &run_as {
                Ok(Some(ids)) => (ids.uid, ids.gid),
                Ok(None) | Err(_) => (procs::uid(), procs::gid()),
            };
            match root::write_accounts(&scratch_root.join("box-etc"), ids.0, ids.1) {
                Ok(accounts) => (root_inside::probe(&scratch_root), accounts),
                Err(e) => (Err(format!("writing the box's accounts: {e}")), Vec::new()),
            }
        } else {
            (disabled(), Vec::new())
        };
        Ok(Sandbox {
            pidfd: procs::probe_pidfd(),
            netns: if policy.isolate_network { procs::probe_unshare(libc::CLONE_NEWNET) } else { disabled() },
            pidns: if policy.pid_namespace { procs::probe_unshare(libc::CLONE_NEWPID) } else { disabled() },
            ipcns: if policy.isolate_ipc { procs::probe_unshare(libc::CLONE_NEWIPC) } else { disabled() },
            own_root,
            accounts,
            seccomp: if policy.seccomp { seccomp::probe() } else { Err("disabled by policy".to_string()) },
            keyring: procs::probe_keyring(),
            quota: if policy.disk_quota { quota::probe(&scratch_root) } else { disabled() },
            landlock: if policy.landlock { landlock::probe() } else { Err("disabled by policy".to_string()) },
            scratch_root,
            policy,
            cgroups: cgroups.map(Arc::new),
            cgroup_layers,
            cpuset,
            pool: OnceLock::new(),
            run_as,
            copies: Mutex::new(Vec::new()),
            readable: Mutex::new(Vec::new()),
        })
    }

    /// Run one command. Thread-safe: many runs may go on at once.
    pub fn run(&self, cmd: &Command, limits: &Limits) -> Result<RunOutcome, SandboxError> {
        run::run(self, cmd, limits)
    }

    /// The parked supervisors of this sandbox, made at the first run from what was probed.
    fn pool(&self) -> &pool::Pool {
        self.pool.get_or_init(|| {
            let mut namespaces = 0;
            if self.netns.is_ok() {
                namespaces |= libc::CLONE_NEWNET;
            }
            if self.pidns.is_ok() {
                namespaces |= libc::CLONE_NEWPID;
            }
            if self.ipcns.is_ok() {
                namespaces |= libc::CLONE_NEWIPC;
            }
            let unshare = procs::unshare_flags(namespaces);
            pool::Pool::new(pool::Recipe {
                cgroups: self.cgroups.clone(),
                pids_max: self.policy.pids_max,
                plan: supervisor::SplitSpec {
                    unshare,
                    map_ids: (unshare & libc::CLONE_NEWUSER != 0).then(|| (procs::uid(), procs::gid())),
                    report_fd: -1,
                    harness: std::process::id() as i32,
                    seccomp: self.seccomp.as_ref().ok().copied(),
                    own_root: self.own_root_active(),
                },
            })
        })
    }

    /// Declare a private copy (a submission's scratch folder): a program whose working folder
    /// is inside it may write anywhere in it. Outside every such copy, a program writes only
    /// to its own run folder (`HOME`) under Landlock. `build::prepare` declares its copies;
    /// copies that no longer exist are forgotten.
    pub fn add_copy(&self, dir: &Path) {
        remember(&self.copies, dir);
    }

    /// A fresh folder for one submission's copy, build and scratch in `parent`: on a tmpfs of
    /// [`Policy::disk_bytes`] of its own where the machine allows (see `sandbox/quota.rs`).
    pub fn private_folder(&self, parent: &Path, prefix: &str) -> std::io::Result<PrivateFolder> {
        quota::private_folder(parent, prefix, self.quota.is_ok().then_some(self.policy.disk_bytes))
    }

    /// Declare a folder every program may read but none may write (a stacscheck tree's one
    /// copy, outside every submission's, which no student can rename or change).
    pub fn add_readable(&self, dir: &Path) {
        remember(&self.readable, dir);
    }

    /// Where `cwd` is: beneath a declared copy without a link on the way, outside every copy,
    /// or reached through a link the student made (see [`scratch::WorkingFolder`]).
    fn working_folder(&self, cwd: &Path) -> scratch::WorkingFolder {
        let copies = self.copies.lock().unwrap_or_else(|e| e.into_inner());
        scratch::WorkingFolder::of(cwd, &copies)
    }

    fn readable_folders(&self) -> Vec<PathBuf> {
        self.readable.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn scratch_root(&self) -> &Path {
        &self.scratch_root
    }

    /// The user programs run as, when switching user is active.
    pub fn run_as(&self) -> Option<RunAs> {
        self.run_as.clone().ok().flatten()
    }

    /// Whether each run's memory is bounded by a cgroup (else it is measured: see
    /// [`MemorySource::Resident`]).
    pub fn memory_cgroup_active(&self) -> bool {
        self.cgroups.as_ref().is_some_and(|c| c.has_memory())
    }

    /// Whether each run gets a root of its own (`sandbox/root.rs`).
    fn own_root_active(&self) -> bool {
        self.pidns.is_ok() && self.own_root.is_ok()
    }

    /// Whether each run's tasks are bounded by a pids cgroup.
    fn pids_cgroup_active(&self) -> bool {
        self.cgroups.as_ref().is_some_and(|c| c.has_pids())
    }

    /// Whether a run gets a user namespace of its own (an ordinary user's harness making PID
    /// or network namespaces).
    fn own_user_namespace(&self) -> bool {
        !procs::is_root() && (self.netns.is_ok() || self.pidns.is_ok() || self.ipcns.is_ok())
    }

    /// `RLIMIT_NPROC` of each program, where no pids cgroup bounds the run and the limit
    /// counts only processes that are not the marker's own: the run's alone in its own user
    /// namespace (Linux 5.14 on counts per user namespace), which gets the pids cgroup's own
    /// per-run limit (so a program's thread count meets the same ceiling with cgroups or
    /// without, and concurrent fork bombs stay far inside the marker's own tasks limit, such as
    /// a service's `TasksMax`); or every process of the user programs run as when root switches
    /// to it, which gets [`child::nproc_backstop`] for all runs together.
    pub(crate) fn nproc_backstop(&self) -> Option<u64> {
        self.nproc_scope().ok()?;
        Some(if self.run_as().is_some() { child::nproc_backstop() } else { self.policy.pids_max })
    }

    /// What the `RLIMIT_NPROC` backstop counts (`Ok`), or why there is none (`Err`).
    fn nproc_scope(&self) -> Result<&'static str, String> {
        if self.pids_cgroup_active() {
            return Err("not needed: a pids cgroup bounds each run".into());
        }
        if self.run_as().is_some() {
            return Ok("every process of that user on the machine");
        }
        if self.own_user_namespace() {
            return match procs::kernel_version() {
                Some(v) if v >= (5, 14) => Ok("the run's own processes, in its user namespace"),
                _ => Err("this kernel (before 5.14) counts every process of the user, in every user namespace".into()),
            };
        }
        Err("programs run as the harness's own user, whose every process would count".into())
    }
}

/// Add `dir` (as its real path) to a list of declared folders once, forgetting those that no
/// longer exist.
fn remember(folders: &Mutex<Vec<PathBuf>>, dir: &Path) {
    let Ok(dir) = dir.canonicalize() else { return };
    let mut folders = folders.lock().unwrap_or_else(|e| e.into_inner());
    folders.retain(|d| d.exists());
    if !folders.contains(&dir) {
        folders.push(dir);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // With the filter, no run could add a key; without it, none may outlive the marking.
        if let (Err(_), Some(ids)) = (&self.seccomp, self.run_as()) {
            procs::clear_keyrings_of(ids);
        }
    }
}

/// The command as a shell line a student can paste (extra environment first), for reports.
pub fn describe(cmd: &Command) -> String {
    let mut words: Vec<String> =
        cmd.env.iter().map(|(k, v)| format!("{}={}", k.to_string_lossy(), shell_quote(v))).collect();
    words.push(shell_quote(&cmd.program));
    words.extend(cmd.args.iter().map(|a| shell_quote(a)));
    words.join(" ")
}

/// Quote one word for a POSIX shell; plain words stay as they are.
pub fn shell_quote(word: &OsStr) -> String {
    let text = word.to_string_lossy();
    let plain = !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
