//! Regeneration: a suite folder → everything in it that the reference decides, what the organiser
//! runs after changing a suite or the reference, and what CI runs with `--check`.
//!
//! Input: a suite folder. Output of [`regenerate`]: the folder brought up to date, and a
//! [`Regenerated`] summary. In order, it
//! 1. writes every missing instance named after the game's generator (for Black Hole,
//!    `seed-cards-ranks-suits-piles.txt`; the game's referee says which names are such names);
//! 2. derives every check test's `derive:` solution (the game's referee makes it) into
//!    `derived/PART/TEST.sol`, and removes files there that no test derives;
//! 3. validates the suite as every load does (no two tests identical);
//! 4. asks the reference for every test's answer and hardness (search nodes, deterministic,
//!    unlike time) and writes `expected.json`.
//!
//! Every step is a function of the suite's inputs and the reference, and files are rewritten only
//! when their text changes, so running it twice changes nothing.
//!
//! Output of [`check`]: the [`Difference`]s between the folder and what [`regenerate`] would make
//! of it, each naming its test; none means the suite is up to date.
//!
//! [`verify()`] (in `verify`): an up-to-date folder → every solve test's stored answer confirmed
//! or refuted by the game's second oracle.

mod verify;

pub use verify::{verify, Opinion, Verified};

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use bhref::referee::{GeneratedInstance, Instance};
use walkdir::WalkDir;

use crate::suite::derive::{DeriveRule, DERIVED_DIR};
use crate::suite::{self, ExpectedFile, StoredAnswer, StoredOptimum, SuiteDefinition, SuiteError, TestDefinition};

/// Why regeneration (or its check) could not run.
#[derive(Debug, thiserror::Error)]
pub enum RegenError {
    /// The suite is invalid: the organiser's problem, named with its file or test.
    #[error(transparent)]
    Suite(#[from] SuiteError),
    /// An instance named after the generator holds another puzzle: regen never overwrites one.
    /// `call` is the generator call the name spells, `command` the reference's command for it.
    #[error("test {test}: {file} is named after `{call}` but holds another puzzle; rename it or regenerate it with `{command}`")]
    NotGenerated { test: String, file: String, call: String, command: String },
    #[error("cannot write {path}: {error}")]
    Write { path: PathBuf, error: std::io::Error },
}

/// One test as regenerated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSummary {
    pub id: String,
    pub kind: String,
    pub answer: String,
    pub nodes: u64,
    /// The rule its candidate solution is derived by, if it is derived.
    pub derived: Option<DeriveRule>,
}

/// What [`regenerate`] did.
#[derive(Clone, Debug, Default)]
pub struct Regenerated {
    pub tests: Vec<TestSummary>,
    /// Files written because they were missing or their text changed, relative to the suite.
    pub written: Vec<String>,
    /// Derived solutions removed because no test derives them any more.
    pub removed: Vec<String>,
}

/// How a suite folder differs from what [`regenerate`] would make of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// `expected.json` has no answer for the test.
    AnswerMissing { test: String },
    /// The stored answer is not the reference's.
    AnswerChanged { test: String, stored: String, reference: String },
    /// The puzzle or candidate solution changed since the answer was stored.
    InputsChanged { test: String },
    /// The reference now needs a different number of search nodes.
    HardnessChanged { test: String, stored: u64, reference: u64 },
    /// The stored best measure (of a test that credits quality) is not the reference's.
    OptimumChanged { test: String, stored: String, reference: String },
    /// The test's derived solution is not written.
    DerivedMissing { test: String, file: String },
    /// The test's derived solution is not what its rule now derives.
    DerivedChanged { test: String, file: String },
    /// A file under `derived/` that no test derives.
    StaleDerivedFile { file: String },
    /// `expected.json` has an answer for a test the suite does not have.
    StaleAnswer { test: String },
    /// An instance named after the generator that holds another puzzle.
    NotGenerated { test: String, file: String },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::AnswerMissing { test } => write!(f, "test {test}: no expected answer is stored"),
            Difference::AnswerChanged { test, stored, reference } => {
                write!(f, "test {test}: the stored answer `{stored}` is not the reference's `{reference}`")
            }
            Difference::InputsChanged { test } => {
                write!(f, "test {test}: its puzzle or solution changed since the answer was stored")
            }
            Difference::HardnessChanged { test, stored, reference } => {
                write!(f, "test {test}: the reference now needs {reference} search nodes, not the stored {stored}")
            }
            Difference::OptimumChanged { test, stored, reference } => {
                write!(f, "test {test}: the stored best answer ({stored}) is not the reference's ({reference})")
            }
            Difference::DerivedMissing { test, file } => {
                write!(f, "test {test}: its derived solution {file} is missing")
            }
            Difference::DerivedChanged { test, file } => {
                write!(f, "test {test}: {file} is not the solution its rule now derives")
            }
            Difference::StaleDerivedFile { file } => write!(f, "{file}: no test derives this file"),
            Difference::StaleAnswer { test } => {
                write!(f, "test {test}: expected.json has an answer for a test the suite lacks")
            }
            Difference::NotGenerated { test, file } => {
                write!(f, "test {test}: {file} is named after the generator but holds another puzzle")
            }
        }
    }
}

/// How a test's stored best answer differs from the reference's, if it does: by its measure, or,
/// the measure the same, by how the reference proved it (quoted whole, so that the change shows).
fn optimum_changed(
    test: &str,
    stored: &Option<StoredOptimum>,
    reference: &Option<StoredOptimum>,
) -> Option<Difference> {
    if stored == reference {
        return None;
    }
    let measure =
        |optimum: &Option<StoredOptimum>| optimum.as_ref().map(|optimum| (optimum.best, optimum.unit.clone()));
    let same_measure = measure(stored) == measure(reference);
    let said = |optimum: &Option<StoredOptimum>| {
        let measured = match optimum {
            Some(StoredOptimum { best: Some(best), unit, .. }) => format!("{best} {unit}s"),
            Some(StoredOptimum { best: None, .. }) => "no answer to measure".to_string(),
            None => "none".to_string(),
        };
        match optimum {
            Some(StoredOptimum { how, .. }) if same_measure => format!("{measured}: {how}"),
            _ => measured,
        }
    };
    Some(Difference::OptimumChanged { test: test.to_string(), stored: said(stored), reference: said(reference) })
}

/// The suite as `regen` would leave it, computed without writing anything.
struct Intended {
    definition: SuiteDefinition,
    /// Derived solutions by file (relative to the suite), as the rules derive them now.
    derived: BTreeMap<String, String>,
    /// Derived solutions as they are on disk (`None`: missing), by test id.
    on_disk: BTreeMap<String, Option<String>>,
    /// The digest of each test's inputs as they are on disk, by test id.
    disk_digests: BTreeMap<String, String>,
    expected: ExpectedFile,
    tests: Vec<TestSummary>,
}

/// Brings the suite in `dir` up to date with the reference (see the module documentation).
pub fn regenerate(dir: &Path) -> Result<Regenerated, RegenError> {
    let outline = suite::outline(dir)?;
    let mut written = Vec::new();
    // An unknown game names no generated files; loading the suite below reports the game.
    if let Some(referee) = &outline.referee {
        for file in &outline.puzzles {
            let path = outline.dir.join(file);
            if let (Some(generated), false) = (referee.instance_from_file_name(file), path.exists()) {
                write_file(&path, &generated.text)?;
                written.push(file.clone());
            }
        }
    }
    let intended = intended(dir)?;
    if let Some((test, file, generated)) = not_generated(&intended.definition).into_iter().next() {
        return Err(RegenError::NotGenerated { test, file, call: generated.call, command: generated.command });
    }
    let root = &intended.definition.dir;
    for (file, text) in &intended.derived {
        // A derived file with Windows line endings is the same solution: left as it is.
        if !std::fs::read_to_string(root.join(file)).is_ok_and(|disk| suite::same_modulo_line_endings(&disk, text)) {
            write_file(&root.join(file), text)?;
            written.push(file.clone());
        }
    }
    let mut removed = Vec::new();
    for file in derived_files(root) {
        if !intended.derived.contains_key(&file) {
            let path = root.join(&file);
            std::fs::remove_file(&path).map_err(|error| RegenError::Write { path, error })?;
            removed.push(file);
        }
    }
    remove_empty_folders(&root.join(DERIVED_DIR));
    // An unreadable expected.json is rewritten, not an error: regen is how it gets repaired.
    if ExpectedFile::read(root).ok().as_ref() != Some(&intended.expected) {
        intended
            .expected
            .write(root)
            .map_err(|error| RegenError::Write { path: root.join(suite::EXPECTED_FILE), error })?;
        written.push(suite::EXPECTED_FILE.to_string());
    }
    Ok(Regenerated { tests: intended.tests, written, removed })
}

/// Lists how the suite in `dir` differs from what [`regenerate`] would make of it.
pub fn check(dir: &Path) -> Result<Vec<Difference>, RegenError> {
    let intended = intended(dir)?;
    let stored = ExpectedFile::read(&intended.definition.dir)?;
    let mut differences = Vec::new();
    for test in intended.definition.tests() {
        let id = &test.id;
        let mut derived_missing = false;
        if let Some(derivation) = &test.derive {
            let file = derivation.file.clone();
            match &intended.on_disk[id] {
                None => {
                    derived_missing = true;
                    differences.push(Difference::DerivedMissing { test: id.clone(), file });
                }
                Some(text) if !same_as_derived(text, intended.derived.get(&file)) => {
                    differences.push(Difference::DerivedChanged { test: id.clone(), file });
                }
                Some(_) => {}
            }
        }
        let Some(old) = stored.tests.get(id) else {
            differences.push(Difference::AnswerMissing { test: id.clone() });
            continue;
        };
        let new = &intended.expected.tests[id];
        // A missing derived solution is reported once, above, not again as changed inputs.
        if old.input_digest != intended.disk_digests[id] && !derived_missing {
            differences.push(Difference::InputsChanged { test: id.clone() });
        }
        if old.answer != new.answer {
            let (stored, reference) = (old.answer.clone(), new.answer.clone());
            differences.push(Difference::AnswerChanged { test: id.clone(), stored, reference });
        } else if old.nodes != new.nodes {
            differences.push(Difference::HardnessChanged { test: id.clone(), stored: old.nodes, reference: new.nodes });
        }
        differences.extend(optimum_changed(id, &old.optimum, &new.optimum));
    }
    for test in stored.tests.keys().filter(|test| !intended.expected.tests.contains_key(*test)) {
        differences.push(Difference::StaleAnswer { test: test.clone() });
    }
    for file in derived_files(&intended.definition.dir) {
        if !intended.derived.contains_key(&file) {
            differences.push(Difference::StaleDerivedFile { file });
        }
    }
    for (test, file, _) in not_generated(&intended.definition) {
        differences.push(Difference::NotGenerated { test, file });
    }
    Ok(differences)
}

/// Loads the suite, derives every derived solution, validates, and asks the reference.
fn intended(dir: &Path) -> Result<Intended, RegenError> {
    let mut definition = suite::load_definition(dir)?;
    let disk_digests = definition.tests().map(|t| (t.id.clone(), t.input_digest.clone())).collect();
    let on_disk = definition.tests().filter(|t| t.derive.is_some()).map(|t| (t.id.clone(), t.input.clone())).collect();
    let mut derived = BTreeMap::new();
    let referee = std::sync::Arc::clone(&definition.referee);
    for test in definition.parts.iter_mut().flat_map(|part| part.tests.iter_mut()) {
        let Some(derivation) = &test.derive else { continue };
        let name = test.puzzle.display().to_string();
        let instance = Instance { name: &name, text: &test.puzzle_text };
        let text = referee
            .derive(derivation.rule.name(), &test.kind, instance)
            .map_err(|error| SuiteError::Derive { test: test.id.clone(), error })?;
        derived.insert(derivation.file.clone(), text.clone());
        test.set_input(text);
    }
    definition.validate()?;
    let mut expected = ExpectedFile { suite: definition.name.clone(), ..ExpectedFile::default() };
    let mut tests = Vec::new();
    for test in definition.tests() {
        let answer = suite::reference_answer(definition.referee.as_ref(), test)?;
        tests.push(summary(test, &answer.answer, answer.nodes));
        // Solve tests keep the reference's solution (or proof of unsolvability) and kind, so
        // that loading the suite can trust the answer without solving again.
        let solved = !test.task.reads_input;
        let optimum = match test.quality {
            Some(_) => {
                let name = test.puzzle.display().to_string();
                let instance = Instance { name: &name, text: &test.puzzle_text };
                let optimum = definition
                    .referee
                    .optimum(&test.kind, instance)
                    .map_err(|error| SuiteError::Reference { test: test.id.clone(), error })?;
                Some(StoredOptimum::of(optimum.as_ref()))
            }
            None => None,
        };
        let stored = StoredAnswer {
            answer: answer.answer,
            nodes: answer.nodes,
            input_digest: test.input_digest.clone(),
            kind: solved.then(|| test.kind.clone()),
            detail: solved.then_some(answer.detail),
            optimum,
        };
        expected.tests.insert(test.id.clone(), stored);
    }
    Ok(Intended { definition, derived, on_disk, disk_digests, expected, tests })
}

fn summary(test: &TestDefinition, answer: &str, nodes: u64) -> TestSummary {
    TestSummary {
        id: test.id.clone(),
        kind: test.kind.clone(),
        answer: answer.to_string(),
        nodes,
        derived: test.derive.as_ref().map(|d| d.rule),
    }
}

/// Whether a derived solution on disk is the one the rule derives now (modulo line endings).
fn same_as_derived(on_disk: &str, derived: Option<&String>) -> bool {
    derived.is_some_and(|derived| suite::same_modulo_line_endings(on_disk, derived))
}

/// Tests whose puzzle is named after the generator but holds another puzzle (each file once).
fn not_generated(definition: &SuiteDefinition) -> Vec<(String, String, GeneratedInstance)> {
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for test in definition.tests() {
        let file = test.puzzle.strip_prefix(&definition.dir).unwrap_or(&test.puzzle).display().to_string();
        let Some(generated) = definition.referee.instance_from_file_name(&file) else { continue };
        if seen.insert(file.clone()) && !suite::same_modulo_line_endings(&test.puzzle_text, &generated.text) {
            found.push((test.id.clone(), file, generated));
        }
    }
    found
}

/// Every `*.sol` file under the suite's `derived/` folder, relative to the suite, sorted.
fn derived_files(root: &Path) -> Vec<String> {
    let mut files: Vec<String> = WalkDir::new(root.join(DERIVED_DIR))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file() && entry.path().extension().is_some_and(|ext| ext == "sol"))
        .filter_map(|entry| entry.path().strip_prefix(root).ok().map(|p| p.display().to_string()))
        .collect();
    files.sort();
    files
}

/// Removes the folders under `dir` (and `dir`) that no derived file is left in.
fn remove_empty_folders(dir: &Path) {
    for entry in WalkDir::new(dir).contents_first(true).into_iter().filter_map(Result::ok) {
        if entry.file_type().is_dir() {
            // Fails, harmlessly, on a folder that still holds something.
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), RegenError> {
    let failed = |error| RegenError::Write { path: path.to_path_buf(), error };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    crate::fsutil::write_atomically(path, text.as_bytes()).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optimum(best: u64, how: &str) -> Option<StoredOptimum> {
        Some(StoredOptimum { best: Some(best), unit: "move".to_string(), how: how.to_string() })
    }

    /// A changed measure is said by the measures; the same measure proved another way quotes both
    /// proofs, so that "31 moves is not 31 moves" is never all a reader is told.
    #[test]
    fn a_changed_best_answer_says_what_changed() {
        assert_eq!(optimum_changed("t", &optimum(31, "A*"), &optimum(31, "A*")), None);
        let measure = optimum_changed("t", &optimum(31, "A*, 900 positions"), &optimum(30, "A*, 800 positions"));
        assert_eq!(
            measure.unwrap().to_string(),
            "test t: the stored best answer (31 moves) is not the reference's (30 moves)"
        );
        let proof = optimum_changed("t", &optimum(31, "A*, 900 positions"), &optimum(31, "A*, 800 positions"));
        assert_eq!(
            proof.unwrap().to_string(),
            "test t: the stored best answer (31 moves: A*, 900 positions) is not the reference's (31 moves: A*, 800 positions)"
        );
    }
}
