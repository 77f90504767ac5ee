//! Marking against a stacscheck tree: a [`Plan`] and [`Submission`]s → one [`StudentReport`]
//! each (one test per step, named by its path in the tree) and a [`ClassReport`], announced to
//! the reporters like [`super::mark`]'s.
//!
//! Submissions are marked in parallel, and so are the steps of one submission between its
//! builds: a build step compiles into the submission's folder and guards the steps after it,
//! so it waits for every step before it and runs alone; the test steps up to the next build
//! run at once, each on a CPU slot of its own ([`super::slots::SlotPool`]). Steps are timed
//! like a suite's runs ([`super::timing`]): the tree's `timeout` is the CPU limit. Each
//! submission gets its own copy of the tree without the `.out` files (their contents are in
//! the plan), so no program can read the expected outputs.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use crate::build::{self, BuildConfig, BuildVerdict, Submission};
use crate::report::model::{BuildSection, CheckRow, ClassReport, Environment, PartReport, StudentReport, TestReport};
use crate::report::{text, Event, Reporter};
use crate::sandbox::{self, Limits, RunOutcome, Sandbox, SandboxError};
use crate::stacscheck::{compare::Failure, Plan, Step, StepKind};
use crate::suite::Launch;
use crate::verdict::Verdict;

use super::slots::SlotPool;
use super::{announce, timing, MarkOptions, PipelineError};

/// What every step of a marking shares.
struct Marking<'a> {
    plan: &'a Plan,
    /// The limits steps are judged against.
    limits: Limits,
    launch: &'a Launch,
    sandbox: &'a Sandbox,
    options: &'a MarkOptions,
    pool: SlotPool<'a>,
}

/// Marks every submission against the tree's plan, telling `reporters` as results come in.
pub fn mark_tree(
    plan: &Plan,
    limits: Limits,
    launch: &Launch,
    submissions: &[Submission],
    sandbox: &Sandbox,
    options: &MarkOptions,
    reporters: &mut [&mut dyn Reporter],
) -> Result<ClassReport, PipelineError> {
    let environment = Environment {
        limits: crate::environment::describe_limits(&limits),
        launch_env: launch.env.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join(" "),
        ..crate::environment::describe_machine(&options.slots, sandbox)
    };
    let marking = Marking { plan, limits, launch, sandbox, options, pool: SlotPool::new(&options.slots) };
    let suite = plan.config.practical.clone();
    announce(reporters, &Event::Started { submissions: submissions.len(), tests: plan.steps.len() })?;
    let next = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::channel::<StudentReport>();
    let mut reports = Vec::with_capacity(submissions.len());
    std::thread::scope(|scope| -> Result<(), PipelineError> {
        for _ in 0..options.slots.len() {
            let done_tx = done_tx.clone();
            let (next, environment, suite, marking) = (&next, &environment, &suite, &marking);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                if index >= submissions.len() || options.stop.load(Ordering::SeqCst) {
                    return;
                }
                let report = mark_one(marking, &submissions[index], suite, environment);
                if done_tx.send(report).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        for report in done_rx {
            announce(reporters, &Event::StudentDone { report: Box::new(report.clone()), reused_runs: 0 })?;
            reports.push(report);
        }
        Ok(())
    })?;
    reports.sort_by(|a, b| a.student.cmp(&b.student));
    let incomplete = super::not_marked(submissions, &reports);
    let harness_problems = reports
        .iter()
        .filter(|r| r.has_harness_error())
        .map(|r| format!("{}: a step could not be run", r.student))
        .collect();
    let class = ClassReport {
        suite: suite.clone(),
        suite_title: suite,
        part_ids: parts_of(plan).into_iter().map(|(id, _)| id).collect(),
        max_score: plan.steps.len() as f64,
        students: reports,
        environment,
        harness_problems,
        incomplete,
    };
    announce(reporters, &Event::Finished(Box::new(class.clone())))?;
    Ok(class)
}

/// The parts of a report: the tree's top-level folders (and `root` for the root's own
/// scripts), in plan order, each with the indices of its steps.
fn parts_of(plan: &Plan) -> Vec<(String, Vec<usize>)> {
    let mut parts: Vec<(String, Vec<usize>)> = Vec::new();
    for (index, step) in plan.steps.iter().enumerate() {
        let part = step.id.split_once('/').map_or("root", |(top, _)| top).to_string();
        match parts.iter_mut().find(|(id, _)| *id == part) {
            Some((_, steps)) => steps.push(index),
            None => parts.push((part, vec![index])),
        }
    }
    parts
}

fn mark_one(marking: &Marking<'_>, submission: &Submission, suite: &str, environment: &Environment) -> StudentReport {
    let plan = marking.plan;
    let config = BuildConfig {
        srcdir: plan.config.srcdir.clone(),
        command: Vec::new(),
        script: String::new(),
        limits: marking.limits,
        cpus: Vec::new(),
    };
    let (build, results) = match build::prepare(submission, &config, &marking.options.scratch_root, marking.sandbox) {
        Ok(built) if built.build.verdict == BuildVerdict::Ok => {
            let results = run_steps(marking, &built);
            (section(&built.build.verdict, &built.build.detail), results)
        }
        Ok(built) => (section(&built.build.verdict, &built.build.detail), Vec::new()),
        Err(error) => {
            (section(&BuildVerdict::BuildFailed, &format!("the harness could not copy it: {error}")), Vec::new())
        }
    };
    let mut tests: Vec<TestReport> = plan
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| results.get(index).cloned().unwrap_or_else(|| step_report(plan, step, Verdict::NotRun)))
        .collect();
    let mut parts = Vec::new();
    for (id, indices) in parts_of(plan) {
        let mut part_tests: Vec<TestReport> =
            indices.iter().map(|&i| std::mem::replace(&mut tests[i], placeholder())).collect();
        for test in &mut part_tests {
            // Every step counts one mark, as stacscheck counts "N out of M tests passed".
            test.max_score = 1.0;
            test.score = if test.verdict == Verdict::Accepted { 1.0 } else { 0.0 };
        }
        let passed = part_tests.iter().filter(|t| t.verdict == Verdict::Accepted).count();
        parts.push(PartReport {
            title: id.clone(),
            id,
            score: passed as f64,
            max_score: part_tests.len() as f64,
            passed,
            tests: part_tests,
        });
    }
    let check_table = parts
        .iter()
        .map(|p| CheckRow {
            task: format!("{}: tests passed", p.id),
            done: format!("{} of {}", p.passed, p.tests.len()),
        })
        .collect();
    StudentReport {
        student: submission.name.clone(),
        suite: suite.to_string(),
        suite_title: suite.to_string(),
        score: parts.iter().map(|p| p.score).sum(),
        max_score: plan.steps.len() as f64,
        build,
        parts,
        check_table,
        environment: environment.clone(),
    }
}

fn section(verdict: &BuildVerdict, detail: &str) -> BuildSection {
    BuildSection { verdict: *verdict, detail: detail.to_string(), log_tail: String::new(), wall_ms: 0 }
}

fn placeholder() -> TestReport {
    TestReport::new(String::new(), String::new(), String::new(), Verdict::NotRun)
}

/// Runs every step against a copy of the tree without its `.out` files: each build alone once
/// every step before it has finished, the steps between builds at once.
fn run_steps(marking: &Marking<'_>, built: &build::BuiltSubmission) -> Vec<TestReport> {
    let tree = built.scratch.path().join("tests");
    let mut plan = marking.plan.clone();
    if let Err(error) = copy_tree_without_outputs(&plan.root, &tree) {
        let problem = format!("could not copy the test tree: {error}");
        return plan.steps.iter().map(|s| failed(&plan, s, Verdict::HarnessError, &problem)).collect();
    }
    plan.rebase(&tree);
    let reports: Mutex<Vec<Option<TestReport>>> = Mutex::new(vec![None; plan.steps.len()]);
    let mut start = 0;
    while start < plan.steps.len() {
        let is_build = |index: usize| plan.steps[index].kind == StepKind::Build;
        let end = if is_build(start) {
            start + 1
        } else {
            (start..plan.steps.len()).find(|&index| is_build(index)).unwrap_or(plan.steps.len())
        };
        let next = AtomicUsize::new(start);
        let workers = (end - start).min(marking.options.slots.len()).max(1);
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= end {
                        return;
                    }
                    let blocked = {
                        let done = reports.lock().unwrap_or_else(|e| e.into_inner());
                        let passed = |i: usize| done[i].as_ref().is_some_and(|r| r.verdict == Verdict::Accepted);
                        plan.blocking_build(index, passed)
                    };
                    let report = match blocked {
                        Some(build) => {
                            let why = format!("skipped: the build {} did not pass", plan.steps[build].id);
                            failed(&plan, &plan.steps[index], Verdict::NotRun, &why)
                        }
                        None => run_step(marking, &plan, index, built),
                    };
                    reports.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(report);
                });
            }
        });
        start = end;
    }
    let reports = reports.into_inner().unwrap_or_else(|e| e.into_inner());
    reports
        .into_iter()
        .zip(&plan.steps)
        .map(|(report, step)| report.unwrap_or_else(|| step_report(&plan, step, Verdict::NotRun)))
        .collect()
}

/// Runs one step on a free slot in a SCRATCHDIR of its own, confirming a time just past the
/// limit with a second run as the suite pipeline does.
fn run_step(marking: &Marking<'_>, plan: &Plan, index: usize, built: &build::BuiltSubmission) -> TestReport {
    let step = &plan.steps[index];
    let sandbox = marking.sandbox;
    let scratchdir = built.scratch.path().join(format!("scratchdir-{index}"));
    let made = std::fs::create_dir(&scratchdir).and_then(|()| match sandbox.run_as() {
        Some(ids) => std::os::unix::fs::chown(&scratchdir, Some(ids.uid), Some(ids.gid)),
        None => Ok(()),
    });
    if let Err(error) = made {
        return failed(plan, step, Verdict::HarnessError, &format!("no SCRATCHDIR: {error}"));
    }
    let judged = step_limits(step, marking.limits);
    let run_limits = timing::run_limits(&judged, marking.launch);
    let mut command = step.command(&built.srcdir, &scratchdir);
    command.env.extend(marking.launch.env_for(&judged).into_iter().map(|(k, v)| (k.into(), v.into())));
    let run = || {
        let outcome =
            marking.pool.with_slot(|cores| sandbox.run(&command.clone().cpus(cores.iter().copied()), &run_limits));
        marking.launch.quiet_run(outcome)
    };
    let (outcome, attempts) = match run() {
        Ok(first) if timing::needs_confirmation(&first, &judged) => match run() {
            Ok(second) => {
                let attempts = timing::attempts(&[&first, &second]);
                (Ok(timing::counted(first, second)), attempts)
            }
            Err(error) => (Err(error), Vec::new()),
        },
        Ok(only) => {
            let attempts = timing::attempts(&[&only]);
            (Ok(only), attempts)
        }
        Err(error) => (Err(error), Vec::new()),
    };
    let mut report = judge_step(plan, step, outcome, &judged);
    report.command = sandbox::describe(&command);
    report.time_runs = attempts;
    let _ = std::fs::remove_dir_all(&scratchdir);
    report
}

/// The limits of one step. Build steps get at least [`BUILD_WALL`]: compiling a submission on
/// a busy marking machine can take longer than a test's `timeout`, and a slow `javac` is not
/// the student's fault (stacscheck applies its timeout to builds too).
fn step_limits(step: &Step, limits: Limits) -> Limits {
    match step.kind {
        StepKind::Build => Limits { wall: limits.wall.max(BUILD_WALL), cpu: limits.cpu.max(BUILD_WALL), ..limits },
        StepKind::Test | StepKind::Info | StepKind::Prog => limits,
    }
}

/// The least wall-clock (and CPU) time a build step gets.
const BUILD_WALL: std::time::Duration = std::time::Duration::from_secs(120);

fn judge_step(plan: &Plan, step: &Step, run: Result<RunOutcome, SandboxError>, limits: &Limits) -> TestReport {
    let run = match run {
        Ok(run) => run,
        Err(error) => return failed(plan, step, Verdict::HarnessError, &format!("the sandbox failed: {error}")),
    };
    let mut diff = String::new();
    let (verdict, why) = if let Some(decision) = crate::verdict::limit_decision(&run, limits) {
        (decision.verdict, decision.explanation)
    } else if run.output_limit_hit() {
        (Verdict::OutputLimit, format!("printed more than {} KiB", limits.output_bytes >> 10))
    } else {
        match step.judge(run.exit, &run.stdout, &run.stderr) {
            Ok(()) => (Verdict::Accepted, String::new()),
            Err(failure) => {
                if let Failure::Mismatch(mismatch) = &failure {
                    diff = text::shorten(&mismatch.diff, 2000);
                }
                (Verdict::WrongAnswer, failure.to_string())
            }
        }
    };
    let mut report = failed(plan, step, verdict, &why);
    report.wall_ms = run.wall.as_millis() as u64;
    report.cpu_ms = run.cpu.as_millis() as u64;
    report.peak_rss_kb = run.peak_rss_kb;
    report.first_line = text::visible_line(crate::verdict::first_line(&run.stdout));
    report.stderr_tail = text::tail(&run.stderr, 15, 4096);
    report.diff = diff;
    report
}

fn failed(plan: &Plan, step: &Step, verdict: Verdict, why: &str) -> TestReport {
    let mut report = step_report(plan, step, verdict);
    report.explanation = why.to_string();
    report
}

fn step_report(plan: &Plan, step: &Step, verdict: Verdict) -> TestReport {
    let kind = match step.kind {
        StepKind::Build => "build",
        StepKind::Test => "test",
        StepKind::Info => "info",
        StepKind::Prog => "prog",
    };
    let expected = step
        .expected_output
        .as_deref()
        .map_or_else(|| "exit status 0".to_string(), |bytes| text::shorten(text::escape_bytes(bytes).trim(), 300));
    TestReport {
        id: step.id.clone(),
        kind: kind.to_string(),
        puzzle: step.script.strip_prefix(&plan.root).unwrap_or(&step.script).display().to_string(),
        verdict,
        verdict_label: verdict.label().to_string(),
        input: step.stdin.as_ref().map(|_| text::shorten(text::escape_bytes(&step.input).trim(), 300)),
        expected,
        ..placeholder()
    }
}

/// Copies the tree's folders and files, leaving out the `.out` files.
fn copy_tree_without_outputs(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        let target = to.join(entry.path().strip_prefix(from).map_err(std::io::Error::other)?);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() && entry.path().extension().is_none_or(|ext| ext != "out") {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
