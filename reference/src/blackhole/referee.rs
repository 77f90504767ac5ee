//! [`BlackHoleReferee`]: the [`crate::referee::Referee`] for this practical's four commands.
//!
//! Input: test kinds `check`, `solve`, `checkworm`, `solveworm`, puzzle texts and candidate
//! solutions. Output: the reference's expected answers and judgements of programs' first lines
//! (rulings 2 to 5 of `docs/practical.md`). For authoring it hands on to
//! [`super::derive`](mod@super::derive) (derive rules → candidate solutions) and
//! [`super::generate::GenName`] (generator-named files → text).

use std::time::{Duration, Instant};

use crate::referee::{
    judge_first_line, judge_one_zero_or_minus_one, DeriveError, Expected, GeneratedInstance, Instance, Judgement,
    Referee, RefereeError, SecondOpinion, TaskSpec,
};

use super::check::{check, check_moves, Finding};
use super::derive::{self, Bases, Rule};
use super::generate::GenName;
use super::model::{solution_line, Game, Puzzle};
use super::parse::{parse_puzzle, read_integers};
use super::sat;
use super::solve::{solve, Budget, Outcome};

/// The test kinds, in the order the practical introduces them.
const KINDS: &[&str] = &["check", "solve", "checkworm", "solveworm"];

/// What a test asks of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// Say whether the candidate solution on standard input solves the puzzle.
    Check,
    /// Solve the puzzle, or prove it unsolvable.
    Solve,
}

/// The game and the task a kind names.
fn parse_kind(kind: &str) -> Result<(Game, Task), RefereeError> {
    match kind {
        "check" => Ok((Game::BlackHole, Task::Check)),
        "solve" => Ok((Game::BlackHole, Task::Solve)),
        "checkworm" => Ok((Game::WormHole, Task::Check)),
        "solveworm" => Ok((Game::WormHole, Task::Solve)),
        _ => Err(RefereeError::UnknownKind { kind: kind.to_string(), known: KINDS.to_vec() }),
    }
}

fn instance_puzzle(instance: Instance<'_>) -> Result<Puzzle, RefereeError> {
    parse_puzzle(instance.name, instance.text).map_err(|e| RefereeError::InvalidInstance { message: e.to_string() })
}

/// The reference for Black Hole and Worm Hole, solving within a fixed budget.
#[derive(Clone, Debug, Default)]
pub struct BlackHoleReferee {
    budget: Budget,
    /// The solutions derive rules start from, so that a suite's many derived tests on one
    /// puzzle cost one search.
    bases: Bases,
}

impl BlackHoleReferee {
    /// A referee whose solver gives up (and so calls a test undecided) past `budget`.
    pub fn new(budget: Budget) -> Self {
        BlackHoleReferee { budget, bases: Bases::default() }
    }

    /// The solver budget this referee uses.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    fn expected_check(puzzle: &Puzzle, game: Game, input: &str) -> Result<Expected, RefereeError> {
        let start = Instant::now();
        let report = check(puzzle, game, &read_integers(input));
        let micros = start.elapsed().as_micros() as u64;
        if let Finding::ExtraAfterWin { .. } = report.finding {
            return Err(RefereeError::Ambiguous {
                reason: format!(
                    "{}; the course accepts both `true` and `false` for input after a complete solution (ruling 2)",
                    report.finding
                ),
            });
        }
        let answer = if report.is_solution() { "true" } else { "false" };
        Ok(Expected { answer: answer.to_string(), detail: report.finding.to_string(), nodes: 0, micros })
    }

    fn expected_solve(&self, puzzle: &Puzzle, game: Game) -> Result<Expected, RefereeError> {
        let solution = solve(puzzle, game, &self.budget);
        let nodes = solution.stats.nodes;
        let micros = solution.stats.elapsed.as_micros() as u64;
        let (answer, detail) = match solution.outcome {
            Outcome::Solved(moves) => {
                // The solver replays its witness already; checking again here costs nothing next
                // to the search and keeps a solver bug from ever becoming a student's wrong answer.
                let report = check_moves(puzzle, game, &moves);
                if report.finding != Finding::Solved {
                    return Err(RefereeError::Undecided {
                        reason: format!("the reference solver's own solution fails its checker: {}", report.finding),
                    });
                }
                ("1", solution_line(&moves))
            }
            Outcome::Unsolvable => ("0", format!("proved unsolvable after {nodes} nodes")),
            Outcome::GaveUp => {
                return Err(RefereeError::Undecided {
                    reason: format!("the solver gave up after {nodes} nodes ({micros} µs) within its budget"),
                });
            }
        };
        Ok(Expected { answer: answer.to_string(), detail, nodes, micros })
    }
}

/// How long the SAT oracle may take on one puzzle before its opinion is "undecided": far more
/// than any deal of the bundled suites needs (the slowest, GEN 123 51 13 4 8 in Worm Hole, about
/// 23 s).
pub const SAT_LIMIT: Duration = Duration::from_secs(300);

/// A solve test's stored answer seen by the other oracles: a `1` is confirmed by replaying its
/// stored solution (the detail) through the checker, a `0` by the SAT model being unsatisfiable.
fn second_opinion(puzzle: &Puzzle, game: Game, expected: &Expected) -> SecondOpinion {
    if expected.answer == "1" {
        let integers = read_integers(&expected.detail);
        let report = check(puzzle, game, integers.get(1..).unwrap_or_default());
        return if report.is_solution() {
            SecondOpinion::Confirmed { how: "the checker replays the stored solution".to_string() }
        } else {
            SecondOpinion::Refuted { why: format!("the stored solution fails the checker: {}", report.finding) }
        };
    }
    match sat::decide(puzzle, game, Some(SAT_LIMIT)) {
        Err(error) => SecondOpinion::Undecided { why: error.to_string() },
        Ok(answer) => {
            let size = format!("{} variables, {} clauses", answer.variables, answer.clauses);
            match answer.verdict {
                sat::Verdict::Unsolvable => {
                    SecondOpinion::Confirmed { how: format!("the SAT model is unsatisfiable ({size})") }
                }
                sat::Verdict::Solvable(moves) => SecondOpinion::Refuted {
                    why: format!("the SAT model has a solution the checker accepts: {}", solution_line(&moves)),
                },
                sat::Verdict::GaveUp => SecondOpinion::Undecided {
                    why: format!("the SAT solver gave up after {} s ({size})", SAT_LIMIT.as_secs()),
                },
            }
        }
    }
}

fn judge_solve(puzzle: &Puzzle, game: Game, expected: &Expected, line: &str) -> Judgement {
    judge_one_zero_or_minus_one(expected, line, "puzzle", "a pile or a card", |integers| {
        judge_moves(puzzle, game, integers)
    })
}

/// Judges the moves after a leading `1`: the reference checker decides, strictly (ruling 3).
fn judge_moves(puzzle: &Puzzle, game: Game, integers: &[i64]) -> Judgement {
    // The checker is the truth: a `1` whose moves check is accepted even when the reference
    // solver said `0`. That would mean a solver bug, and it must not cost the student.
    let report = check(puzzle, game, integers);
    match report.finding {
        Finding::Solved => Judgement::Accepted,
        Finding::ExtraAfterWin { .. } => Judgement::WrongAnswer {
            explanation: format!("{}; nothing else may follow a solution on the line (ruling 3)", report.finding),
        },
        finding => Judgement::WrongAnswer { explanation: format!("the moves do not solve the puzzle: {finding}") },
    }
}

impl Referee for BlackHoleReferee {
    fn name(&self) -> &'static str {
        "Black Hole / Worm Hole"
    }

    fn kinds(&self) -> &'static [&'static str] {
        KINDS
    }

    fn task(&self, kind: &str) -> Option<TaskSpec> {
        let (game, task) = parse_kind(kind).ok()?;
        let command = match (game, task) {
            (Game::BlackHole, Task::Check) => "CHECK",
            (Game::BlackHole, Task::Solve) => "SOLVE",
            (Game::WormHole, Task::Check) => "CHECKWORM",
            (Game::WormHole, Task::Solve) => "SOLVEWORM",
        };
        Some(TaskSpec { command, reads_input: task == Task::Check })
    }

    /// For check kinds a missing `input` is the empty solution: the program then reads an empty
    /// standard input, and so does the reference.
    fn expected(&self, kind: &str, instance: Instance<'_>, input: Option<&str>) -> Result<Expected, RefereeError> {
        let (game, task) = parse_kind(kind)?;
        let puzzle = instance_puzzle(instance)?;
        match task {
            Task::Check => Self::expected_check(&puzzle, game, input.unwrap_or("")),
            Task::Solve => self.expected_solve(&puzzle, game),
        }
    }

    fn second_opinion(
        &self,
        kind: &str,
        instance: Instance<'_>,
        expected: &Expected,
    ) -> Result<SecondOpinion, RefereeError> {
        let (game, task) = parse_kind(kind)?;
        if task == Task::Check {
            return Ok(SecondOpinion::NoOracle);
        }
        let puzzle = instance_puzzle(instance)?;
        Ok(second_opinion(&puzzle, game, expected))
    }

    fn judge(
        &self,
        kind: &str,
        instance: Instance<'_>,
        _input: Option<&str>,
        expected: &Expected,
        output: &[u8],
    ) -> Result<Judgement, RefereeError> {
        let (game, task) = parse_kind(kind)?;
        judge_first_line(output, task == Task::Check, expected, |line| {
            Ok(judge_solve(&instance_puzzle(instance)?, game, expected, line))
        })
    }

    /// The rules `suites/README.md` documents, `reference` first.
    fn derive_rules(&self) -> &'static [&'static str] {
        &Rule::NAMES
    }

    fn derive(&self, rule: &str, kind: &str, instance: Instance<'_>) -> Result<String, DeriveError> {
        derive::derive(&self.bases, &self.budget, rule, kind, instance)
    }

    /// Files named `seed-cards-ranks-suits-piles.txt`, as the course named its generated deals.
    fn instance_from_file_name(&self, file: &str) -> Option<GeneratedInstance> {
        let name = GenName::parse(file)?;
        let call = name.call();
        Some(GeneratedInstance { command: format!("bhref {call}"), call, text: name.text() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::PartTally;

    const PUZZLE: &str = "13 4 2\n1\n3 2 -1\n4 -1\n";

    fn instance() -> Instance<'static> {
        Instance { name: "p.txt", text: PUZZLE }
    }

    fn referee() -> BlackHoleReferee {
        BlackHoleReferee::default()
    }

    fn judge(kind: &str, expected: &Expected, line: &[u8]) -> Judgement {
        referee().judge(kind, instance(), None, expected, line).unwrap()
    }

    fn answer(answer: &str, detail: &str) -> Expected {
        Expected { answer: answer.to_string(), detail: detail.to_string(), nodes: 0, micros: 0 }
    }

    #[test]
    fn kinds_and_tasks() {
        let r = referee();
        assert_eq!(r.kinds(), ["check", "solve", "checkworm", "solveworm"]);
        assert_eq!(r.task("checkworm"), Some(TaskSpec { command: "CHECKWORM", reads_input: true }));
        assert_eq!(r.task("solve"), Some(TaskSpec { command: "SOLVE", reads_input: false }));
        assert_eq!(r.task("SOLVE"), None);
        let err = r.expected("nope", instance(), None).unwrap_err();
        assert!(matches!(err, RefereeError::UnknownKind { ref kind, .. } if kind == "nope"));
    }

    #[test]
    fn expected_check_answers() {
        let r = referee();
        let good = r.expected("check", instance(), Some("0 2 0 3 1 4\n")).unwrap();
        assert_eq!((good.answer.as_str(), good.detail.as_str()), ("true", "the moves solve the puzzle"));
        let bad = r.expected("check", instance(), Some("0 3")).unwrap();
        assert_eq!(bad.answer, "false");
        assert_eq!(bad.detail, "move 1 (pile 0, card 3): card 3 is not on top of pile 0; the top is 2");
        let empty = r.expected("checkworm", instance(), None).unwrap();
        assert_eq!(empty.answer, "false");
        let extra = r.expected("check", instance(), Some("0 2 0 3 1 4 0 1")).unwrap_err();
        assert!(matches!(extra, RefereeError::Ambiguous { .. }));
        let invalid = r.expected("check", Instance { name: "bad.txt", text: "13 4 1 0" }, Some("")).unwrap_err();
        assert!(
            matches!(invalid, RefereeError::InvalidInstance { ref message } if message.starts_with("bad.txt:1:8:"))
        );
    }

    #[test]
    fn judges_check_lines() {
        let yes = answer("true", "the moves solve the puzzle");
        let no = answer("false", "move 7 (pile 3, card 42): card 42 is not on top of pile 3; the top is 17");
        assert_eq!(judge("check", &yes, b"true"), Judgement::Accepted);
        assert_eq!(judge("check", &yes, b"  true \r"), Judgement::Accepted);
        assert_eq!(judge("check", &no, b"false\t"), Judgement::Accepted);
        let Judgement::WrongAnswer { explanation } = judge("check", &no, b"true") else { panic!() };
        assert!(explanation.starts_with("the solution is not valid: move 7 (pile 3, card 42): card 42"));
        let Judgement::WrongAnswer { explanation } = judge("check", &yes, b"false") else { panic!() };
        assert!(explanation.contains("but the program said false"));
        for line in [&b""[..], b"True", b"true false", b"1", b"\xff\xfe"] {
            assert!(matches!(judge("check", &yes, line), Judgement::FormatError { .. }), "{line:?}");
        }
        let Judgement::FormatError { explanation } = judge("check", &yes, b"TRUE") else { panic!() };
        assert!(explanation.contains("case-sensitive"));
    }

    #[test]
    fn judges_solve_lines() {
        let solvable = answer("1", "1 0 2 0 3 1 4");
        let unsolvable = answer("0", "proved unsolvable after 3 nodes");
        assert_eq!(judge("solve", &solvable, b"1 0 2 0 3 1 4 \r"), Judgement::Accepted);
        assert_eq!(judge("solve", &solvable, b"-1"), Judgement::GaveUp);
        assert_eq!(judge("solve", &unsolvable, b"0 "), Judgement::Accepted);
        // The checker is the truth, even against the reference's own `0`.
        assert_eq!(judge("solve", &unsolvable, b"1 0 2 0 3 1 4"), Judgement::Accepted);
        let Judgement::WrongAnswer { explanation } = judge("solve", &solvable, b"0") else { panic!() };
        assert!(explanation.ends_with("the reference's solution: 1 0 2 0 3 1 4"));
        let Judgement::WrongAnswer { explanation } = judge("solve", &solvable, b"1 0 2 0 3") else { panic!() };
        assert!(explanation.contains("1 card is left"), "{explanation}");
        let Judgement::WrongAnswer { explanation } = judge("solve", &solvable, b"1 0 2 0 3 1 4 0 1") else { panic!() };
        assert!(explanation.contains("nothing else may follow"));
        let Judgement::WrongAnswer { explanation } = judge("solve", &solvable, b"1 0 2 1 4") else { panic!() };
        assert!(explanation.contains("move 2 (pile 1, card 4): card 4 is not adjacent in rank to 2"), "{explanation}");
        // A worm move is illegal in Black Hole but fine in Worm Hole.
        let worm = b"1 1 -4 0 2 0 3 -1 4";
        assert!(matches!(judge("solve", &solvable, worm), Judgement::WrongAnswer { .. }));
        assert_eq!(judge("solveworm", &solvable, worm), Judgement::Accepted);
        for line in [&b""[..], b"   ", b"0 1", b"-1 0", b"1 0 x", b"2", b"yes", b"1 0 99999999999999999999", b"\x80"] {
            assert!(matches!(judge("solve", &solvable, line), Judgement::FormatError { .. }), "{line:?}");
        }
    }

    #[test]
    fn expected_solve_answers() {
        let r = referee();
        let solved = r.expected("solve", instance(), None).unwrap();
        assert_eq!(solved.answer, "1");
        assert_eq!(judge("solve", &solved, solved.detail.as_bytes()), Judgement::Accepted);
        let stuck = Instance { name: "stuck.txt", text: "13 4 1 1 5 -1" };
        let unsolvable = r.expected("solveworm", stuck, None).unwrap();
        assert_eq!(unsolvable.answer, "0");
        assert!(unsolvable.detail.starts_with("proved unsolvable after "), "{}", unsolvable.detail);
        let empty = r.expected("solve", Instance { name: "e", text: "13 4 0 1" }, None).unwrap();
        assert_eq!((empty.answer.as_str(), empty.detail.as_str()), ("1", "1"));
        let deal = include_str!("../../../fixtures/puzzles/good/1-51-13-4-17.txt");
        let tight = BlackHoleReferee::new(Budget { max_nodes: 1, ..Budget::default() });
        let err = tight.expected("solve", Instance { name: "deal", text: deal }, None).unwrap_err();
        assert!(matches!(err, RefereeError::Undecided { .. }), "{err:?}");
    }

    #[test]
    fn judge_reports_an_invalid_instance() {
        let bad = Instance { name: "bad.txt", text: "13 4 1 1 2 2 -1" };
        let err = referee().judge("solve", bad, None, &answer("1", ""), b"1").unwrap_err();
        assert!(matches!(err, RefereeError::InvalidInstance { .. }));
    }

    #[test]
    fn authoring_goes_through_the_referee() {
        let r = referee();
        assert_eq!(r.derive_rules().first(), Some(&"reference"));
        assert_eq!(r.derive_rules().len(), 15);
        let derived = r.derive("reference", "check", instance()).unwrap();
        assert_eq!(r.expected("check", instance(), Some(&derived)).unwrap().answer, "true");
        let generated = r.instance_from_file_name("instances/1-4-5-1-2.txt").unwrap();
        assert_eq!(generated.call, "GEN 1 4 5 1 2");
        assert_eq!(generated.command, "bhref GEN 1 4 5 1 2");
        assert_eq!(generated.text, "5 1 2\n1\n4 3 -1\n2 5 -1\n");
        assert_eq!(r.instance_from_file_name("handout.txt"), None);
    }

    #[test]
    fn the_check_table_has_a_row_per_part_then_the_build() {
        let parts =
            [PartTally { title: "Part 1", passed: 3, total: 3 }, PartTally { title: "Part 2", passed: 1, total: 4 }];
        let rows: Vec<(String, String)> =
            referee().check_table(&parts, false).into_iter().map(|row| (row.task, row.done)).collect();
        let row = |task: &str, done: &str| (task.to_string(), done.to_string());
        assert_eq!(
            rows,
            [
                row("Part 1: Provided tests passed", "yes (3 of 3)"),
                row("Part 2: Provided tests passed", "no (1 of 4)"),
                row("build.sh script included and working", "no"),
            ]
        );
        assert_eq!(referee().check_table(&[], true)[0].done, "yes");
    }
}
