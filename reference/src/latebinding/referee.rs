//! [`LateBindingReferee`]: the [`Referee`] for the 2022 practical's commands.
//!
//! Input: test kinds (`check`, `solve`, and the grace kinds in both spellings: `gracecheck`,
//! `checkgrace`, `gracesolve`, `solvegrace`), layout texts and candidate solutions. Output: the
//! reference's expected answers and judgements of programs' first lines (`docs/late-binding.md`,
//! "Solutions and the commands").
//!
//! Judging follows the contract: a check line must be exactly `true` or `false` (trimmed, as
//! for Black Hole). A solve line is judged by what it claims: `-1` claims that no solution exists
//! and is right only when the reference proved that (the course compared only the first field,
//! so anything after a leading `-1` is ignored); anything else is read as the reference `CHECK`
//! reads a solution (integers up to the first other token, extra integers ignored) and judged by
//! the reference checker, never by comparing text. There is no "gave up" answer in this game.
//!
//! For authoring it hands on to [`super::derive`](mod@super::derive) (derive rules → candidate
//! solutions) and [`super::generate::GenName`] (files named `seedSEED.pP.rR.sS.txt` → their
//! text).

use std::time::Instant;

use crate::referee::{
    judge_first_line, quote, DeriveError, Expected, GeneratedInstance, Instance, Judgement, Referee, RefereeError,
    TaskSpec,
};

use super::check::check;
use super::derive::{self, Rule};
use super::generate::GenName;
use super::model::{format_solution, Layout, Variant};
use super::parse::{parse_layout, read_integers};
use super::solve::{solve, Budget, Outcome};

/// The test kinds: the plain ones, then both spellings of each grace one.
const KINDS: &[&str] = &["check", "solve", "gracecheck", "checkgrace", "gracesolve", "solvegrace"];

/// What a test asks of the program, and the command word that asks it.
fn parse_kind(kind: &str) -> Result<(Variant, bool, &'static str), RefereeError> {
    Ok(match kind {
        "check" => (Variant::Plain, true, "CHECK"),
        "solve" => (Variant::Plain, false, "SOLVE"),
        "gracecheck" => (Variant::Grace, true, "GRACECHECK"),
        "checkgrace" => (Variant::Grace, true, "CHECKGRACE"),
        "gracesolve" => (Variant::Grace, false, "GRACESOLVE"),
        "solvegrace" => (Variant::Grace, false, "SOLVEGRACE"),
        _ => return Err(RefereeError::UnknownKind { kind: kind.to_string(), known: KINDS.to_vec() }),
    })
}

fn instance_layout(instance: Instance<'_>) -> Result<Layout, RefereeError> {
    parse_layout(instance.name, instance.text).map_err(|e| RefereeError::InvalidInstance { message: e.to_string() })
}

/// The reference for Late Binding Solitaire, solving within a fixed budget.
///
/// A solve test's answer is the first field a correct program prints: the number of moves
/// (`P-1`) when the layout has a solution, `-1` when it has none.
#[derive(Clone, Debug, Default)]
pub struct LateBindingReferee {
    budget: Budget,
}

impl LateBindingReferee {
    /// A referee whose solver gives up (and so calls a test undecided) past `budget`.
    pub fn new(budget: Budget) -> Self {
        LateBindingReferee { budget }
    }

    fn expected_check(layout: &Layout, variant: Variant, input: &str) -> Expected {
        let start = Instant::now();
        let report = check(layout, variant, &read_integers(input));
        let micros = start.elapsed().as_micros() as u64;
        let answer = if report.is_solution() { "true" } else { "false" };
        Expected { answer: answer.to_string(), detail: report.finding.to_string(), nodes: 0, micros }
    }

    fn expected_solve(&self, layout: &Layout, variant: Variant) -> Result<Expected, RefereeError> {
        let solution = solve(layout, variant, &self.budget);
        let nodes = solution.stats.nodes;
        let micros = solution.stats.elapsed.as_micros() as u64;
        let (answer, detail) = match solution.outcome {
            // The solver replayed its witness through the checker already.
            Outcome::Solved(moves) => (moves.len().to_string(), format_solution(&moves)),
            Outcome::Unsolvable => ("-1".to_string(), format!("proved unsolvable after {nodes} nodes")),
            Outcome::GaveUp => {
                return Err(RefereeError::Undecided {
                    reason: format!("the solver gave up after {nodes} nodes ({micros} µs) within its budget"),
                });
            }
        };
        Ok(Expected { answer, detail, nodes, micros })
    }
}

fn judge_solve(layout: &Layout, variant: Variant, expected: &Expected, line: &str) -> Judgement {
    let integers = read_integers(line);
    let Some(&first) = integers.first() else {
        let found = line.split_whitespace().next().map_or_else(|| "an empty line".to_string(), quote);
        return Judgement::FormatError {
            explanation: format!("the first field must be the number of moves or -1, but it is {found}"),
        };
    };
    if first == -1 {
        return if expected.answer == "-1" {
            Judgement::Accepted
        } else {
            Judgement::WrongAnswer {
                explanation: format!(
                    "the program said -1 (no solution), but the layout has one; the reference's: {}",
                    expected.detail
                ),
            }
        };
    }
    // The checker is the truth: moves that check are accepted even against the reference's own
    // `-1`, which would be a solver bug that must not cost the student.
    let report = check(layout, variant, &integers);
    if report.is_solution() {
        Judgement::Accepted
    } else {
        Judgement::WrongAnswer { explanation: format!("the moves do not solve the layout: {}", report.finding) }
    }
}

impl Referee for LateBindingReferee {
    fn name(&self) -> &'static str {
        "Late Binding Solitaire"
    }

    fn kinds(&self) -> &'static [&'static str] {
        KINDS
    }

    fn task(&self, kind: &str) -> Option<TaskSpec> {
        let (_, is_check, command) = parse_kind(kind).ok()?;
        Some(TaskSpec { command, reads_input: is_check })
    }

    /// For check kinds a missing `input` is the empty solution, as the program then reads an
    /// empty standard input.
    fn expected(&self, kind: &str, instance: Instance<'_>, input: Option<&str>) -> Result<Expected, RefereeError> {
        let (variant, is_check, _) = parse_kind(kind)?;
        let layout = instance_layout(instance)?;
        if is_check {
            Ok(Self::expected_check(&layout, variant, input.unwrap_or("")))
        } else {
            self.expected_solve(&layout, variant)
        }
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

    fn derive_rules(&self) -> &'static [&'static str] {
        &Rule::NAMES
    }

    /// Uncached: a Late Binding search is quick next to Black Hole's, and a suite derives from
    /// few layouts.
    fn derive(&self, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
        derive::derive(&self.budget, rule, kind, instance)
    }

    /// Files named `seedSEED.pP.rR.sS.txt`, as the course named its generated layouts.
    fn instance_from_file_name(&self, file: &str) -> Option<GeneratedInstance> {
        let name = GenName::parse(file)?;
        let call = name.call();
        Some(GeneratedInstance { command: format!("bhref --game latebinding {call}"), call, text: name.text() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::PartTally;

    const EXAMPLE: &str = "3 2 4\n1 4 2 5\n";
    const NO_PLAIN: &str = "3 2 2\n1 5\n";

    fn at(text: &'static str) -> Instance<'static> {
        Instance { name: "l.txt", text }
    }

    fn referee() -> LateBindingReferee {
        LateBindingReferee::default()
    }

    fn judge(kind: &str, text: &'static str, line: &[u8]) -> Judgement {
        let r = referee();
        let expected = r.expected(kind, at(text), Some("")).unwrap();
        r.judge(kind, at(text), None, &expected, line).unwrap()
    }

    #[test]
    fn kinds_and_tasks() {
        let r = referee();
        assert_eq!(r.kinds().len(), 6);
        assert_eq!(r.task("check"), Some(TaskSpec { command: "CHECK", reads_input: true }));
        assert_eq!(r.task("solvegrace"), Some(TaskSpec { command: "SOLVEGRACE", reads_input: false }));
        assert_eq!(r.task("gracecheck"), Some(TaskSpec { command: "GRACECHECK", reads_input: true }));
        assert_eq!(r.task("checkworm"), None);
        let err = r.expected("nope", at(EXAMPLE), None).unwrap_err();
        assert!(matches!(err, RefereeError::UnknownKind { .. }));
        let bad = r.expected("solve", Instance { name: "bad.txt", text: "3 2 2\n1 1" }, None).unwrap_err();
        assert!(matches!(bad, RefereeError::InvalidInstance { ref message } if message.starts_with("bad.txt:2:3:")));
    }

    #[test]
    fn expected_answers() {
        let r = referee();
        let good = r.expected("check", at(EXAMPLE), Some("3 4 0 5 1 5 0")).unwrap();
        assert_eq!((good.answer.as_str(), good.detail.as_str()), ("true", "the moves solve the layout"));
        let grace = r.expected("check", at(NO_PLAIN), Some("1 5 0")).unwrap();
        assert_eq!(grace.answer, "false");
        assert!(grace.detail.contains("share neither rank nor suit"), "{}", grace.detail);
        assert_eq!(r.expected("checkgrace", at(NO_PLAIN), Some("1 5 0")).unwrap().answer, "true");
        assert_eq!(r.expected("solve", at(EXAMPLE), None).unwrap().answer, "3");
        let none = r.expected("solve", at(NO_PLAIN), None).unwrap();
        assert_eq!(none.answer, "-1");
        assert!(none.detail.starts_with("proved unsolvable"));
        assert_eq!(r.expected("gracesolve", at(NO_PLAIN), None).unwrap().detail, "1 5 0");
        let tight = LateBindingReferee::new(Budget { max_nodes: 1, ..Budget::default() });
        let deal = crate::latebinding::generate::generate(34, 24, 10, 6);
        let err = tight.expected("solve", Instance { name: "deal", text: &deal }, None);
        assert!(matches!(err, Err(RefereeError::Undecided { .. })), "{err:?}");
    }

    #[test]
    fn judges_check_lines() {
        assert_eq!(judge("check", EXAMPLE, b" false \r"), Judgement::Accepted);
        assert!(matches!(judge("check", EXAMPLE, b"true"), Judgement::WrongAnswer { .. }));
        for line in [&b""[..], b"TRUE", b"true false", b"\xff"] {
            assert!(matches!(judge("check", EXAMPLE, line), Judgement::FormatError { .. }), "{line:?}");
        }
    }

    #[test]
    fn judges_solve_lines_by_the_checker() {
        assert_eq!(judge("solve", EXAMPLE, b"3 4 0 5 1 5 0"), Judgement::Accepted);
        // Another solution is as good, and what follows the moves is ignored, as CHECK does.
        assert_eq!(judge("solve", EXAMPLE, b"3 4 0 5 1 5 0 debug: 12 nodes"), Judgement::Accepted);
        let Judgement::WrongAnswer { explanation } = judge("solve", EXAMPLE, b"-1") else { panic!() };
        assert!(explanation.contains("the layout has one; the reference's: 3 "), "{explanation}");
        let Judgement::WrongAnswer { explanation } = judge("solve", EXAMPLE, b"3 4 0 5 1") else { panic!() };
        assert!(explanation.contains("announces 3 moves but gives only 2"), "{explanation}");
        assert_eq!(judge("solve", NO_PLAIN, b"-1"), Judgement::Accepted);
        assert_eq!(judge("solve", NO_PLAIN, b"-1 searched 3 states"), Judgement::Accepted);
        assert!(matches!(judge("solve", NO_PLAIN, b"1 5 0"), Judgement::WrongAnswer { .. }));
        assert_eq!(judge("solvegrace", NO_PLAIN, b"1 5 0"), Judgement::Accepted);
        assert!(matches!(judge("gracesolve", NO_PLAIN, b"-1"), Judgement::WrongAnswer { .. }));
        for line in [&b""[..], b"   ", b"yes", b"x 1 5 0", b"\x80"] {
            assert!(matches!(judge("solve", EXAMPLE, line), Judgement::FormatError { .. }), "{line:?}");
        }
    }

    #[test]
    fn authoring_goes_through_the_referee() {
        let r = referee();
        assert_eq!(r.derive_rules()[..3], ["reference", "multiline", "one-short"]);
        assert_eq!(r.derive("reference", "checkgrace", at(NO_PLAIN)).unwrap(), "1 5 0\n");
        let generated = r.instance_from_file_name("layouts/seed1.p5.r3.s2.txt").unwrap();
        assert_eq!(generated.call, "GEN 1 5 3 2");
        assert_eq!(generated.command, "bhref --game latebinding GEN 1 5 3 2");
        assert_eq!(generated.text, "3 2 5\n4 5 1 3 2 \n");
        assert_eq!(r.instance_from_file_name("1-51-13-4-17.txt"), None);
        let rows = r.check_table(&[PartTally { title: "Part 1", passed: 2, total: 2 }], true);
        let rows: Vec<(&str, &str)> = rows.iter().map(|row| (row.task.as_str(), row.done.as_str())).collect();
        assert_eq!(
            rows,
            [("Part 1: Provided tests passed", "yes (2 of 2)"), ("build.sh script included and working", "yes")]
        );
    }
}
