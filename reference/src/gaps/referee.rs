//! [`GapsReferee`]: the [`Referee`] for a Gaps practical's commands.
//!
//! Input: test kinds (`check`, `solve`: the basic variant; `checkcommon`, `solvecommon`: the
//! common one), layout texts and candidate solutions. Output: the reference's expected answers
//! and judgements of programs' first lines (`docs/gaps.md`, "Solutions and the commands").
//!
//! Judging follows Black Hole's contract, whose answer forms this game shares: a check line must
//! be exactly `true` or `false`; a solve line is `1` and the moves (judged by the reference
//! checker, strictly: nothing may follow the moves), `0` (right only when the reference proved
//! the layout unsolvable) or `-1` (could not decide: neither right nor wrong). A stored `0` is
//! confirmed by a second oracle that shares no search code with the solver ([`super::oracle`]),
//! which also proves a deal's fewest moves for suites that credit a solution's length.

use std::time::Instant;

use crate::referee::{
    count, first_line_text, judge_first_line, judge_one_zero_or_minus_one, DeriveError, Expected, GeneratedInstance,
    Instance, Judgement, Measure, Optimum, Referee, RefereeError, SecondOpinion, TaskSpec,
};

use super::check::check;
use super::derive::{self, check_variant, Rule};
use super::generate::GenName;
use super::model::{solution_line, Layout, Variant};
use super::oracle::{self, Decision};
use super::parse::{parse_layout, read_integers};
use super::solve::{solve, Budget, Outcome};

/// The test kinds and their command words.
const KINDS: &[&str] = &["check", "solve", "checkcommon", "solvecommon"];

/// The most positions the second oracle meets before calling a layout too large.
const ORACLE_CAP: usize = 3_000_000;

fn parse_kind(kind: &str) -> Result<(Variant, bool, &'static str), RefereeError> {
    Ok(match kind {
        "check" => (Variant::Basic, true, "CHECK"),
        "solve" => (Variant::Basic, false, "SOLVE"),
        "checkcommon" => (Variant::Common, true, "CHECKCOMMON"),
        "solvecommon" => (Variant::Common, false, "SOLVECOMMON"),
        _ => return Err(RefereeError::UnknownKind { kind: kind.to_string(), known: KINDS.to_vec() }),
    })
}

fn instance_layout(instance: Instance<'_>) -> Result<Layout, RefereeError> {
    parse_layout(instance.name, instance.text).map_err(|e| RefereeError::InvalidInstance { message: e.to_string() })
}

/// The reference for Gaps, solving within a fixed budget.
#[derive(Clone, Debug, Default)]
pub struct GapsReferee {
    budget: Budget,
}

impl GapsReferee {
    /// A referee whose solver gives up (and so calls a test undecided) past `budget`.
    pub fn new(budget: Budget) -> Self {
        GapsReferee { budget }
    }

    fn expected_solve(&self, layout: &Layout, variant: Variant) -> Result<Expected, RefereeError> {
        let solution = solve(layout, variant, &self.budget);
        let (nodes, micros) = (solution.stats.nodes, solution.stats.elapsed.as_micros() as u64);
        let (answer, detail) = match solution.outcome {
            Outcome::Solved(moves) => ("1", solution_line(&moves)),
            Outcome::Unsolvable => ("0", format!("proved unsolvable after {nodes} nodes")),
            Outcome::GaveUp => {
                return Err(RefereeError::Undecided {
                    reason: format!("the solver gave up after {nodes} nodes ({micros} µs) within its budget"),
                })
            }
        };
        Ok(Expected { answer: answer.to_string(), detail, nodes, micros })
    }
}

fn judge_solve(layout: &Layout, variant: Variant, expected: &Expected, line: &str) -> Judgement {
    judge_one_zero_or_minus_one(expected, line, "layout", "a card or a position", |integers| {
        let report = check(layout, variant, integers);
        if report.is_solution() {
            Judgement::Accepted
        } else {
            Judgement::WrongAnswer { explanation: format!("the moves do not solve the layout: {}", report.finding) }
        }
    })
}

fn second_opinion(layout: &Layout, variant: Variant, expected: &Expected) -> SecondOpinion {
    if expected.answer == "1" {
        let integers = read_integers(&expected.detail);
        let report = check(layout, variant, integers.get(1..).unwrap_or_default());
        return if report.is_solution() {
            SecondOpinion::Confirmed { how: "the checker replays the stored solution".to_string() }
        } else {
            SecondOpinion::Refuted { why: format!("the stored solution fails the checker: {}", report.finding) }
        };
    }
    match oracle::decide(layout, variant, ORACLE_CAP) {
        Decision::Unwinnable { positions } => SecondOpinion::Confirmed {
            how: format!("a breadth-first walk met all {positions} reachable positions and none is won"),
        },
        Decision::Winnable(moves) => {
            SecondOpinion::Refuted { why: format!("a breadth-first walk wins it: {}", solution_line(&moves)) }
        }
        Decision::TooLarge { cap } => SecondOpinion::Undecided {
            why: format!("more than {cap} positions are reachable, too many for the breadth-first walk"),
        },
    }
}

impl Referee for GapsReferee {
    fn name(&self) -> &'static str {
        "Gaps"
    }

    fn kinds(&self) -> &'static [&'static str] {
        KINDS
    }

    fn task(&self, kind: &str) -> Option<TaskSpec> {
        let (_, is_check, command) = parse_kind(kind).ok()?;
        Some(TaskSpec { command, reads_input: is_check })
    }

    /// For check kinds a missing `input` is the empty solution.
    fn expected(&self, kind: &str, instance: Instance<'_>, input: Option<&str>) -> Result<Expected, RefereeError> {
        let (variant, is_check, _) = parse_kind(kind)?;
        let layout = instance_layout(instance)?;
        if !is_check {
            return self.expected_solve(&layout, variant);
        }
        let start = Instant::now();
        let report = check(&layout, variant, &read_integers(input.unwrap_or("")));
        let answer = if report.is_solution() { "true" } else { "false" };
        let micros = start.elapsed().as_micros() as u64;
        Ok(Expected { answer: answer.to_string(), detail: report.finding.to_string(), nodes: 0, micros })
    }

    fn second_opinion(
        &self,
        kind: &str,
        instance: Instance<'_>,
        expected: &Expected,
    ) -> Result<SecondOpinion, RefereeError> {
        let (variant, is_check, _) = parse_kind(kind)?;
        if is_check {
            return Ok(SecondOpinion::NoOracle);
        }
        Ok(second_opinion(&instance_layout(instance)?, variant, expected))
    }

    fn judge(
        &self,
        kind: &str,
        instance: Instance<'_>,
        _input: Option<&str>,
        expected: &Expected,
        output: &[u8],
    ) -> Result<Judgement, RefereeError> {
        let (variant, is_check, _) = parse_kind(kind)?;
        judge_first_line(output, is_check, expected, |line| {
            Ok(judge_solve(&instance_layout(instance)?, variant, expected, line))
        })
    }

    /// A solution's moves: its integers after the `1`, two to a move.
    fn measure(&self, kind: &str, _instance: Instance<'_>, output: &[u8]) -> Option<Measure> {
        let (_, is_check, _) = parse_kind(kind).ok()?;
        let line = first_line_text(output).ok().filter(|_| !is_check)?;
        let mut tokens = line.split_whitespace();
        (tokens.next() == Some("1")).then(|| Measure { value: tokens.count() as u64 / 2, unit: "move" })
    }

    /// The fewest moves that win, from the second oracle: a breadth-first walk finds a won
    /// position first at the least depth, having met every position nearer the start.
    fn optimum(&self, kind: &str, instance: Instance<'_>) -> Result<Option<Optimum>, RefereeError> {
        let (variant, is_check, _) = parse_kind(kind)?;
        if is_check {
            return Err(RefereeError::NoMeasure { kind: kind.to_string() });
        }
        match oracle::decide(&instance_layout(instance)?, variant, ORACLE_CAP) {
            Decision::Winnable(moves) => Ok(Some(Optimum {
                best: Measure { value: moves.len() as u64, unit: "move" },
                how: format!(
                    "a breadth-first walk wins first after {}, having met every position fewer moves away: {}",
                    count(moves.len(), "move"),
                    solution_line(&moves)
                ),
            })),
            Decision::Unwinnable { .. } => Ok(None),
            Decision::TooLarge { cap } => Err(RefereeError::Undecided {
                reason: format!("more than {cap} positions are reachable, too many to prove the fewest moves"),
            }),
        }
    }

    fn derive_rules(&self) -> &'static [&'static str] {
        &Rule::NAMES
    }

    fn derive(&self, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
        debug_assert!(check_variant(kind).is_some() || parse_kind(kind).is_ok());
        derive::derive(&self.budget, rule, kind, instance)
    }

    /// Files named `gaps-seedSEED.rR.sS.txt`.
    fn instance_from_file_name(&self, file: &str) -> Option<GeneratedInstance> {
        let name = GenName::parse(file)?;
        let call = name.call();
        Some(GeneratedInstance { command: format!("bhref --game gaps {call}"), call, text: name.text() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGURE: &str = "4 4\n1 12 15 16 8\n5 2 4 6 14\n9 10 3 0 0\n13 11 0 7 0\n";
    const STUCK: &str = "3 2\n1 2 3 0\n4 6 0 5\n";

    fn judge(kind: &str, text: &'static str, line: &[u8]) -> Judgement {
        let r = GapsReferee::default();
        let at = Instance { name: "g.txt", text };
        let expected = r.expected(kind, at, Some("")).unwrap();
        r.judge(kind, at, None, &expected, line).unwrap()
    }

    #[test]
    fn answers_and_judgements() {
        let r = GapsReferee::default();
        assert_eq!(r.task("solvecommon"), Some(TaskSpec { command: "SOLVECOMMON", reads_input: false }));
        let solved = r.expected("solve", Instance { name: "f", text: FIGURE }, None).unwrap();
        assert_eq!(solved.answer, "1");
        assert_eq!(judge("solve", FIGURE, solved.detail.as_bytes()), Judgement::Accepted);
        assert!(matches!(judge("solve", FIGURE, b"0"), Judgement::WrongAnswer { .. }));
        assert_eq!(judge("solve", FIGURE, b"-1"), Judgement::GaveUp);
        assert!(matches!(judge("solve", FIGURE, b"1 4 13"), Judgement::WrongAnswer { .. }));
        assert!(matches!(judge("solve", FIGURE, b"1 4 13 x"), Judgement::FormatError { .. }));
        assert!(matches!(judge("solve", FIGURE, b"0 1"), Judgement::FormatError { .. }));
        assert_eq!(judge("solve", STUCK, b"0"), Judgement::Accepted);
        assert_eq!(judge("check", STUCK, b"false"), Judgement::Accepted);
        let stuck = r.expected("solve", Instance { name: "s", text: STUCK }, None).unwrap();
        let opinion = r.second_opinion("solve", Instance { name: "s", text: STUCK }, &stuck).unwrap();
        assert!(matches!(opinion, SecondOpinion::Confirmed { .. }), "{opinion:?}");
    }
}
