//! A student's copy of a suite: a verified [`Suite`] → a folder holding only its visible tests
//! (their puzzles, candidate solutions, commands, limits, groups, exact marks and expected answers) and,
//! for each part, how many hidden tests it has and what they are worth (`withheld`). Nothing of
//! a hidden test is written: not its puzzle, input, answer, name or weight alone.
//!
//! Each visible test's weight is written as the marks it is worth in the whole suite (its share
//! of the part, in the exact units of [`crate::score`]), so `bhgrade test` on the copy gives the
//! marks a marker's run gives; the copy is loaded and verified like any suite once written.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{ExpectedFile, Launch, PuzzleVia, Suite, SuiteError, Test, EXPECTED_FILE, SUITE_FILE};
use crate::sandbox::Limits;
use crate::score::from_units;

/// What a student's copy holds: tests kept and tests left out, over the whole suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    pub visible: usize,
    pub withheld: usize,
}

/// Why a student's copy could not be written.
#[derive(Debug)]
pub enum ExportError {
    /// The output folder exists and holds something: a copy is written only into a new folder.
    NotEmpty(PathBuf),
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The suite is itself a student's copy.
    AlreadyStudentCopy(PathBuf),
    /// The copy, read back, is not a valid suite (a bug: the suite it came from was).
    ReadBack(SuiteError),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::NotEmpty(path) => {
                write!(f, "{}: exists and is not empty; give a new folder for the student's copy", path.display())
            }
            ExportError::Write { path, error } => write!(f, "{}: cannot write: {error}", path.display()),
            ExportError::AlreadyStudentCopy(path) => {
                write!(f, "{}: is already a student's copy (its hidden tests are left out)", path.display())
            }
            ExportError::ReadBack(error) => write!(f, "the student's copy does not read back: {error}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// Writes the student's copy of `suite` into `out` (a new or empty folder).
pub fn export_student(suite: &Suite, out: &Path) -> Result<Exported, ExportError> {
    if suite.is_student_copy() {
        return Err(ExportError::AlreadyStudentCopy(suite.dir.clone()));
    }
    if std::fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(ExportError::NotEmpty(out.to_path_buf()));
    }
    let writer = Writer { out };
    let stored = ExpectedFile::read(&suite.dir).map_err(ExportError::ReadBack)?;
    let mut expected = ExpectedFile { suite: stored.suite.clone(), tests: Default::default() };
    let mut yaml = header(suite);
    let mut counts = Exported { visible: 0, withheld: 0 };
    for part in &suite.parts {
        let maxima = part.maxima(|test| test.def.weight);
        let (mut kept, mut withheld_units, mut withheld_tests) = (Vec::new(), 0, 0);
        for (test, max) in part.tests.iter().zip(maxima) {
            if test.def.visible {
                kept.push((test, max));
            } else {
                withheld_tests += 1;
                withheld_units += max;
            }
        }
        let _ = writeln!(yaml, "  - id: {}\n    title: {}", quoted(&part.id), quoted(&part.title));
        let _ = writeln!(yaml, "    weight: {}", part.weight);
        let _ = writeln!(yaml, "    group_scoring: {}", part.group_scoring.name());
        let _ = writeln!(yaml, "    withheld: {{tests: {withheld_tests}, marks: {}}}", from_units(withheld_units));
        let _ = writeln!(yaml, "    tests:{}", if kept.is_empty() { " []" } else { "" });
        for (test, max) in kept {
            yaml.push_str(&writer.test(suite, &part.id, test, max)?);
            if let Some(answer) = stored.tests.get(&test.def.id) {
                expected.tests.insert(test.def.id.clone(), answer.clone());
            }
        }
        counts.visible += part.tests.len() - withheld_tests;
        counts.withheld += withheld_tests;
    }
    writer.file(SUITE_FILE, yaml.as_bytes())?;
    // The suite file made the folder; `regen`'s writer writes the answers as it always does.
    expected.write(out).map_err(|error| writer.error(EXPECTED_FILE, error))?;
    super::load_definition(out).and_then(|definition| definition.verify()).map_err(ExportError::ReadBack)?;
    Ok(counts)
}

/// The suite-wide settings of the copy: everything that decides how a test is run.
fn header(suite: &Suite) -> String {
    let mut yaml = format!(
        "# A student's copy of the suite `{}`, written by `bhgrade suite export --student`: only its\n\
         # visible tests. Each test's weight is the marks it is worth in the whole suite; `withheld`\n\
         # says how many hidden tests a part has and what they are worth.\n",
        suite.name
    );
    let _ =
        writeln!(yaml, "name: {}\ntitle: {}\ngame: {}", quoted(&suite.name), quoted(&suite.title), quoted(&suite.game));
    let _ = writeln!(yaml, "srcdir: {}", quoted(&suite.srcdir));
    yaml.push_str(&launch(&suite.launch));
    let _ =
        writeln!(yaml, "build:\n  command: {}\n  script: {}", list(&suite.build.command), quoted(&suite.build.script));
    // The defaults (CPU past the wall-clock limit) are what no suite file can write out: a
    // suite that gives none keeps them by giving none.
    if suite.build.limits != super::resolve::BUILD_DEFAULTS {
        let _ = writeln!(yaml, "  limits: {}", limits(&suite.build.limits));
    }
    let _ = writeln!(yaml, "gave_up_credit: {}", suite.gave_up_credit);
    let _ = writeln!(yaml, "trivial_ceiling: {}\nparts:", suite.trivial_ceiling);
    yaml
}

fn launch(launch: &Launch) -> String {
    let mut yaml = format!("launch:\n  command: {}\n", list(&launch.command));
    if !launch.env.is_empty() {
        yaml.push_str("  env:\n");
        for (name, value) in &launch.env {
            let _ = writeln!(yaml, "    - name: {}\n      value: {}", quoted(name), quoted(value));
        }
    }
    let _ = writeln!(yaml, "  memory_overhead_mb: {}", launch.memory_overhead_bytes >> 20);
    let _ = writeln!(yaml, "  stderr_noise: {}", list(&launch.stderr_noise));
    yaml
}

/// Limits in the suite file's units, every one written out.
fn limits(limits: &Limits) -> String {
    format!(
        "{{wall_seconds: {}, cpu_seconds: {}, memory_mb: {}, output_kb: {}}}",
        limits.wall.as_secs_f64(),
        limits.cpu.as_secs_f64(),
        limits.memory_bytes >> 20,
        limits.output_bytes >> 10
    )
}

/// A YAML double-quoted scalar: a JSON string is one.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|item| quoted(item)).collect::<Vec<_>>().join(", "))
}

struct Writer<'a> {
    out: &'a Path,
}

impl Writer<'_> {
    fn error(&self, relative: &str, error: std::io::Error) -> ExportError {
        ExportError::Write { path: self.out.join(relative), error }
    }

    /// Writes `relative` under the copy's folder, making the folders it needs.
    fn file(&self, relative: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.out.join(relative);
        let folder = path.parent().unwrap_or(self.out);
        std::fs::create_dir_all(folder).map_err(|error| self.error(relative, error))?;
        std::fs::write(&path, bytes).map_err(|error| self.error(relative, error))
    }

    /// One visible test: its files written, its entry in the suite file returned.
    fn test(&self, suite: &Suite, part: &str, test: &Test, max_units: i64) -> Result<String, ExportError> {
        let def = &test.def;
        let name = def.id.split_once('/').map_or(def.id.as_str(), |(_, name)| name);
        let puzzle = def
            .puzzle
            .strip_prefix(&suite.dir)
            .ok()
            .and_then(Path::to_str)
            .map_or_else(|| format!("instances/{part}/{name}.txt"), str::to_string);
        self.file(&puzzle, def.puzzle_text.as_bytes())?;
        let mut yaml = format!("      - id: {}\n        kind: {}\n", quoted(name), quoted(&def.kind));
        let _ = writeln!(yaml, "        puzzle: {}", quoted(&puzzle));
        if let Some(input) = &def.input {
            let solution = format!("solutions/{part}/{name}.sol");
            self.file(&solution, input.as_bytes())?;
            let _ = writeln!(yaml, "        solution: {}", quoted(&solution));
        }
        let _ = writeln!(yaml, "        weight: {}", from_units(max_units));
        // A group keeps its visible tests; its hidden ones stay out like every hidden test.
        if let Some(group) = &def.group {
            let _ = writeln!(yaml, "        group: {}", quoted(group));
        }
        if let Some(curve) = def.quality {
            let _ = writeln!(yaml, "        quality: {{floor_at: {}, floor: {}}}", curve.floor_at, curve.floor);
        }
        let _ = writeln!(yaml, "        visible: true\n        limits: {}", limits(&def.limits));
        if def.puzzle_via != PuzzleVia::File {
            let _ = writeln!(yaml, "        puzzle_via: {}", def.puzzle_via.name());
        }
        if let Some(note) = &def.note {
            let _ = writeln!(yaml, "        note: {}", quoted(note));
        }
        Ok(yaml)
    }
}
