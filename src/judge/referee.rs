//! A suite test's judge: the suite's reference (its game's checker and solver), given the
//! test's puzzle, candidate input and expected answer, and the program's whole standard output.

use bhref::referee::Instance;

use super::Judge;
use crate::sandbox::RunOutcome;
use crate::suite::{Suite, Test};
use crate::verdict::Quality;
use crate::verdict::{Judged, RefereeError};

/// The reference of `suite` judging `test`'s answers.
pub struct RefereeJudge<'s> {
    pub suite: &'s Suite,
    pub test: &'s Test,
}

impl Judge for RefereeJudge<'_> {
    fn judge(&self, run: &RunOutcome) -> Result<Judged, RefereeError> {
        let def = &self.test.def;
        let name = def.puzzle.display().to_string();
        let instance = Instance { name: &name, text: &def.puzzle_text };
        let judgement =
            self.suite.referee.judge(&def.kind, instance, def.input.as_deref(), &self.test.expected, &run.stdout);
        judgement.map(Judged::from)
    }

    fn quality(&self, run: &RunOutcome) -> Option<Quality> {
        let (def, best) = (&self.test.def, self.test.optimum.as_ref()?);
        let curve = def.quality?;
        let name = def.puzzle.display().to_string();
        let instance = Instance { name: &name, text: &def.puzzle_text };
        let measure = self.suite.referee.measure(&def.kind, instance, &run.stdout)?;
        let credit = curve.credit(measure.value, best.value);
        Some(Quality { measured: measure.value, best: best.value, unit: best.unit.clone(), credit })
    }
}
