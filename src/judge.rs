//! The judge room: a run that ended cleanly within its limits → what its answer is worth
//! ([`Judged`]), by the [`Judge`] a plan gives each test: a suite's reference
//! ([`RefereeJudge`]) or stacscheck's pass rule for a step ([`StepJudge`]). Above the verdict
//! (which asks a judge only when the checks before it pass, [`crate::verdict::decide`]) and below
//! the plan (which chooses a judge per test).

mod referee;
mod step;

pub use referee::RefereeJudge;
pub use step::StepJudge;

use crate::sandbox::{RunOutcome, SandboxError};
use crate::verdict::{AnswerForm, Decision, Judged, Quality, RefereeError};

/// A test's judge: the whole outcome of a run that ended within its limits → what its answer is
/// worth. An `Err` is the judge's own failure (the reference could not judge, and says why in a
/// [`RefereeError`]): a harness error, never the student's.
pub trait Judge: Send + Sync {
    /// What this judge takes for an answer (by default: exit status 0 and some output).
    fn form(&self) -> AnswerForm {
        AnswerForm::default()
    }

    fn judge(&self, run: &RunOutcome) -> Result<Judged, RefereeError>;

    /// For an answer this judge accepted, its quality and the credit that earns, when its test
    /// credits quality; by default none (every accepted answer earns the test's marks).
    fn quality(&self, run: &RunOutcome) -> Option<Quality> {
        let _ = run;
        None
    }
}

/// The verdict of one test's `run` under `limits` with `judge` as its judge
/// (`memory_ceiling`: as for [`crate::verdict::limit_decision`]).
pub fn decide(
    run: Result<&RunOutcome, &SandboxError>,
    limits: &crate::sandbox::Limits,
    memory_ceiling: u64,
    judge: &dyn Judge,
) -> Decision {
    crate::verdict::decide(run, limits, memory_ceiling, judge.form(), |run| judge.judge(run))
}
