//! A stacscheck step's judge: the tree's pass rule ([`crate::stacscheck::compare::judge`]) for the
//! step's kind and expected output.

use super::Judge;
use crate::results::text::shorten;
use crate::sandbox::RunOutcome;
use crate::stacscheck::{self, Failure, Step, StepKind};
use crate::verdict::{AnswerForm, Judged, RefereeError};

/// stacscheck's pass rule as a [`Judge`]. Its exit status is its answer (a build or test passes
/// by exiting 0) and silence is a fine answer; a run killed by a signal or past a limit never
/// reaches it ([`crate::verdict::decide`] says so first).
pub struct StepJudge {
    kind: StepKind,
    expected: Vec<u8>,
}

impl StepJudge {
    pub fn new(step: &Step) -> StepJudge {
        StepJudge { kind: step.kind, expected: step.expected_output.clone().unwrap_or_default() }
    }
}

impl Judge for StepJudge {
    fn form(&self) -> AnswerForm {
        AnswerForm { exit_status_is_an_answer: true, silence_is_an_answer: true }
    }

    fn judge(&self, run: &RunOutcome) -> Result<Judged, RefereeError> {
        Ok(match stacscheck::compare::judge(self.kind, run.exit, &run.stdout, &run.stderr, &self.expected) {
            Ok(()) => Judged::Accepted,
            Err(Failure::Mismatch(mismatch)) => {
                Judged::WrongAnswer { explanation: mismatch.to_string(), diff: shorten(&mismatch.diff, 2000) }
            }
            Err(failure @ Failure::ExitStatus(_)) => {
                Judged::WrongAnswer { explanation: failure.to_string(), diff: String::new() }
            }
        })
    }
}
