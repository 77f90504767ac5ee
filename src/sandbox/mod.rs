//! The "run" stage: one untrusted [`Command`] under [`Limits`] → one [`RunOutcome`].
//!
//! A [`Sandbox`] is probed once per marking run ([`Sandbox::probe`]): it finds out which
//! isolation mechanisms this machine offers (cgroup v1 or v2 memory and pids controllers, a
//! pidfd, a network namespace, an unprivileged user) and reports them as [`Layer`]s. Then
//! [`Sandbox::run`] may be called from many threads at once; each call:
//!
//! - makes a fresh scratch folder (the program's `HOME` and `TMPDIR`) and removes it afterwards;
//! - execs the program directly (no shell) in its own process group, with a cleared environment,
//!   resource limits, and (where available) its own cgroup and network namespace;
//! - feeds `stdin` through a pipe and reads stdout and stderr with a byte cap, all from one
//!   `poll` loop on the calling thread, so that no pipe can block the run past its limits;
//! - on the wall-clock limit sends SIGTERM to everything of the run, then SIGKILL after a grace;
//! - once the main process has exited, kills whatever it left behind (its process group, and
//!   every process of its cgroup, which catches `setsid` escapers) before reaping it.
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
mod child;
mod io;
mod procs;
mod run;
#[cfg(test)]
mod tests;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Resource limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time from spawn to exit.
    pub wall: Duration,
    /// CPU time (user + system) of the process and the children it waited for.
    pub cpu: Duration,
    /// Memory of the whole run (cgroup), or of each process (`RLIMIT_DATA`) without cgroups.
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
}

impl Command {
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Command {
        Command { program: program.into(), args: Vec::new(), cwd: cwd.into(), stdin: Vec::new(), env: Vec::new() }
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

/// Everything observed about one run. The flags are independent observations; deciding a
/// verdict from them (in a fixed order) is the caller's job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub exit: Exit,
    /// The run was still going at the wall-clock limit and was killed.
    pub wall_limit_hit: bool,
    /// CPU time went past the limit, or the `RLIMIT_CPU` backstop killed it.
    pub cpu_limit_hit: bool,
    /// The cgroup's OOM killer fired, or the program reported running out of memory
    /// (`java.lang.OutOfMemoryError`; without cgroups also the usual allocation failures).
    pub memory_limit_hit: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// More than `output_bytes` was written to stdout: the run was killed, the rest dropped.
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub wall: Duration,
    pub cpu: Duration,
    /// Largest resident set of the process or any child it waited for (`ru_maxrss`).
    pub peak_rss_kb: u64,
    /// Peak memory of the whole cgroup (page cache included), when cgroups are active and the
    /// kernel reports it.
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

/// One isolation mechanism, for reports and the `doctor` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layer {
    pub name: String,
    pub active: bool,
    /// What it does here, or why it is not active (with the OS error).
    pub detail: String,
}

/// Numeric user and group the programs run as (root only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunAs {
    pub uid: u32,
    pub gid: u32,
}

/// Settings that hold for every run of a sandbox (as opposed to per-run [`Limits`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// `pids.max` of each run's cgroup: tasks, so JVM threads count (a JVM runs 15–20).
    pub pids_max: u64,
    /// `RLIMIT_FSIZE`: the largest file a program may write.
    pub file_size_bytes: u64,
    /// `PATH` given to programs.
    pub path: OsString,
    /// Use cgroups when the machine offers them (false forces the rlimit fallback).
    pub use_cgroups: bool,
    /// Give each run an empty network namespace when the machine allows it.
    pub isolate_network: bool,
    /// Run programs as this user when the harness is root. Off by default because everything
    /// a program must read or write (its scratch copy, the test scripts) has to be accessible
    /// to that user; `build::prepare` hands its copies over when this is set.
    pub run_as: Option<RunAs>,
    /// Parent cgroup directory to create run cgroups in (cgroup v2: a delegated subtree);
    /// default: the harness's own cgroup.
    pub cgroup_parent: Option<PathBuf>,
    /// Time between SIGTERM and SIGKILL at the wall-clock limit.
    pub grace: Duration,
    /// How long to keep reading pipes after everything of the run was killed; only a process
    /// that escaped every kill can hold them that long.
    pub drain: Duration,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            pids_max: 256,
            file_size_bytes: 64 << 20,
            path: std::env::var_os("PATH").filter(|p| !p.is_empty()).unwrap_or_else(|| OsString::from(DEFAULT_PATH)),
            use_cgroups: true,
            isolate_network: true,
            run_as: None,
            cgroup_parent: None,
            grace: Duration::from_millis(200),
            drain: Duration::from_millis(200),
        }
    }
}

pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

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
}

/// The probed machine: which mechanisms each run gets. Cheap to share between threads.
#[derive(Debug)]
pub struct Sandbox {
    scratch_root: PathBuf,
    policy: Policy,
    cgroups: Option<cgroup::Setup>,
    cgroup_layers: Vec<Layer>,
    pidfd: Result<(), String>,
    netns: Result<(), String>,
    run_as: Result<Option<RunAs>, String>,
}

impl Sandbox {
    /// Probe with the default [`Policy`].
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
        let (cgroups, cgroup_layers) = if policy.use_cgroups {
            cgroup::Setup::probe(policy.cgroup_parent.as_deref())
        } else {
            (None, cgroup::disabled_layers())
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
        if let Ok(Some(_)) = run_as {
            // The programs' user must be able to pass through to its scratch folders.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&scratch_root, std::fs::Permissions::from_mode(0o711)).map_err(scratch_err)?;
        }
        Ok(Sandbox {
            pidfd: procs::probe_pidfd(),
            netns: if policy.isolate_network { procs::probe_netns() } else { Err("disabled by policy".to_string()) },
            scratch_root,
            policy,
            cgroups,
            cgroup_layers,
            run_as,
        })
    }

    /// Run one command. Thread-safe: many runs may go on at once.
    pub fn run(&self, cmd: &Command, limits: &Limits) -> Result<RunOutcome, SandboxError> {
        run::run(self, cmd, limits)
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

    /// Whether each run's memory is bounded by a cgroup (else by `RLIMIT_DATA` per process,
    /// which a JVM needs `-Xmx` to live with).
    pub fn memory_cgroup_active(&self) -> bool {
        self.cgroups.as_ref().is_some_and(|c| c.has_memory())
    }

    /// What is active, in a fixed order, with the reason for everything that is not.
    pub fn layers(&self) -> Vec<Layer> {
        let mut layers = vec![Layer {
            name: "process group".into(),
            active: true,
            detail: "own process group; SIGTERM, grace, SIGKILL to the group; leftovers killed".into(),
        }];
        layers.extend(self.cgroup_layers.iter().cloned());
        let memory_fallback = !self.memory_cgroup_active();
        layers.push(Layer {
            name: "rlimits".into(),
            active: true,
            detail: format!(
                "RLIMIT_CPU = cpu limit + 1 s (backstop), RLIMIT_FSIZE = {} MiB, RLIMIT_CORE = 0{}",
                self.policy.file_size_bytes >> 20,
                if memory_fallback { ", RLIMIT_DATA = memory limit (no memory cgroup)" } else { "" }
            ),
        });
        layers.push(match &self.pidfd {
            Ok(()) => layer("pidfd", true, "exit noticed through a pidfd".into()),
            Err(why) => layer("pidfd", false, format!("{why}; a waiter thread per run instead")),
        });
        layers.push(match &self.netns {
            Ok(()) => layer("network namespace", true, "no network (empty namespace)".into()),
            Err(why) => layer("network namespace", false, why.clone()),
        });
        layers.push(match &self.run_as {
            Ok(Some(ids)) => {
                layer("unprivileged user", true, format!("programs run as uid {} gid {}", ids.uid, ids.gid))
            }
            Ok(None) if procs::is_root() => {
                layer("unprivileged user", false, "programs run as root (Policy::run_as not set)".into())
            }
            Ok(None) => layer(
                "unprivileged user",
                true,
                format!("programs run as the harness's own user (uid {})", procs::uid()),
            ),
            Err(why) => layer("unprivileged user", false, why.clone()),
        });
        layers
    }
}

fn layer(name: &str, active: bool, detail: String) -> Layer {
    Layer { name: name.to_string(), active, detail }
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
