//! Commands and their options → calls into the library, and errors → exit statuses.
//!
//! Exit statuses: 0 success; 1 `test` found a failing test; 2 bad input (suite, submissions,
//! arguments); 3 the harness itself failed (sandbox, I/O, a submission it could not mark); 130
//! and 143 marking stopped cleanly by SIGINT (Ctrl-C) and SIGTERM.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use bhgrade::build::{self, Submission};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use bhgrade::pipeline::{self, MarkOptions};
use bhgrade::plan;
use bhgrade::regen;
use bhgrade::report::model::ClassReport;
use bhgrade::report::{self, Reporter};
use bhgrade::sandbox::{sweep_stale, Sandbox, ScratchRoot};
use bhgrade::store::{ResultStore, StoreError};
use bhgrade::suite::{self, Suite};
use bhgrade::verdict::Verdict;

const BUNDLED_SUITE: &str = "suites/cs3105-p1";
const BUNDLED_SUBMISSIONS: &str = "fixtures/submissions";

#[derive(Debug, Parser)]
#[command(
    name = "bhgrade",
    version,
    about = "Mark Black Hole / Worm Hole submissions with the reference checker and solver as judge",
    long_about = "bhgrade builds each submission with its own build.sh, runs its CHECK, SOLVE, CHECKWORM and \
SOLVEWORM commands on every test of a suite under time, memory and output limits, judges every answer \
with the reference checker and solver, and writes a markdown and JSON report per student, a class \
summary and a gradebook CSV.",
    after_help = "Examples:\n  bhgrade mark                                   mark the bundled samples into reports/\n  bhgrade mark submissions/ --suite suites/cs3105-p1 --out marks/ --jobs 4\n  bhgrade test                                   a student: run the visible tests on ./\n  bhgrade test ~/P1 --part part2                 only Part 2\n  bhgrade regen --suite suites/cs3105-p1         recompute the expected answers\n\nExit status: 0 success; 1 a test failed (test); 2 bad input; 3 the harness failed;\n130 stopped by Ctrl-C (SIGINT), 143 stopped by SIGTERM: finished results are kept, run the same command again to finish."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    output: Output,
}

/// How much bhgrade says on the terminal, and in colour or not (every command).
#[derive(Debug, Args)]
struct Output {
    /// Say nothing on standard error but warnings and errors (no progress, no last line); `test`
    /// prints only its score line.
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
    /// Colour the progress lines: `auto` on a terminal unless NO_COLOR is set.
    #[arg(
        long,
        value_name = "WHEN",
        default_value = "auto",
        global = true,
        value_parser = clap::builder::TypedValueParser::map(
            clap::builder::PossibleValuesParser::new(["auto", "always", "never"]),
            |when| match when.as_str() {
                "always" => report::ColorChoice::Always,
                "never" => report::ColorChoice::Never,
                _ => report::ColorChoice::Auto,
            },
        )
    )]
    color: report::ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Mark every submission in a folder (a folder or .zip/.tar.gz/.tgz per student).
    #[command(after_help = "With no arguments, marks the bundled sample submissions (fixtures/submissions) with the \
bundled suite (suites/cs3105-p1) into reports/.\n\nWrites OUT/<student>.md and OUT/<student>.json per student, \
OUT/summary.md and OUT/grades.csv.\nExit status 0 when every submission was marked, whatever its marks.")]
    Mark(MarkArgs),
    /// Run a suite's visible tests on one submission and print its report (what a student runs).
    #[command(after_help = "Exit status 0 when every test is accepted, 1 when any is not.")]
    Test(TestArgs),
    /// Run a stacscheck test tree on one submission, with bhgrade's limits and containment.
    #[command(after_help = "Runs the tree's build, test, info and prog scripts as stacscheck does (TESTDIR, \
SCRATCHDIR, .in on a pipe, its comparison rule), one test per comparison, named by its path in the tree.\n\
Exit status 0 when every step passed, 1 when any did not.")]
    Stacscheck(StacscheckArgs),
    /// Combine the outputs of sharded `mark --shard K/N` runs into one summary and gradebook.
    #[command(after_help = "Refuses outputs of different suites or bhgrade versions, and a student marked twice.")]
    Merge(MergeArgs),
    /// Recompute and store every test's expected answer with the reference.
    Regen(RegenArgs),
    /// Show which isolation layers this machine offers.
    Doctor,
}

#[derive(Debug, Args)]
struct Common {
    /// The suite folder (holding suite.yaml and expected.json).
    #[arg(long, value_name = "DIR", default_value = BUNDLED_SUITE)]
    suite: PathBuf,
    #[command(flatten)]
    parallel: Parallel,
    #[command(flatten)]
    containment: Containment,
}

/// How many runs at once, and on how many cores each.
#[derive(Debug, Args)]
struct Parallel {
    /// Builds and runs at once, each pinned to its own cores [default: the cores bhgrade may
    /// use (its affinity mask and any cgroup CPU quota) divided by --cores-per-run].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Cores each build and run is pinned to, for its whole process tree.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    cores_per_run: u16,
}

impl Parallel {
    fn slots(&self) -> pipeline::Slots {
        pipeline::Slots::for_machine(self.jobs.map(usize::from), usize::from(self.cores_per_run))
    }
}

/// How student code is contained (shared by every command that runs it).
#[derive(Debug, Args)]
struct Containment {
    /// Isolation of student code: `auto` uses every layer this machine offers and warns once per
    /// missing one; `strict` refuses to mark without all of them; `off` keeps only the limits
    /// (trusted code only). `bhgrade doctor` shows the layers.
    #[arg(
        long,
        value_name = "MODE",
        default_value = "auto",
        value_parser = clap::builder::TypedValueParser::map(
            clap::builder::PossibleValuesParser::new(["auto", "strict", "off"]),
            |mode| mode.parse::<bhgrade::sandbox::Isolation>().expect("a listed mode"),
        )
    )]
    isolation: bhgrade::sandbox::Isolation,
}

#[derive(Debug, Args)]
struct MarkArgs {
    /// The folder of submissions, one entry per student.
    #[arg(value_name = "SUBMISSIONS", default_value = BUNDLED_SUBMISSIONS)]
    submissions: PathBuf,
    #[command(flatten)]
    common: Common,
    /// Where the reports go (and the stored results that let an interrupted marking resume).
    #[arg(long, value_name = "DIR", default_value = "reports")]
    out: PathBuf,
    /// Redo every build and run, ignoring results stored by an earlier marking into OUT.
    #[arg(long)]
    force: bool,
    /// Mark against a stacscheck test tree (e.g. Tests/ or Tests/Part1) instead of a suite.
    #[arg(long, value_name = "TESTDIR")]
    stacscheck: Option<PathBuf>,
    /// Mark only shard K of N: a fixed 1/N of the submissions (by name order), for spreading a
    /// class over machines; combine the outputs with `bhgrade merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
}

/// `K/N` with 1 <= K <= N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 2/4")?;
    let k: usize = k.trim().parse().map_err(|_| format!("`{k}` is not a shard number"))?;
    let n: usize = n.trim().parse().map_err(|_| format!("`{n}` is not a number of shards"))?;
    if k == 0 || k > n {
        return Err(format!("shard {k}/{n}: K must be between 1 and N"));
    }
    Ok((k, n))
}

#[derive(Debug, Args)]
struct TestArgs {
    /// The submission folder.
    #[arg(value_name = "SUBMISSION", default_value = ".")]
    submission: PathBuf,
    #[command(flatten)]
    common: Common,
    /// Run only this part (its id in the suite, e.g. part1).
    #[arg(long, value_name = "NAME")]
    part: Option<String>,
    /// Also write the markdown report (and JSON) into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run the hidden tests too (for markers checking one submission).
    #[arg(long)]
    all: bool,
    /// Run only this test (its id, e.g. part1/valid-handout, or its name after the part).
    #[arg(long, value_name = "TEST")]
    only: Option<String>,
    /// Write Gradescope's autograder results (results.json) to FILE.
    #[arg(long, value_name = "FILE")]
    gradescope: Option<PathBuf>,
    /// Write the results as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write PrairieLearn's external-grader results JSON to FILE.
    #[arg(long, value_name = "FILE")]
    prairielearn: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct StacscheckArgs {
    /// The tree, or a part of it (its practical.config is found in it or above it).
    #[arg(value_name = "TESTDIR")]
    testdir: PathBuf,
    /// The submission folder.
    #[arg(value_name = "SUBMISSION", default_value = ".")]
    submission: PathBuf,
    /// Also write the markdown report (and JSON) into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The suite whose `launch` settings (environment, memory overhead) the steps run with.
    #[arg(long, value_name = "DIR", default_value = BUNDLED_SUITE)]
    suite: PathBuf,
    #[command(flatten)]
    parallel: Parallel,
    #[command(flatten)]
    containment: Containment,
}

#[derive(Debug, Args)]
struct MergeArgs {
    /// The output folders of the shards.
    #[arg(value_name = "DIRS", required = true)]
    dirs: Vec<PathBuf>,
    /// Where the combined reports go.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Debug, Args)]
#[command(after_help = "Writes missing instances named after the generator (seed-cards-ranks-suits-piles.txt), \
the derived solutions of check tests (derived/PART/TEST.sol) and expected.json: every answer and its hardness \
(the reference's search nodes). Files change only when their text does, so a second run changes nothing.\n\n\
Exit status: 0 done (with --check: up to date); 1 with --check: out of date, each difference named; \
2 the suite is invalid.")]
struct RegenArgs {
    /// The suite folder.
    #[arg(long, value_name = "DIR", default_value = BUNDLED_SUITE)]
    suite: PathBuf,
    /// Change nothing; list every test whose stored answer, hardness or derived solution differs
    /// from what the reference now says, or whose inputs changed since regen ran (for CI).
    #[arg(long)]
    check: bool,
}

/// What `main` reports for a failed command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    Harness(String),
}

impl CliError {
    pub fn exit_status(&self) -> u8 {
        match self {
            CliError::BadInput(_) => 2,
            CliError::Harness(_) => 3,
        }
    }
}

/// Runs a parsed command line, returning the exit status on success.
pub fn run(cli: Cli) -> Result<u8, CliError> {
    let output = cli.output;
    match cli.command {
        Command::Mark(args) => mark(args, &output),
        Command::Test(args) => test(args, &output),
        Command::Merge(args) => merge(args),
        Command::Stacscheck(args) => stacscheck(args),
        Command::Regen(args) => regen(args),
        Command::Doctor => doctor(),
    }
}

fn load_suite(dir: &Path) -> Result<Suite, CliError> {
    let dir = bundled(dir);
    let definition = suite::load_definition(&dir).map_err(|e| suite_error(&dir, e))?;
    definition.verify().map_err(|e| suite_error(&dir, e))
}

/// A suite's error as bad input that says it is the suite's: an error naming a file of the suite
/// says so by its path; one naming only a test gets the suite's folder in front.
fn suite_error(dir: &Path, error: suite::SuiteError) -> CliError {
    use suite::SuiteError;
    match error {
        SuiteError::Read { .. }
        | SuiteError::Yaml { .. }
        | SuiteError::Invalid { .. }
        | SuiteError::ExpectedFile { .. } => CliError::BadInput(error.to_string()),
        SuiteError::ExpectedMissing { .. }
        | SuiteError::ExpectedStale { .. }
        | SuiteError::ExpectedMismatch { .. }
        | SuiteError::Reference { .. }
        | SuiteError::DerivedMissing { .. }
        | SuiteError::Derive { .. }
        | SuiteError::Duplicate { .. } => CliError::BadInput(format!("suite {}: {error}", dir.display())),
    }
}

/// A bundled default path, found from the current folder or, failing that, the source tree.
fn bundled(path: &Path) -> PathBuf {
    let is_default = path == Path::new(BUNDLED_SUITE) || path == Path::new(BUNDLED_SUBMISSIONS);
    if is_default && !path.exists() {
        return Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    }
    path.to_path_buf()
}

/// The launch settings of a suite, for runs that are not the suite's tests (stacscheck steps).
fn launch_of(dir: &Path) -> Result<suite::Launch, CliError> {
    let dir = bundled(dir);
    let definition = suite::load_definition(&dir).map_err(|e| suite_error(&dir, e))?;
    Ok(definition.launch)
}

/// The scratch folder and the probed sandbox for `isolation`; says once, on stderr, what is
/// missing (`auto`), or refuses to go on without it (`strict`).
fn scratch_and_sandbox(isolation: bhgrade::sandbox::Isolation) -> Result<(ScratchRoot, Sandbox), CliError> {
    use bhgrade::sandbox::{Isolation, Policy};
    let parent = std::env::temp_dir();
    // Copies of student code a killed bhgrade left behind (no live bhgrade holds their lock).
    let swept = sweep_stale(&parent);
    for path in &swept.removed {
        eprintln!("note: removed {}, left behind by a bhgrade that was killed", path.display());
    }
    for (path, error) in &swept.failed {
        eprintln!("warning: cannot remove {}, left behind by a bhgrade that was killed: {error}", path.display());
    }
    let scratch = ScratchRoot::create_in(&parent)
        .map_err(|e| CliError::Harness(format!("cannot make a scratch folder in {}: {e}", parent.display())))?;
    let sandbox = Sandbox::probe_with(scratch.path(), Policy::for_isolation(isolation))
        .map_err(|e| CliError::Harness(format!("the sandbox cannot start: {e}")))?;
    let missing = sandbox.missing_layers();
    match isolation {
        Isolation::Strict if !missing.is_empty() => {
            let names: Vec<String> = missing.iter().map(|l| format!("{} ({})", l.name, l.detail)).collect();
            return Err(CliError::Harness(format!(
                "--isolation strict: this machine lacks {} isolation layer(s): {}; see `bhgrade doctor`",
                missing.len(),
                names.join("; ")
            )));
        }
        Isolation::Auto | Isolation::Strict => {
            for layer in &missing {
                eprintln!("warning: isolation layer `{}` unavailable: {}", layer.name, layer.detail);
            }
        }
        Isolation::Off => eprintln!(
            "warning: --isolation off: student code runs without namespaces, Landlock or a user switch \
             (limits still apply); use it only for code you trust"
        ),
    }
    Ok((scratch, sandbox))
}

fn mark(args: MarkArgs, output: &Output) -> Result<u8, CliError> {
    let suite = match args.stacscheck {
        Some(_) => None,
        None => Some(load_suite(&args.common.suite)?),
    };
    let plan = match (&args.stacscheck, &suite) {
        (Some(testdir), _) => tree_plan(testdir, &args.common.suite)?,
        (None, Some(suite)) => plan::from_suite(suite),
        (None, None) => unreachable!("a suite is loaded when no tree is given"),
    };
    let dir = bundled(&args.submissions);
    usable_out(&args.out)?;
    // The error names the path itself (`PATH: No such file…`): prefixing it would say it twice.
    let intake = build::intake(&dir).map_err(|e| CliError::BadInput(e.to_string()))?;
    for ignored in &intake.ignored {
        eprintln!("ignored: {} ({})", ignored.path.display(), ignored.why);
    }
    for renamed in &intake.renamed {
        eprintln!("note: {} is marked as {}: {}", renamed.path.display(), renamed.name, renamed.why);
    }
    let mut submissions = intake.submissions;
    one_submission_given(&dir, &plan.build.srcdir, &submissions)?;
    if submissions.is_empty() {
        return Err(CliError::BadInput(format!("{}: no submissions found", dir.display())));
    }
    if let Some((k, n)) = args.shard {
        // `discover` sorts by name, so every machine computes the same shards.
        submissions = submissions.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, s)| s).collect();
    }
    let (scratch, sandbox) = scratch_and_sandbox(args.common.containment.isolation)?;
    let options = MarkOptions {
        slots: args.common.parallel.slots(),
        scratch_root: scratch.path().to_path_buf(),
        store: Some(ResultStore::open(&args.out, !args.force).map_err(|e| match e {
            StoreError::Locked { .. } => CliError::BadInput(e.to_string()),
            StoreError::Io { .. } => CliError::Harness(e.to_string()),
        })?),
        stop: stop_on_interrupt(),
    };
    let mut progress = report::Progress::new(output.color, Some(args.out.clone()));
    let mut rejudge = report::Rejudge { dir: args.out.clone() };
    let mut files = report::Files::new(args.out.clone());
    let mut reporters: Vec<&mut dyn Reporter> = vec![&mut rejudge, &mut files];
    if !output.quiet {
        reporters.insert(0, &mut progress);
    }
    let class = pipeline::mark(&plan, &submissions, &sandbox, &options, &mut reporters)
        .map_err(|e| CliError::Harness(e.to_string()))?;
    if !class.incomplete.is_empty() {
        return Ok(interrupted_status());
    }
    if !class.harness_problems.is_empty() {
        return Err(CliError::Harness(format!(
            "{} submission(s) could not be fully marked; see {}",
            class.harness_problems.len(),
            args.out.join("summary.md").display()
        )));
    }
    Ok(0)
}

fn test(args: TestArgs, output: &Output) -> Result<u8, CliError> {
    let mut suite = load_suite(&args.common.suite)?;
    if let Some(part) = &args.part {
        if !suite.parts.iter().any(|p| &p.id == part) {
            let known: Vec<&str> = suite.parts.iter().map(|p| p.id.as_str()).collect();
            return Err(CliError::BadInput(format!("no part `{part}` in the suite; it has: {}", known.join(", "))));
        }
    }
    let only = args.only.as_deref().map(|wanted| find_test(&suite, wanted, args.all)).transpose()?;
    let left_out = select(&mut suite, |test| {
        let wanted = match (&only, args.part.as_deref()) {
            (Some(id), _) => test.def.id == *id,
            (None, Some(part)) => test.def.id.starts_with(&format!("{part}/")),
            (None, None) => true,
        };
        wanted && (test.def.visible || args.all || only.is_some())
    });
    let path = args
        .submission
        .canonicalize()
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.submission.display())))?;
    if !path.is_dir() {
        return Err(CliError::BadInput(format!(
            "{}: not a folder; `bhgrade test` takes a submission's folder (the one holding `{}/`)",
            args.submission.display(),
            suite.srcdir
        )));
    }
    let name = path.file_name().map_or_else(|| "submission".into(), build::printable_name);
    let submissions = [Submission { name, path }];
    let (scratch, sandbox) = scratch_and_sandbox(args.common.containment.isolation)?;
    let options = MarkOptions {
        slots: args.common.parallel.slots(),
        scratch_root: scratch.path().to_path_buf(),
        store: None,
        stop: stop_on_interrupt(),
    };
    let left_out = (left_out.hidden_tests + left_out.other_tests > 0).then_some(left_out);
    let mut terminal = report::Terminal { left_out: left_out.clone(), quiet: output.quiet };
    let mut files = args.out.clone().map(|dir| report::Files { left_out, ..report::Files::new(dir) });
    let mut progress = report::Progress::new(output.color, args.out.clone());
    let mut exports =
        report::Exports { gradescope: args.gradescope, junit: args.junit, prairielearn: args.prairielearn };
    let mut reporters: Vec<&mut dyn Reporter> = vec![&mut terminal, &mut exports];
    if !output.quiet {
        reporters.push(&mut progress);
    }
    if let Some(files) = files.as_mut() {
        reporters.push(files);
    }
    let class = pipeline::mark(&plan::from_suite(&suite), &submissions, &sandbox, &options, &mut reporters)
        .map_err(|e| CliError::Harness(e.to_string()))?;
    not_a_submission(&class, &args.submission)?;
    one_submission_status(&class)
}

/// The id of the test `wanted` names (its id, or its name after the part when that is unique),
/// or an error naming the tests there are (the visible ones, unless `all`).
fn find_test(suite: &Suite, wanted: &str, all: bool) -> Result<String, CliError> {
    let matches: Vec<&str> = suite
        .tests()
        .map(|t| t.def.id.as_str())
        .filter(|id| *id == wanted || id.split_once('/').is_some_and(|(_, name)| name == wanted))
        .collect();
    match matches.as_slice() {
        [id] => Ok(id.to_string()),
        [] => {
            let known: Vec<&str> = suite.tests().filter(|t| all || t.def.visible).map(|t| t.def.id.as_str()).collect();
            Err(CliError::BadInput(format!("no test `{wanted}` in the suite; its tests are: {}", known.join(", "))))
        }
        several => Err(CliError::BadInput(format!(
            "`{wanted}` names {} tests ({}); give the whole id",
            several.len(),
            several.join(", ")
        ))),
    }
}

/// Keeps the tests `keep` says, each worth exactly what it is worth in the whole suite (its
/// share of its part, in the exact units of [`bhgrade::score`]), so `bhgrade test` shows the
/// marks the tests it ran earn out of what they are worth, never a rescaled total. Returns
/// what was left out: hidden tests, and visible ones not asked for.
fn select(suite: &mut Suite, keep: impl Fn(&suite::Test) -> bool) -> report::LeftOut {
    use bhgrade::score::{apportion, from_units, to_units};
    let (mut hidden_units, mut other_units) = (0, 0);
    let mut left_out = report::LeftOut::default();
    for part in &mut suite.parts {
        let weights: Vec<f64> = part.tests.iter().map(|t| t.def.weight).collect();
        let maxima = apportion(to_units(part.weight), &weights);
        let mut kept_units = 0;
        for (mut test, max) in std::mem::take(&mut part.tests).into_iter().zip(maxima) {
            if keep(&test) {
                test.def.weight = from_units(max);
                kept_units += max;
                part.tests.push(test);
            } else if test.def.visible {
                left_out.other_tests += 1;
                other_units += max;
            } else {
                left_out.hidden_tests += 1;
                hidden_units += max;
            }
        }
        part.weight = from_units(kept_units);
    }
    suite.parts.retain(|p| !p.tests.is_empty());
    left_out.hidden_marks = from_units(hidden_units);
    left_out.other_marks = from_units(other_units);
    left_out
}

/// Refuses (bad input, status 2) a "submission" in which no build script was found: what was
/// given is not a submission folder, and its all-`not run` report says nothing about code.
fn not_a_submission(class: &ClassReport, given: &Path) -> Result<(), CliError> {
    let none = class.students.iter().find(|s| s.build.verdict == build::BuildVerdict::NoBuildScript);
    match none {
        Some(student) => Err(CliError::BadInput(format!(
            "{}: not a submission: {}",
            given.display(),
            student.build.detail.trim_end_matches('.')
        ))),
        None => Ok(()),
    }
}

/// Refuses an output folder that cannot be one (a file, or a folder that cannot be made) before
/// anything is marked: finding out after the first student would waste the work and look like
/// the harness's failure.
fn usable_out(out: &Path) -> Result<(), CliError> {
    if out.exists() && !out.is_dir() {
        return Err(CliError::BadInput(format!("--out {}: exists and is not a folder", out.display())));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| CliError::BadInput(format!("--out {}: cannot make the folder: {e}", out.display())))
}

/// Refuses one submission's own folder given to `mark` (which would mark its `src/` as a student
/// called `src`), with a hint: `mark` takes the folder holding one entry per student.
fn one_submission_given(dir: &Path, srcdir: &str, found: &[Submission]) -> Result<(), CliError> {
    if found.iter().any(|s| s.name == srcdir) {
        return Err(CliError::BadInput(format!(
            "{}: this looks like one submission (it has `{srcdir}/`), not a folder of submissions; \
             give the folder holding one entry per student, or check one submission with `bhgrade test {}`",
            dir.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// The exit status of checking one submission: 3 if the harness failed on it, 128 + the signal
/// if marking was stopped, else 0 when every test was accepted and 1 when not.
fn one_submission_status(class: &ClassReport) -> Result<u8, CliError> {
    let all_accepted =
        class.students.iter().flat_map(|s| &s.parts).flat_map(|p| &p.tests).all(|t| t.verdict == Verdict::Accepted);
    if !class.harness_problems.is_empty() {
        let problems: Vec<String> = class.harness_problems.iter().map(ToString::to_string).collect();
        return Err(CliError::Harness(problems.join("; ")));
    }
    if !class.incomplete.is_empty() {
        return Ok(interrupted_status());
    }
    Ok(if all_accepted { 0 } else { 1 })
}

/// The exit status after a clean stop: 128 + the signal, as shells report a death by it (130 for
/// Ctrl-C's SIGINT, 143 for SIGTERM), so a script or a scheduler can tell which ended marking.
fn interrupted_status() -> u8 {
    match STOPPED_BY.load(Ordering::SeqCst) {
        0 => 128 + libc::SIGINT as u8,
        signal => 128 + signal as u8,
    }
}

/// Set by the first SIGINT or SIGTERM; a second one of either ends bhgrade at once.
static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that set [`STOP`], for the exit status (0 until one arrives).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(signal: libc::c_int) {
    // Only the first signal names the stop: a SIGTERM after a Ctrl-C is the second signal, not
    // a different reason.
    let _ = STOPPED_BY.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
    // SAFETY: signal(2) is async-signal-safe; the default action lets an impatient second
    // Ctrl-C, or a scheduler's SIGTERM after a Ctrl-C, end bhgrade at once.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
}

/// Makes Ctrl-C (SIGINT) and SIGTERM (what `timeout`, Slurm and systemd send) stop marking
/// cleanly: no new work starts, runs in progress end (their processes killed by their limits
/// at the latest), finished results are kept.
fn stop_on_interrupt() -> &'static AtomicBool {
    // SAFETY: the handler only stores to atomics and calls signal(2), all async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_stop_signal as *const () as libc::sighandler_t;
        // Both blocked while the handler runs, so two signals at once cannot interleave in it.
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaddset(&mut action.sa_mask, libc::SIGINT);
        libc::sigaddset(&mut action.sa_mask, libc::SIGTERM);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
    &STOP
}

/// The plan of marking against a stacscheck tree: its steps under its own `timeout`, started
/// with the launch settings of the suite in `suite_dir`.
fn tree_plan(testdir: &Path, suite_dir: &Path) -> Result<plan::Plan<'static>, CliError> {
    let tree = bhgrade::stacscheck::Tree::load(testdir).map_err(|e| CliError::BadInput(e.to_string()))?;
    for warning in &tree.warnings {
        eprintln!("warning: {warning}");
    }
    let timeout = tree.config.timeout;
    // The tree's `timeout` becomes the CPU limit; wall-clock time is the usual backstop.
    let limits = bhgrade::sandbox::Limits {
        wall: suite::wall_backstop(timeout),
        cpu: timeout,
        memory_bytes: 1 << 30,
        output_bytes: 1 << 20,
    };
    let launch = launch_of(suite_dir)?;
    plan::from_tree(&tree, limits, &launch)
        .map_err(|e| CliError::Harness(format!("{}: cannot list the tree: {e}", tree.root.display())))
}

fn stacscheck(args: StacscheckArgs) -> Result<u8, CliError> {
    let plan = tree_plan(&args.testdir, &args.suite)?;
    let path = args
        .submission
        .canonicalize()
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.submission.display())))?;
    let name = path.file_name().map_or_else(|| "submission".into(), build::printable_name);
    let submissions = [Submission { name, path }];
    let (scratch, sandbox) = scratch_and_sandbox(args.containment.isolation)?;
    let options = MarkOptions {
        slots: args.parallel.slots(),
        scratch_root: scratch.path().to_path_buf(),
        store: None,
        stop: stop_on_interrupt(),
    };
    let mut terminal = report::Terminal::default();
    let mut files = args.out.map(report::Files::new);
    let mut reporters: Vec<&mut dyn Reporter> = vec![&mut terminal];
    if let Some(files) = files.as_mut() {
        reporters.push(files);
    }
    let class = pipeline::mark(&plan, &submissions, &sandbox, &options, &mut reporters)
        .map_err(|e| CliError::Harness(e.to_string()))?;
    one_submission_status(&class)
}

fn merge(args: MergeArgs) -> Result<u8, CliError> {
    let class = bhgrade::merge::merge(&args.dirs).map_err(|e| CliError::BadInput(e.to_string()))?;
    let mut files = report::Files::new(args.out.clone());
    for student in &class.students {
        files
            .event(&report::Event::StudentDone { report: Box::new(student.clone()), reused_runs: 0 })
            .map_err(|e| CliError::Harness(e.to_string()))?;
    }
    files.event(&report::Event::Finished(Box::new(class.clone()))).map_err(|e| CliError::Harness(e.to_string()))?;
    eprintln!("merged {} students from {} folders into {}", class.students.len(), args.dirs.len(), args.out.display());
    if !class.incomplete.is_empty() {
        eprintln!(
            "not marked in their shard (interrupted): {}; mark those shards again, then merge",
            class.incomplete.join(", ")
        );
        return Ok(1);
    }
    Ok(0)
}

fn regen(args: RegenArgs) -> Result<u8, CliError> {
    let dir = bundled(&args.suite);
    let failed = |e: regen::RegenError| match e {
        regen::RegenError::Suite(_) | regen::RegenError::NotGenerated { .. } => CliError::BadInput(e.to_string()),
        regen::RegenError::Write { .. } => CliError::Harness(e.to_string()),
    };
    if args.check {
        let differences = regen::check(&dir).map_err(failed)?;
        for difference in &differences {
            eprintln!("{difference}");
        }
        if differences.is_empty() {
            eprintln!("{}: up to date with the reference", dir.display());
            return Ok(0);
        }
        eprintln!(
            "{}: {} difference(s); run `bhgrade regen --suite {}`",
            dir.display(),
            differences.len(),
            dir.display()
        );
        return Ok(1);
    }
    let done = regen::regenerate(&dir).map_err(failed)?;
    println!("| test | kind | answer | nodes | derived |\n|---|---|---|---|---|");
    for test in &done.tests {
        let derived = test.derived.map_or("", |rule| rule.name());
        println!("| {} | {} | {} | {} | {derived} |", test.id, test.kind, test.answer, test.nodes);
    }
    for file in &done.written {
        eprintln!("wrote {file}");
    }
    for file in &done.removed {
        eprintln!("removed {file} (no test derives it)");
    }
    eprintln!("{}: {} tests up to date", dir.display(), done.tests.len());
    Ok(0)
}

/// The table of isolation layers this machine offers (as `--isolation auto` would use them),
/// and whether `--isolation strict` would mark here.
fn doctor() -> Result<u8, CliError> {
    use bhgrade::sandbox::{Isolation, Policy};
    let scratch = ScratchRoot::create_in(&std::env::temp_dir())
        .map_err(|e| CliError::Harness(format!("cannot make a scratch folder: {e}")))?;
    let sandbox = Sandbox::probe_with(scratch.path(), Policy::for_isolation(Isolation::Auto))
        .map_err(|e| CliError::Harness(format!("the sandbox cannot start: {e}")))?;
    let cell = |text: &str| text.replace('|', "\\|");
    println!("| layer | active | required | detail |\n|---|---|---|---|");
    for layer in sandbox.layers() {
        let active = if layer.active { "yes" } else { "**no**" };
        let required = if layer.required { "yes" } else { "no" };
        println!("| {} | {active} | {required} | {} |", layer.name, cell(&layer.detail));
    }
    let missing = sandbox.missing_layers();
    if missing.is_empty() {
        println!("\nEvery layer is active: `--isolation strict` will mark on this machine.");
    } else {
        let names: Vec<&str> = missing.iter().map(|l| l.name.as_str()).collect();
        println!(
            "\nMissing: {}. `--isolation auto` marks without them (and warns); `--isolation strict` refuses.",
            names.join(", ")
        );
    }
    Ok(0)
}
