//! The command line as clap reads it: the commands, their options and their help texts.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use bhgrade::{pipeline, report};

use super::exit;

pub const BUNDLED_SUITE: &str = "cs3105-p1";
/// The suite folder `regen` works on by default: the bundled suite in a clone.
pub const BUNDLED_SUITE_FOLDER: &str = "suites/cs3105-p1";
pub const BUNDLED_SUBMISSIONS: &str = "fixtures/submissions";

/// The games a suite may name, one a line, from the reference's table of games.
fn games_help() -> String {
    let games = bhref::games::GAMES.iter().map(|game| format!("  {:<12} {}\n", game.name, game.about));
    format!("Games (a suite's `game:`):\n{}", games.collect::<String>())
}

#[derive(Debug, Parser)]
#[command(
    name = "bhgrade",
    version,
    about = "Mark search practicals on patience games, with the game's reference checker and solver as judge",
    long_about = "bhgrade builds each submission with its own build.sh, runs the commands its suite's game \
defines (CHECK, SOLVE, ...) on every test under time, memory and output limits, judges every answer with \
the game's reference checker and solver, and writes a markdown and JSON report per student, feedback a \
student can be handed, a class summary, a class page and gradebooks. A suite names its game; a stacscheck \
test tree can be run instead of a suite.\n\n".to_string() + &games_help(),
    after_help = "Examples:\n  bhgrade mark                                   mark the bundled samples into reports/\n  bhgrade mark submissions/ --suite suites/cs3105-p1 --out marks/ --jobs 4\n  bhgrade test                                   a student: run the visible tests on ./\n  bhgrade test ~/P1 --part part2                 only Part 2\n  bhgrade regen --suite suites/cs3105-p1         recompute the expected answers\n\n".to_string() + &exit::help("success", Some("a check did not pass (test, stacscheck, regen --check or --verify, merge, suite floor, suite leaks)"), true)
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub output: Output,
}

/// How much bhgrade says on the terminal, and in colour or not (every command).
#[derive(Debug, Args)]
pub struct Output {
    /// Say nothing on standard error but warnings and errors (no progress, no last line); `test`
    /// prints only its score line.
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
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
    pub color: report::ColorChoice,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Mark every submission in a folder (a folder or an archive per student).
    #[command(after_help = format!("With no arguments, marks the bundled sample submissions ({BUNDLED_SUBMISSIONS}) \
with the bundled suite ({BUNDLED_SUITE_FOLDER}) into reports/.\n\nWrites OUT/students/<student>.md and .json, and \
OUT/feedback/<student>.md, per student; then OUT/summary.md, OUT/grades.csv, OUT/canvas.csv, OUT/junit.xml, \
OUT/index.html and OUT/class.json.\n\n") + &exit::help("every submission was marked, whatever its marks", None, true))]
    Mark(MarkArgs),
    /// Run a suite's visible tests on one submission and print its report (what a student runs).
    #[command(after_help = exit::help("every test run was accepted", Some("one was not"), true))]
    Test(TestArgs),
    /// Run a stacscheck test tree on one submission, with bhgrade's limits and containment.
    #[command(after_help = "Runs the tree's build, test, info and prog scripts as stacscheck does \
(TESTDIR, SCRATCHDIR, .in on a pipe, its comparison rule), one test per comparison, named by its path in the \
tree.\n\n".to_string() + &exit::help("every step passed", Some("one did not"), true))]
    Stacscheck(StacscheckArgs),
    /// Combine the outputs of sharded `mark --shard K/N` runs into one summary and gradebook.
    #[command(after_help = "Refuses outputs of different suites or bhgrade versions, and a student marked twice.\n\n".to_string()
        + &exit::help("every student was marked in a shard", Some("some were not (listed)"), false))]
    Merge(MergeArgs),
    /// Recompute and store every test's expected answer with the reference.
    Regen(RegenArgs),
    /// Work with a suite as a whole: a student's copy, the floor check, a search for give-aways.
    #[command(subcommand)]
    Suite(SuiteCommand),
    /// Show which isolation layers this machine offers.
    #[command(after_help = exit::help("the table was printed", None, false))]
    Doctor,
    /// Write the man pages and shell completions of bhgrade and bhref into DIR (for packaging).
    #[command(hide = true)]
    ReleaseAssets {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct Common {
    /// The suite: its folder (holding suite.yaml and expected.json) or its suite.yaml, or a
    /// bundled suite's name (a folder of suites/ in the clone bhgrade was built from, or beside
    /// the binary; an unknown name lists them). Nothing of a suite is built into bhgrade.
    #[arg(long, value_name = "DIR|NAME", default_value = BUNDLED_SUITE)]
    pub suite: PathBuf,
    #[command(flatten)]
    pub parallel: Parallel,
    #[command(flatten)]
    pub containment: Containment,
}

/// How many runs at once, and on how many cores each.
#[derive(Debug, Args)]
pub struct Parallel {
    /// Builds and runs at once, each pinned to its own cores [default: the cores bhgrade may
    /// use (its affinity mask and any cgroup CPU quota) divided by --cores-per-run].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// Cores each build and run is pinned to, for its whole process tree.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub cores_per_run: u16,
}

impl Parallel {
    pub fn slots(&self) -> pipeline::Slots {
        pipeline::Slots::for_machine(self.jobs.map(usize::from), usize::from(self.cores_per_run))
    }
}

/// How student code is contained (shared by every command that runs it).
#[derive(Debug, Args)]
pub struct Containment {
    /// Isolation of student code: `auto` uses every layer this machine offers and names the
    /// missing ones in one warning; `strict` refuses to mark without all of them; `off` keeps only the limits
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
    pub isolation: bhgrade::sandbox::Isolation,
    /// The disk each submission may fill (its copy, its build's output, its runs' scratch
    /// folders), in MiB: a file system of its own of that size where the machine allows (root),
    /// so that one student filling it fails alone.
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(16..=1 << 20))]
    pub disk_mb: u64,
    /// As root, the uids lent one to each submission marked at once (each with the gid of the
    /// same number), as `FIRST-LAST`: none may be an account, a group or a running process's. As
    /// an ordinary user with subordinate ids (/etc/subuid), the numbers those ids have inside
    /// each run (at most as many as the range holds).
    #[arg(long, value_name = "FIRST-LAST", default_value = "60000-60999", value_parser = parse_uid_range)]
    pub box_uids: (u32, u32),
}

/// `FIRST-LAST` → (first, count), with 0 < FIRST <= LAST.
fn parse_uid_range(text: &str) -> Result<(u32, u32), String> {
    let (first, last) = text.split_once('-').ok_or("expected FIRST-LAST, such as 60000-60999")?;
    let parse = |n: &str| n.trim().parse::<u32>().map_err(|e| format!("`{n}`: {e}"));
    let (first, last) = (parse(first)?, parse(last)?);
    if first == 0 || last < first {
        return Err(format!("{text}: expected 0 < FIRST <= LAST (uid 0 is root)"));
    }
    Ok((first, last - first + 1))
}

#[derive(Debug, Args)]
pub struct MarkArgs {
    /// The folder of submissions, one entry per student.
    #[arg(value_name = "SUBMISSIONS", default_value = BUNDLED_SUBMISSIONS)]
    pub submissions: PathBuf,
    #[command(flatten)]
    pub common: Common,
    /// Where the reports go (and the stored results that let an interrupted marking resume).
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub out: PathBuf,
    /// Redo every build and run, ignoring results stored by an earlier marking into OUT.
    #[arg(long)]
    pub force: bool,
    /// Mark against a stacscheck test tree (e.g. Tests/ or Tests/Part1) instead of a suite.
    #[arg(long, value_name = "TESTDIR")]
    pub stacscheck: Option<PathBuf>,
    /// The class roster: Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID,
    /// Section). canvas.csv then has its rows and IDs; the summary lists who on it handed
    /// nothing in (0 marks) and which submissions are no one's on it.
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,
    /// The roster's assignment column canvas.csv fills, as the roster names it (e.g.
    /// "CS3105 Practical 1 (4242)") [default: the one named as the suite's title].
    #[arg(long, value_name = "COLUMN", requires = "roster")]
    pub canvas_column: Option<String>,
    /// Mark only shard K of N: a fixed 1/N of the submissions (by name order), for spreading a
    /// class over machines; combine the outputs with `bhgrade merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<bhgrade::build::Shard>,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// The submission folder.
    #[arg(value_name = "SUBMISSION", default_value = ".")]
    pub submission: PathBuf,
    #[command(flatten)]
    pub common: Common,
    /// Run only this part (its id in the suite, e.g. part1).
    #[arg(long, value_name = "NAME")]
    pub part: Option<String>,
    /// Also write the markdown report (and JSON) into this folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run the hidden tests too (for markers checking one submission).
    #[arg(long)]
    pub all: bool,
    /// Run only this test (its id, e.g. part1/valid-handout, or its name after the part).
    #[arg(long, value_name = "TEST")]
    pub only: Option<String>,
    /// Write Gradescope's autograder results (results.json) to FILE.
    #[arg(long, value_name = "FILE")]
    pub gradescope: Option<PathBuf>,
    /// Write the results as JUnit XML to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write PrairieLearn's external-grader results JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub prairielearn: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StacscheckArgs {
    /// The tree, or a part of it (its practical.config is found in it or above it).
    #[arg(value_name = "TESTDIR")]
    pub testdir: PathBuf,
    /// The submission folder.
    #[arg(value_name = "SUBMISSION", default_value = ".")]
    pub submission: PathBuf,
    /// Also write the markdown report (and JSON) into this folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The suite whose `launch` settings (environment, memory overhead) the steps run with: a
    /// folder, or a bundled suite's name.
    #[arg(long, value_name = "DIR|NAME", default_value = BUNDLED_SUITE)]
    pub suite: PathBuf,
    #[command(flatten)]
    pub parallel: Parallel,
    #[command(flatten)]
    pub containment: Containment,
}

#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// Write a copy of a suite to hand to students: its visible tests only.
    #[command(after_help = "Writes OUT/suite.yaml, OUT/expected.json and the visible tests' puzzles and \
solutions. Of a hidden test nothing is written but, per part, how many there are and what they are worth, \
so `bhgrade test --suite OUT` gives every visible test the verdict and marks a marker's run gives. OUT must \
be new or empty.\n\nExample:\n  bhgrade suite export --student suites/cs3105-p1 --out p1-student-tests\n\n".to_string()
        + &exit::help("the copy was written", None, false))]
    Export(ExportArgs),
    /// Print what every program that never reads its input earns of a suite (the floor check).
    #[command(after_help = "From the expected answers alone, with no run: each program that prints one \
constant for every test of a kind (`true` or `false` for a check, `0` or `-1` for a solve: what its game lists), \
and the marks it earns as a marking adds them up, groups and give-up credit included. `bhgrade regen` and \
`regen --check` print the same table.\n\n".to_string()
        + &exit::help("no such program earns more than the suite's `trivial_ceiling` (5% unless it says otherwise)", Some("one does"), false))]
    Floor(FloorArgs),
    /// Search what students are handed (a README, docs, a students' archive) for a suite's hidden tests.
    #[command(after_help = "Reads every file under each PATH and names each hidden test it gives away: by \
its id (`PART/TEST`, in any quoting) and, when no visible test uses its puzzle, by the puzzle's \
file name, the generator call that makes it (`GEN SEED ...`) or its text; a hidden check test also by \
its candidate solution.\n\nExample:\n  bhgrade suite leaks suites/cs3105-p1 README.md docs\n\n".to_string()
        + &exit::help("nothing under the paths gives a hidden test away", Some("something does"), false))]
    Leaks(LeaksArgs),
}

#[derive(Debug, Args)]
pub struct LeaksArgs {
    /// The whole suite (its hidden tests are what is looked for).
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// Files and folders to search.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct FloorArgs {
    /// The suite folder (or a bundled suite's name).
    #[arg(value_name = "SUITE", default_value = BUNDLED_SUITE_FOLDER)]
    pub suite: PathBuf,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The suite folder to copy.
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// Leave out the hidden tests (the only kind of copy there is; say so, so a copy for
    /// students is never written by mistake for markers, or the other way round).
    #[arg(long, required = true)]
    pub student: bool,
    /// The new folder the copy is written to.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The output folders of the shards.
    #[arg(value_name = "DIRS", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the combined reports go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
#[command(after_help = "Writes missing instances named after the game's generator (GEN's parameters, as \
the game names its files), the derived solutions of check tests (derived/PART/TEST.sol) and expected.json: every answer and its hardness \
(the reference's search nodes). Files change only when their text does, so a second run changes nothing.\n\n\
".to_string() + &exit::help("done (with --check: up to date; with --verify: no answer refuted or left \
undecided)", Some("with --check: out of date, each difference named; with --verify: out of date, or an answer \
refuted or undecided, each test named"), false))]
pub struct RegenArgs {
    /// The suite folder.
    #[arg(long, value_name = "DIR", default_value = BUNDLED_SUITE_FOLDER)]
    pub suite: PathBuf,
    /// Change nothing; list every test whose stored answer, hardness or derived solution differs
    /// from what the reference now says, or whose inputs changed since regen ran (for CI); then
    /// the floor check (`bhgrade suite floor`): fails when a program that never reads its input
    /// earns more than the suite's `trivial_ceiling`.
    #[arg(long)]
    pub check: bool,
    /// Change nothing; ask the game's second oracle (one sharing no search code with its solver)
    /// about every solve test's stored answer: every `0` must be proved by it and every solution
    /// must pass the checker; print how long each took. A game without one says so.
    #[arg(long, conflicts_with = "check")]
    pub verify: bool,
}
