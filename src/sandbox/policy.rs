//! What a sandbox is asked to do: an [`Isolation`] mode (what the marker typed) → a [`Policy`]
//! (every setting that holds for all runs of one sandbox), with [`RunAs`] naming the user that
//! programs run as when the harness is root.

use std::ffi::OsString;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use super::procs;

/// How much isolation to ask for (`--isolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isolation {
    /// Use every layer the machine offers; each missing one is a warning.
    Auto,
    /// Like `Auto`, but marking must refuse to start when a required layer is missing.
    Strict,
    /// Only the layers that enforce the limits (process group, supervisor, rlimits, cgroups):
    /// no namespaces, no Landlock, no user switch. For debugging trusted code.
    Off,
}

impl Isolation {
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Auto => "auto",
            Isolation::Strict => "strict",
            Isolation::Off => "off",
        }
    }
}

impl FromStr for Isolation {
    type Err = String;

    fn from_str(text: &str) -> Result<Isolation, String> {
        match text {
            "auto" => Ok(Isolation::Auto),
            "strict" => Ok(Isolation::Strict),
            "off" => Ok(Isolation::Off),
            other => Err(format!("unknown isolation mode `{other}` (auto, strict or off)")),
        }
    }
}

impl std::fmt::Display for Isolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Numeric user and group the programs run as (root only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunAs {
    pub uid: u32,
    pub gid: u32,
}

impl RunAs {
    /// The system's `nobody` user (65534 when the password database does not say).
    pub fn nobody() -> RunAs {
        procs::user_ids("nobody").map_or(RunAs { uid: 65534, gid: 65534 }, |(uid, gid)| RunAs { uid, gid })
    }
}

/// Settings that hold for every run of a sandbox (as opposed to per-run [`super::outcome::Limits`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// `pids.max` of each run's cgroup: tasks, so JVM threads count (a JVM runs 15–20), and
    /// so do the run's supervisor and, with a PID namespace, its init.
    pub pids_max: u64,
    /// `RLIMIT_FSIZE`: the largest file a program may write.
    pub file_size_bytes: u64,
    /// `PATH` given to programs.
    pub path: OsString,
    /// Use cgroups when the machine offers them (false forces the rlimit fallback).
    pub use_cgroups: bool,
    /// Give each run an empty network namespace when the machine allows it.
    pub isolate_network: bool,
    /// Give each run its own PID namespace (its supervisor's init dies last and takes every
    /// process of the run with it); without one, the supervisor is a child subreaper.
    pub pid_namespace: bool,
    /// Give each run with a PID namespace a root of its own, built up from nothing where the
    /// machine allows it (`sandbox/root.rs`): only what [`Policy::readable`], the run's copy,
    /// folder and inputs and [`DEVICES`] name, and a `/proc` of its own.
    pub own_root: bool,
    /// Give each run its own IPC namespace (SysV objects and POSIX message queues of its own,
    /// gone with the run) when the machine allows it.
    pub isolate_ipc: bool,
    /// Restrict each run's file access with Landlock when the kernel has it.
    pub landlock: bool,
    /// Give each submission's folder a size-limited tmpfs of its own where the machine allows
    /// (root), of `disk_bytes`.
    pub disk_quota: bool,
    pub disk_bytes: u64,
    /// Files (inodes) on that tmpfs, and on the overlay a pristine run writes in: a run that
    /// makes millions of empty files fills its own, never the machine's.
    pub disk_files: u64,
    /// Install the seccomp filter (`sandbox/seccomp.rs`) in every program when the kernel has it.
    pub seccomp: bool,
    /// Folders a program may read and execute from under Landlock (those that exist): the
    /// system, where the JDK and the shell live. Never the harness's home, `/tmp` or `/work`.
    pub readable: Vec<PathBuf>,
    /// Run programs as this user when the harness is root. Everything a program must read or
    /// write (its scratch copy) is handed over to that user by `build::prepare`, and inputs it
    /// could not reach are staged into its run folder.
    pub run_as: Option<RunAs>,
    /// As root, the uids (first, count) lent one to each submission being marked, each with the
    /// gid of the same number (`sandbox/identity.rs`): none may be an account, a group or the
    /// uid of a running process. As an ordinary user, the numbers the ids lent from its
    /// subordinate ids have inside each run's user namespace (`sandbox/subids.rs`). `None`:
    /// every submission runs as [`Policy::run_as`] (or as the marker).
    pub identities: Option<(u32, u32)>,
    /// Parent cgroup directory to create run cgroups in (cgroup v2: a delegated subtree);
    /// default: the harness's own cgroup.
    pub cgroup_parent: Option<PathBuf>,
    /// Time between SIGTERM and SIGKILL at the wall-clock limit.
    pub grace: Duration,
    /// How long to keep reading pipes after everything of the run was killed; only a process
    /// that escaped every kill can hold them that long.
    pub drain: Duration,
}

/// Where a JDK, a shell and their libraries live on the usual Linux systems. Not `/dev`: a
/// program gets only [`DEVICES`] of it, never a terminal (`/dev/tty`, `/dev/pts`), `/dev/shm` or
/// `/dev/mqueue`. Not `/etc` as a whole: only `ETC_ENTRIES` of it. `/sys` only where a run has
/// no root of its own (a JVM reads its cgroup there).
pub const SYSTEM_FOLDERS: &[&str] =
    &["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt", "/proc", "/sys"];

/// What of `/etc` a program may read: the links that name the JDK (`alternatives`), its
/// configuration (every entry whose name begins with `java`), the dynamic linker's cache, time
/// zone, name-service switch and certificates; and the accounts (`passwd`, `group`), which a
/// root of the run's own shows as the harness's own short list, not the machine's.
pub const ETC_ENTRIES: &[&str] = &[
    "alternatives",
    "ca-certificates",
    "group",
    "host.conf",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "ssl",
    "timezone",
];

/// [`SYSTEM_FOLDERS`] and the [`ETC_ENTRIES`] of this machine's `/etc` (with every `java*`).
pub fn system_readable() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = SYSTEM_FOLDERS.iter().map(PathBuf::from).collect();
    let etc = std::path::Path::new("/etc");
    paths.extend(ETC_ENTRIES.iter().map(|name| etc.join(name)));
    if let Ok(entries) = std::fs::read_dir(etc) {
        let mut java: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().as_encoded_bytes().starts_with(b"java"))
            .map(|e| e.path())
            .collect();
        java.sort();
        paths.extend(java);
    }
    paths
}

/// The device files a program may open (read and write, no ioctl where Landlock can say so).
pub const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// The uids lent to submissions by default: 60000-60999, as isolate's boxes use, below the range
/// systemd gives its dynamic users (61184 on).
pub const DEFAULT_IDENTITIES: (u32, u32) = (60000, 1000);

pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

impl Policy {
    /// The policy of a mode: `Auto` and `Strict` ask for every layer (and, as root, the
    /// `nobody` user); `Off` for none beyond those that enforce the limits. Cgroups stay on in
    /// every mode: they are how memory is limited, and a JVM does not start under the
    /// `RLIMIT_DATA` fallback unless the suite gives it `-Xmx`.
    pub fn for_isolation(mode: Isolation) -> Policy {
        let on = match mode {
            Isolation::Auto | Isolation::Strict => true,
            Isolation::Off => false,
        };
        Policy {
            pids_max: 256,
            file_size_bytes: 64 << 20,
            path: std::env::var_os("PATH").filter(|p| !p.is_empty()).unwrap_or_else(|| OsString::from(DEFAULT_PATH)),
            use_cgroups: true,
            isolate_network: on,
            pid_namespace: on,
            isolate_ipc: on,
            own_root: on,
            landlock: on,
            seccomp: on,
            disk_quota: on,
            disk_bytes: 1 << 30,
            disk_files: 1 << 16,
            readable: system_readable(),
            run_as: (on && procs::is_root()).then(RunAs::nobody),
            identities: on.then_some(DEFAULT_IDENTITIES),
            cgroup_parent: None,
            grace: Duration::from_millis(200),
            drain: Duration::from_millis(200),
        }
    }
}

impl Default for Policy {
    /// The `auto` policy.
    fn default() -> Policy {
        Policy::for_isolation(Isolation::Auto)
    }
}
