//! Marking plans: a source of tests (a verified [`crate::suite::Suite`], a stacscheck tree's
//! [`crate::stacscheck::Tree`]) → one [`Plan`], the only thing the pipeline executes.
//!
//! A plan says how to build a submission, which files every private copy gets besides it (a
//! stacscheck tree without its expected outputs), the distinct program runs (command, standard
//! input, environment, limits, which runs must wait for which, which tests guard them), and the
//! tests: each names its run, its part and weight, the [`Judge`] of its answer and the report it
//! starts from. [`from_suite()`] and [`from_tree()`] make one; nothing downstream knows which.

mod from_suite;
mod from_tree;
pub mod timing;

pub use from_suite::from_suite;
pub use from_tree::from_tree;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::build::BuildConfig;
use crate::judge::Judge;
use crate::results::model::{CheckRow, TestReport};
use crate::sandbox::{Command, Limits};
use crate::score::GroupScoring;
use crate::store::{Key, ResultStore};
use crate::suite::Launch;

/// Everything marking one submission against one source of tests takes.
pub struct Plan<'s> {
    /// The suite's (or tree's) name, for reports and shard checks.
    pub name: String,
    pub title: String,
    pub build: BuildConfig,
    /// Files copied into every submission's private copy before its runs.
    pub workspace: Option<Workspace>,
    /// How programs are started (its standard-error noise is dropped before judging).
    pub launch: Launch,
    /// In the order they start: runs of a lower stage always come first.
    pub runs: Vec<Run>,
    pub parts: Vec<Part>,
    /// In part order, as reports list them.
    pub tests: Vec<PlannedTest<'s>>,
    /// The share of a test's weight an answer of `-1` earns.
    pub gave_up_credit: f64,
    /// The rows of the practical's check table, from each part's tally and whether it built.
    pub check_table: CheckTable<'s>,
}

/// The rows of a practical's check table, from each part's tally and whether the submission built.
pub type CheckTable<'s> = Box<dyn Fn(&[PartTally], bool) -> Vec<CheckRow> + Send + Sync + 's>;

/// A part of a plan: its tests are those whose [`PlannedTest::part`] is its index.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub id: String,
    pub title: String,
    /// The marks the part is worth.
    pub weight: f64,
    /// How the tests of a group (their reports' `group`) earn its marks together.
    pub group_scoring: GroupScoring,
}

/// How a part went, for the check table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartTally {
    pub id: String,
    pub title: String,
    pub passed: usize,
    pub total: usize,
}

/// Files every submission's runs read (a stacscheck tree without its expected outputs): copied
/// once per marking ([`Workspace::copy_shared`]) to a folder of the harness's own, outside every
/// submission's copy, where no student can write, rename or swap them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    pub from: PathBuf,
    /// Folders to make, relative to `from`, parents first.
    pub dirs: Vec<PathBuf>,
    /// Files to copy, relative to `from`.
    pub files: Vec<PathBuf>,
}

impl Workspace {
    /// The copy's name in its folder.
    pub const DIR: &'static str = "tests";

    /// Makes the one copy every run reads: `tests/` in a fresh folder under `scratch_root`,
    /// folders 0755 and files 0444, owned by the harness (a student's program, run as another
    /// user or under Landlock, may read it and nothing more). Removed when dropped.
    pub fn copy_shared(&self, scratch_root: &Path) -> std::io::Result<tempfile::TempDir> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(scratch_root)?;
        let folder = tempfile::Builder::new().prefix("tests-").tempdir_in(scratch_root)?;
        self.copy_into(folder.path())?;
        for entry in walkdir::WalkDir::new(folder.path()) {
            let entry = entry.map_err(std::io::Error::other)?;
            let mode = if entry.file_type().is_dir() { 0o755 } else { 0o444 };
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode))?;
        }
        Ok(folder)
    }

    /// Makes the copy under `folder`.
    fn copy_into(&self, folder: &Path) -> std::io::Result<PathBuf> {
        let to = folder.join(Workspace::DIR);
        std::fs::create_dir_all(&to)?;
        for dir in &self.dirs {
            std::fs::create_dir_all(to.join(dir))?;
        }
        for file in &self.files {
            std::fs::copy(self.from.join(file), to.join(file))?;
        }
        Ok(to)
    }
}

/// One word of a command line or an environment value, some only known per submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Text(OsString),
    /// A path inside the submission's copy of the [`Workspace`].
    InWorkspace(PathBuf),
    /// A fresh, empty folder of this run's own, writable by the program.
    Scratch,
}

/// Where a run's per-submission words point.
pub struct Place<'a> {
    /// The built submission's source folder: where programs run.
    pub srcdir: &'a Path,
    /// The submission's copy of the workspace.
    pub workspace: &'a Path,
    /// This run's own folder, when it has a [`Word::Scratch`].
    pub scratch: Option<&'a Path>,
}

impl Place<'_> {
    fn resolve(&self, word: &Word) -> OsString {
        match word {
            Word::Text(text) => text.clone(),
            Word::InWorkspace(rel) => self.workspace.join(rel).into_os_string(),
            Word::Scratch => self.scratch.unwrap_or(self.srcdir).as_os_str().to_owned(),
        }
    }
}

/// One distinct program run, and the tests it answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub program: OsString,
    pub args: Vec<Word>,
    pub stdin: Vec<u8>,
    /// Variables beyond the sandbox's own, placeholders filled in.
    pub env: Vec<(String, Word)>,
    /// The limits its verdict is judged against.
    pub limits: Limits,
    /// The limits it runs under (the timing policy's margin, the runtime's memory overhead).
    pub run_limits: Limits,
    /// Runs of a stage start only once every run of the stages before it has ended.
    pub stage: usize,
    /// Tests that must be accepted for this run to happen; else it is skipped.
    pub guarded_by: Vec<usize>,
    /// What, with the build's key and the run limits, identifies its stored result: nothing
    /// that changes when the suite or the submission is moved.
    pub identity: Vec<String>,
    /// Indices into [`Plan::tests`].
    pub tests: Vec<usize>,
    /// A build step (of a stacscheck tree): what it writes in the copy is kept for the steps
    /// after it, and it reads none of the tree's tests (its script, named on its command line,
    /// aside). Every other run starts from the copy as built and keeps nothing it writes there.
    pub builds: bool,
}

impl Run {
    /// Whether the run needs a folder of its own.
    pub fn needs_scratch(&self) -> bool {
        self.args.iter().chain(self.env.iter().map(|(_, value)| value)).any(|word| *word == Word::Scratch)
    }

    /// The command to run at `place`.
    pub fn command(&self, place: &Place<'_>) -> Command {
        Command {
            program: self.program.clone(),
            args: self.args.iter().map(|word| place.resolve(word)).collect(),
            cwd: place.srcdir.to_path_buf(),
            stdin: self.stdin.clone(),
            env: self.env.iter().map(|(name, value)| (name.into(), place.resolve(value))).collect(),
            cpus: Vec::new(),
            pristine: !self.builds,
            reads_shared: !self.builds,
            run_as: None,
        }
    }

    /// The key of this run's stored result for a submission whose build has key `build`.
    pub fn key(&self, build: &Key) -> Key {
        ResultStore::run_key(build, &self.identity, &self.run_limits)
    }
}

/// One test: which run answers it, what it is worth and who judges it.
pub struct PlannedTest<'s> {
    pub part: usize,
    pub weight: f64,
    /// Index into [`Plan::runs`].
    pub run: usize,
    pub judge: Box<dyn Judge + 's>,
    /// The report the test has before its run (id, kind, instance, expected answer, input).
    pub blank: TestReport,
    /// How an accepted answer's quality is credited, in words, when the test credits it (for
    /// the plan's digest: it decides marks); else empty.
    pub quality_rule: String,
}

impl Plan<'_> {
    /// The highest stage plus one.
    pub fn stages(&self) -> usize {
        self.runs.last().map_or(0, |run| run.stage + 1)
    }

    /// A digest of everything that decides marks: parts and weights, tests (id, part, weight,
    /// expected answer), their runs (what is run, on what input, how: the store's identity)
    /// and limits, the credit for `-1`.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        let mut add = |text: &str| {
            hasher.update((text.len() as u64).to_le_bytes());
            hasher.update(text.as_bytes());
        };
        add(&self.name);
        add(&self.gave_up_credit.to_string());
        for part in &self.parts {
            add(&format!("part {} {}", part.id, part.weight));
            // Said only when it is not the default, so that stored results of earlier versions
            // still match.
            if part.group_scoring != GroupScoring::default() {
                add(&format!("group scoring {}", part.group_scoring.name()));
            }
        }
        for test in &self.tests {
            let limits = &self.runs[test.run].limits;
            add(&format!("test {} {} {} {}", test.blank.id, test.part, test.weight, limits.digest_text()));
            add(&self.runs[test.run].identity.join("\0"));
            add(&test.blank.expected);
            add(&test.blank.expected_detail);
            if let Some(group) = &test.blank.group {
                add(&format!("group {group}"));
            }
            if !test.quality_rule.is_empty() {
                add(&test.quality_rule);
            }
        }
        format!("{:x}", hasher.finalize())
    }

    /// The most a submission can score.
    pub fn max_score(&self) -> f64 {
        crate::score::round(self.parts.iter().map(|part| part.weight).sum())
    }
}
