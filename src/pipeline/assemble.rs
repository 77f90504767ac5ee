//! Assembling a student's report: the build report and every run's outcome → verdicts (through
//! the reference), marks, and one [`StudentReport`].

use crate::build::{BuildReport, BuildVerdict};
use crate::report::model::{BuildSection, CheckRow, Environment, PartReport, StudentReport, TestReport};
use crate::report::text;
use crate::sandbox::{self, Command, RunOutcome, SandboxError};
use crate::score;
use crate::suite::{Suite, Test};
use crate::verdict::{self, Attempt, Decision, Verdict};

use super::plan::PlannedRun;

/// How one run ended, as far as a report cares.
pub struct RunResult {
    pub outcome: Result<RunOutcome, SandboxError>,
    /// The command as run (in the private copy).
    pub command: Command,
    /// The time figures of every run made (two when the first ended just past its CPU limit).
    pub attempts: Vec<Attempt>,
}

/// Judges, scores and describes one submission. `build` is `None` when the harness itself
/// could not prepare the submission; `results` has one entry per planned run when it built.
pub fn student_report(
    suite: &Suite,
    tests: &[&Test],
    student: &str,
    build: Option<&BuildReport>,
    plan: &[PlannedRun],
    results: &[Option<RunResult>],
    environment: &Environment,
) -> StudentReport {
    let build_section = match build {
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
    };
    let mut test_reports: Vec<Option<TestReport>> = vec![None; tests.len()];
    for (run, result) in plan.iter().zip(results) {
        let Some(result) = result else { continue };
        for &index in &run.tests {
            let mut report = test_report(suite, tests[index], &result.command, result.outcome.as_ref());
            if let [first, second] = result.attempts[..] {
                let confirmation = format!(
                    "its first run used {:.2} s of CPU time, just past the {:.1} s limit, so it was run again \
                     ({:.2} s); the lower figure counts",
                    first.cpu_ms as f64 / 1000.0,
                    tests[index].def.limits.cpu.as_secs_f64(),
                    second.cpu_ms as f64 / 1000.0
                );
                report.explanation = match report.explanation.is_empty() {
                    true => confirmation,
                    false => format!("{} ({confirmation})", report.explanation),
                };
            }
            report.time_runs = result.attempts.clone();
            test_reports[index] = Some(report);
        }
    }
    let mut test_reports = test_reports.into_iter().enumerate().map(|(index, report)| {
        report.unwrap_or_else(|| {
            let verdict = if build.is_none() { Verdict::HarnessError } else { Verdict::NotRun };
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
    let check_table = check_table(&parts, build_section.verdict);
    StudentReport {
        student: student.to_string(),
        suite: suite.name.clone(),
        suite_title: suite.title.clone(),
        score: score::round(parts.iter().map(|p| p.score).sum()),
        max_score: score::round(suite.parts.iter().map(|p| p.weight).sum()),
        build: build_section,
        parts,
        check_table,
        environment: environment.clone(),
    }
}

fn test_report(
    suite: &Suite,
    test: &Test,
    command: &Command,
    outcome: Result<&RunOutcome, &SandboxError>,
) -> TestReport {
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
        expected: test.expected.answer.clone(),
        expected_detail: text::shorten(&test.expected.detail, 300),
        input: test.def.input.as_deref().map(|input| text::shorten(input.trim(), 300)),
        ..TestReport::new(test.def.id.clone(), test.def.kind.clone(), puzzle.display().to_string(), verdict)
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
