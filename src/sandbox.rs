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
//! The files of this room, bottom up: the shared words (`outcome.rs`, `layer.rs`), `procs.rs`,
//! `policy.rs` and `command.rs`, the layers' own files (`cgroup/`, `landlock.rs`, `seccomp.rs`,
//! `quota.rs`, `subids.rs`, `identity.rs`, `root_inside.rs` and `root.rs`), the run's machinery
//! (`scratch.rs`, `child.rs`, `supervisor.rs`, `parked.rs`, `pool.rs`, `io.rs`, `watch.rs`),
//! the probed [`Sandbox`] (`probed.rs`), then `run.rs`, which runs one command, and `layers.rs`,
//! which describes them all. This facade is on top: no file of the room imports it.
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
mod command;
#[cfg(test)]
mod containment_tests;
mod held;
mod identity;
mod io;
#[cfg(test)]
mod isolation_tests;
mod landlock;
mod layer;
mod layers;
mod marker_ns;
mod outcome;
mod parked;
mod policy;
mod pool;
mod probed;
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

pub use cgroup::record_scope_failure;
pub use cgroup::{own_scope, OwnScope, ScopeRequest};
pub use command::{describe, shell_quote, Command};
pub use identity::Identity;
pub use layer::{Layer, LayerName};
pub use marker_ns::enter as enter_own_namespace;
pub use outcome::{signal_name, CpuSource, Exit, Limits, MemorySource, RunOutcome, SandboxError};
pub use probed::Sandbox;

/// Whether this machine mounts the unified cgroup hierarchy (v2) at `/sys/fs/cgroup`.
pub fn is_cgroup_v2() -> bool {
    cgroup::is_cgroup_v2()
}

/// Whether systemd is this machine's init (what gives bhgrade a delegated scope on v2).
pub fn under_systemd() -> bool {
    cgroup::under_systemd()
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

impl Sandbox {
    /// Run one command. Thread-safe: many runs may go on at once.
    pub fn run(&self, cmd: &Command, limits: &Limits) -> Result<RunOutcome, SandboxError> {
        run::run(self, cmd, limits)
    }
}
