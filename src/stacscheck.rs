//! stacscheck trees, run unchanged: a folder of the course's old test tree → a [`Tree`] of
//! [`Step`]s (one per script run, in stacscheck's order, with the builds guarding each), and a
//! finished run → pass or a [`Failure`] by stacscheck's own rules (as a judge:
//! [`crate::judge::StepJudge`]).
//!
//! The tree format (see `docs/stacscheck.md`) in short: `practical.config`
//! at the root ([`config`]); `build*`, `test*`, `info*` and `prog*` scripts ending in `.sh`;
//! `.out` files, each compared with the output of every prog script of its folder, which
//! gets the `.in` file of the same name on standard input. The pieces:
//! - [`Tree::load`]: a target folder → the steps stacscheck would run for it, in its order,
//!   with the builds guarding each ([`Step::guarded_by`]) and the `.in`/`.out` contents read;
//!   [`Tree::warnings`] lists files that stacscheck would silently never use;
//! - [`compare::judge`] ([`compare::compare`] for the output rule alone): a finished run →
//!   `Ok(())` or a [`Failure`], with a [`Mismatch`] diff for output.
//!
//! [`crate::plan::from_tree`] makes the tree a [`crate::plan::Plan`] (each step a run of
//! `bash SCRIPT` with `TESTDIR` and `SCRATCHDIR`, the builds as stages, the tree copied without
//! its `.out` files), which the pipeline marks like a suite's.
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

use std::path::PathBuf;

pub use compare::{Failure, Mismatch, StepKind};
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
