//! What a caller asks to run → a [`Command`] (program, arguments, folder, input, environment,
//! CPUs, identity), and its shell line for reports ([`describe`]).

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use super::policy::RunAs;

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
    /// `sched_setaffinity`). A CPU the harness may not use is a [`SandboxError::Setup`](super::outcome::SandboxError::Setup).
    pub cpus: Vec<usize>,
    /// Start from the working folder's copy as it was before the run, and keep nothing the run
    /// writes there: an overlay of the copy, gone with the run, so that no run of a submission
    /// sees what another left (its build's output aside). Needs a root of its own
    /// ([`LayerName::OwnRoot`](super::layer::LayerName::OwnRoot)); without one the run writes the copy itself.
    pub pristine: bool,
    /// Whether the run may read the folders declared with `Sandbox::add_readable` (a
    /// stacscheck tree's tests): a build step may not.
    pub reads_shared: bool,
    /// The identity to run as (root only): the submission's own (`Sandbox::identity`);
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
