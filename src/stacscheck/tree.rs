//! A folder inside a stacscheck tree → a [`Tree`]: every script run stacscheck would make for
//! it, in stacscheck's order, with the builds each run depends on.
//!
//! Step ids are paths in the tree, relative to its root, with `/` between folders:
//! - a `build*`, `test*` or `info*` script is named by its folder and its name without `.sh`:
//!   `build-all` (at the root), `Part2/test-solve-check`;
//! - a `prog*` script runs once per `.out` file of its folder, and each run is named by the
//!   script's and the `.out`'s names without extension, joined by `-`:
//!   `Part1/prog-check.sh` with `Part1/01Solved.out` is `Part1/prog-check-01Solved`.
//!
//! Two prog runs can only get the same id through names such as `prog-a.sh` + `b-c.out` and
//! `prog-a-b.sh` + `c.out`; that is refused ([`StacscheckError::DuplicateStep`]) rather than
//! papered over, since ids are what reports and stored results are keyed by.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::compare::StepKind;
use super::config::{self, Config};
use super::StacscheckError;
/// One script run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The step's path in the tree (see the module documentation).
    pub id: String,
    pub kind: StepKind,
    /// Absolute path of the script, run as `bash SCRIPT`.
    pub script: PathBuf,
    /// The script's folder, given to it as `TESTDIR`.
    pub testdir: PathBuf,
    /// The `.in` file of a prog run, when its folder has one for this `.out`.
    pub stdin: Option<PathBuf>,
    /// The `.out` file of a prog run.
    pub expected: Option<PathBuf>,
    /// Indices (into [`Tree::steps`], all smaller than this step's) of the builds that must
    /// pass before this step runs: those of its folder that come before it, and those of the
    /// folders above it. A step is skipped when any of them failed or was skipped.
    pub guarded_by: Vec<usize>,
    /// The contents of [`Step::stdin`] (empty without one), read once by [`Tree::load`].
    pub input: Vec<u8>,
    /// The contents of [`Step::expected`], read once by [`Tree::load`].
    pub expected_output: Option<Vec<u8>>,
}

/// A file of the tree that stacscheck would never use: almost always a mistake of the tree's
/// author (a misnamed script or output). Paths are relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A prog script in a folder without `.out` files: it never runs.
    ProgWithoutOut { script: String },
    /// A `.out` file in a folder without prog scripts: nothing is compared with it.
    OutWithoutProg { out: String },
    /// An `.in` file without the `.out` of the same name: it is never read.
    InWithoutOut { input: String },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::ProgWithoutOut { script } => write!(f, "{script} never runs: no .out file beside it"),
            Warning::OutWithoutProg { out } => write!(f, "{out} is never compared: no prog script beside it"),
            Warning::InWithoutOut { input } => write!(f, "{input} is never read: no .out file of the same name"),
        }
    }
}

/// Everything stacscheck would run for one target folder of a tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// Where `practical.config` was found (absolute, symbolic links resolved).
    pub root: PathBuf,
    /// The folder the plan was made for (absolute), the root or a folder inside it.
    pub target: PathBuf,
    pub config: Config,
    /// In stacscheck's order.
    pub steps: Vec<Step>,
    /// Unused files of the target's subtree, in the order met.
    pub warnings: Vec<Warning>,
}

impl Tree {
    /// Finds the tree's configuration in `target_dir` or above, and plans the run of
    /// `target_dir`: the `build*` scripts of each folder from the root down to its parent, then
    /// everything in its subtree. The `.in` and `.out` files are read here.
    pub fn load(target_dir: &Path) -> Result<Tree, StacscheckError> {
        let target = target_dir
            .canonicalize()
            .map_err(|source| StacscheckError::Io { path: target_dir.to_path_buf(), source })?;
        if !target.is_dir() {
            return Err(StacscheckError::NotADirectory { path: target });
        }
        let (root, config) = config::find(&target)?;
        let mut planner = Planner { root: &root, steps: Vec::new(), warnings: Vec::new(), ids: HashMap::new() };
        // Folders above the target contribute only their builds, which guard everything after.
        let mut guards = Vec::new();
        let mut dir = root.clone();
        let mut rel = String::new();
        let below = target.strip_prefix(&root).expect("the root is an ancestor of the target");
        for component in below.components() {
            let listing = Listing::read(&dir)?;
            planner.add_builds(&dir, &rel, &listing, &mut guards)?;
            dir.push(component);
            rel = join_id(&rel, component.as_os_str().as_bytes());
        }
        planner.add_subtree(&dir, &rel, guards)?;
        let Planner { steps, warnings, .. } = planner;
        Ok(Tree { root, target, config, steps, warnings })
    }
}

/// A step id: `rel/name`, or `name` at the root.
fn join_id(rel: &str, name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    if rel.is_empty() {
        name.into_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// The files of one folder that matter to stacscheck, each list in byte order (which is
/// Python's `sorted` order for UTF-8 names).
#[derive(Debug, Default)]
struct Listing {
    /// Scripts by kind, in [`StepKind::ALL`] order.
    scripts: [Vec<OsString>; 4],
    outs: Vec<OsString>,
    ins: Vec<OsString>,
    subdirs: Vec<OsString>,
}

impl Listing {
    /// Hidden entries are skipped. A symbolic link counts as the file it leads to, but a link
    /// to a folder is not entered (it could lead out of the tree or round in a loop).
    fn read(dir: &Path) -> Result<Listing, StacscheckError> {
        let io_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StacscheckError::Io { path, source }
        };
        let mut listing = Listing::default();
        for entry in fs::read_dir(dir).map_err(io_err(dir))? {
            let entry = entry.map_err(io_err(dir))?;
            let name = entry.file_name();
            let bytes = name.as_bytes();
            if bytes.starts_with(b".") {
                continue;
            }
            let file_type = entry.file_type().map_err(io_err(&entry.path()))?;
            let is_file = if file_type.is_symlink() {
                fs::metadata(entry.path()).is_ok_and(|m| m.is_file())
            } else if file_type.is_dir() {
                listing.subdirs.push(name);
                continue;
            } else {
                file_type.is_file()
            };
            if !is_file {
                continue;
            }
            if let Some(kind) = StepKind::of_script(bytes) {
                listing.scripts[kind as usize].push(name);
            } else if bytes.ends_with(b".out") {
                listing.outs.push(name);
            } else if bytes.ends_with(b".in") {
                listing.ins.push(name);
            }
        }
        let lists = listing.scripts.iter_mut().chain([&mut listing.outs, &mut listing.ins, &mut listing.subdirs]);
        for list in lists {
            list.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        }
        Ok(listing)
    }

    fn scripts(&self, kind: StepKind) -> &[OsString] {
        &self.scripts[kind as usize]
    }
}

fn stem<'a>(name: &'a OsString, extension: &str) -> &'a [u8] {
    let bytes = name.as_bytes();
    &bytes[..bytes.len() - extension.len()]
}

struct Planner<'a> {
    root: &'a Path,
    steps: Vec<Step>,
    warnings: Vec<Warning>,
    /// Each id given so far, with what it was given to (for the duplicate error).
    ids: HashMap<String, String>,
}

impl Planner<'_> {
    /// Adds the builds of `dir`; each is guarded by `guards` and the builds before it, and is
    /// added to `guards`.
    fn add_builds(
        &mut self,
        dir: &Path,
        rel: &str,
        listing: &Listing,
        guards: &mut Vec<usize>,
    ) -> Result<(), StacscheckError> {
        for name in listing.scripts(StepKind::Build) {
            let id = join_id(rel, stem(name, ".sh"));
            let index =
                self.push(Step::plain(StepKind::Build, id, dir, name, guards.clone()), join_id(rel, name.as_bytes()))?;
            guards.push(index);
        }
        Ok(())
    }

    /// Adds everything of `dir` and below, depth first.
    fn add_subtree(&mut self, dir: &Path, rel: &str, mut guards: Vec<usize>) -> Result<(), StacscheckError> {
        let listing = Listing::read(dir)?;
        self.add_builds(dir, rel, &listing, &mut guards)?;
        for kind in [StepKind::Test, StepKind::Info] {
            for name in listing.scripts(kind) {
                let id = join_id(rel, stem(name, ".sh"));
                self.push(Step::plain(kind, id, dir, name, guards.clone()), join_id(rel, name.as_bytes()))?;
            }
        }
        self.add_progs(dir, rel, &listing, &guards)?;
        for sub in &listing.subdirs {
            self.add_subtree(&dir.join(sub), &join_id(rel, sub.as_bytes()), guards.clone())?;
        }
        Ok(())
    }

    /// One run per prog script and `.out` file, script by script, with `NAME.in` as input when
    /// it exists.
    fn add_progs(&mut self, dir: &Path, rel: &str, listing: &Listing, guards: &[usize]) -> Result<(), StacscheckError> {
        let progs = listing.scripts(StepKind::Prog);
        for script in progs {
            if listing.outs.is_empty() {
                self.warnings.push(Warning::ProgWithoutOut { script: join_id(rel, script.as_bytes()) });
            }
            for out in &listing.outs {
                let out_stem = stem(out, ".out");
                let mut in_name = out_stem.to_vec();
                in_name.extend_from_slice(b".in");
                let has_in = listing.ins.iter().any(|i| i.as_bytes() == in_name);
                let stdin = has_in.then(|| dir.join(std::ffi::OsStr::from_bytes(&in_name)));
                let expected = dir.join(out);
                let input = match &stdin {
                    Some(path) => read(path)?,
                    None => Vec::new(),
                };
                let mut id_name = stem(script, ".sh").to_vec();
                id_name.push(b'-');
                id_name.extend_from_slice(out_stem);
                let step = Step {
                    expected_output: Some(read(&expected)?),
                    input,
                    stdin,
                    expected: Some(expected),
                    ..Step::plain(StepKind::Prog, join_id(rel, &id_name), dir, script, guards.to_vec())
                };
                let what = format!("{} with {}", join_id(rel, script.as_bytes()), out.to_string_lossy());
                self.push(step, what)?;
            }
        }
        if progs.is_empty() {
            for out in &listing.outs {
                self.warnings.push(Warning::OutWithoutProg { out: join_id(rel, out.as_bytes()) });
            }
        }
        for input in &listing.ins {
            let in_stem = stem(input, ".in");
            if !listing.outs.iter().any(|out| stem(out, ".out") == in_stem) {
                self.warnings.push(Warning::InWithoutOut { input: join_id(rel, input.as_bytes()) });
            }
        }
        Ok(())
    }

    fn push(&mut self, step: Step, what: String) -> Result<usize, StacscheckError> {
        if let Some(first) = self.ids.get(&step.id) {
            return Err(StacscheckError::DuplicateStep {
                root: self.root.to_path_buf(),
                id: step.id,
                first: first.clone(),
                second: what,
            });
        }
        self.ids.insert(step.id.clone(), what);
        self.steps.push(step);
        Ok(self.steps.len() - 1)
    }
}

impl Step {
    /// A step without input or expected output.
    fn plain(kind: StepKind, id: String, dir: &Path, script: &OsString, guarded_by: Vec<usize>) -> Step {
        Step {
            id,
            kind,
            script: dir.join(script),
            testdir: dir.to_path_buf(),
            stdin: None,
            expected: None,
            guarded_by,
            input: Vec::new(),
            expected_output: None,
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, StacscheckError> {
    fs::read(path).map_err(|source| StacscheckError::Io { path: path.to_path_buf(), source })
}
