//! The pipeline: a [`Plan`] and [`Submission`]s → one [`StudentReport`] each and a
//! [`ClassReport`], announced to the reporters as [`Event`]s. A suite and a stacscheck tree are
//! marked by the same code; only their plans differ.
//!
//! The one place that owns the order of the stages (build → run → verdict → score → report) and
//! their parallelism: one worker thread per CPU slot ([`slots`]) takes builds and runs from one
//! queue (runs of built submissions first, so finished reports appear early) and pins each to
//! its slot, while this thread judges, scores, stores each result as it arrives and hands
//! reports to the reporters. A submission's runs start stage by stage (a stacscheck build runs
//! alone, after every step before it), and a run whose guarding tests were not accepted is
//! skipped; a result already stored by an earlier, interrupted marking into the same output
//! folder is reused ([`crate::store`]); a run that ends just past its CPU limit is run once
//! more and the lower figure counts ([`timing`]).

mod assemble;
mod queue;
pub mod slots;

pub use slots::Slots;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::build::{self, BuildConfig, BuildError, BuildReport, BuildVerdict, BuiltSubmission, Submission};
use crate::environment::{self, Parallelism};
use crate::plan::{timing, Place, Plan};
use crate::report::{Event, ReportError, Reporter};
use crate::results::model::{
    ClassHeader, ClassReport, Environment, HarnessProblem, ProblemKind, StudentReport, Unmarked,
};
use crate::sandbox::{Limits, RunOutcome, Sandbox, SandboxError};
use crate::store::{Key, ResultStore, StoredRun};

use assemble::RunResult;
use queue::{Job, RunJob, SharedQueue};

/// How to mark.
pub struct MarkOptions {
    /// One worker thread per slot; everything a worker runs is pinned to its slot's cores.
    pub slots: Slots,
    /// Where private copies of submissions are made.
    pub scratch_root: PathBuf,
    /// Results of earlier marking into the same output folder, and where new ones are stored.
    pub store: Option<ResultStore>,
    /// Set (by a Ctrl-C handler) to stop: no new work starts, finished results are kept.
    pub stop: &'static AtomicBool,
}

/// Why marking stopped: the harness's own failure, never a student's.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("could not copy the tests' files from {path}: {source}")]
    Workspace { path: PathBuf, source: std::io::Error },
}

/// What a worker reports back.
enum Done {
    Built {
        student: usize,
        key: Key,
        built: Result<Prepared, BuildError>,
    },
    /// Everything this submission needs was stored by an earlier marking.
    Reused {
        student: usize,
        build: BuildReport,
        results: Vec<Option<RunResult>>,
        reused: usize,
    },
    Ran {
        student: usize,
        run: usize,
        command: crate::sandbox::Command,
        outcome: Result<RunOutcome, SandboxError>,
    },
}

/// A built submission with its copy of the plan's workspace.
struct Prepared {
    built: BuiltSubmission,
    workspace: PathBuf,
}

/// A submission on its way through the pipeline.
#[derive(Default)]
struct InProgress {
    /// `None` when the harness could not prepare the submission.
    build: Option<BuildReport>,
    build_key: Option<Key>,
    /// The private built copy, removed when this is dropped.
    prepared: Option<Prepared>,
    results: Vec<Option<RunResult>>,
    /// The next stage whose runs have not been settled.
    stage: usize,
    /// First runs that ended just past their CPU limit, waiting for their confirmation.
    unconfirmed: HashMap<usize, RunOutcome>,
    /// Runs whose supervisor was killed from outside once already (a second time is a harness
    /// problem).
    lost_once: HashSet<usize>,
    /// A run was ended by the signal that stopped marking: no report, marking again finishes it.
    interrupted: bool,
    remaining: usize,
    reused: usize,
}

/// Everything the workers share.
struct Context<'a> {
    plan: &'a Plan<'a>,
    submissions: &'a [Submission],
    sandbox: &'a Sandbox,
    options: &'a MarkOptions,
    queue: SharedQueue,
    /// The one read-only copy of the plan's workspace, if it has one.
    workspace: Option<PathBuf>,
}

impl Context<'_> {
    /// Does one job on the slot with these cores.
    fn work(&self, job: Job, cores: &[usize]) -> Done {
        match job {
            Job::Build(student) => self.build(student, cores),
            Job::Run(job) => {
                let RunJob { student, run, command, limits, scratch } = *job;
                let pinned = command.clone().cpus(cores.iter().copied());
                let outcome = match &scratch {
                    Some(dir) => self.own_folder(dir, pinned.run_as).and_then(|()| self.sandbox.run(&pinned, &limits)),
                    None => self.sandbox.run(&pinned, &limits),
                };
                if let Some(dir) = &scratch {
                    let _ = std::fs::remove_dir_all(dir);
                }
                Done::Ran { student, run, command, outcome: self.plan.launch.quiet_run(outcome) }
            }
        }
    }

    /// Makes a run's own folder, writable by the user the run runs as (`run_as`: the
    /// submission's own identity, else the sandbox's shared user).
    fn own_folder(&self, dir: &Path, run_as: Option<crate::sandbox::RunAs>) -> Result<(), SandboxError> {
        // A confirming run reuses the first run's name: start from nothing whatever was left.
        self.sandbox
            .fresh_folder(dir, run_as)
            .map_err(|source| SandboxError::Scratch { path: dir.to_path_buf(), source })
    }

    fn build(&self, student: usize, cores: &[usize]) -> Done {
        let submission = &self.submissions[student];
        let digest = match build::content_hash(&submission.path) {
            Ok(digest) => digest,
            Err(source) => {
                let error = BuildError::Io { path: submission.path.clone(), source };
                let key = ResultStore::build_key(&submission.name, "", &self.plan.build);
                return Done::Built { student, key, built: Err(error) };
            }
        };
        let key = ResultStore::build_key(&submission.name, &digest, &self.plan.build);
        if let Some(done) = self.reuse(student, &key) {
            return done;
        }
        let config = BuildConfig { cpus: cores.to_vec(), ..self.plan.build.clone() };
        let built = build::prepare(submission, &config, &self.options.scratch_root, self.sandbox).map(|built| {
            let workspace = match &self.workspace {
                Some(shared) => shared.clone(),
                None => built.scratch.path().join(crate::plan::Workspace::DIR),
            };
            Prepared { built, workspace }
        });
        Done::Built { student, key, built }
    }

    /// The stored results of an earlier marking, if they cover the whole submission.
    fn reuse(&self, student: usize, key: &Key) -> Option<Done> {
        let store = self.options.store.as_ref()?;
        let build = store.load_build(key)?;
        let mut entry = InProgress {
            build_key: Some(key.clone()),
            results: self.plan.runs.iter().map(|_| None).collect(),
            ..InProgress::default()
        };
        if build.verdict == BuildVerdict::Ok {
            let place = Place {
                srcdir: Path::new(&self.plan.build.srcdir),
                workspace: Path::new(crate::plan::Workspace::DIR),
                scratch: None,
            };
            if !self.settle(&mut entry, &place).is_empty() {
                return None;
            }
        }
        Some(Done::Reused { student, build, results: entry.results, reused: entry.reused })
    }

    /// Settles a built submission's runs stage by stage, from the first unsettled one: a run
    /// whose guarding tests were not all accepted is skipped, a stored result is reused. Stops
    /// at the first stage with runs left to do, and returns those.
    fn settle(&self, entry: &mut InProgress, place: &Place<'_>) -> Vec<usize> {
        let plan = self.plan;
        let store = self.options.store.as_ref();
        while entry.stage < plan.stages() {
            let mut to_run = Vec::new();
            for (index, run) in plan.runs.iter().enumerate().filter(|(_, run)| run.stage == entry.stage) {
                if entry.results[index].is_some() {
                    continue;
                }
                let failed_guard = run.guarded_by.iter().copied().find(|&test| !accepted(plan, &entry.results, test));
                if let Some(guard) = failed_guard {
                    let reason = format!("skipped: {} did not pass", plan.tests[guard].blank.id);
                    entry.results[index] = Some(RunResult::Skipped { reason });
                    continue;
                }
                let stored = store.zip(entry.build_key.as_ref()).and_then(|(store, key)| store.load_run(&run.key(key)));
                match stored {
                    Some(StoredRun { outcome, attempts }) => {
                        entry.reused += 1;
                        let command = run.command(place);
                        entry.results[index] = Some(RunResult::ran(Ok(outcome), command, attempts));
                    }
                    None => to_run.push(index),
                }
            }
            entry.stage += 1;
            if !to_run.is_empty() {
                return to_run;
            }
        }
        Vec::new()
    }

    /// Queues a run of a submission again (to confirm a time, or after its supervisor was lost).
    fn run_again(&self, student: usize, run: usize, command: crate::sandbox::Command, entry: &InProgress) {
        let planned = &self.plan.runs[run];
        let scratch = match (&entry.prepared, planned.needs_scratch()) {
            (Some(prepared), true) => Some(prepared.built.scratch.path().join(format!("run-{run}"))),
            (Some(_) | None, _) => None,
        };
        let limits = planned.run_limits;
        self.queue.push(Job::Run(Box::new(RunJob { student, run, command, limits, scratch })));
    }

    /// Queues the runs of a built submission's next stage that has any left to do.
    fn start_next_stage(&self, student: usize, entry: &mut InProgress) {
        let Some(prepared) = &entry.prepared else { return };
        let srcdir = prepared.built.srcdir.clone();
        let workspace = prepared.workspace.clone();
        let scratch_root = prepared.built.scratch.path().to_path_buf();
        let run_as = prepared.built.run_as();
        let place = Place { srcdir: &srcdir, workspace: &workspace, scratch: None };
        for run in self.settle(entry, &place) {
            let planned = &self.plan.runs[run];
            let scratch = planned.needs_scratch().then(|| scratch_root.join(format!("run-{run}")));
            let command = planned.command(&Place { scratch: scratch.as_deref(), ..place }).run_as(run_as);
            let limits = planned.run_limits;
            entry.remaining += 1;
            self.queue.push(Job::Run(Box::new(RunJob { student, run, command, limits, scratch })));
        }
    }
}

/// Whether test `test` was run and accepted.
fn accepted(plan: &Plan<'_>, results: &[Option<RunResult>], test: usize) -> bool {
    match &results[plan.tests[test].run] {
        Some(RunResult::Ran(ran)) => {
            assemble::decision(plan, test, ran.outcome.as_ref()).verdict == crate::verdict::Verdict::Accepted
        }
        Some(RunResult::Skipped { .. }) | None => false,
    }
}

/// Marks every submission against the plan, telling `reporters` as results come in.
pub fn mark(
    plan: &Plan<'_>,
    submissions: &[Submission],
    sandbox: &Sandbox,
    options: &MarkOptions,
    reporters: &mut [&mut dyn Reporter],
) -> Result<ClassReport, PipelineError> {
    let parallelism = Parallelism { jobs: options.slots.len(), cores_per_run: options.slots.cores_per_run() };
    let test_limits: Vec<&Limits> = plan.tests.iter().map(|test| &plan.runs[test.run].limits).collect();
    let environment = environment::describe(&plan.launch, &test_limits, parallelism, sandbox);
    // Kept until marking ends: the copy every run's tree is read from.
    let shared = shared_workspace(plan, options, sandbox)?;
    let workspace = shared.as_ref().map(|folder| folder.path().join(crate::plan::Workspace::DIR));
    let context =
        Context { plan, submissions, sandbox, options, queue: SharedQueue::new(options.slots.len()), workspace };
    announce(reporters, &Event::Started { submissions: submissions.len(), tests: plan.tests.len() })?;
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let mut reports: Vec<StudentReport> = Vec::with_capacity(submissions.len());
    let mut problems = Vec::new();
    std::thread::scope(|scope| -> Result<(), PipelineError> {
        for slot in 0..options.slots.len() {
            let done_tx = done_tx.clone();
            let context = &context;
            let cores = options.slots.cores(slot);
            scope.spawn(move || {
                while let Some(job) = context.queue.pop() {
                    if done_tx.send(context.work(job, cores)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        for student in 0..submissions.len() {
            context.queue.push(Job::Build(student));
        }
        let _closing = context.queue.closed_on_drop();
        gather(&context, &done_rx, &environment, reporters, &mut reports, &mut problems)
    })?;
    let incomplete = not_marked(submissions, &reports);
    let header = ClassHeader {
        suite: plan.name.clone(),
        suite_title: plan.title.clone(),
        suite_digest: plan.digest(),
        part_ids: plan.parts.iter().map(|p| p.id.clone()).collect(),
        max_score: plan.max_score(),
    };
    let mut class = ClassReport::new(header, reports, environment, problems, incomplete);
    if let Some(store) = &options.store {
        class.distrusted_results = store.distrusted().iter().map(|path| path.display().to_string()).collect();
    }
    announce(reporters, &Event::Finished(Box::new(class.clone())))?;
    Ok(class)
}

/// Takes finished jobs as they come until every submission is done (or nothing is left to
/// come), starting each submission's next stage, and hands each finished student's report to
/// the reporters and to `reports`.
fn gather(
    context: &Context<'_>,
    done_rx: &mpsc::Receiver<Done>,
    environment: &Environment,
    reporters: &mut [&mut dyn Reporter],
    reports: &mut Vec<StudentReport>,
    problems: &mut Vec<HarnessProblem>,
) -> Result<(), PipelineError> {
    let mut progress: HashMap<usize, InProgress> = HashMap::new();
    let mut finished = 0;
    while finished < context.submissions.len() {
        let done = match done_rx.recv_timeout(Duration::from_millis(100)) {
            Ok(done) => done,
            Err(mpsc::RecvTimeoutError::Timeout) if context.options.stop.load(Ordering::SeqCst) => {
                // Jobs already started finish (their processes are killed at their
                // limits at the latest) and their results are kept; nothing new starts.
                context.queue.close();
                continue;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let ran = match &done {
            Done::Ran { student, run, .. } => Some((*student, *run)),
            Done::Built { .. } | Done::Reused { .. } => None,
        };
        let student = receive(context, done, &mut progress, problems);
        // A run has answered once its result is kept (not while its confirmation waits).
        if let Some((student, run)) = ran {
            if progress.get(&student).is_some_and(|entry| entry.results.get(run).is_some_and(Option::is_some)) {
                let tests = context.plan.runs[run].tests.len();
                announce(reporters, &Event::RunDone { student: context.submissions[student].name.clone(), tests })?;
            }
        }
        let entry = progress.get_mut(&student).expect("present");
        if entry.remaining == 0 && !entry.interrupted {
            context.start_next_stage(student, entry);
        }
        if entry.remaining > 0 {
            continue;
        }
        let entry = progress.remove(&student).expect("present");
        finished += 1;
        if entry.interrupted {
            continue;
        }
        let report = finished_report(context.plan, &context.submissions[student], &entry, environment);
        let event = Event::StudentDone { report: Box::new(report.clone()), reused_runs: entry.reused };
        announce(reporters, &event)?;
        reports.push(report);
    }
    Ok(())
}

/// The copy of the plan's workspace (a stacscheck tree without its expected outputs) every
/// run reads, made readable to runs; `None` for a plan without one.
fn shared_workspace(
    plan: &Plan<'_>,
    options: &MarkOptions,
    sandbox: &Sandbox,
) -> Result<Option<tempfile::TempDir>, PipelineError> {
    let Some(workspace) = &plan.workspace else { return Ok(None) };
    let shared = workspace
        .copy_shared(&options.scratch_root)
        .map_err(|source| PipelineError::Workspace { path: workspace.from.clone(), source })?;
    sandbox.add_readable(&shared.path().join(crate::plan::Workspace::DIR));
    Ok(Some(shared))
}

/// The report of a student whose every run and build is in.
fn finished_report(
    plan: &Plan<'_>,
    submission: &Submission,
    entry: &InProgress,
    environment: &Environment,
) -> StudentReport {
    let mut report =
        assemble::student_report(plan, &submission.name, entry.build.as_ref(), &entry.results, environment);
    report.lms = submission.lms.clone();
    report
}

/// Takes one finished job into account; returns the student it was for.
fn receive(
    context: &Context<'_>,
    done: Done,
    progress: &mut HashMap<usize, InProgress>,
    problems: &mut Vec<HarnessProblem>,
) -> usize {
    let store = context.options.store.as_ref();
    let name = |student: usize| context.submissions[student].name.as_str();
    match done {
        Done::Reused { student, build, results, reused } => {
            let stage = context.plan.stages();
            progress
                .insert(student, InProgress { build: Some(build), results, reused, stage, ..InProgress::default() });
            student
        }
        Done::Built { student, key, built: Ok(prepared) } => {
            if let Some(store) = store {
                if let Err(error) = store.save_build(&key, &prepared.built.build) {
                    problems.push(HarnessProblem::new(name(student), ProblemKind::NotStored, error));
                }
            }
            let build_ok = prepared.built.build.verdict == BuildVerdict::Ok;
            let entry = InProgress {
                build: Some(prepared.built.build.clone()),
                build_key: Some(key),
                results: context.plan.runs.iter().map(|_| None).collect(),
                // A submission that did not build runs nothing.
                stage: if build_ok { 0 } else { context.plan.stages() },
                prepared: Some(prepared),
                ..InProgress::default()
            };
            progress.insert(student, entry);
            student
        }
        Done::Built { student, built: Err(error), .. } => {
            problems.push(HarnessProblem::new(name(student), ProblemKind::NotPrepared, error));
            progress.insert(student, InProgress::default());
            student
        }
        Done::Ran { student, outcome, .. } if killed_by_the_stop(context, &outcome) => {
            // A scheduler that stops marking (Slurm's scancel, systemd) may signal every process
            // of the job, the student's program too: that ending is not the program's. Neither
            // stored nor judged; the student is left for the next marking to finish.
            if let Some(entry) = progress.get_mut(&student) {
                entry.interrupted = true;
                entry.remaining -= 1;
            }
            student
        }
        Done::Ran { student, run, command, outcome } => {
            let entry = progress.get_mut(&student).expect("runs follow their build");
            take_run(context, student, entry, Ran { run, command, outcome }, problems);
            student
        }
    }
}

/// A finished run of the program, as a worker hands it back.
struct Ran {
    run: usize,
    command: crate::sandbox::Command,
    outcome: Result<RunOutcome, SandboxError>,
}

/// Takes a run into `entry`: run again when its time must be confirmed or its supervisor was
/// lost (once); otherwise stored and kept with the time figures that count.
fn take_run(
    context: &Context<'_>,
    student: usize,
    entry: &mut InProgress,
    Ran { run, command, outcome }: Ran,
    problems: &mut Vec<HarnessProblem>,
) {
    let planned = &context.plan.runs[run];
    let (outcome, attempts) = match (outcome, entry.unconfirmed.remove(&run)) {
        (Ok(first), None) if timing::needs_confirmation(&first, &planned.limits) => {
            entry.unconfirmed.insert(run, first);
            context.run_again(student, run, command, entry);
            return;
        }
        (Err(SandboxError::SupervisorLost { .. }), unconfirmed) if entry.lost_once.insert(run) => {
            // Not the program's doing: done again once, the first attempt forgotten.
            if let Some(first) = unconfirmed {
                entry.unconfirmed.insert(run, first);
            }
            context.run_again(student, run, command, entry);
            return;
        }
        (Ok(second), Some(first)) => {
            let attempts = timing::attempts(&[&first, &second]);
            (Ok(timing::counted(first, second)), attempts)
        }
        (Ok(only), None) => {
            let attempts = timing::attempts(&[&only]);
            (Ok(only), attempts)
        }
        (Err(error), _) => (Err(error), Vec::new()),
    };
    if let (Some(store), Some(key), Ok(outcome)) = (context.options.store.as_ref(), &entry.build_key, &outcome) {
        let stored = StoredRun { outcome: outcome.clone(), attempts: attempts.clone() };
        if let Err(error) = store.save_run(&planned.key(key), &stored) {
            let name = context.submissions[student].name.as_str();
            problems.push(HarnessProblem::new(name, ProblemKind::NotStored, error));
        }
    }
    entry.results[run] = Some(RunResult::ran(outcome, command, attempts));
    entry.remaining -= 1;
}

/// Whether a run ended by a signal after marking began to stop (SIGINT, SIGTERM or SIGKILL
/// without any limit of its own hit): the stop's doing, not the program's.
fn killed_by_the_stop(context: &Context<'_>, outcome: &Result<RunOutcome, SandboxError>) -> bool {
    let stopping = context.options.stop.load(Ordering::SeqCst);
    let by_signal = matches!(
        outcome,
        Ok(RunOutcome { exit: crate::sandbox::Exit::Signal(libc::SIGINT | libc::SIGTERM | libc::SIGKILL), .. })
    );
    let own_limit =
        matches!(outcome, Ok(o) if o.wall_limit_hit || o.cpu_limit_hit || o.memory_limit_hit || o.output_limit_hit());
    stopping && by_signal && !own_limit
}

/// The submissions without a report (marking was interrupted).
fn not_marked(submissions: &[Submission], reports: &[StudentReport]) -> Vec<Unmarked> {
    let marked: HashSet<&str> = reports.iter().map(|r| r.student.as_str()).collect();
    let unmarked = submissions.iter().filter(|s| !marked.contains(s.name.as_str()));
    unmarked.map(|s| Unmarked { student: s.name.clone(), lms: s.lms.clone() }).collect()
}

fn announce(reporters: &mut [&mut dyn Reporter], event: &Event) -> Result<(), ReportError> {
    reporters.iter_mut().try_for_each(|reporter| reporter.event(event))
}
