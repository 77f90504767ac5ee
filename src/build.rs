//! The "build" stage: a [`Submission`] (one student's folder or archive) and a [`BuildConfig`]
//! → a [`BuiltSubmission`]: a private copy with its source folder located, stale classes
//! deleted, the build script run in the sandbox, and a [`BuildReport`] saying how that went.
//!
//! The original submission is never modified. A problem of the submission (bad archive, no
//! `build.sh`, failing or hanging build) is a [`BuildVerdict`]; only a failure of the harness
//! (I/O on the scratch folder, the sandbox) is a [`BuildError`].
//!
//! The submissions folder becomes [`Submission`]s by [`intake()`]: every
//! entry is a student except junk, and names never collide.
//!
//! Locating the source folder (`srcdir`, `src` in this course) follows stacscheck — the
//! folder of that name below the submission, or the submission itself if it has that name,
//! never inside a hidden folder or `__MACOSX` ([`folders_named`], the one search both use) —
//! with two leniencies, both stated in [`BuildReport::detail`]:
//! - when several folders have that name, those holding the build script are preferred, and
//!   then the shallowest one is taken if it is the only one at its depth (stacscheck would
//!   refuse); several at the same depth is a build failure naming them;
//! - when none has that name, the submission's top folder is used if it holds the build script.
//!
//! When a submission (a folder or an archive) has no source folder but holds archives (at most
//! two levels down), each is extracted next to itself (`work.zip` → `work/`) and the search is
//! made again, up to three archives deep; the copy and every extraction share one set of
//! [`ExtractLimits`]. A file that is no archive bhgrade opens (`.rar`, `.7z`, a PDF) is a
//! failed build that says what it is and what to ask the student for.
//!
//! A build script with Windows (CRLF) line endings is run as it is, as the lab machine would,
//! and the verdict's detail says why it failed (see [`CRLF_HINT`]).
//!
//! ```no_run
//! use bhgrade::build::{intake, prepare, BuildConfig, BuildVerdict};
//! # fn demo(sandbox: &bhgrade::sandbox::Sandbox, limits: bhgrade::sandbox::Limits) -> Result<(), bhgrade::build::BuildError> {
//! let config = BuildConfig {
//!     srcdir: "src".into(),
//!     command: vec!["bash".into(), "build.sh".into()],
//!     script: "build.sh".into(),
//!     limits,
//!     cpus: Vec::new(),
//! };
//! for sub in intake("submissions".as_ref())?.submissions {
//!     let built = prepare(&sub, &config, "/tmp/scratch".as_ref(), sandbox)?;
//!     if built.build.verdict == BuildVerdict::Ok {
//!         // run the tests in `built.srcdir`; `built.build.detail` says what happened
//!     }
//! }
//! # Ok(()) }
//! ```

mod intake;
pub mod lms;
mod shard;
#[cfg(test)]
mod tests;
mod tree;
mod unpack;

pub use intake::{intake, printable_name, Ignored, Intake, Renamed};
pub use shard::Shard;
pub(crate) use tree::content_hash;
pub use tree::{folders_named, is_junk};

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::archive::ExtractLimits;
use crate::sandbox::{Command, Limits, RunOutcome, Sandbox, SandboxError};
use crate::verdict::Verdict;

/// Bytes of build output kept for the report.
const LOG_TAIL_BYTES: usize = 4096;

/// One student's entry in the submissions folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Printable and unique in the class, ignoring case (see [`intake()`]).
    pub name: String,
    /// A folder, an archive, or any other entry (whose build then fails, saying what it is).
    pub path: PathBuf,
    /// More entries of the same student (an LMS delivers one file per file handed in): each
    /// extracted, or copied under the student's own file name, into the same copy.
    pub extra: Vec<PathBuf>,
    /// Who the submission belongs to, when an LMS named it.
    pub lms: Option<lms::LmsIdentity>,
}

impl Submission {
    /// A submission of one entry, named `name`, with no LMS identity.
    pub fn plain(name: String, path: PathBuf) -> Submission {
        Submission { name, path, extra: Vec::new(), lms: None }
    }
}

/// Said when a build script with Windows line endings fails.
///
/// Why it is run as it is rather than with the CRs stripped: a grade must be the one the
/// course's lab machine gives, and there `bash build.sh` reads each CR as part of the line
/// (`$'\r': command not found`, `javac: invalid flag: *.java\r`) and fails the same way.
/// Fixing the copy would pass a submission the course fails, and would hide from the student
/// why their build breaks on the lab machine; the hint tells them how to fix it instead.
pub const CRLF_HINT: &str = "build.sh has Windows (CRLF) line endings, so bash reads a carriage return at the end of \
     every line (errors like `$'\\r': command not found` or `invalid flag: *.java`); the lab machine \
     fails it the same way: convert it with `dos2unix build.sh` or save it with LF line endings";

/// How to build, from the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildConfig {
    /// Name of the folder holding the code and the build script (`src`).
    pub srcdir: String,
    /// Program and arguments run in the source folder (`bash build.sh`).
    pub command: Vec<String>,
    /// The build script that must exist in the source folder (`build.sh`).
    pub script: String,
    pub limits: Limits,
    /// The cores the build is pinned to (a worker's slot); empty: not pinned. Not part of any
    /// stored result's key: where a build ran does not change what it built.
    pub cpus: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildVerdict {
    Ok,
    BuildFailed,
    BuildTimeout,
    NoBuildScript,
}

impl BuildVerdict {
    /// The verdict's name in the JSON reports (`build_failed`).
    pub fn name(self) -> &'static str {
        match self {
            BuildVerdict::Ok => "ok",
            BuildVerdict::BuildFailed => "build_failed",
            BuildVerdict::BuildTimeout => "build_timeout",
            BuildVerdict::NoBuildScript => "no_build_script",
        }
    }

    /// The verdict as a reader is told it (`build failed`).
    pub fn label(self) -> &'static str {
        match self {
            BuildVerdict::Ok => "built",
            BuildVerdict::BuildFailed => "build failed",
            BuildVerdict::BuildTimeout => "build timed out",
            BuildVerdict::NoBuildScript => "no build script",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildReport {
    pub verdict: BuildVerdict,
    /// The end of the build's stdout, then of its stderr (lossy UTF-8, about 4 KiB in all).
    pub log_tail: String,
    pub wall: Duration,
    /// What happened, in a sentence or two (and any leniency used to find the code).
    pub detail: String,
}

/// A private, built copy of one submission. Dropping it deletes the copy.
#[derive(Debug)]
pub struct BuiltSubmission {
    pub name: String,
    pub scratch: crate::sandbox::PrivateFolder,
    /// The copy of the student's folder (or the extracted archive).
    pub root: PathBuf,
    /// The source folder in the copy: where the build ran and where programs run (the root
    /// when no source folder was found).
    pub srcdir: PathBuf,
    pub build: BuildReport,
    /// SHA-256 (hex) over the copy's file paths and contents before building.
    pub content_hash: String,
    /// The submission's own identity, which its build and runs run as and its copy belongs to
    /// (root only; see [`Sandbox::identity`]). Last, so it goes back only once the copy is gone.
    pub identity: Option<crate::sandbox::Identity>,
}

impl BuiltSubmission {
    /// The user its build and runs run as: its own identity, or `None` for the sandbox's shared
    /// user (or the marker's own, without root).
    pub fn run_as(&self) -> Option<crate::sandbox::RunAs> {
        self.identity.as_ref().map(crate::sandbox::Identity::ids)
    }
}

/// A failure of the harness, never the student's.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the build command is empty")]
    EmptyCommand,
    #[error("the sandbox failed during the build: {0}")]
    Sandbox(#[from] SandboxError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io { path: path.to_path_buf(), source }
}

/// Copy, locate, clean and build one submission (see the module documentation).
pub fn prepare(
    sub: &Submission,
    cfg: &BuildConfig,
    scratch_root: &Path,
    sandbox: &Sandbox,
) -> Result<BuiltSubmission, BuildError> {
    // No command: only copy and locate (a stacscheck tree's own build scripts do the build).
    let build_command = cfg.command.split_first();
    fs::create_dir_all(scratch_root).map_err(io_err(scratch_root))?;
    // On a file system of its own where the machine allows: a submission that fills it fails
    // alone, never one marked beside it.
    let scratch = sandbox.private_folder(scratch_root, "build-").map_err(io_err(scratch_root))?;
    // The copy keeps the original's name, so that a submission folder that is itself the
    // source folder is found as such; a name that is not UTF-8 becomes the student's printable
    // name (`caf%E9`), since a JVM cannot name a working folder it cannot decode.
    let top_name = match sub.path.file_name().filter(|_| sub.path.is_dir()) {
        Some(name) if name.to_str().is_some() => name.to_os_string(),
        Some(_) => sub.name.clone().into(),
        None => "submission".into(),
    };
    let root = scratch.path().join(top_name);
    let mut notes: Vec<String> = Vec::new();
    let mut built = BuiltSubmission {
        name: sub.name.clone(),
        srcdir: root.clone(),
        root,
        scratch,
        build: BuildReport {
            verdict: BuildVerdict::BuildFailed,
            log_tail: String::new(),
            wall: Duration::ZERO,
            detail: String::new(),
        },
        content_hash: String::new(),
        identity: sandbox.identity(),
    };
    if let Err((verdict, problem)) = copy_and_locate(sub, cfg, sandbox, &mut built, &mut notes)? {
        return Ok(finish(built, verdict, problem, notes));
    }
    if build_command.is_some() && !built.srcdir.join(&cfg.script).is_file() {
        let folder = match built.srcdir == built.root {
            true => "the submission's top folder".to_string(),
            false => rel(&built.root, &built.srcdir),
        };
        let detail = format!("{} is missing from {folder}", cfg.script);
        return Ok(finish(built, BuildVerdict::NoBuildScript, detail, notes));
    }
    if let Some(ids) = built.run_as().or(sandbox.run_as()) {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(scratch_root, fs::Permissions::from_mode(0o711)).map_err(io_err(scratch_root))?;
        sandbox.hand_over_copy(built.scratch.path(), ids).map_err(io_err(built.scratch.path()))?;
    }

    // The build, and later every run of the tests, may write anywhere in this copy (and,
    // under Landlock, nowhere else but its own run folder).
    sandbox.add_copy(built.scratch.path());
    let Some((program, args)) = build_command else {
        return Ok(finish(built, BuildVerdict::Ok, "copied; no build command".into(), notes));
    };
    let crlf = tree::has_crlf(&built.srcdir.join(&cfg.script));
    let cmd = Command::new(program, &built.srcdir).args(args).cpus(cfg.cpus.iter().copied()).run_as(built.run_as());
    let outcome = sandbox.run(&cmd, &cfg.limits)?;
    let (mut verdict, mut detail) = judge_build(&outcome, cfg);
    let filled_own = built.scratch.filled().filter(|_| verdict != BuildVerdict::Ok);
    if let Some(size) = filled_own {
        // Its own disk, which nobody else writes: its own doing, stored like any failed build.
        detail = format!("{detail}; it filled its disk of {} MiB (wrote more than its `disk_mb`)", size >> 20);
    }
    let failed_for_want_of_space = verdict != BuildVerdict::Ok && filled_own.is_none();
    if let Some(full) = failed_for_want_of_space.then(|| crate::sandbox::scratch_full(scratch_root)).flatten() {
        // Perhaps for want of the space another submission took: the harness's problem, never
        // stored, and the next marking builds it again.
        return Err(BuildError::Sandbox(full));
    }
    if let Some(gone) = srcdir_gone(&built.srcdir, &built.root) {
        // Every test runs in that folder: the build's own doing, never a harness failure.
        (verdict, detail) = (BuildVerdict::BuildFailed, format!("{detail}, but it {gone}"));
    }
    if crlf {
        let hint = CRLF_HINT.replace("build.sh", &cfg.script);
        detail =
            if verdict == BuildVerdict::Ok { format!("{detail}; but {hint}") } else { format!("{detail}: {hint}") };
    }
    built.build.wall = outcome.wall;
    built.build.log_tail = log_tail(&outcome);
    Ok(finish(built, verdict, detail, notes))
}

/// Copies `sub` into `built`'s root, finds its source folder and deletes stale classes there:
/// `Ok(Err(..))` with the verdict and why when the submission cannot be built, `Err` for a
/// failure of the machine.
fn copy_and_locate(
    sub: &Submission,
    cfg: &BuildConfig,
    sandbox: &Sandbox,
    built: &mut BuiltSubmission,
    notes: &mut Vec<String>,
) -> Result<Result<(), (BuildVerdict, String)>, BuildError> {
    notes.extend(intake::explain(sub));
    let mut budget = unpack::Budget::new(ExtractLimits::default());
    let copied = match unpack::copy_in(sub, &built.root, &mut budget, notes) {
        // What the student sent does not fit in the disk of its own: theirs to fix.
        Err(BuildError::Io { source, .. })
            if source.raw_os_error() == Some(libc::ENOSPC) && built.scratch.limited() =>
        {
            Ok(Err(format!("the submission does not fit in its {} MiB of disk", sandbox.policy().disk_bytes >> 20)))
        }
        // Folders nested past PATH_MAX (on the way in, or once copied under the scratch folder).
        Err(BuildError::Io { source, .. }) if source.kind() == std::io::ErrorKind::InvalidFilename => Ok(Err(
            "the submission nests its folders so deep that a path is longer than the system allows (4096 bytes): \
             it cannot be copied"
                .into(),
        )),
        other => other,
    };
    if let Err(problem) = copied? {
        return Ok(Err((BuildVerdict::BuildFailed, problem)));
    }
    built.content_hash =
        tree::content_hash(&built.root).map_err(|e| BuildError::Io { path: built.root.clone(), source: e })?;
    let candidates = match unpack::open_nested(&built.root, &cfg.srcdir, &mut budget, notes)? {
        Ok(candidates) => candidates,
        Err(problem) => return Ok(Err((BuildVerdict::BuildFailed, problem))),
    };
    match choose_srcdir(&built.root, candidates, cfg) {
        Ok(Some((dir, note))) => {
            built.srcdir = dir;
            notes.extend(note);
        }
        Ok(None) => return Ok(Err((BuildVerdict::NoBuildScript, not_found(&built.root, cfg)))),
        Err(problem) => return Ok(Err((BuildVerdict::BuildFailed, problem))),
    }
    let stale =
        tree::delete_classes(&built.srcdir).map_err(|e| BuildError::Io { path: built.srcdir.clone(), source: e })?;
    if stale > 0 {
        notes.push(format!("deleted {} before building", bhref::referee::count(stale, "stale .class file")));
    }
    Ok(Ok(()))
}

/// What the build did to its own source folder, if it is no longer a real folder there.
fn srcdir_gone(srcdir: &Path, root: &Path) -> Option<String> {
    let name = rel(root, srcdir);
    match fs::symlink_metadata(srcdir) {
        Ok(meta) if meta.is_dir() => None,
        Ok(meta) if meta.file_type().is_symlink() => Some(format!("replaced {name} with a link")),
        Ok(_) => Some(format!("replaced {name} with a file")),
        Err(_) => Some(format!("removed {name}, where the tests run")),
    }
}

/// Why no source folder was found, naming what might have been meant: folders of that name
/// in hidden folders (not used), archives bhgrade cannot open.
fn not_found(root: &Path, cfg: &BuildConfig) -> String {
    let mut detail = format!("no folder named {:?} and no {} at the top of the submission", cfg.srcdir, cfg.script);
    let unused = tree::junk_folders_named(root, &cfg.srcdir);
    if !unused.is_empty() {
        let list: Vec<String> = unused.iter().take(5).map(|d| rel(root, d)).collect();
        detail.push_str(&format!(" (not used, being in hidden or __MACOSX folders: {})", list.join(", ")));
    }
    for (path, what) in tree::unopenable_archives(root, 2).into_iter().take(5) {
        detail.push_str(&format!(
            "; {} is a {what} archive, which bhgrade cannot open: ask the student for a .zip or .tar.gz of their work",
            rel(root, &path)
        ));
    }
    detail
}

/// Pick the source folder among `candidates` (shallowest first). `Ok(None)`: none usable.
fn choose_srcdir(
    root: &Path,
    candidates: Vec<PathBuf>,
    cfg: &BuildConfig,
) -> Result<Option<(PathBuf, Option<String>)>, String> {
    if candidates.is_empty() {
        if root.join(&cfg.script).is_file() {
            let note = format!("no folder named {:?}: building in the submission's top folder", cfg.srcdir);
            return Ok(Some((root.to_path_buf(), Some(note))));
        }
        return Ok(None);
    }
    let with_script: Vec<&PathBuf> = candidates.iter().filter(|d| d.join(&cfg.script).is_file()).collect();
    let pool: Vec<&PathBuf> = if with_script.is_empty() { candidates.iter().collect() } else { with_script };
    let depth = |p: &Path| p.components().count();
    let shallowest = depth(pool[0]);
    let tied: Vec<&PathBuf> = pool.iter().copied().filter(|p| depth(p) == shallowest).collect();
    let names = |dirs: &[&PathBuf]| dirs.iter().map(|d| rel(root, d)).collect::<Vec<_>>().join(", ");
    if tied.len() > 1 {
        return Err(format!("several folders named {:?}: {}", cfg.srcdir, names(&tied)));
    }
    let chosen = tied[0].clone();
    let note = (candidates.len() > 1).then(|| {
        let all: Vec<&PathBuf> = candidates.iter().collect();
        format!(
            "several folders named {:?} ({}): using {} (stacscheck would refuse)",
            cfg.srcdir,
            names(&all),
            rel(root, &chosen)
        )
    });
    Ok(Some((chosen, note)))
}

fn judge_build(outcome: &RunOutcome, cfg: &BuildConfig) -> (BuildVerdict, String) {
    let command = cfg.command.join(" ");
    // The same limit rule as every test's verdict, so a build and a test stopped alike are
    // described alike.
    if let Some(decision) = crate::verdict::limit_decision(outcome, &cfg.limits, cfg.limits.memory_bytes) {
        let verdict = match decision.verdict {
            Verdict::TimeLimit => BuildVerdict::BuildTimeout,
            Verdict::MemoryLimit
            | Verdict::HarnessError
            | Verdict::RuntimeError
            | Verdict::OutputLimit
            | Verdict::NoOutput
            | Verdict::FormatError
            | Verdict::WrongAnswer
            | Verdict::GaveUp
            | Verdict::Accepted
            | Verdict::NotRun => BuildVerdict::BuildFailed,
        };
        return (verdict, format!("{command} was stopped: {}", decision.explanation));
    }
    if outcome.output_limit_hit() {
        let detail = format!("{command} printed more than {} bytes and was killed", cfg.limits.output_bytes);
        return (BuildVerdict::BuildFailed, detail);
    }
    if outcome.exit.success() {
        return (BuildVerdict::Ok, format!("{command} succeeded"));
    }
    (BuildVerdict::BuildFailed, format!("{command} failed: {}", outcome.exit.describe()))
}

/// The end of stdout then of stderr, within [`LOG_TAIL_BYTES`] together.
fn log_tail(outcome: &RunOutcome) -> String {
    let tail = |bytes: &[u8], max: usize| {
        let start = bytes.len().saturating_sub(max);
        let mut text = String::from_utf8_lossy(&bytes[start..]).into_owned();
        if start > 0 {
            text.insert_str(0, "[...]\n");
        }
        text
    };
    let (out, err) = (&outcome.stdout, &outcome.stderr);
    match (out.is_empty(), err.is_empty()) {
        (true, true) => String::new(),
        (false, true) => tail(out, LOG_TAIL_BYTES),
        (true, false) => tail(err, LOG_TAIL_BYTES),
        (false, false) => {
            let err_share = (LOG_TAIL_BYTES / 2).max(LOG_TAIL_BYTES.saturating_sub(out.len()));
            let out_share = LOG_TAIL_BYTES - err_share.min(err.len());
            let mut text = tail(out, out_share);
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("--- stderr ---\n");
            text.push_str(&tail(err, err_share));
            text
        }
    }
}

fn skipped_note(skipped: &[String]) -> Option<String> {
    const SHOWN: usize = 5;
    if skipped.is_empty() {
        return None;
    }
    let mut list = skipped.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if skipped.len() > SHOWN {
        list.push_str(&format!(" and {} more", skipped.len() - SHOWN));
    }
    Some(format!("not copied: {list}"))
}

fn rel(root: &Path, path: &Path) -> String {
    let shown = path.strip_prefix(root).unwrap_or(path);
    if shown.as_os_str().is_empty() {
        ".".into()
    } else {
        shown.display().to_string()
    }
}

fn finish(mut built: BuiltSubmission, verdict: BuildVerdict, detail: String, notes: Vec<String>) -> BuiltSubmission {
    built.build.verdict = verdict;
    built.build.detail = std::iter::once(detail).chain(notes).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("; ");
    built
}
