//! The pipeline: a verified [`Suite`] and [`Submission`]s → one [`StudentReport`] each and a
//! [`ClassReport`], announced to the reporters as [`Event`]s.
//!
//! The one place that owns the order of the stages (build → run → verdict → score → report) and
//! their parallelism: `jobs` worker threads take builds and runs from one queue (runs of built
//! submissions first, so finished reports appear early), while this thread judges, scores,
//! stores each result as it arrives and hands reports to the reporters. Each distinct command
//! runs once per submission ([`plan`]); a result already stored by an earlier, interrupted
//! marking into the same output folder is reused ([`crate::store`]); a time limit hit while
//! other runs competed for the machine is re-run alone before it counts.

mod assemble;
mod plan;
mod stacscheck;

pub use stacscheck::mark_tree;

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex, RwLock};
use std::time::Duration;

use crate::build::{self, BuildConfig, BuildError, BuildReport, BuildVerdict, BuiltSubmission, Submission};
use crate::environment;
use crate::report::model::{ClassReport, StudentReport};
use crate::report::{Event, ReportError, Reporter};
use crate::sandbox::{Command, Limits, RunOutcome, Sandbox, SandboxError};
use crate::score;
use crate::store::{Key, ResultStore};
use crate::suite::{Suite, Test};

use assemble::RunResult;
use plan::PlannedRun;

/// How to mark.
pub struct MarkOptions {
    /// Worker threads for builds and runs.
    pub jobs: usize,
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
    /// `alone`: no other build or run may go on meanwhile (a time-limit verdict's re-run).
    Run {
        student: usize,
        run: usize,
        command: Command,
        limits: Limits,
        alone: bool,
    },
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
        outcomes: Vec<RunOutcome>,
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
struct InProgress {
    /// `None` when the harness could not prepare the submission.
    build: Option<BuildReport>,
    build_key: Option<Key>,
    /// The private built copy, removed when this is dropped.
    _built: Option<BuiltSubmission>,
    results: Vec<Option<RunResult>>,
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
    /// Runs hold this shared; a re-run that must have the machine to itself holds it exclusively.
    machine: RwLock<()>,
}

impl Context<'_> {
    fn work(&self, job: Job) -> Done {
        match job {
            Job::Build(student) => self.build(student),
            Job::Run { student, run, command, limits, alone } => {
                let outcome = if alone {
                    let _only_this = self.machine.write().unwrap_or_else(|e| e.into_inner());
                    self.sandbox.run(&command, &limits)
                } else {
                    let _shared = self.machine.read().unwrap_or_else(|e| e.into_inner());
                    self.sandbox.run(&command, &limits)
                };
                Done::Ran { student, run, command, outcome }
            }
        }
    }

    fn build(&self, student: usize) -> Done {
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
        let _shared = self.machine.read().unwrap_or_else(|e| e.into_inner());
        let built = build::prepare(submission, &self.build_config, &self.options.scratch_root, self.sandbox);
        Done::Built { student, key, built }
    }

    /// The stored results of an earlier marking, if they cover the whole submission.
    fn reuse(&self, student: usize, key: &Key) -> Option<Done> {
        let store = self.options.store.as_ref()?;
        let build = store.load_build(key)?;
        let outcomes = match build.verdict {
            BuildVerdict::Ok => {
                let launch = &self.suite.launch;
                self.plan.iter().map(|run| store.load_run(&run.key(key, launch))).collect::<Option<Vec<_>>>()?
            }
            BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => Vec::new(),
        };
        Some(Done::Reused { student, build, outcomes })
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
    let environment = environment::describe(suite, options.jobs, sandbox);
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
        },
        plan: plan::plan_runs(suite, &tests),
        queue: SharedQueue::default(),
        machine: RwLock::new(()),
    };
    announce(reporters, &Event::Started { submissions: submissions.len(), tests: tests.len() })?;
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let mut reports: Vec<StudentReport> = Vec::with_capacity(submissions.len());
    let mut harness_problems = Vec::new();
    let mut progress: HashMap<usize, InProgress> = HashMap::new();
    std::thread::scope(|scope| -> Result<(), PipelineError> {
        for _ in 0..options.jobs.max(1) {
            let done_tx = done_tx.clone();
            let context = &context;
            scope.spawn(move || {
                while let Some(job) = context.queue.pop() {
                    if done_tx.send(context.work(job)).is_err() {
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
    let launch = &context.suite.launch;
    match done {
        Done::Reused { student, build, outcomes } => {
            let results = context
                .plan
                .iter()
                .zip(outcomes)
                .map(|(run, outcome)| {
                    let command = run.command(std::path::Path::new(&context.suite.srcdir));
                    Some(RunResult { outcome: Ok(outcome), command, rerun_alone: false })
                })
                .collect::<Vec<_>>();
            let reused = results.len();
            let entry = InProgress { build: Some(build), build_key: None, _built: None, results, remaining: 0, reused };
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
                match store.and_then(|store| store.load_run(&run.key(&key, launch))) {
                    Some(outcome) => {
                        reused += 1;
                        results.push(Some(RunResult { outcome: Ok(outcome), command, rerun_alone: false }));
                    }
                    None => {
                        remaining += 1;
                        results.push(None);
                        let limits = run.limits;
                        context.queue.push(Job::Run { student, run: index, command, limits, alone: false });
                    }
                }
            }
            let build = Some(built.build.clone());
            progress.insert(
                student,
                InProgress { build, build_key: Some(key), _built: Some(built), results, remaining, reused },
            );
            student
        }
        Done::Built { student, built: Err(error), .. } => {
            let name = &context.submissions[student].name;
            harness_problems.push(format!("{name}: could not prepare the submission: {error}"));
            let entry =
                InProgress { build: None, build_key: None, _built: None, results: Vec::new(), remaining: 0, reused: 0 };
            progress.insert(student, entry);
            student
        }
        Done::Ran { student, run, command, outcome } => {
            let entry = progress.get_mut(&student).expect("runs follow their build");
            let timed_out = matches!(&outcome, Ok(o) if o.wall_limit_hit || o.cpu_limit_hit);
            let already_alone = matches!(&entry.results[run], Some(RunResult { rerun_alone: true, .. }));
            if timed_out && context.options.jobs > 1 && !already_alone {
                // Others competed for the machine: the limit counts only if it bites alone.
                let limits = context.plan[run].limits;
                entry.results[run] = Some(RunResult { outcome, command: command.clone(), rerun_alone: true });
                context.queue.push(Job::Run { student, run, command, limits, alone: true });
                return student;
            }
            if let (Some(store), Some(key), Ok(outcome)) = (store, &entry.build_key, &outcome) {
                if let Err(error) = store.save_run(&context.plan[run].key(key, launch), outcome) {
                    let name = &context.submissions[student].name;
                    harness_problems.push(format!("{name}: could not store a result: {error}"));
                }
            }
            entry.results[run] = Some(RunResult { outcome, command, rerun_alone: already_alone });
            entry.remaining -= 1;
            student
        }
    }
}

/// The submissions without a report (marking was interrupted).
fn not_marked(submissions: &[Submission], reports: &[StudentReport]) -> Vec<String> {
    let marked: Vec<&str> = reports.iter().map(|r| r.student.as_str()).collect();
    submissions.iter().map(|s| s.name.clone()).filter(|name| !marked.contains(&name.as_str())).collect()
}

fn announce(reporters: &mut [&mut dyn Reporter], event: &Event) -> Result<(), ReportError> {
    reporters.iter_mut().try_for_each(|reporter| reporter.event(event))
}
