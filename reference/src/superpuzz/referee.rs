//! [`SuperpuzzReferee`]: the [`Referee`] for a Superpuzz practical's commands.
//!
//! Input: test kinds (`check`, `solve`), deal texts (Gaps layouts of 4 suits and 6, 7 or 8
//! ranks, played under the common variant) and candidate solutions. Output: the reference's
//! expected answers, judgements of programs' first lines, and each solve test's optimum.
//!
//! Judging is Gaps' under the common variant (`docs/superpuzz.md`): a check line is exactly
//! `true` or `false`; a solve line is `1` and the moves (any valid win is accepted; how short it
//! is is the quality a suite credits), `0` (right only when the deal was proved unsolvable) or
//! `-1`. The expected line of a solve test is a shortest win, found by the A* solver
//! ([`super::solve`]) and confirmed by the breadth-first oracle ([`crate::gaps::oracle`]), which
//! shares no search code with it and must find a win of the same length (or none).

use std::time::Instant;

use crate::gaps::check::check;
use crate::gaps::derive;
use crate::gaps::model::{solution_line, Layout, Variant};
use crate::gaps::oracle::{self, Decision};
use crate::gaps::parse::{parse_layout, read_integers};
use crate::gaps::solve::Budget;
use crate::referee::{
    count, first_line_text, judge_first_line, judge_one_zero_or_minus_one, DeriveError, Expected, GeneratedInstance,
    Instance, Judgement, Measure, Optimum, Referee, RefereeError, SecondOpinion, TaskSpec,
};

use super::generate::SuperpuzzName;
use super::solve::{solve, Order, Outcome};

/// The test kinds.
const KINDS: &[&str] = &["check", "solve"];

/// The most positions the solver meets before a deal is called undecided (about 2 GiB).
pub const SOLVER_CAP: usize = 20_000_000;

/// The most positions the second oracle meets.
const ORACLE_CAP: usize = 20_000_000;

/// A Superpuzz deal: the layout, refused unless it has 4 suits of 6, 7 or 8 ranks.
pub fn deal_of(name: &str, text: &str) -> Result<Layout, String> {
    let layout = parse_layout(name, text).map_err(|e| e.to_string())?;
    if layout.deck.suits != 4 || !(6..=8).contains(&layout.deck.ranks) {
        return Err(format!(
            "{name}: a Superpuzz deal has 4 suits of 6, 7 or 8 ranks (`6 4`, `7 4` or `8 4` first), not {} suits of {} ranks",
            layout.deck.suits, layout.deck.ranks
        ));
    }
    Ok(layout)
}

fn instance_deal(instance: Instance<'_>) -> Result<Layout, RefereeError> {
    deal_of(instance.name, instance.text).map_err(|message| RefereeError::InvalidInstance { message })
}

fn is_check(kind: &str) -> Result<bool, RefereeError> {
    match kind {
        "check" => Ok(true),
        "solve" => Ok(false),
        _ => Err(RefereeError::UnknownKind { kind: kind.to_string(), known: KINDS.to_vec() }),
    }
}

/// The reference for Superpuzz.
#[derive(Clone, Debug)]
pub struct SuperpuzzReferee {
    cap: usize,
}

impl Default for SuperpuzzReferee {
    fn default() -> Self {
        SuperpuzzReferee { cap: SOLVER_CAP }
    }
}

impl SuperpuzzReferee {
    /// The shortest win of `layout` (or its proof that there is none), from the A* solver.
    fn expected_solve(&self, layout: &Layout) -> Result<Expected, RefereeError> {
        let start = Instant::now();
        let outcome = solve(layout, Order::Optimal, self.cap);
        let micros = start.elapsed().as_micros() as u64;
        let (answer, detail, positions) = match outcome {
            Outcome::Solved { moves, positions, .. } => ("1", solution_line(&moves), positions),
            Outcome::Unsolvable { positions } => {
                ("0", format!("proved unsolvable: all {positions} reachable positions met"), positions)
            }
            Outcome::GaveUp { positions } => {
                return Err(RefereeError::Undecided {
                    reason: format!("the solver met {positions} positions ({micros} µs) without deciding"),
                })
            }
        };
        Ok(Expected { answer: answer.to_string(), detail, nodes: positions as u64, micros })
    }
}

impl Referee for SuperpuzzReferee {
    fn name(&self) -> &'static str {
        "Superpuzz"
    }

    fn kinds(&self) -> &'static [&'static str] {
        KINDS
    }

    fn task(&self, kind: &str) -> Option<TaskSpec> {
        let check = is_check(kind).ok()?;
        Some(TaskSpec { command: if check { "CHECK" } else { "SOLVE" }, reads_input: check })
    }

    /// For a check a missing `input` is the empty solution.
    fn expected(&self, kind: &str, instance: Instance<'_>, input: Option<&str>) -> Result<Expected, RefereeError> {
        let layout = instance_deal(instance)?;
        if !is_check(kind)? {
            return self.expected_solve(&layout);
        }
        let start = Instant::now();
        let report = check(&layout, Variant::Common, &read_integers(input.unwrap_or("")));
        let answer = if report.is_solution() { "true" } else { "false" };
        let micros = start.elapsed().as_micros() as u64;
        Ok(Expected { answer: answer.to_string(), detail: report.finding.to_string(), nodes: 0, micros })
    }

    /// A stored win must pass the checker and be as short as the oracle's first; a stored `0`,
    /// the oracle must find no win either.
    fn second_opinion(
        &self,
        kind: &str,
        instance: Instance<'_>,
        expected: &Expected,
    ) -> Result<SecondOpinion, RefereeError> {
        if is_check(kind)? {
            return Ok(SecondOpinion::NoOracle);
        }
        let layout = instance_deal(instance)?;
        let stored = read_integers(&expected.detail);
        let stored_moves = stored.len().saturating_sub(1) / 2;
        if expected.answer == "1" {
            let report = check(&layout, Variant::Common, stored.get(1..).unwrap_or_default());
            if !report.is_solution() {
                return Ok(SecondOpinion::Refuted {
                    why: format!("the stored win fails the checker: {}", report.finding),
                });
            }
        }
        Ok(match (oracle::decide(&layout, Variant::Common, ORACLE_CAP), expected.answer.as_str()) {
            (Decision::Winnable(moves), "1") if moves.len() == stored_moves => SecondOpinion::Confirmed {
                how: format!(
                    "the checker replays the stored win, and a breadth-first walk wins first after {} too",
                    count(moves.len(), "move")
                ),
            },
            (Decision::Winnable(moves), _) => SecondOpinion::Refuted {
                why: format!("a breadth-first walk wins in {}: {}", count(moves.len(), "move"), solution_line(&moves)),
            },
            (Decision::Unwinnable { positions }, "0") => SecondOpinion::Confirmed {
                how: format!("a breadth-first walk met all {positions} reachable positions and none is won"),
            },
            (Decision::Unwinnable { .. }, _) => {
                SecondOpinion::Refuted { why: "a breadth-first walk finds no win at all".to_string() }
            }
            (Decision::TooLarge { cap }, _) => SecondOpinion::Undecided {
                why: format!("more than {cap} positions are reachable, too many for the breadth-first walk"),
            },
        })
    }

    fn judge(
        &self,
        kind: &str,
        instance: Instance<'_>,
        _input: Option<&str>,
        expected: &Expected,
        output: &[u8],
    ) -> Result<Judgement, RefereeError> {
        let check_kind = is_check(kind)?;
        judge_first_line(output, check_kind, expected, |line| {
            let layout = instance_deal(instance)?;
            Ok(judge_one_zero_or_minus_one(expected, line, "deal", "a card or a position", |integers| {
                let report = check(&layout, Variant::Common, integers);
                if report.is_solution() {
                    Judgement::Accepted
                } else {
                    Judgement::WrongAnswer { explanation: format!("the moves do not win the deal: {}", report.finding) }
                }
            }))
        })
    }

    /// A win's moves: its integers after the `1`, two to a move.
    fn measure(&self, kind: &str, _instance: Instance<'_>, output: &[u8]) -> Option<Measure> {
        let line = first_line_text(output).ok().filter(|_| is_check(kind) == Ok(false))?;
        let mut tokens = line.split_whitespace();
        (tokens.next() == Some("1")).then(|| Measure { value: tokens.count() as u64 / 2, unit: "move" })
    }

    /// The fewest moves that win, proven by the A* solver (its bound never overestimates, so
    /// its first win taken from the queue is a shortest one).
    fn optimum(&self, kind: &str, instance: Instance<'_>) -> Result<Option<Optimum>, RefereeError> {
        if is_check(kind)? {
            return Err(RefereeError::NoMeasure { kind: kind.to_string() });
        }
        match solve(&instance_deal(instance)?, Order::Optimal, self.cap) {
            Outcome::Solved { moves, positions, .. } => Ok(Some(Optimum {
                best: Measure { value: moves.len() as u64, unit: "move" },
                how: format!(
                    "an A* search, whose bound never overestimates, wins first after {} ({positions} positions met): {}",
                    count(moves.len(), "move"),
                    solution_line(&moves)
                ),
            })),
            Outcome::Unsolvable { .. } => Ok(None),
            Outcome::GaveUp { positions } => Err(RefereeError::Undecided {
                reason: format!("the solver met {positions} positions without proving the fewest moves"),
            }),
        }
    }

    /// Gaps' rules for check tests' candidates, in the common variant.
    fn derive_rules(&self) -> &'static [&'static str] {
        &derive::Rule::NAMES
    }

    fn derive(&self, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
        debug_assert!(is_check(kind).is_ok());
        derive::derive(&Budget::default(), rule, "checkcommon", instance)
    }

    /// Files named `superpuzz-seedSEED.wW.txt`.
    fn instance_from_file_name(&self, file: &str) -> Option<GeneratedInstance> {
        let name = SuperpuzzName::parse(file)?;
        let call = name.call();
        Some(GeneratedInstance { command: format!("bhref --game superpuzz {call}"), call, text: name.text() })
    }
}
