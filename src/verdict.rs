//! Verdicts: a run's [`RunOutcome`] and its test's judge's finding ([`Judged`]) → one
//! [`Decision`]: a [`Verdict`] with an explanation. The judges themselves are in
//! [`crate::judge`].
//!
//! The order is fixed (as the judges that markers trust decide it), so the same run always gets
//! the same verdict: harness error, time limit, memory limit, runtime error, output limit, no
//! output, then the judge's own finding (format error, wrong answer, gave up, accepted). Every
//! kind of test, a suite's or a stacscheck step, goes through [`decide`]; a judge only says
//! what the run's answer is worth, and which of the checks before it do not apply to it.

use serde::{Deserialize, Serialize};

use bhref::referee::Judgement;

use crate::sandbox::{Exit, RunOutcome, SandboxError};

/// The closed set of verdicts a test can get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The harness could not run or judge the test: never the student's fault, never scored.
    HarnessError,
    TimeLimit,
    MemoryLimit,
    RuntimeError,
    OutputLimit,
    NoOutput,
    FormatError,
    WrongAnswer,
    /// The program answered `-1`: not wrong, not solved.
    GaveUp,
    Accepted,
    /// Not run, because the submission did not build.
    NotRun,
}

impl Verdict {
    /// Every verdict, in the fixed order they are decided (for tables and counts).
    pub const ALL: [Verdict; 11] = [
        Verdict::HarnessError,
        Verdict::TimeLimit,
        Verdict::MemoryLimit,
        Verdict::RuntimeError,
        Verdict::OutputLimit,
        Verdict::NoOutput,
        Verdict::FormatError,
        Verdict::WrongAnswer,
        Verdict::GaveUp,
        Verdict::Accepted,
        Verdict::NotRun,
    ];

    /// The snake_case name used in JSON, CSV and tests.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::HarnessError => "harness_error",
            Verdict::TimeLimit => "time_limit",
            Verdict::MemoryLimit => "memory_limit",
            Verdict::RuntimeError => "runtime_error",
            Verdict::OutputLimit => "output_limit",
            Verdict::NoOutput => "no_output",
            Verdict::FormatError => "format_error",
            Verdict::WrongAnswer => "wrong_answer",
            Verdict::GaveUp => "gave_up",
            Verdict::Accepted => "accepted",
            Verdict::NotRun => "not_run",
        }
    }

    /// A short human label for reports.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::HarnessError => "harness error",
            Verdict::TimeLimit => "time limit",
            Verdict::MemoryLimit => "memory limit",
            Verdict::RuntimeError => "runtime error",
            Verdict::OutputLimit => "output limit",
            Verdict::NoOutput => "no output",
            Verdict::FormatError => "format error",
            Verdict::WrongAnswer => "wrong answer",
            Verdict::GaveUp => "gave up",
            Verdict::Accepted => "accepted",
            Verdict::NotRun => "not run",
        }
    }
}

/// The time figures of one run of a test's program. A run whose CPU time ends just past its
/// limit is run once more and the lower figure counts; every run's figures are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub cpu_ms: u64,
    pub wall_ms: u64,
}

impl Attempt {
    pub fn of(run: &RunOutcome) -> Attempt {
        Attempt { cpu_ms: run.cpu.as_millis() as u64, wall_ms: run.wall.as_millis() as u64 }
    }
}

/// An accepted answer's quality against the best, and the share of the test's marks it earns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// The answer's measure (its moves).
    pub measured: u64,
    /// The best any answer can measure, proved by the reference.
    pub best: u64,
    /// What is counted, singular (`move`).
    pub unit: String,
    /// The share of the test's marks the answer earns (0 to 1).
    pub credit: f64,
}

impl Quality {
    /// `valid, 56 moves; the best is 30 moves: 0.54 of the marks`.
    pub fn describe(&self) -> String {
        let count = |n: u64| bhref::referee::count(n, &self.unit);
        format!("valid, {}; the best is {}: {:.2} of the marks", count(self.measured), count(self.best), self.credit)
    }
}

/// A verdict and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub explanation: String,
    /// For answers compared as text: a unified diff of expected and actual output (else empty).
    pub diff: String,
}

impl Decision {
    fn new(verdict: Verdict, explanation: impl Into<String>) -> Self {
        Decision { verdict, explanation: explanation.into(), diff: String::new() }
    }
}

/// What a judge makes of a run that ended cleanly within its limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judged {
    Accepted,
    /// A well-formed answer that is wrong: why, and a diff when the answer is compared as text.
    WrongAnswer {
        explanation: String,
        diff: String,
    },
    /// The output is not an answer of the required form at all.
    FormatError {
        explanation: String,
    },
    /// The program said it could not decide (`-1`): neither right nor wrong.
    GaveUp,
}

impl From<Judgement> for Judged {
    fn from(judgement: Judgement) -> Judged {
        match judgement {
            Judgement::Accepted => Judged::Accepted,
            Judgement::WrongAnswer { explanation } => Judged::WrongAnswer { explanation, diff: String::new() },
            Judgement::FormatError { explanation } => Judged::FormatError { explanation },
            Judgement::GaveUp => Judged::GaveUp,
        }
    }
}

/// What a judge takes for an answer, for the checks [`decide`] makes before asking it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnswerForm {
    /// A non-zero exit status is the program's answer (a stacscheck test passes by exiting 0)
    /// rather than a crash.
    pub exit_status_is_an_answer: bool,
    /// Printing nothing is an answer to judge rather than no output at all.
    pub silence_is_an_answer: bool,
}

/// The first line of `stdout`, without its line terminator (`\n`, or `\r\n`), as the
/// reference reads it.
pub use bhref::referee::first_line;
pub use bhref::referee::RefereeError;

/// The verdict of a run that went past its time or memory limit, if it did: the first checks
/// of [`decide`], shared by every kind of step. `memory_ceiling` is what the run was killed at:
/// its memory limit plus the runtime's own overhead (the suite's `memory_overhead_mb`).
pub fn limit_decision(run: &RunOutcome, limits: &crate::sandbox::Limits, memory_ceiling: u64) -> Option<Decision> {
    // CPU time is the time verdict: it is what the program itself spent, and changes little
    // with what else the machine is doing. Wall-clock time only stops programs that wait.
    let (cpu, wall) = (run.cpu.as_secs_f64(), run.wall.as_secs_f64());
    if run.cpu_limit_hit || run.cpu > limits.cpu {
        let how = if run.cpu_limit_hit { "was stopped after" } else { "used" };
        return Some(Decision::new(
            Verdict::TimeLimit,
            format!(
                "CPU time ran out: it {how} {cpu:.2} s of CPU time, over the limit of {:.1} s ({wall:.2} s wall-clock)",
                limits.cpu.as_secs_f64()
            ),
        ));
    }
    if run.wall_limit_hit {
        return Some(Decision::new(
            Verdict::TimeLimit,
            format!(
                "wall-clock time ran out: stopped after {wall:.1} s (the backstop is {:.1} s) having used only \
                 {cpu:.2} s of CPU time (the limit is {:.1} s): it was waiting (sleeping, blocked), not computing",
                limits.wall.as_secs_f64(),
                limits.cpu.as_secs_f64()
            ),
        ));
    }
    if run.memory_limit_hit {
        let (limit_mib, ceiling_mib) = (limits.memory_bytes >> 20, memory_ceiling.max(limits.memory_bytes) >> 20);
        let ceiling = match ceiling_mib > limit_mib {
            true => format!(
                "the memory ceiling of {ceiling_mib} MiB (the limit of {limit_mib} MiB plus {} MiB for the runtime)",
                ceiling_mib - limit_mib
            ),
            false => format!("the memory limit of {limit_mib} MiB"),
        };
        let why = match (run.memory_source, run.memory_peak_bytes) {
            (crate::sandbox::MemorySource::Resident, Some(peak)) if peak > limits.memory_bytes => format!(
                "killed: the memory the run held (its processes' resident pages and the files it wrote in memory) \
                 reached {} MiB, over {ceiling}",
                // Rounded up: a peak just past the limit must not read as the limit itself.
                peak.div_ceil(1 << 20)
            ),
            _ => format!("killed at {ceiling}"),
        };
        return Some(Decision::new(Verdict::MemoryLimit, why));
    }
    None
}

/// Decides the verdict of one test from its run and, if it gets that far, its judge's finding
/// (`memory_ceiling`: as for [`limit_decision`]): `judge` is asked only about a run that ended
/// cleanly within its limits with an answer of the judge's `form`; an `Err` from it is the
/// judge's own failure (the reference could not judge), a harness error, never the student's.
pub fn decide(
    run: Result<&RunOutcome, &SandboxError>,
    limits: &crate::sandbox::Limits,
    memory_ceiling: u64,
    form: AnswerForm,
    judge: impl FnOnce(&RunOutcome) -> Result<Judged, RefereeError>,
) -> Decision {
    let run = match run {
        Ok(run) => run,
        Err(error) => return Decision::new(Verdict::HarnessError, format!("the sandbox failed: {error}")),
    };
    if let Some(decision) = limit_decision(run, limits, memory_ceiling) {
        return decision;
    }
    // A program killed because it passed the output cap died of the limit, not of a crash.
    let crashed = match run.exit {
        Exit::Code(code) => code != 0 && !form.exit_status_is_an_answer,
        Exit::Signal(_) => !run.output_limit_hit(),
    };
    if crashed {
        return Decision::new(Verdict::RuntimeError, format!("ended with {}", run.exit.describe()));
    }
    if run.output_limit_hit() {
        let stream = if run.stdout_truncated { "standard output" } else { "standard error" };
        return Decision::new(
            Verdict::OutputLimit,
            format!("printed more than the output limit of {} KiB on {stream}", limits.output_bytes >> 10),
        );
    }
    if run.stdout.iter().all(u8::is_ascii_whitespace) && !form.silence_is_an_answer {
        return Decision::new(Verdict::NoOutput, "printed nothing on standard output");
    }
    match judge(run) {
        Err(error) => Decision::new(Verdict::HarnessError, format!("the reference could not judge: {error}")),
        Ok(Judged::Accepted) => Decision::new(Verdict::Accepted, ""),
        Ok(Judged::WrongAnswer { explanation, diff }) => {
            Decision { diff, ..Decision::new(Verdict::WrongAnswer, explanation) }
        }
        Ok(Judged::FormatError { explanation }) => Decision::new(Verdict::FormatError, explanation),
        Ok(Judged::GaveUp) => Decision::new(Verdict::GaveUp, "answered -1: could not decide"),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::sandbox::Limits;

    const LIMITS: Limits = Limits {
        wall: Duration::from_secs(1),
        cpu: Duration::from_secs(1),
        memory_bytes: 64 << 20,
        output_bytes: 1024,
    };

    fn run(stdout: &[u8]) -> RunOutcome {
        RunOutcome { wall: Duration::from_millis(5), ..RunOutcome::finished(Exit::Code(0), stdout, 5) }
    }

    fn verdict_of(outcome: &RunOutcome) -> Verdict {
        decide(Ok(outcome), &LIMITS, LIMITS.memory_bytes, AnswerForm::default(), |_| Ok(Judged::Accepted)).verdict
    }

    /// Every combination of the run's failure flags gets the verdict of the first one in the
    /// fixed order.
    #[test]
    fn the_first_failure_in_the_fixed_order_wins() {
        for mask in 0u32..64 {
            let bit = |n: u32| mask & (1 << n) != 0;
            let mut outcome = run(if bit(5) { b"" } else { b"true\n" });
            outcome.wall_limit_hit = bit(0);
            outcome.memory_limit_hit = bit(1);
            outcome.exit = if bit(2) { Exit::Code(1) } else { Exit::Code(0) };
            outcome.stdout_truncated = bit(3);
            outcome.cpu_limit_hit = bit(4);
            let expected = if bit(0) || bit(4) {
                Verdict::TimeLimit
            } else if bit(1) {
                Verdict::MemoryLimit
            } else if bit(2) {
                Verdict::RuntimeError
            } else if bit(3) {
                Verdict::OutputLimit
            } else if bit(5) {
                Verdict::NoOutput
            } else {
                Verdict::Accepted
            };
            assert_eq!(verdict_of(&outcome), expected, "mask {mask:06b}");
        }
    }

    #[test]
    fn a_measured_memory_kill_says_what_was_measured() {
        let mut hog = run(b"");
        hog.exit = Exit::Signal(libc::SIGKILL);
        hog.memory_limit_hit = true;
        hog.memory_source = crate::sandbox::MemorySource::Resident;
        hog.memory_peak_bytes = Some(70 << 20);
        let decision = decide(Ok(&hog), &LIMITS, LIMITS.memory_bytes, AnswerForm::default(), |_| Ok(Judged::Accepted));
        assert_eq!(decision.verdict, Verdict::MemoryLimit);
        assert_eq!(
            decision.explanation,
            "killed: the memory the run held (its processes' resident pages and the files it wrote in memory) \
             reached 70 MiB, over the memory limit of 64 MiB"
        );
        // Killed at the ceiling (the limit plus the runtime's overhead), the verdict names both.
        hog.memory_peak_bytes = Some(100 << 20);
        let at_ceiling = decide(Ok(&hog), &LIMITS, 96 << 20, AnswerForm::default(), |_| Ok(Judged::Accepted));
        assert_eq!(
            at_ceiling.explanation,
            "killed: the memory the run held (its processes' resident pages and the files it wrote in memory) \
             reached 100 MiB, over the memory ceiling of 96 MiB \
             (the limit of 64 MiB plus 32 MiB for the runtime)"
        );
        hog.memory_source = crate::sandbox::MemorySource::Cgroup;
        let by_cgroup = decide(Ok(&hog), &LIMITS, 96 << 20, AnswerForm::default(), |_| Ok(Judged::Accepted));
        assert_eq!(
            by_cgroup.explanation,
            "killed at the memory ceiling of 96 MiB (the limit of 64 MiB plus 32 MiB for the runtime)"
        );
    }

    #[test]
    fn a_kill_for_flooding_output_is_an_output_limit_and_a_crash_by_signal_is_named() {
        let mut flood = run(b"yyyy");
        flood.exit = Exit::Signal(libc::SIGKILL);
        flood.stdout_truncated = true;
        assert_eq!(verdict_of(&flood), Verdict::OutputLimit);
        let mut crash = run(b"");
        crash.exit = Exit::Signal(libc::SIGSEGV);
        let decision =
            decide(Ok(&crash), &LIMITS, LIMITS.memory_bytes, AnswerForm::default(), |_| Ok(Judged::Accepted));
        assert_eq!(decision.verdict, Verdict::RuntimeError);
        assert!(decision.explanation.contains("SIGSEGV"), "{}", decision.explanation);
    }

    #[test]
    fn the_judgement_decides_a_clean_run_and_a_referee_failure_is_the_harness() {
        let clean = run(b"1 0 2\r\nmore\n");
        let seen = std::sync::Mutex::new(Vec::new());
        let wrong = decide(Ok(&clean), &LIMITS, LIMITS.memory_bytes, AnswerForm::default(), |run| {
            seen.lock().unwrap().extend_from_slice(first_line(&run.stdout));
            Ok(Judgement::WrongAnswer { explanation: "no".into() }.into())
        });
        assert_eq!(*seen.lock().unwrap(), b"1 0 2");
        assert_eq!(wrong.verdict, Verdict::WrongAnswer);
        let failed = decide(Ok(&clean), &LIMITS, LIMITS.memory_bytes, AnswerForm::default(), |_| {
            Err(RefereeError::Undecided { reason: "budget".into() })
        });
        assert_eq!(failed.verdict, Verdict::HarnessError);
        assert_eq!(
            decide(Ok(&clean), &LIMITS, LIMITS.memory_bytes, AnswerForm::default(), |_| Ok(Judged::GaveUp)).verdict,
            Verdict::GaveUp
        );
    }
}
