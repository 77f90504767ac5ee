//! The pipeline: a verified [`Suite`] and [`Submission`]s → one [`StudentReport`] each and a
//! [`ClassReport`], announced to the reporters as [`Event`]s.
//!
//! The one place that owns the order of the stages (build → run → verdict → score → report) and
//! their parallelism: `jobs` worker threads take builds and runs from one queue (runs of built
//! submissions first, so finished reports appear early), while this thread judges, scores and
//! hands results to the reporters. Each distinct command runs once per submission: tests that
//! share a command line and input share its run.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Condvar, Mutex, RwLock};

use crate::build::{self, BuildConfig, BuildVerdict, BuiltSubmission, Submission};
use crate::report::model::{BuildSection, CheckRow, ClassReport, Environment, PartReport, StudentReport, TestReport};
use crate::report::{text, Event, ReportError, Reporter};
use crate::sandbox::{self, Command, Limits, RunOutcome, Sandbox, SandboxError};
use crate::suite::{Suite, Test};
use crate::verdict::{self, Decision, Verdict};
use crate::{environment, score};

/// How to mark.
#[derive(Clone, Debug)]
pub struct MarkOptions {
    /// Worker threads for builds and runs.
    pub jobs: usize,
    /// Where private copies of submissions are made.
    pub scratch_root: PathBuf,
}

/// Why marking stopped: the harness's own failure, never a student's.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// One distinct program run of a submission, and the tests it serves.
struct PlannedRun {
    command: Command,
    limits: Limits,
    tests: Vec<usize>,
}

/// What a worker is asked to do.
enum Job {
    Build(usize),
    /// `alone`: no other build or run may go on meanwhile (a time-limit verdict's re-run).
    Run { student: usize, run: usize, command: Command, limits: Limits, alone: bool },
}

/// What a worker reports back.
enum Done {
    Built(usize, Result<BuiltSubmission, build::BuildError>),
    Ran { student: usize, run: usize, outcome: Result<RunOutcome, SandboxError> },
}

#[derive(Default)]
struct Queue {
    builds: VecDeque<Job>,
    runs: VecDeque<Job>,
    closed: bool,
}

struct SharedQueue {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl SharedQueue {
    fn push(&self, job: Job) {
        let mut queue = self.queue.lock().expect("queue lock");
        match job {
            Job::Build(_) => queue.builds.push_back(job),
            Job::Run { .. } => queue.runs.push_back(job),
        }
        self.ready.notify_one();
    }

    fn close(&self) {
        self.queue.lock().expect("queue lock").closed = true;
        self.ready.notify_all();
    }

    fn pop(&self) -> Option<Job> {
        let mut queue = self.queue.lock().expect("queue lock");
        loop {
            if let Some(job) = queue.runs.pop_front().or_else(|| queue.builds.pop_front()) {
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self.ready.wait(queue).expect("queue lock");
        }
    }
}

/// A submission on its way through the pipeline.
struct InProgress {
    /// The private built copy, removed when this is dropped; `None` if the harness failed.
    built: Option<BuiltSubmission>,
    runs: Vec<PlannedRun>,
    outcomes: Vec<Option<Result<RunOutcome, SandboxError>>>,
    remaining: usize,
    /// Runs that hit a time limit while others ran, and were queued to run again alone.
    rerun_alone: Vec<bool>,
}

/// Marks every submission against the suite, telling `reporters` as results come in.
pub fn mark(
    suite: &Suite,
    submissions: &[Submission],
    sandbox: &Sandbox,
    options: &MarkOptions,
    reporters: &mut [&mut dyn Reporter],
) -> Result<ClassReport, PipelineError> {
    let tests: Vec<&Test> = suite.tests().collect();
    let environment = environment::describe(suite, options.jobs, sandbox);
    let build_config = BuildConfig {
        srcdir: suite.srcdir.clone(),
        command: suite.build.command.clone(),
        script: suite.build.script.clone(),
        limits: suite.build.limits,
    };
    announce(reporters, &Event::Started { submissions: submissions.len(), tests: tests.len() })?;

    // Runs hold this shared; a re-run that must have the machine to itself holds it exclusively.
    let machine = RwLock::new(());
    let queue = SharedQueue { queue: Mutex::new(Queue::default()), ready: Condvar::new() };
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let mut reports: Vec<StudentReport> = Vec::with_capacity(submissions.len());
    let mut harness_problems = Vec::new();
    let result = std::thread::scope(|scope| -> Result<(), PipelineError> {
        for _ in 0..options.jobs.max(1) {
            let done_tx = done_tx.clone();
            let (queue, build_config, machine) = (&queue, &build_config, &machine);
            scope.spawn(move || {
                while let Some(job) = queue.pop() {
                    let done = match job {
                        Job::Build(student) => {
                            let _shared = machine.read().unwrap_or_else(|e| e.into_inner());
                            let built = build::prepare(&submissions[student], build_config, &options.scratch_root, sandbox);
                            Done::Built(student, built)
                        }
                        Job::Run { student, run, command, limits, alone } => {
                            let outcome = if alone {
                                let _only_run = machine.write().unwrap_or_else(|e| e.into_inner());
                                sandbox.run(&command, &limits)
                            } else {
                                let _shared = machine.read().unwrap_or_else(|e| e.into_inner());
                                sandbox.run(&command, &limits)
                            };
                            Done::Ran { student, run, outcome }
                        }
                    };
                    if done_tx.send(done).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        for student in 0..submissions.len() {
            queue.push(Job::Build(student));
        }
        let mut progress: HashMap<usize, InProgress> = HashMap::new();
        let mut finished = 0;
        let outcome = (|| {
            while finished < submissions.len() {
                let Ok(done) = done_rx.recv() else { break };
                let student = match done {
                    Done::Built(student, Ok(built)) => {
                        let runs = match built.build.verdict {
                            BuildVerdict::Ok => plan_runs(suite, &tests, &built),
                            BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => {
                                Vec::new()
                            }
                        };
                        for (run, planned) in runs.iter().enumerate() {
                            let (command, limits) = (planned.command.clone(), planned.limits);
                            queue.push(Job::Run { student, run, command, limits, alone: false });
                        }
                        let outcomes = runs.iter().map(|_| None).collect();
                        let (remaining, rerun_alone) = (runs.len(), vec![false; runs.len()]);
                        progress.insert(student, InProgress { built: Some(built), runs, outcomes, remaining, rerun_alone });
                        student
                    }
                    Done::Built(student, Err(error)) => {
                        let name = &submissions[student].name;
                        harness_problems.push(format!("{name}: could not prepare the submission: {error}"));
                        let nothing = InProgress { built: None, runs: Vec::new(), outcomes: Vec::new(), remaining: 0, rerun_alone: Vec::new() };
                        progress.insert(student, nothing);
                        student
                    }
                    Done::Ran { student, run, outcome } => {
                        let entry = progress.get_mut(&student).expect("runs follow their build");
                        let timed_out = matches!(&outcome, Ok(o) if o.wall_limit_hit || o.cpu_limit_hit);
                        if timed_out && options.jobs > 1 && !entry.rerun_alone[run] {
                            // Others competed for the machine: the limit counts only if it bites alone.
                            entry.rerun_alone[run] = true;
                            let planned = &entry.runs[run];
                            let (command, limits) = (planned.command.clone(), planned.limits);
                            queue.push(Job::Run { student, run, command, limits, alone: true });
                        } else {
                            entry.outcomes[run] = Some(outcome);
                            entry.remaining -= 1;
                        }
                        student
                    }
                };
                if progress[&student].remaining == 0 {
                    let entry = progress.remove(&student).expect("present");
                    let report = student_report(suite, &tests, &submissions[student], entry, &environment);
                    if report.has_harness_error() {
                        harness_problems.push(format!("{}: some tests could not be judged", report.student));
                    }
                    announce(reporters, &Event::StudentDone(Box::new(report.clone())))?;
                    reports.push(report);
                    finished += 1;
                }
            }
            Ok(())
        })();
        queue.close();
        outcome
    });
    result?;
    reports.sort_by(|a, b| a.student.cmp(&b.student));
    let class = ClassReport {
        suite: suite.name.clone(),
        suite_title: suite.title.clone(),
        part_ids: suite.parts.iter().map(|p| p.id.clone()).collect(),
        max_score: score::round(suite.parts.iter().map(|p| p.weight).sum()),
        students: reports,
        environment,
        harness_problems,
    };
    announce(reporters, &Event::Finished(Box::new(class.clone())))?;
    Ok(class)
}

fn announce(reporters: &mut [&mut dyn Reporter], event: &Event) -> Result<(), ReportError> {
    reporters.iter_mut().try_for_each(|reporter| reporter.event(event))
}

/// Groups tests by the exact run they need: same command line, same input, same limits.
fn plan_runs(suite: &Suite, tests: &[&Test], built: &BuiltSubmission) -> Vec<PlannedRun> {
    let mut runs: Vec<PlannedRun> = Vec::new();
    for (index, test) in tests.iter().enumerate() {
        let command = command_for(suite, test, &built.srcdir);
        let existing = runs.iter_mut().find(|run| run.command == command && run.limits == test.def.limits);
        match existing {
            Some(run) => run.tests.push(index),
            None => runs.push(PlannedRun { command, limits: test.def.limits, tests: vec![index] }),
        }
    }
    runs
}

/// The launch command plus the test's command word and the absolute instance path.
fn command_for(suite: &Suite, test: &Test, srcdir: &Path) -> Command {
    let mut args: Vec<std::ffi::OsString> = suite.launch[1..].iter().map(Into::into).collect();
    args.push(test.def.task.command.into());
    args.push(test.def.puzzle.clone().into_os_string());
    Command {
        program: suite.launch[0].clone().into(),
        args,
        cwd: srcdir.to_path_buf(),
        stdin: test.def.input.clone().unwrap_or_default().into_bytes(),
        env: Vec::new(),
    }
}

/// Judges, scores and describes one submission once all its runs are in.
fn student_report(
    suite: &Suite,
    tests: &[&Test],
    submission: &Submission,
    entry: InProgress,
    environment: &Environment,
) -> StudentReport {
    let build = match &entry.built {
        Some(built) => BuildSection {
            verdict: built.build.verdict,
            detail: built.build.detail.clone(),
            log_tail: built.build.log_tail.clone(),
            wall_ms: built.build.wall.as_millis() as u64,
        },
        None => BuildSection {
            verdict: BuildVerdict::BuildFailed,
            detail: "the harness could not prepare this submission (see the summary)".into(),
            log_tail: String::new(),
            wall_ms: 0,
        },
    };
    let mut test_reports: Vec<Option<TestReport>> = vec![None; tests.len()];
    for ((run, outcome), &rerun_alone) in entry.runs.iter().zip(&entry.outcomes).zip(&entry.rerun_alone) {
        let outcome = outcome.as_ref().expect("every run finished");
        for &index in &run.tests {
            let mut report = test_report(suite, tests[index], &run.command, outcome.as_ref());
            report.rerun_alone = rerun_alone;
            if rerun_alone && report.verdict == Verdict::TimeLimit {
                report.explanation.push_str(" (confirmed when re-run with nothing else running)");
            }
            test_reports[index] = Some(report);
        }
    }
    let harness_failed = entry.built.is_none();
    let mut test_reports = test_reports.into_iter().enumerate().map(|(index, report)| {
        report.unwrap_or_else(|| {
            let verdict = if harness_failed { Verdict::HarnessError } else { Verdict::NotRun };
            not_run(suite, tests[index], verdict)
        })
    });
    let mut parts = Vec::with_capacity(suite.parts.len());
    for part in &suite.parts {
        let mut reports: Vec<TestReport> = test_reports.by_ref().take(part.tests.len()).collect();
        let weighted: Vec<(f64, Verdict)> =
            part.tests.iter().zip(&reports).map(|(test, report)| (test.def.weight, report.verdict)).collect();
        let (per_test, part_score) = score::part_scores(part.weight, &weighted, suite.gave_up_credit);
        for (report, (earned, max)) in reports.iter_mut().zip(per_test) {
            report.score = score::round(earned);
            report.max_score = score::round(max);
        }
        parts.push(PartReport {
            id: part.id.clone(),
            title: part.title.clone(),
            score: part_score,
            max_score: score::round(part.weight),
            passed: reports.iter().filter(|r| r.verdict == Verdict::Accepted).count(),
            tests: reports,
        });
    }
    let check_table = check_table(&parts, build.verdict);
    StudentReport {
        student: submission.name.clone(),
        suite: suite.name.clone(),
        suite_title: suite.title.clone(),
        score: score::round(parts.iter().map(|p| p.score).sum()),
        max_score: score::round(suite.parts.iter().map(|p| p.weight).sum()),
        build,
        parts,
        check_table,
        environment: environment.clone(),
    }
}

fn test_report(suite: &Suite, test: &Test, command: &Command, outcome: Result<&RunOutcome, &SandboxError>) -> TestReport {
    let name = test.def.puzzle.display().to_string();
    let instance = bhref::referee::Instance { name: &name, text: &test.def.puzzle_text };
    let Decision { verdict, explanation } = verdict::decide(outcome, &test.def.limits, |first_line| {
        suite.referee.judge(&test.def.kind, instance, test.def.input.as_deref(), &test.expected, first_line)
    });
    let mut report = not_run(suite, test, verdict);
    report.explanation = explanation;
    report.command = sandbox::describe(command);
    if let Ok(run) = outcome {
        report.wall_ms = run.wall.as_millis() as u64;
        report.cpu_ms = run.cpu.as_millis() as u64;
        report.peak_rss_kb = run.peak_rss_kb;
        report.first_line = text::visible_line(verdict::first_line(&run.stdout));
        report.stderr_tail = text::tail(&run.stderr, 15, 4096);
    }
    report
}

/// A test's report before (or without) a run.
fn not_run(suite: &Suite, test: &Test, verdict: Verdict) -> TestReport {
    let puzzle = test.def.puzzle.strip_prefix(&suite.dir).unwrap_or(&test.def.puzzle);
    TestReport {
        id: test.def.id.clone(),
        kind: test.def.kind.clone(),
        puzzle: puzzle.display().to_string(),
        verdict,
        verdict_label: verdict.label().to_string(),
        explanation: String::new(),
        wall_ms: 0,
        cpu_ms: 0,
        peak_rss_kb: 0,
        score: 0.0,
        max_score: 0.0,
        command: String::new(),
        expected: test.expected.answer.clone(),
        expected_detail: text::shorten(&test.expected.detail, 300),
        input: test.def.input.as_deref().map(|input| text::shorten(input.trim(), 300)),
        first_line: String::new(),
        stderr_tail: String::new(),
        rerun_alone: false,
    }
}

/// The rows of the handout's check table that a harness can fill.
fn check_table(parts: &[PartReport], build: BuildVerdict) -> Vec<CheckRow> {
    let mut rows: Vec<CheckRow> = parts
        .iter()
        .map(|part| {
            let all = part.passed == part.tests.len();
            CheckRow {
                task: format!("{}: Provided tests passed", part.title),
                done: format!("{} ({} of {})", if all { "yes" } else { "no" }, part.passed, part.tests.len()),
            }
        })
        .collect();
    let working = match build {
        BuildVerdict::Ok => "yes",
        BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => "no",
    };
    rows.push(CheckRow { task: "build.sh script included and working".into(), done: working.into() });
    rows
}
