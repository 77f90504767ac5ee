//! The sandbox's shared words, at the bottom of its room: the [`Limits`] a run gets, how it
//! ended ([`Exit`]), everything observed of it ([`RunOutcome`]), and the harness's own failures
//! ([`SandboxError`]). Imports nothing of its siblings; every other file of the sandbox may use
//! it.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

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

impl Limits {
    /// The limits as text for a digest (the plan's, the store's keys): every field by name, in
    /// whole units, so that no change to a type's `Debug` or to the fields' order can change a
    /// digest unnoticed; pinned by a test.
    pub fn digest_text(&self) -> String {
        format!(
            "wall_ns={} cpu_ns={} memory_bytes={} output_bytes={}",
            self.wall.as_nanos(),
            self.cpu.as_nanos(),
            self.memory_bytes,
            self.output_bytes
        )
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
    /// every 25 ms with the bytes the run wrote into its own tmpfs; the run is killed once the
    /// sum is past the limit. Its peak is the largest sum seen.
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
    /// What the run printed, as bytes (stored as base64 text: see `as_base64` below).
    #[serde(with = "as_base64")]
    pub stdout: Vec<u8>,
    #[serde(with = "as_base64")]
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
    /// `holder` names the copy that holds the most of it, where one does.
    #[error("the scratch file system holding {path} is full{holder}: the run failed for want of space, not by its own doing")]
    ScratchFull { path: PathBuf, holder: String },
    /// The run's supervisor (or its init) was killed from outside before it could report the
    /// program's status ({exit}): the run is done again, and never counted against the student.
    #[error("the run's supervisor was killed from outside ({exit}) before it could report")]
    SupervisorLost { exit: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change here changes every stored result's key and every suite digest in reports: make
    /// it only on purpose.
    #[test]
    fn the_digest_text_of_limits_is_pinned() {
        let limits = Limits {
            wall: Duration::from_millis(2500),
            cpu: Duration::from_secs(2),
            memory_bytes: 256 << 20,
            output_bytes: 64 << 10,
        };
        assert_eq!(
            limits.digest_text(),
            "wall_ns=2500000000 cpu_ns=2000000000 memory_bytes=268435456 output_bytes=65536"
        );
    }
}

/// A run's output in a stored result: base64 text (4 characters per 3 bytes printed), where a
/// JSON array of byte numbers took up to 4 per byte. Results stored as arrays by earlier
/// versions are read as they are.
pub mod as_base64 {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    const ENGINE: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&ENGINE.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Text(String),
            Numbers(Vec<u8>),
        }
        match Stored::deserialize(deserializer)? {
            Stored::Text(text) => ENGINE.decode(text).map_err(serde::de::Error::custom),
            Stored::Numbers(bytes) => Ok(bytes),
        }
    }
}

#[cfg(test)]
mod stream_tests {
    use super::*;

    fn outcome(stdout: Vec<u8>) -> RunOutcome {
        RunOutcome {
            exit: Exit::Code(0),
            wall_limit_hit: false,
            cpu_limit_hit: false,
            memory_limit_hit: false,
            stdout,
            stderr: Vec::new(),
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

    /// Issue 47: a run that prints 1 MiB is stored in about 1.33 MiB, not 3 to 4.
    #[test]
    fn output_is_stored_as_base64_and_read_back_byte_for_byte() {
        let printed: Vec<u8> = (0..1 << 20).map(|i: u32| (i * 7 % 256) as u8).collect();
        let stored = serde_json::to_vec(&outcome(printed.clone())).unwrap();
        assert!(stored.len() < printed.len() * 14 / 10, "{} bytes stored for {}", stored.len(), printed.len());
        let read: RunOutcome = serde_json::from_slice(&stored).unwrap();
        assert_eq!(read.stdout, printed);
    }

    #[test]
    fn results_stored_as_arrays_are_read() {
        let mut value = serde_json::to_value(outcome(b"1 2\n".to_vec())).unwrap();
        value["stdout"] = serde_json::json!([49, 32, 50, 10]);
        let read: RunOutcome = serde_json::from_value(value).unwrap();
        assert_eq!(read.stdout, b"1 2\n");
    }
}
