//! A verified [`Suite`] (or the tests of it being marked) → a [`Plan`]: one build with the suite's
//! script, one run per distinct command line, input and limits (a SOLVE answer graded by several
//! tests costs one program run), every test judged by the suite's reference.

use std::ffi::OsString;

use super::timing;
use crate::build::BuildConfig;
use crate::judge::RefereeJudge;
use crate::results::model::{CheckRow, TestReport};
use crate::results::text;
use crate::suite::{PuzzleVia, Suite, Test};

use super::{Part, PartTally, Plan, PlannedTest, Run, Word};

/// The plan of marking `suite`'s tests (all of them, or those the selection of `--only` and
/// `--shard` left in it).
pub fn from_suite(suite: &Suite) -> Plan<'_> {
    let mut runs: Vec<Run> = Vec::new();
    let mut tests = Vec::new();
    for (part_index, part) in suite.parts.iter().enumerate() {
        for test in &part.tests {
            let index = tests.len();
            let run = run_of(suite, test);
            let run_index =
                match runs.iter().position(|r| r.args == run.args && r.stdin == run.stdin && r.limits == run.limits) {
                    Some(found) => found,
                    None => {
                        runs.push(run);
                        runs.len() - 1
                    }
                };
            runs[run_index].tests.push(index);
            tests.push(PlannedTest {
                part: part_index,
                weight: test.def.weight,
                run: run_index,
                judge: Box::new(RefereeJudge { suite, test }),
                blank: blank_report(suite, test),
                quality_rule: match (test.def.quality, &test.optimum) {
                    (Some(curve), Some(best)) => {
                        format!(
                            "quality: best {} {}, floor {} at {} times",
                            best.value, best.unit, curve.floor, curve.floor_at
                        )
                    }
                    (Some(curve), None) => format!("quality: floor {} at {} times", curve.floor, curve.floor_at),
                    (None, _) => String::new(),
                },
            });
        }
    }
    Plan {
        name: suite.name.clone(),
        title: suite.title.clone(),
        build: BuildConfig {
            srcdir: suite.srcdir.clone(),
            command: suite.build.command.clone(),
            script: suite.build.script.clone(),
            limits: suite.build.limits,
            cpus: Vec::new(),
        },
        workspace: None,
        launch: suite.launch.clone(),
        runs,
        parts: suite
            .parts
            .iter()
            .map(|p| Part {
                id: p.id.clone(),
                title: p.title.clone(),
                weight: p.weight,
                group_scoring: p.group_scoring,
            })
            .collect(),
        tests,
        gave_up_credit: suite.gave_up_credit,
        check_table: Box::new(|parts: &[PartTally], built: bool| {
            let tallies: Vec<bhref::referee::PartTally<'_>> = parts
                .iter()
                .map(|part| bhref::referee::PartTally { title: &part.title, passed: part.passed, total: part.total })
                .collect();
            let rows = suite.referee.check_table(&tallies, built);
            rows.into_iter().map(|row| CheckRow { task: row.task, done: row.done }).collect()
        }),
    }
}

/// The run a test needs: the launch command plus the test's command word and the absolute
/// instance path, the candidate input on standard input, and the limits.
fn run_of(suite: &Suite, test: &Test) -> Run {
    let mut args: Vec<Word> = suite.launch.command[1..].iter().map(|word| Word::Text(word.into())).collect();
    args.push(Word::Text(test.def.task.command.into()));
    let stdin = match test.def.puzzle_via {
        PuzzleVia::File => {
            args.push(Word::Text(test.def.puzzle.clone().into_os_string()));
            test.def.input.clone().unwrap_or_default()
        }
        PuzzleVia::Stdin => test.def.puzzle_text.clone(),
        PuzzleVia::Dash => {
            args.push(Word::Text("-".into()));
            test.def.puzzle_text.clone()
        }
    };
    let limits = test.def.limits;
    // The instance's path is not part of the identity (its text is, in the digest), so a
    // suite folder that moves keeps its stored results.
    let env = suite.launch.env_for(&limits);
    let mut launch = suite.launch.command.clone();
    launch.extend(env.iter().map(|(name, value)| format!("{name}={value}")));
    let mut identity = vec![launch.join("\0"), test.def.task.command.to_string(), test.def.input_digest.clone()];
    // Said only when it is not the file, so that stored results of earlier versions still match.
    if test.def.puzzle_via != PuzzleVia::File {
        identity.push(format!("puzzle via {}", test.def.puzzle_via.name()));
    }
    Run {
        program: OsString::from(&suite.launch.command[0]),
        args,
        stdin: stdin.into_bytes(),
        env: env.into_iter().map(|(name, value)| (name, Word::Text(value.into()))).collect(),
        limits,
        run_limits: timing::run_limits(&limits, &suite.launch),
        stage: 0,
        guarded_by: Vec::new(),
        identity,
        tests: Vec::new(),
        builds: false,
    }
}

/// A test's report before (or without) a run.
fn blank_report(suite: &Suite, test: &Test) -> TestReport {
    let puzzle = test.def.puzzle.strip_prefix(&suite.dir).unwrap_or(&test.def.puzzle);
    TestReport {
        instance_label: "Puzzle".into(),
        visible: test.def.visible,
        reproduce: reproduce(suite, test, puzzle),
        // Only a visible test's puzzle may be shown; a hidden one is left out of the report
        // itself, so no report made from it can leak it.
        instance_text: test.def.visible.then(|| text::shorten_lines(&test.def.puzzle_text, 20, 1200)),
        expected: test.expected.answer.clone(),
        expected_detail: text::shorten(&test.expected.detail, 300),
        input: test.def.input.as_deref().map(|input| text::shorten(input.trim(), 300)),
        reference_nodes: Some(test.expected.nodes),
        public_name: test.def.public_name.clone(),
        group: test.def.group.clone(),
        ..TestReport::new(
            test.def.id.clone(),
            test.def.kind.clone(),
            puzzle.display().to_string(),
            crate::verdict::Verdict::NotRun,
        )
    }
}

/// The test's run as a student can paste it into a shell in the submission's `src/`: the
/// launch environment and command, the instance under `"$SUITE"` (the suite's folder, wherever
/// the student keeps it) and the whole candidate input piped in by `printf`, byte for byte.
fn reproduce(suite: &Suite, test: &Test, puzzle: &std::path::Path) -> String {
    let quote = |word: &str| crate::sandbox::shell_quote(std::ffi::OsStr::new(word));
    let env = suite.launch.env_for(&test.def.limits);
    let mut words: Vec<String> = env.iter().map(|(name, value)| format!("{name}={}", quote(value))).collect();
    words.extend(suite.launch.command.iter().map(|word| quote(word)));
    words.push(quote(test.def.task.command));
    let puzzle = format!("\"$SUITE\"/{}", quote(&puzzle.display().to_string()));
    match test.def.puzzle_via {
        PuzzleVia::File => words.push(puzzle),
        PuzzleVia::Stdin => return format!("{} < {puzzle}", words.join(" ")),
        PuzzleVia::Dash => return format!("{} - < {puzzle}", words.join(" ")),
    }
    let command = words.join(" ");
    let quoted = |text: &str| format!("'{}'", text.replace('\'', r"'\''"));
    match &test.def.input {
        // `printf` prints the input byte for byte: one final newline as `\n` (how most inputs
        // end), anything else inside the quotes, newlines and all.
        Some(input) => match input.strip_suffix('\n').filter(|body| !body.ends_with(['\n', '\r'])) {
            Some(body) => format!("printf '%s\\n' {} | {command}", quoted(body)),
            None => format!("printf '%s' {} | {command}", quoted(input)),
        },
        None => command,
    }
}
