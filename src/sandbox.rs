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
//! The run's file system is built up from nothing (`root.rs`, `root_inside.rs`): its init
//! pivots into a fresh root holding only what the run's allow-list names (the system folders,
//! the JDKs, a part of `/etc`, its inputs, its copy and folder, five devices, its own `/proc`),
//! and Landlock grants the same list, so a program may write only to its run folder and to the
//! declared copy ([`Sandbox::add_copy`]) its working folder is in, and read only the system
//! folders and the files named on its command line: a suite's expected answers and other
//! students' work are out of its reach. A run's `HOME`, its private `/tmp` and (a program's run,
//! [`Command::pristine`]) an overlay of its copy are in one tmpfs of its own, bounded in bytes
//! and files, gone with it. As root, each submission runs as a uid of its own
//! (`identity.rs`), else as `nobody`, and inputs that user cannot reach are staged into the run
//! folder; as an ordinary user, as one of its subordinate ids where it has them (`subids.rs`),
//! else as the marker.
//!
//! The files of this room, bottom up: `outcome.rs` (the shared words), `policy.rs`, `procs.rs`,
//! the layers' own files (`cgroup/`, `landlock.rs`, `seccomp.rs`, `quota.rs`, `subids.rs`, `identity.rs`,
//! `root_inside.rs` and `root.rs`), the run's machinery (`scratch.rs`, `child.rs`,
//! `supervisor.rs`, `parked.rs`, `pool.rs`, `io.rs`, `watch.rs`, `run.rs`), and `layers.rs`,
//! which describes them all.
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
#[cfg(test)]
mod containment_tests;
mod held;
mod identity;
mod io;
#[cfg(test)]
mod isolation_tests;
mod landlock;
mod layers;
mod outcome;
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
mod subids;
mod supervisor;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
mod watch;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub use cgroup::record_scope_failure;
pub use cgroup::{own_scope, OwnScope, ScopeRequest};
pub use identity::Identity;
pub use layers::{Layer, LayerName};
pub use outcome::{signal_name, CpuSource, Exit, Limits, MemorySource, RunOutcome, SandboxError};

/// Whether this machine mounts the unified cgroup hierarchy (v2) at `/sys/fs/cgroup`.
pub fn is_cgroup_v2() -> bool {
    cgroup::is_cgroup_v2()
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
pub use policy::{Isolation, Policy, RunAs, DEFAULT_IDENTITIES, DEFAULT_PATH, DEVICES, SYSTEM_FOLDERS};
pub use quota::{scratch_full, PrivateFolder};
pub use scratch::{sweep_stale, ScratchRoot, Swept};

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
    /// Start from the working folder's copy as it was before the run, and keep nothing the run
    /// writes there: an overlay of the copy, gone with the run, so that no run of a submission
    /// sees what another left (its build's output aside). Needs a root of its own
    /// ([`LayerName::OwnRoot`]); without one the run writes the copy itself.
    pub pristine: bool,
    /// Whether the run may read the folders declared with [`Sandbox::add_readable`] (a
    /// stacscheck tree's tests): a build step may not.
    pub reads_shared: bool,
    /// The identity to run as (root only): the submission's own ([`Sandbox::identity`]);
    /// `None`, the sandbox's shared user.
    pub run_as: Option<RunAs>,
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
            pristine: false,
            reads_shared: true,
            run_as: None,
        }
    }

    /// Run it as this identity (see [`Command::run_as`]).
    pub fn run_as(mut self, ids: Option<RunAs>) -> Command {
        self.run_as = ids;
        self
    }

    /// Run it on a pristine overlay of its copy (see [`Command::pristine`]).
    pub fn pristine(mut self, pristine: bool) -> Command {
        self.pristine = pristine;
        self
    }

    /// Keep the declared shared folders out of its reach (see [`Command::reads_shared`]).
    pub fn without_shared_folders(mut self) -> Command {
        self.reads_shared = false;
        self
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

/// The folder of the scratch root that holds the box's own accounts (`root::accounts_for`).
const ACCOUNTS_FOLDER: &str = "box-etc";

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
    /// Whether a run may start from its copy as built and keep none of its writes (an overlay
    /// in its root), proven here.
    pristine: Result<(), String>,
    /// The filter every program gets, proven on this kernel.
    seccomp: Result<&'static seccomp::Filter, String>,
    /// Whether the kernel has keyrings (each run then gets a session keyring of its own).
    keyring: Result<(), String>,
    /// Whether each submission's folder can get a size-limited tmpfs of its own.
    quota: Result<(), String>,
    /// The kernel's Landlock ABI version.
    landlock: Result<u32, String>,
    run_as: Result<Option<RunAs>, String>,
    /// The identities lent to submissions (as root, uids of the machine's; as an ordinary user,
    /// its subordinate ids), or why there are none.
    identities: Result<identity::Identities, String>,
    /// An ordinary user's subordinate ids, proven here, which map each run's user namespace
    /// (`subids.rs`); or why there are none.
    subids: Result<Arc<subids::SubIds>, String>,
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
            cgroup::probe(policy.cgroup_parent.as_deref())
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
        let netns = if policy.isolate_network { procs::probe_unshare(libc::CLONE_NEWNET) } else { disabled() };
        let pidns = if policy.pid_namespace { procs::probe_unshare(libc::CLONE_NEWPID) } else { disabled() };
        let ipcns = if policy.isolate_ipc { procs::probe_unshare(libc::CLONE_NEWIPC) } else { disabled() };
        let own_root = if policy.own_root && policy.pid_namespace {
            let ids = match &run_as {
                Ok(Some(ids)) => (ids.uid, ids.gid),
                Ok(None) | Err(_) => (procs::uid(), procs::gid()),
            };
            match root::accounts_for(&scratch_root.join(ACCOUNTS_FOLDER), ids) {
                Ok(_) => root_inside::probe(&scratch_root),
                Err(e) => Err(format!("writing the box's accounts: {e}")),
            }
        } else {
            disabled()
        };
        let pristine = match &own_root {
            Ok(()) => root::probe_run_tmpfs(&scratch_root, policy.disk_files),
            Err(_) => Err("no root of the run's own to lay an overlay in".into()),
        };
        let (identities, subids) = identity::probe_pool(&run_as, policy.identities, pristine.is_ok());
        Ok(Sandbox {
            pidfd: procs::probe_pidfd(),
            netns,
            pidns,
            ipcns,
            pristine,
            own_root,
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
            subids,
            identities,
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
            let subids = self.subids.as_ref().ok().filter(|_| unshare & libc::CLONE_NEWUSER != 0).cloned();
            let map_ids = match (&subids, unshare & libc::CLONE_NEWUSER != 0) {
                (Some(_), _) => supervisor::IdMap::ByHarness,
                (None, true) => supervisor::IdMap::Own(procs::uid(), procs::gid()),
                (None, false) => supervisor::IdMap::None,
            };
            pool::Pool::new(pool::Recipe {
                cgroups: self.cgroups.clone(),
                pids_max: self.policy.pids_max,
                subids,
                plan: supervisor::SplitSpec {
                    unshare,
                    map_ids,
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
        let limit = (self.policy.disk_bytes, self.policy.disk_files);
        quota::private_folder(parent, prefix, self.quota.is_ok().then_some(limit), self.subids.as_ref().ok().cloned())
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

    /// The user programs run as, when switching user is active and a run names no identity.
    pub fn run_as(&self) -> Option<RunAs> {
        self.run_as.clone().ok().flatten()
    }

    /// An identity of its own for one submission, held until dropped (`None` when there are
    /// none, or all are lent: the submission then runs as [`Sandbox::run_as`], or as the
    /// marker).
    pub fn identity(&self) -> Option<Identity> {
        self.identities.as_ref().ok()?.lend()
    }

    /// The user a command runs as: its own identity, else the shared one (root only); `None`:
    /// the marker's own.
    fn user_of(&self, cmd: &Command) -> Option<RunAs> {
        cmd.run_as.or(self.run_as())
    }

    /// The user a command runs as, by the machine's numbers (a subordinate id's are not those
    /// inside its namespace): what the machine's permission bits are checked against.
    fn host_user_of(&self, cmd: &Command) -> Option<RunAs> {
        let ids = self.user_of(cmd)?;
        Some(self.identities.as_ref().map_or(ids, |pool| pool.on_machine(ids)))
    }

    /// Hand a submission's copy (its private folder `top`) to the identity lent it. As root,
    /// all of it; with subordinate ids, all below `top`, which stays the marker's (so that the
    /// marker may still make folders in it) and only passable (`0711`).
    pub fn hand_over_copy(&self, top: &Path, ids: RunAs) -> std::io::Result<()> {
        match &self.subids {
            Ok(subids) => {
                use std::os::unix::fs::PermissionsExt;
                subids.chown_tree(top, Some(ids), true)?;
                std::fs::set_permissions(top, std::fs::Permissions::from_mode(0o711))
            }
            Err(_) => crate::fsutil::chown_tree(top, ids.uid, ids.gid),
        }
    }

    /// Make `dir` in a copy afresh (what an earlier run left there removed) and hand it to the
    /// identity lent its submission (`None`: the sandbox's shared user, if it switches to one).
    pub fn fresh_folder(&self, dir: &Path, ids: Option<RunAs>) -> std::io::Result<()> {
        if dir.exists() {
            if let Ok(subids) = &self.subids {
                subids.chown_tree(dir, None, false)?;
            }
            let _ = std::fs::remove_dir_all(dir);
        }
        std::fs::create_dir(dir)?;
        match (&self.subids, ids.or(self.run_as())) {
            (Ok(subids), Some(ids)) => subids.chown_tree(dir, Some(ids), false),
            (Err(_), Some(ids)) => {
                // The folder it is made in may be the student's: between the mkdir and the
                // chown, a run of theirs could put a link in its place. The chown is on a
                // descriptor opened without following links, so it changes the folder just made
                // or fails. (With subordinate ids, the folder it is made in is the marker's.)
                use std::os::unix::fs::OpenOptionsExt;
                let folder = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
                    .open(dir)?;
                std::os::unix::fs::fchown(&folder, Some(ids.uid), Some(ids.gid))
            }
            (_, None) => Ok(()),
        }
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
            for lent in self.identities.as_ref().map(|pool| pool.used()).unwrap_or_default() {
                procs::clear_keyrings_of(lent);
            }
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
