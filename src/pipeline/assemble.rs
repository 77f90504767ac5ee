//! Assembling a student's report: a [`Plan`], a submission's build report and every run's
//! [`RunResult`] → verdicts (through each test's judge), marks (through [`score`]) and one
//! [`StudentReport`].

use crate::build::{BuildReport, BuildVerdict};
use crate::plan::{PartTally, Plan};
use crate::results::model::{BuildSection, Environment, PartReport, StudentReport, TestReport};
use crate::results::text;
use crate::sandbox::{self, Command, RunOutcome, SandboxError};
use crate::score;
use crate::verdict::{self, Attempt, Decision, Verdict};

/// How one planned run ended, as far as a report cares.
pub enum RunResult {
    Ran(Box<Ran>),
    /// Not run, because a test guarding it was not accepted.
    Skipped {
        reason: String,
    },
}

/// A run that happened (now, or in an earlier marking whose result was stored).
pub struct Ran {
    pub outcome: Result<RunOutcome, SandboxError>,
    /// The command as run (in the private copy).
    pub command: Command,
    /// The time figures of every run made (two when the first ended just past its CPU limit).
    pub attempts: Vec<Attempt>,
}

impl RunResult {
    pub fn ran(outcome: Result<RunOutcome, SandboxError>, command: Command, attempts: Vec<Attempt>) -> RunResult {
        RunResult::Ran(Box::new(Ran { outcome, command, attempts }))
    }
}

/// The verdict test `test` gets from `outcome`, the result of its run.
pub fn decision(plan: &Plan<'_>, test: usize, outcome: Result<&RunOutcome, &SandboxError>) -> Decision {
    let planned = &plan.tests[test];
    let run = &plan.runs[planned.run];
    crate::judge::decide(outcome, &run.limits, run.run_limits.memory_bytes, planned.judge.as_ref())
}

/// The build's part of a report; a submission the harness could not prepare is said so.
fn build_section(build: Option<&BuildReport>) -> BuildSection {
    match build {
        Some(report) => BuildSection {
            verdict: report.verdict,
            detail: report.detail.clone(),
            log_tail: report.log_tail.clone(),
            wall_ms: report.wall.as_millis() as u64,
        },
        None => BuildSection {
            verdict: BuildVerdict::BuildFailed,
            detail: "the harness could not prepare this submission (see the summary)".into(),
            log_tail: String::new(),
            wall_ms: 0,
        },
    }
}

/// The test reports (in plan order) grouped into the plan's parts, each test and part scored.
fn scored_parts(plan: &Plan<'_>, mut reports: Vec<TestReport>) -> Vec<PartReport> {
    let mut parts = Vec::with_capacity(plan.parts.len());
    for (part_index, part) in plan.parts.iter().enumerate() {
        let members: Vec<usize> = (0..plan.tests.len()).filter(|&t| plan.tests[t].part == part_index).collect();
        let scored: Vec<score::Scored<'_>> = members
            .iter()
            .map(|&t| score::Scored {
                weight: plan.tests[t].weight,
                verdict: reports[t].verdict,
                quality: reports[t].quality.as_ref().map(|quality| quality.credit),
                group: reports[t].group.as_deref(),
            })
            .collect();
        let rules = score::Rules { gave_up_credit: plan.gave_up_credit, group_scoring: part.group_scoring };
        let (per_test, part_score) = score::part_scores(part.weight, &scored, rules);
        let mut tests = Vec::with_capacity(members.len());
        for (&t, (earned, max)) in members.iter().zip(per_test) {
            let mut report = std::mem::replace(
                &mut reports[t],
                TestReport::new(String::new(), String::new(), String::new(), Verdict::NotRun),
            );
            report.score = earned;
            report.max_score = max;
            tests.push(report);
        }
        parts.push(PartReport {
            id: part.id.clone(),
            title: part.title.clone(),
            score: part_score,
            max_score: score::round(part.weight),
            passed: tests.iter().filter(|r| r.verdict == Verdict::Accepted).count(),
            group_scoring: tests.iter().any(|r| r.group.is_some()).then_some(part.group_scoring),
            tests,
        });
    }
    parts
}

/// Judges, scores and describes one submission. `build` is `None` when the harness itself
/// could not prepare the submission; `results` has one entry per planned run.
pub fn student_report(
    plan: &Plan<'_>,
    student: &str,
    build: Option<&BuildReport>,
    results: &[Option<RunResult>],
    environment: &Environment,
) -> StudentReport {
    let build_section = build_section(build);
    let reports: Vec<TestReport> = (0..plan.tests.len())
        .map(|index| {
            let planned = &plan.tests[index];
            match results.get(planned.run).and_then(Option::as_ref) {
                Some(RunResult::Ran(ran)) => {
                    test_report(plan, index, &ran.command, ran.outcome.as_ref(), &ran.attempts)
                }
                Some(RunResult::Skipped { reason }) => {
                    TestReport { explanation: reason.clone(), ..with_verdict(&planned.blank, Verdict::NotRun) }
                }
                None => {
                    with_verdict(&planned.blank, if build.is_none() { Verdict::HarnessError } else { Verdict::NotRun })
                }
            }
        })
        .collect();
    let parts = scored_parts(plan, reports);
    // The check table's "provided tests" are the ones students were given: the visible ones.
    let tallies: Vec<PartTally> = parts
        .iter()
        .map(|p| {
            let visible = p.tests.iter().filter(|t| t.visible);
            let passed = visible.clone().filter(|t| t.verdict == Verdict::Accepted).count();
            PartTally { id: p.id.clone(), title: p.title.clone(), passed, total: visible.count() }
        })
        .collect();
    let check_table = (plan.check_table)(&tallies, build_section.verdict == BuildVerdict::Ok);
    StudentReport {
        student: student.to_string(),
        suite: plan.name.clone(),
        suite_title: plan.title.clone(),
        suite_digest: plan.digest(),
        score: score::sum(parts.iter().map(|p| p.score)),
        max_score: plan.max_score(),
        build: build_section,
        parts,
        check_table,
        environment: environment.clone(),
        lms: None,
    }
}

fn with_verdict(blank: &TestReport, verdict: Verdict) -> TestReport {
    TestReport { verdict, verdict_label: verdict.label().to_string(), ..blank.clone() }
}

fn test_report(
    plan: &Plan<'_>,
    index: usize,
    command: &Command,
    outcome: Result<&RunOutcome, &SandboxError>,
    attempts: &[Attempt],
) -> TestReport {
    let Decision { verdict, mut explanation, diff } = decision(plan, index, outcome);
    if let [first, second] = attempts {
        let limit = plan.runs[plan.tests[index].run].limits.cpu;
        let confirmation = format!(
            "its first run used {:.2} s of CPU time, just past the {:.1} s limit, so it was run again \
             ({:.2} s); the lower figure counts",
            first.cpu_ms as f64 / 1000.0,
            limit.as_secs_f64(),
            second.cpu_ms as f64 / 1000.0
        );
        explanation = match explanation.is_empty() {
            true => confirmation,
            false => format!("{explanation} ({confirmation})"),
        };
    }
    let mut report = TestReport {
        explanation,
        diff,
        command: sandbox::describe(command),
        // How to run it again from the submission, as the plan says (a suite's test and a
        // tree's step both do); else the command as run.
        reproduce: match plan.tests[index].blank.reproduce.is_empty() {
            true => sandbox::describe(command),
            false => plan.tests[index].blank.reproduce.clone(),
        },
        time_runs: attempts.to_vec(),
        ..with_verdict(&plan.tests[index].blank, verdict)
    };
    if let (Ok(run), Verdict::Accepted) = (outcome, verdict) {
        report.quality = plan.tests[index].judge.quality(run);
        if let Some(quality) = &report.quality {
            report.explanation = match report.explanation.is_empty() {
                true => quality.describe(),
                false => format!("{}; {}", quality.describe(), report.explanation),
            };
        }
    }
    if let Ok(run) = outcome {
        report.wall_ms = run.wall.as_millis() as u64;
        report.cpu_ms = run.cpu.as_millis() as u64;
        report.peak_rss_kb = run.peak_rss_kb;
        report.ran = true;
        report.first_line = match run.stdout.is_empty() {
            true => text::NOTHING_PRINTED.to_string(),
            false => text::visible_line(verdict::first_line(&run.stdout)),
        };
        report.stderr_tail = text::tail(&run.stderr, 15, 4096);
    }
    report
}
