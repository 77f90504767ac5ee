//! The floor check: a verified [`Suite`] → what every program that never reads its input earns
//! under the suite's marks ([`Floor`]), computed from the expected answers alone, with no run.
//!
//! Such a program prints one constant for every test of a kind: its game lists the constants
//! each kind could be answered with ([`bhref::referee::Referee::constant_answers`]: `true` or
//! `false` for a check, `0` or `-1` for a solve). Kinds with the same list are answered alike
//! (`check` and `checkworm` by one constant), so the programs are every choice of one constant
//! per list: four for a game of checks and solves. Each test's verdict is the game's own judge
//! of that constant against the stored answer, and the marks are added up by [`crate::score`]
//! exactly as a marking adds them, groups and give-up credit included. A suite whose floor is
//! above its `trivial_ceiling` marks programs that do no work.

use bhref::referee::{Instance, Judgement};

use super::Suite;
use crate::score::{self, Rules, Scored};
use crate::verdict::Verdict;

/// One program that never reads its input, and what it earns.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantProgram {
    /// For each list of constants (in the order the suite's kinds first use them), the kinds
    /// answered from it and the constant this program prints for them.
    pub answers: Vec<(Vec<String>, &'static str)>,
    /// Marks earned, of the suite's.
    pub marks: f64,
}

impl ConstantProgram {
    /// `check, checkworm: false; solve, solveworm: 0`.
    pub fn describe(&self) -> String {
        self.answers
            .iter()
            .map(|(kinds, answer)| format!("{}: {answer}", kinds.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// What every program that never reads its input earns of a suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Floor {
    pub programs: Vec<ConstantProgram>,
    /// The suite's marks.
    pub max_marks: f64,
    /// The most such a program may earn, as a fraction of the suite's marks.
    pub ceiling: f64,
}

impl Floor {
    /// The fraction of the suite's marks a program earned.
    pub fn share(&self, program: &ConstantProgram) -> f64 {
        match self.max_marks > 0.0 {
            true => program.marks / self.max_marks,
            false => 0.0,
        }
    }

    /// The programs that earn more than the suite allows.
    pub fn over_ceiling(&self) -> impl Iterator<Item = &ConstantProgram> {
        // Compared in whole hundredths of a percent, so that 5.00% is within a 5% ceiling.
        let hundredths = |fraction: f64| (fraction * 10_000.0).round() as i64;
        self.programs.iter().filter(move |program| hundredths(self.share(program)) > hundredths(self.ceiling))
    }
}

/// The floor of `suite`: every constant program's marks.
pub fn floor(suite: &Suite) -> Floor {
    let mut lists: Vec<(Vec<String>, &'static [&'static str])> = Vec::new();
    for test in suite.tests() {
        let answers = suite.referee.constant_answers(&test.def.kind);
        match lists.iter_mut().find(|(_, list)| *list == answers) {
            Some((kinds, _)) if kinds.contains(&test.def.kind) => {}
            Some((kinds, _)) => kinds.push(test.def.kind.clone()),
            None => lists.push((vec![test.def.kind.clone()], answers)),
        }
    }
    let programs = choices(&lists)
        .into_iter()
        .map(|answers| {
            let marks = marks_of(suite, &answers);
            ConstantProgram { answers, marks }
        })
        .collect();
    let max_marks = score::sum(suite.parts.iter().map(|part| part.weight));
    Floor { programs, max_marks, ceiling: suite.trivial_ceiling }
}

/// Every choice of one constant from each list.
fn choices(lists: &[(Vec<String>, &'static [&'static str])]) -> Vec<Vec<(Vec<String>, &'static str)>> {
    let mut programs = vec![Vec::new()];
    for (kinds, answers) in lists {
        programs = programs
            .into_iter()
            .flat_map(|program: Vec<(Vec<String>, &'static str)>| {
                answers.iter().map(move |answer| {
                    let mut program = program.clone();
                    program.push((kinds.clone(), *answer));
                    program
                })
            })
            .collect();
    }
    programs
}

/// The marks a program printing `answers` earns, as a marking adds them up.
fn marks_of(suite: &Suite, answers: &[(Vec<String>, &'static str)]) -> f64 {
    let parts = suite.parts.iter().map(|part| {
        let verdicts: Vec<Verdict> = part
            .tests
            .iter()
            .map(|test| {
                let answer = answers.iter().find(|(kinds, _)| kinds.contains(&test.def.kind)).map_or("", |(_, a)| *a);
                let name = test.def.puzzle.display().to_string();
                let instance = Instance { name: &name, text: &test.def.puzzle_text };
                let output = format!("{answer}\n");
                match suite.referee.judge(
                    &test.def.kind,
                    instance,
                    test.def.input.as_deref(),
                    &test.expected,
                    output.as_bytes(),
                ) {
                    Ok(Judgement::Accepted) => Verdict::Accepted,
                    Ok(Judgement::GaveUp) => Verdict::GaveUp,
                    Ok(Judgement::WrongAnswer { .. }) => Verdict::WrongAnswer,
                    Ok(Judgement::FormatError { .. }) => Verdict::FormatError,
                    // The suite was verified, so its reference judges it; a test it cannot is
                    // counted as earned, so that the check errs on the side of failing.
                    Err(_) => Verdict::Accepted,
                }
            })
            .collect();
        let maxima = part.maxima(|test| test.def.weight);
        let scored: Vec<Scored<'_>> = part
            .tests
            .iter()
            .zip(&verdicts)
            .zip(&maxima)
            .map(|((test, &verdict), &max)| Scored {
                weight: max as f64,
                verdict,
                quality: None,
                group: test.def.group.as_deref(),
            })
            .collect();
        let rules = Rules { gave_up_credit: suite.gave_up_credit, group_scoring: part.group_scoring };
        let total_units: i64 = maxima.iter().sum();
        score::part_scores(score::from_units(total_units), &scored, rules).1
    });
    score::sum(parts)
}
