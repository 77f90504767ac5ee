//! stacscheck trees, run unchanged: a folder of the course's old test tree → a [`Tree`] of
//! [`Step`]s (one per script run), each → a sandbox [`Command`](crate::sandbox::Command), and
//! each finished run → pass or a [`Failure`] by stacscheck's own rules.
//!
//! The tree format (see `docs/stacscheck.md`) in short: `practical.config`
//! at the root ([`config`]); `build*`, `test*`, `info*` and `prog*` scripts ending in `.sh`;
//! `.out` files, each compared with the output of every prog script of its folder, which
//! gets the `.in` file of the same name on standard input. The pieces:
//! - [`Tree::load`]: a target folder → the steps stacscheck would run for it, in its order,
//!   with the builds guarding each ([`Step::guarded_by`]) and the `.in`/`.out` contents read;
//! - [`locate_srcdir`]: a submission → the folder the scripts run in;
//! - [`Step::command`]: a step + that folder + a fresh scratch folder → the [`Command`](crate::sandbox::Command);
//! - [`Step::judge`] (or [`compare::judge`]; [`compare::compare`] for the output rule alone):
//!   a finished run → `Ok(())` or a [`Failure`], with a [`Mismatch`] diff for output.
//!
//! ```no_run
//! use bhgrade::stacscheck::{locate_srcdir, Tree};
//! # fn demo(sandbox: &bhgrade::sandbox::Sandbox, scratch: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
//! let plan = Tree::load("Tests/Part1".as_ref())?;
//! let srcdir = locate_srcdir("submissions/abc1".as_ref(), &plan.config.srcdir)?;
//! let limits = bhgrade::sandbox::Limits {
//!     wall: plan.config.timeout,
//!     cpu: plan.config.timeout,
//!     memory_bytes: 1 << 30,
//!     output_bytes: 1 << 20,
//! };
//! let mut passed = Vec::new();
//! for (index, step) in plan.steps.iter().enumerate() {
//!     if plan.blocking_build(index, |i| passed[i]).is_some() {
//!         passed.push(false); // skipped: a build above it failed
//!         continue;
//!     }
//!     let run = sandbox.run(&step.command(&srcdir, scratch), &limits)?;
//!     passed.push(!run.wall_limit_hit && step.judge(run.exit, &run.stdout, &run.stderr).is_ok());
//! }
//! # Ok(()) }
//! ```
//!
//! # Running the steps (for the integrator)
//!
//! - Build steps change the submission's folder (they compile into it), and stacscheck runs
//!   every step one after the other. Steps may run in parallel only between builds: run a
//!   build alone, after every step before it has finished, and start a step only when the
//!   builds in its [`Step::guarded_by`] have passed ([`Tree::blocking_build`]).
//! - `SCRATCHDIR` is a fresh folder per run in stacscheck; [`Step::command`] takes it as an
//!   argument, so the caller makes it (writable by the programs' user) and removes it.
//! - The contents of the `.in` and `.out` files are in the plan, so the tree the scripts see
//!   need not hold the `.out` files: run against a copy without them ([`Tree::rebase`]) and
//!   a submission cannot read the expected outputs (in stacscheck it can).
//! - [`Tree::warnings`] lists files that stacscheck would silently never use.
//!
//! # Where bhgrade deliberately differs from stacscheck
//!
//! Each difference only ever turns a wrong stacscheck result into a right one, or refuses a
//! tree or submission that stacscheck would mishandle:
//! - **Timeouts are their own verdict.** stacscheck reports a script past `timeout` as a plain
//!   failure; bhgrade's run stage reports a time limit (so slow is not mistaken for wrong).
//! - **Processes are killed.** stacscheck sends SIGTERM to the group but SIGKILL only to bash,
//!   does not kill background children after a normal exit, and its timeout does not cover
//!   feeding standard input; the sandbox kills everything of a run and bounds all of it.
//! - **Output is compared as bytes.** stacscheck replaces invalid UTF-8 before comparing, so
//!   outputs differing only in invalid bytes pass; here they fail ([`compare`]).
//! - **The environment is scrubbed.** stacscheck passes the user's whole environment; the
//!   sandbox passes only its own few variables (`PATH`, `HOME`, `TMPDIR`, `LANG` at the time
//!   of writing; see [`crate::sandbox`]) plus `TESTDIR` and `SCRATCHDIR`.
//! - **Output past the cap is a verdict** (output limit), not a silently cut text.
//! - **Source folder search** skips hidden folders and `__MACOSX` (a macOS zip's copy of
//!   `src/`, which made stacscheck refuse as ambiguous) and does not count symbolic links.
//! - **Tree files:** hidden folders of the tree are skipped like hidden files; links to
//!   folders are not entered; a `practical.config` with continuation lines, or requiring a
//!   stacscheck newer than [`config::STACSCHECK_VERSION`], is refused; two prog runs that
//!   would get the same id are refused ([`StacscheckError::DuplicateStep`]).

pub mod compare;
pub mod config;
#[cfg(test)]
mod tests;
mod tree;

use std::path::{Path, PathBuf};

pub use compare::{Failure, Mismatch, StepJudge, StepKind};
pub use config::{Config, ConfigError};
pub use tree::{Step, Tree, Warning};

/// Why a tree could not be planned: a problem of the tree or of the machine, never of a
/// submission.
#[derive(Debug, thiserror::Error)]
pub enum StacscheckError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is not a folder", path.display())]
    NotADirectory { path: PathBuf },
    #[error("in the tree at {}, two runs would both be named {id}: {first} and {second}; rename one", root.display())]
    DuplicateStep { root: PathBuf, id: String, first: String, second: String },
}

/// Why a submission's source folder could not be located: the submission's problem (it
/// cannot be tested), except for [`SrcdirError::Io`].
#[derive(Debug, thiserror::Error)]
pub enum SrcdirError {
    #[error("no folder named {name:?} in {}", submission.display())]
    NotFound { submission: PathBuf, name: String },
    #[error("several folders named {name:?} in {}: {}", submission.display(), list(submission, found))]
    Ambiguous { submission: PathBuf, name: String, found: Vec<PathBuf> },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
}

fn list(root: &Path, found: &[PathBuf]) -> String {
    let rel = |p: &PathBuf| p.strip_prefix(root).unwrap_or(p).display().to_string();
    found.iter().map(rel).collect::<Vec<_>>().join(", ")
}

/// The folder of a submission that stacscheck runs scripts in: `submission` itself when it is
/// named `name`, else the one folder named `name` below it (several is an error, as in
/// stacscheck). The result is absolute, with symbolic links resolved.
pub fn locate_srcdir(submission: &Path, name: &str) -> Result<PathBuf, SrcdirError> {
    let submission =
        submission.canonicalize().map_err(|source| SrcdirError::Io { path: submission.to_path_buf(), source })?;
    if submission.file_name().is_some_and(|n| n == name) {
        return Ok(submission);
    }
    // The build's own search: hidden folders and `__MACOSX` skipped, links not followed.
    let mut found = crate::build::folders_named(&submission, name)
        .map_err(|source| SrcdirError::Io { path: submission.clone(), source })?;
    found.sort();
    match found.len() {
        0 => Err(SrcdirError::NotFound { submission, name: name.to_string() }),
        1 => Ok(found.remove(0)),
        _ => Err(SrcdirError::Ambiguous { submission, name: name.to_string(), found }),
    }
}
