//! The pipeline: a verified [`Suite`] and [`Submission`]s → one [`StudentReport`] each and a
//! [`ClassReport`], announced to the reporters as [`Event`]s.
//!
//! The one place that owns the order of the stages (build → run → verdict → score → report) and
//! their parallelism: one worker thread per CPU slot ([`slots`]) takes builds and runs from one
//! queue (runs of built submissions first, so finished reports appear early) and pins each to
//! its slot, while this thread judges, scores, stores each result as it arrives and hands
//! reports to the reporters. Each distinct command runs once per submission ([`plan`]); a
//! result already stored by an earlier, interrupted marking into the same output folder is
//! reused ([`crate::store`]); a run that ends just past its CPU limit is run once more and the
//! lower figure counts ([`timing`]).

mod assemble;
mod plan;
pub mod slots;
mod stacscheck;
pub mod timing;

pub use slots::Slots;
pub use stacscheck::mark_tree;

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Duration;

use crate::build::{self, BuildConfig, BuildError, BuildReport, BuildVerdict, BuiltSubmission, Submission};
use crate::environment;
use crate::report::model::{ClassReport, StudentReport};
use crate::report::{Event, ReportError, Reporter};
use crate::sandbox::{Command, Limits, RunOutcome, Sandbox, SandboxError};
use crate::score;
use crate::store::{Key, ResultStore, StoredRun};
use crate::suite::{Suite, Test};

use assemble::RunResult;
use plan::PlannedRun;

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
}

/// What a worker is asked to do.
enum Job {
    Build(usize),
    Run { student: usize, run: usize, command: Command, limits: Limits },
}

/// What a worker reports back.
enum Done {
    Built {
        student: usize,
        key: Key,
        built: Result<BuiltSubmission, BuildError>,
    },
    /// Everything this submission needs was stored by an earlier marking.
    Reused {
        student: usize,
        build: BuildReport,
        runs: Vec<StoredRun>,
    },
    Ran {
        student: usize,
        run: usize,
        command: Command,
        outcome: Result<RunOutcome, SandboxError>,
    },
}

#[derive(Default)]
struct Queue {
    builds: VecDeque<Job>,
    runs: VecDeque<Job>,
    closed: bool,
}

/// The work queue shared by the workers.
#[derive(Default)]
struct SharedQueue {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl SharedQueue {
    /// Queues a job, unless marking is stopping.
    fn push(&self, job: Job) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        if queue.closed {
            return;
        }
        match job {
            Job::Build(_) => queue.builds.push_back(job),
            Job::Run { .. } => queue.runs.push_back(job),
        }
        self.ready.notify_one();
    }

    /// Stops handing out work; jobs not yet started are dropped.
    fn close(&self) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.closed = true;
        queue.builds.clear();
        queue.runs.clear();
        self.ready.notify_all();
    }

    fn pop(&self) -> Option<Job> {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = queue.runs.pop_front().or_else(|| queue.builds.pop_front()) {
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A submission on its way through the pipeline.
#[derive(Default)]
struct InProgress {
    /// `None` when the harness could not prepare the submission.
    build: Option<BuildReport>,
    build_key: Option<Key>,
    /// The private built copy, removed when this is dropped.
    _built: Option<BuiltSubmission>,
    results: Vec<Option<RunResult>>,
    /// First runs that ended just past their CPU limit, waiting for their confirmation.
    unconfirmed: HashMap<usize, RunOutcome>,
    /// A run was ended by the signal that stopped marking: no report, marking again finishes it.
    interrupted: bool,
    remaining: usize,
    reused: usize,
}

/// Everything the workers share.
struct Context<'a> {
    suite: &'a Suite,
    submissions: &'a [Submission],
    sandbox: &'a Sandbox,
    options: &'a MarkOptions,
    build_config: BuildConfig,
    plan: Vec<PlannedRun>,
    queue: SharedQueue,
}

impl Context<'_> {
    /// Does one job on the slot with these cores.
    fn work(&self, job: Job, cores: &[usize]) -> Done {
        match job {
            Job::Build(student) => self.build(student, cores),
            Job::Run { student, run, command, limits } => {
                let pinned = command.clone().cpus(cores.iter().copied());
                let outcome = self.suite.launch.quiet_run(self.sandbox.run(&pinned, &limits));
                Done::Ran { student, run, command, outcome }
            }
        }
    }

    fn build(&self, student: usize, cores: &[usize]) -> Done {
        let submission = &self.submissions[student];
        let digest = match build::content_hash(&submission.path) {
            Ok(digest) => digest,
            Err(source) => {
                let error = BuildError::Io { path: submission.path.clone(), source };
                let key = ResultStore::build_key(&submission.name, "", &self.build_config);
                return Done::Built { student, key, built: Err(error) };
            }
        };
        let key = ResultStore::build_key(&submission.name, &digest, &self.build_config);
        if let Some(done) = self.reuse(student, &key) {
            return done;
        }
        let config = BuildConfig { cpus: cores.to_vec(), ..self.build_config.clone() };
        let built = build::prepare(submission, &config, &self.options.scratch_root, self.sandbox);
        Done::Built { student, key, built }
    }

    /// The stored results of an earlier marking, if they cover the whole submission.
    fn reuse(&self, student: usize, key: &Key) -> Option<Done> {
        let store = self.options.store.as_ref()?;
        let build = store.load_build(key)?;
        let runs = match build.verdict {
            BuildVerdict::Ok => {
                self.plan.iter().map(|run| store.load_run(&run.key(key))).collect::<Option<Vec<_>>>()?
            }
            BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => Vec::new(),
        };
        Some(Done::Reused { student, build, runs })
    }
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
    let environment = environment::describe(suite, &options.slots, sandbox);
    let context = Context {
        suite,
        submissions,
        sandbox,
        options,
        build_config: BuildConfig {
            srcdir: suite.srcdir.clone(),
            command: suite.build.command.clone(),
            script: suite.build.script.clone(),
            limits: suite.build.limits,
            cpus: Vec::new(),
        },
        plan: plan::plan_runs(suite, &tests),
        queue: SharedQueue::default(),
    };
    announce(reporters, &Event::Started { submissions: submissions.len(), tests: tests.len() })?;
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let mut reports: Vec<StudentReport> = Vec::with_capacity(submissions.len());
    let mut harness_problems = Vec::new();
    let mut progress: HashMap<usize, InProgress> = HashMap::new();
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
        let mut finished = 0;
        let outcome = (|| {
            while finished < submissions.len() {
                let done = match done_rx.recv_timeout(Duration::from_millis(100)) {
                    Ok(done) => done,
                    Err(mpsc::RecvTimeoutError::Timeout) if options.stop.load(Ordering::SeqCst) => {
                        // Jobs already started finish (their processes are killed at their
                        // limits at the latest) and their results are kept; nothing new starts.
                        context.queue.close();
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                };
                let student = receive(&context, done, &mut progress, &mut harness_problems);
                if progress[&student].remaining > 0 {
                    continue;
                }
                let entry = progress.remove(&student).expect("present");
                if entry.interrupted {
                    finished += 1;
                    continue;
                }
                let report = assemble::student_report(
                    suite,
                    &tests,
                    &submissions[student].name,
                    entry.build.as_ref(),
                    &context.plan,
                    &entry.results,
                    &environment,
                );
                if report.has_harness_error() {
                    harness_problems.push(format!("{}: some tests could not be judged", report.student));
                }
                let event = Event::StudentDone { report: Box::new(report.clone()), reused_runs: entry.reused };
                announce(reporters, &event)?;
                reports.push(report);
                finished += 1;
            }
            Ok(())
        })();
        context.queue.close();
        outcome
    })?;
    reports.sort_by(|a, b| a.student.cmp(&b.student));
    let incomplete = not_marked(submissions, &reports);
    let class = ClassReport {
        suite: suite.name.clone(),
        suite_title: suite.title.clone(),
        part_ids: suite.parts.iter().map(|p| p.id.clone()).collect(),
        max_score: score::round(suite.parts.iter().map(|p| p.weight).sum()),
        students: reports,
        environment,
        harness_problems,
        incomplete,
    };
    announce(reporters, &Event::Finished(Box::new(class.clone())))?;
    Ok(class)
}

/// Takes one finished job into account; returns the student it was for.
fn receive(
    context: &Context<'_>,
    done: Done,
    progress: &mut HashMap<usize, InProgress>,
    harness_problems: &mut Vec<String>,
) -> usize {
    let store = context.options.store.as_ref();
    match done {
        Done::Reused { student, build, runs } => {
            let results = context
                .plan
                .iter()
                .zip(runs)
                .map(|(run, stored)| {
                    let command = run.command(std::path::Path::new(&context.suite.srcdir));
                    Some(RunResult { outcome: Ok(stored.outcome), command, attempts: stored.attempts })
                })
                .collect::<Vec<_>>();
            let reused = results.len();
            let entry = InProgress { build: Some(build), results, reused, ..InProgress::default() };
            progress.insert(student, entry);
            student
        }
        Done::Built { student, key, built: Ok(built) } => {
            if let Some(store) = store {
                if let Err(error) = store.save_build(&key, &built.build) {
                    harness_problems.push(format!("{}: could not store the build result: {error}", built.name));
                }
            }
            let runs: &[PlannedRun] = match built.build.verdict {
                BuildVerdict::Ok => &context.plan,
                BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => &[],
            };
            let mut results = Vec::with_capacity(runs.len());
            let (mut remaining, mut reused) = (0, 0);
            for (index, run) in runs.iter().enumerate() {
                let command = run.command(&built.srcdir);
                match store.and_then(|store| store.load_run(&run.key(&key))) {
                    Some(stored) => {
                        reused += 1;
                        results.push(Some(RunResult {
                            outcome: Ok(stored.outcome),
                            command,
                            attempts: stored.attempts,
                        }));
                    }
                    None => {
                        remaining += 1;
                        results.push(None);
                        let limits = run.run_limits;
                        context.queue.push(Job::Run { student, run: index, command, limits });
                    }
                }
            }
            let build = Some(built.build.clone());
            let entry = InProgress {
                build,
                build_key: Some(key),
                _built: Some(built),
                results,
                remaining,
                reused,
                ..InProgress::default()
            };
            progress.insert(student, entry);
            student
        }
        Done::Built { student, built: Err(error), .. } => {
            let name = &context.submissions[student].name;
            harness_problems.push(format!("{name}: could not prepare the submission: {error}"));
            let entry = InProgress::default();
            progress.insert(student, entry);
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
            let planned = &context.plan[run];
            let (outcome, attempts) = match (outcome, entry.unconfirmed.remove(&run)) {
                (Ok(first), None) if timing::needs_confirmation(&first, &planned.limits) => {
                    entry.unconfirmed.insert(run, first);
                    let limits = planned.run_limits;
                    context.queue.push(Job::Run { student, run, command, limits });
                    return student;
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
            if let (Some(store), Some(key), Ok(outcome)) = (store, &entry.build_key, &outcome) {
                let stored = StoredRun { outcome: outcome.clone(), attempts: attempts.clone() };
                if let Err(error) = store.save_run(&planned.key(key), &stored) {
                    let name = &context.submissions[student].name;
                    harness_problems.push(format!("{name}: could not store a result: {error}"));
                }
            }
            entry.results[run] = Some(RunResult { outcome, command, attempts });
            entry.remaining -= 1;
            student
        }
    }
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
fn not_marked(submissions: &[Submission], reports: &[StudentReport]) -> Vec<String> {
    let marked: Vec<&str> = reports.iter().map(|r| r.student.as_str()).collect();
    submissions.iter().map(|s| s.name.clone()).filter(|name| !marked.contains(&name.as_str())).collect()
}

fn announce(reporters: &mut [&mut dyn Reporter], event: &Event) -> Result<(), ReportError> {
    reporters.iter_mut().try_for_each(|reporter| reporter.event(event))
}
