//! Suites: a folder with `suite.yaml` (written by the course organiser) and `expected.json`
//! (written by `bhgrade regen` from the reference) → a verified [`Suite`].
//!
//! Read in two stages, as ripgrep reads its arguments: `raw` is the file as written; then
//! [`SuiteDefinition`] has every path resolved and read, every limit defaulted and every name
//! checked; then [`SuiteDefinition::verify`] validates the suite as a whole (every derived
//! solution present, no two tests identical), asks the reference for every check test's answer
//! (so every puzzle parses and no check test's answer turns on a point the rulings leave open)
//! and confirms every solve test's stored answer by a linear check where it can (replaying the
//! stored solution; see `trusted`), asking the reference to solve only where it cannot, and
//! refuses a stored expectation that is missing, stale or different, naming the test. Both stages
//! are one [`Suite`] type, told apart by what a test holds.
//!
//! [`derive`](mod@derive) names the candidate solutions of check tests that say `derive:`
//! instead of naming a `solution` file; the suite's game makes them, and `bhgrade regen`
//! ([`crate::regen`]) writes them into the suite.

pub mod bundled;
pub mod derive;
mod expected;
pub mod export;
pub mod floor;
mod launch;
mod raw;
mod resolve;
pub mod secrets;
mod select;

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use bhref::referee::{Expected, Judgement, Referee, RefereeError, TaskSpec};

pub use bhref::referee::DeriveError;
pub use derive::DeriveRule;
pub use expected::{Best, ExpectedFile, StoredAnswer, StoredOptimum};
pub use launch::Launch;
pub use raw::Pos;
pub use resolve::{
    digest, limits_for_cpu, load_definition, outline, read_inside, same_modulo_line_endings, unix_line_endings,
    wall_backstop, FileRefusal, Outline, MAX_SUITE_FILE,
};
pub use select::{LeftOut, SelectError, Selection};

use crate::sandbox::Limits;
use crate::score::{GroupScoring, QualityCurve};

/// The name of the suite definition inside a suite folder.
pub const SUITE_FILE: &str = "suite.yaml";
/// The name of the reference's answers inside a suite folder.
pub const EXPECTED_FILE: &str = "expected.json";

/// A suite whose tests are `T`: [`TestDefinition`]s as read ([`SuiteDefinition`]), or [`Test`]s
/// confirmed by the reference (a suite ready to grade against).
#[derive(Clone)]
pub struct Suite<T = Test> {
    pub dir: PathBuf,
    pub name: String,
    pub title: String,
    pub game: String,
    /// The reference of the suite's game.
    pub referee: Arc<dyn Referee>,
    pub srcdir: String,
    pub build: BuildSpec,
    pub launch: Launch,
    pub gave_up_credit: f64,
    /// The most (a fraction of the suite's marks) a program that never reads its input may
    /// earn: see [`floor`](mod@floor).
    pub trivial_ceiling: f64,
    pub parts: Vec<PartDefinition<T>>,
}

/// A suite whose paths are resolved and read, not yet checked against the reference.
pub type SuiteDefinition = Suite<TestDefinition>;

/// How a submission is built.
#[derive(Clone, Debug)]
pub struct BuildSpec {
    pub command: Vec<String>,
    pub script: String,
    pub limits: Limits,
}

/// A part of the suite (e.g. Part 1, CHECK) and its tests.
#[derive(Clone, Debug)]
pub struct PartDefinition<T> {
    pub id: String,
    pub title: String,
    /// The marks the part is worth.
    pub weight: f64,
    /// How the tests of a group earn its marks together.
    pub group_scoring: GroupScoring,
    pub tests: Vec<T>,
    /// In a student's copy of the suite, the hidden tests left out of this part. Its tests'
    /// weights are then their exact marks (see [`PartDefinition::maxima`]).
    pub withheld: Option<Withheld>,
}

/// What a student's copy of a part says of the hidden tests it leaves out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Withheld {
    pub tests: usize,
    pub marks: f64,
}

/// How a test's program is given its puzzle. Contracts that read the puzzle from standard input
/// when no file is named (or the file is `-`) are tested that way too: a program that only
/// opens files fails those tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PuzzleVia {
    /// The puzzle's path, as the last argument.
    #[default]
    File,
    /// No puzzle argument; the puzzle's text on standard input.
    Stdin,
    /// The argument `-`; the puzzle's text on standard input.
    Dash,
}

impl PuzzleVia {
    /// The names a suite file uses, in the order they are listed in messages.
    pub const NAMES: [&'static str; 3] = ["file", "stdin", "dash"];

    pub fn parse(name: &str) -> Option<PuzzleVia> {
        match name {
            "file" => Some(PuzzleVia::File),
            "stdin" => Some(PuzzleVia::Stdin),
            "dash" => Some(PuzzleVia::Dash),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PuzzleVia::File => "file",
            PuzzleVia::Stdin => "stdin",
            PuzzleVia::Dash => "dash",
        }
    }
}

/// One test as defined, with its files read.
#[derive(Clone, Debug)]
pub struct TestDefinition {
    /// Unique in the suite: `PART/TEST`.
    pub id: String,
    pub kind: String,
    pub task: TaskSpec,
    /// Absolute path of the instance file, as given to the program.
    pub puzzle: PathBuf,
    /// Whether the program gets that path or the puzzle's text on standard input.
    pub puzzle_via: PuzzleVia,
    pub puzzle_text: String,
    /// The candidate solution fed on standard input (check kinds); `None` for a derived solution
    /// that `bhgrade regen` has not written yet.
    pub input: Option<String>,
    /// How the candidate solution is derived, when the suite says `derive:` (or gives a check
    /// test no `solution`).
    pub derive: Option<Derivation>,
    pub weight: f64,
    /// The test's group in its part (a test without one is a group of its own).
    pub group: Option<String>,
    /// How an accepted answer's quality becomes credit, when the test credits it.
    pub quality: Option<QualityCurve>,
    /// Whether students see this test (`bhgrade test` runs only these).
    pub visible: bool,
    pub limits: Limits,
    pub note: Option<String>,
    /// The name a hidden test is shown by to students, when the suite gives one.
    pub public_name: Option<String>,
    /// A digest of the puzzle and input, to tell a stale expectation.
    pub input_digest: String,
}

/// A check test's derived candidate solution: the rule and the file `bhgrade regen` writes.
#[derive(Clone, Debug)]
pub struct Derivation {
    pub rule: DeriveRule,
    /// The file relative to the suite folder, `derived/PART/TEST.sol`.
    pub file: String,
    /// The same file, absolute.
    pub path: PathBuf,
}

impl TestDefinition {
    /// Replaces the candidate input (a freshly derived solution), keeping the digest in step.
    pub fn set_input(&mut self, input: String) {
        self.input_digest = digest(&self.puzzle_text, Some(&input));
        self.input = Some(input);
    }
}

/// A test with its expected answer, confirmed by the reference.
#[derive(Clone, Debug)]
pub struct Test {
    pub def: TestDefinition,
    pub expected: Expected,
    /// For a test that credits quality, the best any answer can measure (proved by the
    /// reference when `bhgrade regen` stored it); `None` where no answer has a quality.
    pub optimum: Option<Best>,
}

impl<T> PartDefinition<T> {
    /// What each test is worth, in whole units of [`crate::score`], in test order, given each
    /// test's weight. A whole suite shares the part's marks among its tests in proportion to
    /// their weights; a student's copy (`withheld` set) wrote each test's share of the whole
    /// part as its weight, so it is taken as it stands.
    pub fn maxima(&self, weight: impl Fn(&T) -> f64) -> Vec<i64> {
        use crate::score::{apportion, to_units};
        let weights: Vec<f64> = self.tests.iter().map(weight).collect();
        match self.withheld {
            Some(_) => weights.into_iter().map(to_units).collect(),
            None => apportion(to_units(self.weight), &weights),
        }
    }
}

impl<T> Suite<T> {
    /// Whether this is a student's copy of a suite: its hidden tests left out.
    pub fn is_student_copy(&self) -> bool {
        self.parts.iter().any(|part| part.withheld.is_some())
    }

    /// Every test, in suite order.
    pub fn tests(&self) -> impl Iterator<Item = &T> {
        self.parts.iter().flat_map(|part| part.tests.iter())
    }

    /// The same suite with every test made into a `U` by `make`, in suite order; the first
    /// error ends it.
    fn try_map_tests<U, E>(self, mut make: impl FnMut(T) -> Result<U, E>) -> Result<Suite<U>, E> {
        let mut parts = Vec::with_capacity(self.parts.len());
        for part in self.parts {
            let tests = part.tests.into_iter().map(&mut make).collect::<Result<_, _>>()?;
            parts.push(PartDefinition {
                id: part.id,
                title: part.title,
                weight: part.weight,
                group_scoring: part.group_scoring,
                tests,
                withheld: part.withheld,
            });
        }
        Ok(Suite {
            dir: self.dir,
            name: self.name,
            title: self.title,
            game: self.game,
            referee: self.referee,
            srcdir: self.srcdir,
            build: self.build,
            launch: self.launch,
            gave_up_credit: self.gave_up_credit,
            trivial_ceiling: self.trivial_ceiling,
            parts,
        })
    }
}

impl SuiteDefinition {
    /// Checks what no single test can: every derived solution has been written, and no two
    /// tests are identical (same kind, same puzzle text given the same way, same input: one
    /// would be marked twice).
    pub fn validate(&self) -> Result<(), SuiteError> {
        let mut seen: HashMap<(&str, &str, PuzzleVia, Option<&str>), &str> = HashMap::new();
        for def in self.tests() {
            if let (Some(derivation), None) = (&def.derive, &def.input) {
                return Err(SuiteError::DerivedMissing { test: def.id.clone(), file: derivation.file.clone() });
            }
            let key = (def.kind.as_str(), def.puzzle_text.as_str(), def.puzzle_via, def.input.as_deref());
            if let Some(first) = seen.insert(key, &def.id) {
                return Err(SuiteError::Duplicate { test: def.id.clone(), same_as: first.to_string() });
            }
        }
        Ok(())
    }

    /// Validates the suite and confirms every stored expectation with the reference (a solve
    /// test's stored answer by a linear check when it can be: see `trusted`).
    pub fn verify(self) -> Result<Suite, SuiteError> {
        self.validate()?;
        let stored = ExpectedFile::read(&self.dir)?;
        let referee = Arc::clone(&self.referee);
        self.try_map_tests(|def| {
            let optimum = stored_optimum(&def, &stored)?;
            if let Some(expected) = stored.tests.get(&def.id).and_then(|answer| trusted(referee.as_ref(), &def, answer))
            {
                return Ok(Test { def, expected, optimum });
            }
            // The reference first: an invalid puzzle or an ambiguous check is the suite's
            // real problem, whatever expected.json says.
            let expected = reference_answer(referee.as_ref(), &def)?;
            let Some(answer) = stored.tests.get(&def.id) else {
                return Err(SuiteError::ExpectedMissing { test: def.id });
            };
            if answer.input_digest != def.input_digest {
                return Err(SuiteError::ExpectedStale { test: def.id });
            }
            if expected.answer != answer.answer {
                return Err(SuiteError::ExpectedMismatch {
                    test: def.id,
                    stored: answer.answer.clone(),
                    reference: expected.answer,
                });
            }
            Ok(Test { def, expected, optimum })
        })
    }
}

/// The stored optimum of a test that credits quality: required where its answer is solvable,
/// and trusted as stored, like an unsolvable answer (the proof is the reference's exhaustive
/// search; `bhgrade regen --check` runs it again).
fn stored_optimum(def: &TestDefinition, stored: &ExpectedFile) -> Result<Option<Best>, SuiteError> {
    if def.quality.is_none() {
        return Ok(None);
    }
    let Some(answer) = stored.tests.get(&def.id) else { return Ok(None) };
    match &answer.optimum {
        Some(optimum) => Ok(optimum.to_best()),
        None => Err(SuiteError::OptimumMissing { test: def.id.clone() }),
    }
}

/// A stored answer that suite loading may use without asking the reference to solve again, or
/// `None` when the reference must be asked.
///
/// Asking costs a check test a linear replay, so check tests (those that read an input) are
/// always asked. A solve test can cost the reference its whole search budget, once per test at
/// every `mark`, so its stored answer is used when it was stored for this very puzzle and kind
/// (input digest and kind match) and its stored detail passes the game's own judge, a linear
/// check:
///
/// - a stored solution (answer `1` in Black Hole, a move count in Late Binding) is judged as if a
///   program had printed it, which replays it through the reference checker: a solvable answer
///   is never trusted without a valid witness;
/// - an unsolvable answer (`0`, or `-1` in Late Binding) has no witness to replay: it is trusted
///   as stored, when its own answer line is the judge's accepted answer. A proof of
///   unsolvability is the search itself; re-running it at every load is what this avoids.
///   `expected.json` is written by `bhgrade regen` and checked by `bhgrade regen --check`
///   (which solves everything again, as CI should run after any change to the reference), so a
///   stored `0` is as trustworthy as the reference that wrote it, and a puzzle or kind changed
///   since is caught by the digest and kind.
///
/// Answers stored before the detail was (older `expected.json` files) are asked for as before.
fn trusted(referee: &dyn Referee, def: &TestDefinition, stored: &StoredAnswer) -> Option<Expected> {
    if def.task.reads_input || stored.input_digest != def.input_digest || stored.kind.as_deref() != Some(&def.kind) {
        return None;
    }
    let detail = stored.detail.clone()?;
    let expected = Expected { answer: stored.answer.clone(), detail, nodes: stored.nodes, micros: 0 };
    let name = def.puzzle.display().to_string();
    let instance = bhref::referee::Instance { name: &name, text: &def.puzzle_text };
    let accepts = |output: &str| {
        referee.judge(&def.kind, instance, None, &expected, output.as_bytes()).ok() == Some(Judgement::Accepted)
    };
    if accepts(&expected.detail) {
        // A valid witness: the answer must be the one it starts with (a witness stored beside
        // an unsolvable answer is a contradiction, settled by the reference).
        let leads = expected.detail.split_whitespace().next() == Some(expected.answer.as_str());
        return leads.then_some(expected);
    }
    accepts(&expected.answer).then_some(expected)
}

/// The reference's answer for one test definition.
pub fn reference_answer(referee: &dyn Referee, def: &TestDefinition) -> Result<Expected, SuiteError> {
    let name = def.puzzle.display().to_string();
    let instance = bhref::referee::Instance { name: &name, text: &def.puzzle_text };
    referee
        .expected(&def.kind, instance, def.input.as_deref())
        .map_err(|error| SuiteError::Reference { test: def.id.clone(), error })
}

/// Why a suite cannot be used. Every variant names the file (and position) or the test.
#[derive(Debug)]
pub enum SuiteError {
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    Yaml {
        path: PathBuf,
        pos: Option<Pos>,
        message: String,
    },
    Invalid {
        path: PathBuf,
        pos: Pos,
        message: String,
    },
    ExpectedFile {
        path: PathBuf,
        message: String,
    },
    ExpectedMissing {
        test: String,
    },
    ExpectedStale {
        test: String,
    },
    ExpectedMismatch {
        test: String,
        stored: String,
        reference: String,
    },
    Reference {
        test: String,
        error: RefereeError,
    },
    /// A derived solution `bhgrade regen` has not written (or that was deleted).
    DerivedMissing {
        test: String,
        file: String,
    },
    /// A derivation rule that does not apply to the test's puzzle or kind.
    Derive {
        test: String,
        error: DeriveError,
    },
    /// A test that credits quality whose best answer `bhgrade regen` has not stored.
    OptimumMissing {
        test: String,
    },
    /// Two tests with the same kind, puzzle text and input.
    Duplicate {
        test: String,
        same_as: String,
    },
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteError::Read { path, error } => write!(f, "{}: cannot read: {error}", path.display()),
            SuiteError::Yaml { path, pos: Some(pos), message } => {
                write!(f, "{}:{}:{}: {message}", path.display(), pos.line, pos.column)
            }
            SuiteError::Yaml { path, pos: None, message } => write!(f, "{}: {message}", path.display()),
            SuiteError::Invalid { path, pos, message } => {
                write!(f, "{}:{}:{}: {message}", path.display(), pos.line, pos.column)
            }
            SuiteError::ExpectedFile { path, message } => write!(f, "{}: {message}", path.display()),
            SuiteError::ExpectedMissing { test } => {
                write!(f, "test {test}: no expected answer is stored; run `bhgrade regen` to compute it")
            }
            SuiteError::ExpectedStale { test } => write!(
                f,
                "test {test}: its puzzle or solution changed since the expected answer was stored; run `bhgrade regen`"
            ),
            SuiteError::ExpectedMismatch { test, stored, reference } => write!(
                f,
                "test {test}: the stored expected answer `{stored}` disagrees with the reference's `{reference}`; refusing to grade (run `bhgrade regen` if the reference is right)"
            ),
            SuiteError::Reference { test, error } => write!(f, "test {test}: {error}"),
            SuiteError::DerivedMissing { test, file } => {
                write!(f, "test {test}: its derived solution {file} is missing; run `bhgrade regen` to write it")
            }
            SuiteError::Derive { test, error } => write!(f, "test {test}: {error}"),
            SuiteError::OptimumMissing { test } => write!(
                f,
                "test {test}: it credits quality, but the best answer's measure is not stored; run `bhgrade regen`"
            ),
            SuiteError::Duplicate { test, same_as } => write!(
                f,
                "test {test} is identical to test {same_as} (same kind, puzzle and input); remove one of them"
            ),
        }
    }
}

impl std::error::Error for SuiteError {}
