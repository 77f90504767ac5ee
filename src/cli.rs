//! Commands and their options → calls into the library, and errors → exit statuses.
//!
//! The exit statuses are named in [`exit`]; each library error becomes bad input or the
//! harness's failure in [`error`].

mod args;
mod assets;
mod cgroups;
mod error;
pub mod exit;
mod regen;
mod stop;
mod suites;

use std::path::Path;

pub use args::Cli;
use args::*;
pub use error::CliError;
use exit::Exit;
use stop::{interrupted_status, stop_on_interrupt};
use suites::{bundled, launch_of, load_suite};

use bhgrade::build::{self, Submission};

use bhgrade::pipeline::{self, MarkOptions};
use bhgrade::plan;
use bhgrade::report::{self, Reporter};
use bhgrade::results::model::ClassReport;
use bhgrade::sandbox::{sweep_stale, Sandbox, ScratchRoot};
use bhgrade::store::{ResultStore, STORE_DIR};
use bhgrade::suite;
use bhgrade::verdict::Verdict;

/// Runs a parsed command line, returning the exit status on success.
pub fn run(cli: Cli) -> Result<Exit, CliError> {
    let output = cli.output;
    let containment = match &cli.command {
        Command::Mark(args) => Some((args.common.containment.isolation, args.common.containment.box_uids)),
        Command::Test(args) => Some((args.common.containment.isolation, args.common.containment.box_uids)),
        Command::Stacscheck(args) => Some((args.containment.isolation, args.containment.box_uids)),
        Command::Doctor => Some((bhgrade::sandbox::Isolation::Auto, bhgrade::sandbox::DEFAULT_IDENTITIES)),
        _ => None,
    };
    if let Some((isolation, box_uids)) = containment {
        let policy = bhgrade::sandbox::Policy::for_isolation(isolation);
        if policy.use_cgroups {
            cgroups::enter_own_scope()?;
        }
        // While bhgrade is still one thread: an ordinary user's disk of each submission's own.
        if policy.disk_quota {
            bhgrade::sandbox::enter_own_namespace(policy.identities.map(|_| box_uids));
        }
    }
    match cli.command {
        Command::Mark(args) => mark(args, &output),
        Command::Test(args) => test(args, &output),
        Command::Merge(args) => merge(args),
        Command::Stacscheck(args) => stacscheck(args),
        Command::Regen(args) => regen::run(args),
        Command::Suite(SuiteCommand::Export(args)) => suites::export(args),
        Command::Suite(SuiteCommand::Leaks(args)) => suites::leaks(args),
        Command::Suite(SuiteCommand::Floor(args)) => regen::floor(&suites::suite_dir(&args.suite)?, true),
        Command::Doctor => doctor(),
        Command::ReleaseAssets { dir } => assets::write(&dir),
    }
}

/// The scratch folder and the probed sandbox for `isolation`; says once, on stderr, what is
/// missing (`auto`), or refuses to go on without it (`strict`).
fn scratch_and_sandbox(containment: &Containment) -> Result<(ScratchRoot, Sandbox), CliError> {
    use bhgrade::sandbox::{Isolation, Policy};
    let isolation = containment.isolation;
    let parent = std::env::temp_dir();
    // Copies of student code a killed bhgrade left behind (no live bhgrade holds their lock).
    let swept = sweep_stale(&parent);
    for path in &swept.removed {
        bhgrade::say!("note: removed {}, left behind by a bhgrade that was killed", path.display());
    }
    for (path, error) in &swept.failed {
        bhgrade::say!("warning: cannot remove {}, left behind by a bhgrade that was killed: {error}", path.display());
    }
    let scratch = ScratchRoot::create_in(&parent)
        .map_err(|e| CliError::Harness(format!("cannot make a scratch folder in {}: {e}", parent.display())))?;
    let defaults = Policy::for_isolation(isolation);
    let identities = defaults.identities.map(|_| containment.box_uids);
    let policy = Policy { disk_bytes: containment.disk_mb << 20, identities, ..defaults };
    let sandbox = Sandbox::probe_with(scratch.path(), policy)?;
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
        // One line, on every marking: what the layers' absence means and how to get them is
        // the same each time, and `bhgrade doctor` says it in full.
        Isolation::Auto | Isolation::Strict if !missing.is_empty() => {
            let names: Vec<String> = missing.iter().map(|layer| format!("`{}`", layer.name)).collect();
            bhgrade::say!(
                "warning: isolation layers unavailable here: {}; `bhgrade doctor` says what each means and how to \
                 get it",
                names.join(", ")
            );
        }
        Isolation::Auto | Isolation::Strict => {}
        Isolation::Off => bhgrade::say!(
            "warning: --isolation off: student code runs without namespaces, Landlock or a user switch \
             (limits still apply); use it only for code you trust"
        ),
    }
    Ok((scratch, sandbox))
}

fn mark(args: MarkArgs, output: &Output) -> Result<Exit, CliError> {
    let suite = match args.stacscheck {
        Some(_) => None,
        None => Some(load_suite(&args.common.suite)?),
    };
    if let Some(copy) = suite.as_ref().filter(|suite| suite.is_student_copy()) {
        return Err(CliError::BadInput(format!(
            "{}: is a student's copy of a suite (its hidden tests are left out); mark with the whole suite",
            copy.dir.display()
        )));
    }
    let plan = match (&args.stacscheck, &suite) {
        (Some(testdir), _) => tree_plan(testdir, &args.common.suite)?,
        (None, Some(suite)) => plan::from_suite(suite),
        (None, None) => unreachable!("a suite is loaded when no tree is given"),
    };
    let dir = bundled(&args.submissions);
    let roster = args
        .roster
        .as_deref()
        .map(|path| {
            let mut roster = report::roster::Roster::read(path)?;
            roster.choose_column(&plan.title, args.canvas_column.as_deref()).map(|()| roster)
        })
        .transpose()?;
    // Before the output folder is made: a marking `--isolation strict` refuses leaves nothing.
    let (scratch, sandbox) = scratch_and_sandbox(&args.common.containment)?;
    // The error names the path itself (`PATH: No such file…`): prefixing it would say it twice.
    // The folder the marker named (a build error elsewhere is the harness's).
    let mut intake = build::intake(&dir).map_err(|e| CliError::BadInput(e.to_string()))?;
    leave_out_own_output(&dir, &args.out, &plan.build.srcdir, &mut intake)?;
    usable_out(&args.out)?;
    for ignored in &intake.ignored {
        bhgrade::say!(
            "ignored: {}",
            bhgrade::results::text::terminal(&format!("{} ({})", ignored.path.display(), ignored.why))
        );
    }
    for renamed in &intake.renamed {
        let note = format!("{} is marked as {}: {}", renamed.path.display(), renamed.name, renamed.why);
        bhgrade::say!("note: {}", bhgrade::results::text::terminal(&note));
    }
    let mut submissions = intake.submissions;
    one_submission_given(&dir, &plan.build.srcdir, &submissions)?;
    if submissions.is_empty() {
        return Err(CliError::BadInput(format!("{}: no submissions found", dir.display())));
    }
    if let Some(shard) = args.shard {
        submissions = shard.take(submissions);
    }
    let options = MarkOptions {
        slots: args.common.parallel.slots(),
        scratch_root: scratch.path().to_path_buf(),
        store: Some(ResultStore::open(&args.out, !args.force)?),
        stop: stop_on_interrupt(output.quiet),
    };
    let mut progress = report::Progress::new(output.color, Some(args.out.clone()));
    let mut rejudge = report::Rejudge::new(args.out.clone());
    let mut files = report::Files { roster, ..report::Files::new(args.out.clone()) };
    let mut reporters: Vec<&mut dyn Reporter> = vec![&mut rejudge, &mut files];
    if !output.quiet {
        reporters.insert(0, &mut progress);
    }
    let class = pipeline::mark(&plan, &submissions, &sandbox, &options, &mut reporters)?;
    marking_status(&class, files.roster.as_ref(), &args.out)
}

/// What a finished marking ends with: the roster's mismatches counted on standard error, then
/// its exit status (stopped, a harness problem naming how many students, or 0).
fn marking_status(class: &ClassReport, roster: Option<&report::roster::Roster>, out: &Path) -> Result<Exit, CliError> {
    let summary = out.join("summary.md");
    if let Some(roster) = roster {
        let matched = roster.match_class(class);
        let absent = matched.absent().count();
        if absent + matched.not_on_roster.len() > 0 {
            bhgrade::say!(
                "roster: {} on the roster handed nothing in, {} not on it; see {}",
                bhgrade::results::text::count(absent, "student"),
                bhgrade::results::text::count(matched.not_on_roster.len(), "submission"),
                summary.display()
            );
        }
    }
    if !class.incomplete.is_empty() {
        return Ok(interrupted_status());
    }
    if !class.harness_problems.is_empty() {
        // One student may have several problems: count students.
        let students: std::collections::BTreeSet<&str> =
            class.harness_problems.iter().map(|problem| problem.student.as_str()).collect();
        let (count, verb) = (students.len(), bhref::referee::agreeing(students.len(), "was", "were"));
        let blank = class.standings().iter().filter(|standing| standing.marks().is_none()).count();
        return Err(CliError::Harness(format!(
            "{} {verb} not fully marked ({blank} without marks in grades.csv and canvas.csv, never 0); see {}",
            bhgrade::results::text::count(count, "submission"),
            summary.display()
        )));
    }
    Ok(Exit::Success)
}

fn test(args: TestArgs, output: &Output) -> Result<Exit, CliError> {
    let mut suite = load_suite(&args.common.suite)?;
    let only = args.only.as_deref();
    let left_out = suite.select(&suite::Selection { part: args.part.as_deref(), only, all: args.all })?;
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
    let submissions = [Submission::plain(name, path)];
    let (scratch, sandbox) = scratch_and_sandbox(&args.common.containment)?;
    let options = MarkOptions {
        slots: args.common.parallel.slots(),
        scratch_root: scratch.path().to_path_buf(),
        store: None,
        stop: stop_on_interrupt(output.quiet),
    };
    let left_out = (!left_out.is_empty()).then_some(left_out);
    let mut terminal = report::Terminal {
        left_out: left_out.clone(),
        quiet: output.quiet,
        rerun_from: Some(("SUITE", suite.dir.clone())),
    };
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
    let class = pipeline::mark(&plan::from_suite(&suite), &submissions, &sandbox, &options, &mut reporters)?;
    not_a_submission(&class, &args.submission)?;
    one_submission_status(&class)
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

/// Refuses an `--out` that is the submissions folder or inside a student's entry, and leaves out
/// of the class every entry that is a marking's output folder (this `--out`, or an earlier
/// marking's: stored results and a class roster, and no source folder `srcdir`, so that no
/// student's copy is taken for one), so that bhgrade never marks its own output.
fn leave_out_own_output(dir: &Path, out: &Path, srcdir: &str, intake: &mut build::Intake) -> Result<(), CliError> {
    let real = |path: &Path| path.canonicalize().ok();
    let Some(out_real) = resolved(out) else { return Ok(()) };
    if real(dir).is_some_and(|dir| dir == out_real) {
        return Err(CliError::BadInput(format!(
            "--out {}: is the submissions folder, so its reports would be marked as students; give another folder",
            out.display()
        )));
    }
    let earlier = |path: &Path| {
        path.join(STORE_DIR).is_dir() && path.join(report::ROSTER_FILE).is_file() && !path.join(srcdir).exists()
    };
    let ours = |path: &Path| real(path).is_some_and(|path| path == out_real) || earlier(path);
    for submission in &intake.submissions {
        let paths = std::iter::once(&submission.path).chain(&submission.extra);
        if let Some(entry) =
            paths.filter(|path| !ours(path)).find(|path| real(path).is_some_and(|p| out_real.starts_with(p)))
        {
            return Err(CliError::BadInput(format!(
                "--out {}: is inside {}'s submission ({}); give a folder outside the submissions",
                out.display(),
                bhgrade::results::text::terminal(&submission.name),
                entry.display()
            )));
        }
    }
    let (own, students): (Vec<Submission>, Vec<Submission>) =
        std::mem::take(&mut intake.submissions).into_iter().partition(|submission| ours(&submission.path));
    intake.submissions = students;
    let why = "bhgrade's own output (a marking's --out)";
    intake.ignored.extend(own.into_iter().map(|submission| build::Ignored { path: submission.path, why }));
    Ok(())
}

/// Where `path` is, links resolved, whether or not it exists yet: its deepest existing ancestor's
/// real path with the rest of it after (`None` when not even the current folder can be read).
fn resolved(path: &Path) -> Option<std::path::PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let existing = absolute.ancestors().find(|ancestor| ancestor.exists())?;
    let rest = absolute.strip_prefix(existing).ok()?;
    Some(existing.canonicalize().ok()?.join(rest))
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

/// The exit status of checking one submission: the harness's failure if it failed on it, the
/// stop if marking was stopped, else success when every test was accepted and not passed when not.
fn one_submission_status(class: &ClassReport) -> Result<Exit, CliError> {
    let all_accepted =
        class.students.iter().flat_map(|s| &s.parts).flat_map(|p| &p.tests).all(|t| t.verdict == Verdict::Accepted);
    if !class.harness_problems.is_empty() {
        let problems: Vec<String> = class.harness_problems.iter().map(ToString::to_string).collect();
        return Err(CliError::Harness(problems.join("; ")));
    }
    if !class.incomplete.is_empty() {
        return Ok(interrupted_status());
    }
    Ok(if all_accepted { Exit::Success } else { Exit::NotPassed })
}

/// The plan of marking against a stacscheck tree: its steps under its own `timeout`, started
/// with the launch settings of the suite in `suite_dir`.
fn tree_plan(testdir: &Path, suite_dir: &Path) -> Result<plan::Plan<'static>, CliError> {
    let tree = bhgrade::stacscheck::Tree::load(testdir)?;
    for warning in &tree.warnings {
        bhgrade::say!("warning: {warning}");
    }
    let timeout = tree.config.timeout;
    // The tree's `timeout` becomes the CPU limit; wall-clock time is the usual backstop.
    let limits = suite::limits_for_cpu(timeout);
    let launch = launch_of(suite_dir)?;
    plan::from_tree(&tree, limits, &launch)
        .map_err(|e| CliError::Harness(format!("{}: cannot list the tree: {e}", tree.root.display())))
}

fn stacscheck(args: StacscheckArgs) -> Result<Exit, CliError> {
    let plan = tree_plan(&args.testdir, &args.suite)?;
    let path = args
        .submission
        .canonicalize()
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.submission.display())))?;
    let name = path.file_name().map_or_else(|| "submission".into(), build::printable_name);
    let submissions = [Submission::plain(name, path)];
    let (scratch, sandbox) = scratch_and_sandbox(&args.containment)?;
    let options = MarkOptions {
        slots: args.parallel.slots(),
        scratch_root: scratch.path().to_path_buf(),
        store: None,
        stop: stop_on_interrupt(false),
    };
    // The tree's folder: what `TREE` stands for in the report's lines to run a step again.
    let tree_root = plan.workspace.as_ref().map(|workspace| ("TREE", workspace.from.clone()));
    let mut terminal = report::Terminal { rerun_from: tree_root, ..report::Terminal::default() };
    let mut files = args.out.map(report::Files::new);
    let mut reporters: Vec<&mut dyn Reporter> = vec![&mut terminal];
    if let Some(files) = files.as_mut() {
        reporters.push(files);
    }
    let class = pipeline::mark(&plan, &submissions, &sandbox, &options, &mut reporters)?;
    one_submission_status(&class)
}

fn merge(args: MergeArgs) -> Result<Exit, CliError> {
    let class = bhgrade::merge::merge(&args.dirs)?;
    let mut files = report::Files::new(args.out.clone());
    for student in &class.students {
        files.event(&report::Event::StudentDone { report: Box::new(student.clone()), reused_runs: 0 })?;
    }
    files.event(&report::Event::Finished(Box::new(class.clone())))?;
    bhgrade::say!(
        "merged {} students from {} folders into {}",
        class.students.len(),
        args.dirs.len(),
        args.out.display()
    );
    if !class.incomplete.is_empty() {
        bhgrade::say!(
            "not marked in their shard (interrupted): {}; mark those shards again, then merge",
            class.incomplete_names().join(", ")
        );
        return Ok(Exit::NotPassed);
    }
    Ok(Exit::Success)
}

/// The table of isolation layers this machine offers (as `--isolation auto` would use them),
/// and whether `--isolation strict` would mark here.
fn doctor() -> Result<Exit, CliError> {
    use bhgrade::sandbox::{Isolation, Policy};
    let scratch = ScratchRoot::create_in(&std::env::temp_dir())
        .map_err(|e| CliError::Harness(format!("cannot make a scratch folder: {e}")))?;
    let sandbox = Sandbox::probe_with(scratch.path(), Policy::for_isolation(Isolation::Auto))?;
    let cell = |text: &str| text.replace('|', "\\|");
    bhgrade::tell!("| layer | active | required | detail |\n|---|---|---|---|");
    for layer in sandbox.layers() {
        let active = if layer.active { "yes" } else { "**no**" };
        let required = if layer.required { "yes" } else { "no" };
        bhgrade::tell!("| {} | {active} | {required} | {} |", layer.name, cell(&layer.detail));
    }
    let missing = sandbox.missing_layers();
    if missing.is_empty() {
        bhgrade::tell!("\nEvery layer is active: `--isolation strict` will mark on this machine.");
    } else {
        let names: Vec<&str> = missing.iter().map(|l| l.name.as_str()).collect();
        bhgrade::tell!(
            "\nMissing: {}. `--isolation auto` marks without them (and warns); `--isolation strict` refuses.",
            names.join(", ")
        );
    }
    if let Some(advice) = cgroups::advice(&sandbox) {
        bhgrade::tell!("\n{advice}");
    }
    Ok(Exit::Success)
}
