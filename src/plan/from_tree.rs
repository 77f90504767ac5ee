//! A stacscheck [`Tree`] and the limits of its steps → a [`Plan`]: nothing to build (the tree's
//! own build scripts compile), the tree without its `.out` files copied beside each submission
//! (no program can read the expected outputs), one run and one test per step in tree order, and
//! stacscheck's pass rule as every test's judge.
//!
//! Build steps compile into the submission's folder and guard the steps after them, so each is
//! a stage of its own; the steps between two builds share a stage and run at once. The parts
//! of a report are the tree's top-level folders (and `root` for the root's own scripts), every
//! step worth one mark, as stacscheck counts "N out of M tests passed".

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::timing;
use crate::build::BuildConfig;
use crate::judge::StepJudge;
use crate::results::model::{CheckRow, TestReport};
use crate::results::text;
use crate::sandbox::Limits;
use crate::score::GroupScoring;
use crate::stacscheck::{Step, StepKind, Tree};
use crate::suite::Launch;
use crate::verdict::Verdict;

use super::{Part, PartTally, Plan, PlannedTest, Run, Word, Workspace};

/// The least wall-clock (and CPU) time a build step gets: compiling a submission on a busy
/// marking machine can take longer than a test's `timeout`, and a slow `javac` is not the
/// student's fault (stacscheck applies its timeout to builds too).
const BUILD_TIME: std::time::Duration = std::time::Duration::from_secs(120);

/// The plan of running `tree` with each step under `limits`, started as `launch` says.
pub fn from_tree(tree: &Tree, limits: Limits, launch: &Launch) -> std::io::Result<Plan<'static>> {
    let mut parts: Vec<Part> = Vec::new();
    let mut runs = Vec::with_capacity(tree.steps.len());
    let mut tests = Vec::with_capacity(tree.steps.len());
    let mut stage = 0;
    for (index, step) in tree.steps.iter().enumerate() {
        let part_id = step.id.split_once('/').map_or("root", |(top, _)| top);
        let part = match parts.iter().position(|part| part.id == part_id) {
            Some(found) => found,
            None => {
                parts.push(Part {
                    id: part_id.to_string(),
                    title: part_id.to_string(),
                    weight: 0.0,
                    group_scoring: GroupScoring::default(),
                });
                parts.len() - 1
            }
        };
        parts[part].weight += 1.0;
        let previous_is_build = index > 0 && tree.steps[index - 1].kind == StepKind::Build;
        if index > 0 && (step.kind == StepKind::Build || previous_is_build) {
            stage += 1;
        }
        runs.push(run_of(tree, step, index, stage, limits, launch));
        tests.push(PlannedTest {
            part,
            weight: 1.0,
            run: index,
            judge: Box::new(StepJudge::new(step)),
            blank: TestReport { reproduce: reproduce(tree, step, &runs[index]), ..blank_report(tree, step) },
            quality_rule: String::new(),
        });
    }
    Ok(Plan {
        name: tree.config.practical.clone(),
        title: tree.config.practical.clone(),
        build: BuildConfig {
            srcdir: tree.config.srcdir.clone(),
            command: Vec::new(),
            script: String::new(),
            limits,
            cpus: Vec::new(),
        },
        workspace: Some(workspace(&tree.root)?),
        launch: launch.clone(),
        runs,
        parts,
        tests,
        gave_up_credit: 0.0,
        check_table: Box::new(check_table),
    })
}

fn run_of(tree: &Tree, step: &Step, index: usize, stage: usize, limits: Limits, launch: &Launch) -> Run {
    let judged = match step.kind {
        StepKind::Build => Limits { wall: limits.wall.max(BUILD_TIME), cpu: limits.cpu.max(BUILD_TIME), ..limits },
        StepKind::Test | StepKind::Info | StepKind::Prog => limits,
    };
    let in_tree = |path: &Path| path.strip_prefix(&tree.root).unwrap_or(path).to_path_buf();
    let mut env = vec![
        ("TESTDIR".to_string(), Word::InWorkspace(in_tree(&step.testdir))),
        ("SCRATCHDIR".to_string(), Word::Scratch),
    ];
    let launch_env = launch.env_for(&judged);
    let mut identity = vec![
        "bash".to_string(),
        in_tree(&step.script).display().to_string(),
        in_tree(&step.testdir).display().to_string(),
        format!("{:x}", Sha256::digest(&step.input)),
    ];
    identity.extend(launch_env.iter().map(|(name, value)| format!("{name}={value}")));
    env.extend(launch_env.into_iter().map(|(name, value)| (name, Word::Text(value.into()))));
    Run {
        program: "bash".into(),
        args: vec![Word::InWorkspace(in_tree(&step.script))],
        stdin: step.input.clone(),
        env,
        limits: judged,
        run_limits: timing::run_limits(&judged, launch),
        stage,
        guarded_by: step.guarded_by.clone(),
        identity,
        tests: vec![index],
        builds: step.kind == StepKind::Build,
    }
}

/// Every folder and regular file of the tree but the `.out` files (their contents are in the
/// judges), links not followed.
fn workspace(root: &Path) -> std::io::Result<Workspace> {
    let (mut dirs, mut files) = (Vec::new(), Vec::new());
    for entry in walkdir::WalkDir::new(root).follow_links(false).sort_by_file_name().min_depth(1) {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel: PathBuf = entry.path().strip_prefix(root).map_err(std::io::Error::other)?.to_path_buf();
        if entry.file_type().is_dir() {
            dirs.push(rel);
        } else if entry.file_type().is_file() && entry.path().extension().is_none_or(|ext| ext != "out") {
            files.push(rel);
        }
    }
    Ok(Workspace { from: root.to_path_buf(), dirs, files })
}

/// The step as a student runs it again from the submission's source folder, with `TREE` set to
/// the tree's folder (the one holding `practical.config`): its script, `TESTDIR`, a fresh
/// `SCRATCHDIR`, the launch environment and its `.in` file on standard input.
fn reproduce(tree: &Tree, step: &Step, run: &Run) -> String {
    let quote = |text: &str| crate::sandbox::shell_quote(std::ffi::OsStr::new(text));
    let in_tree = |path: &Path| {
        let relative = path.strip_prefix(&tree.root).unwrap_or(path).display().to_string();
        match relative.is_empty() {
            true => "\"$TREE\"".to_string(),
            false => format!("\"$TREE\"/{}", quote(&relative)),
        }
    };
    let mut words = vec![format!("TESTDIR={}", in_tree(&step.testdir)), "SCRATCHDIR=\"$(mktemp -d)\"".to_string()];
    let launch = run.env.iter().filter_map(|(name, word)| match word {
        Word::Text(value) => Some(format!("{name}={}", quote(&value.to_string_lossy()))),
        Word::InWorkspace(_) | Word::Scratch => None,
    });
    words.extend(launch);
    words.extend(["bash".to_string(), in_tree(&step.script)]);
    match &step.stdin {
        Some(input) => format!("{} < {}", words.join(" "), in_tree(input)),
        None => words.join(" "),
    }
}

fn blank_report(tree: &Tree, step: &Step) -> TestReport {
    let kind = step.kind.prefix();
    let expected = step
        .expected_output
        .as_deref()
        .map_or_else(|| "exit status 0".to_string(), |bytes| text::shorten(text::escape_bytes(bytes).trim(), 300));
    let script = step.script.strip_prefix(&tree.root).unwrap_or(&step.script);
    TestReport {
        instance_label: "Script".into(),
        visible: true,
        input: step.stdin.as_ref().map(|_| text::shorten(text::escape_bytes(&step.input).trim(), 300)),
        expected,
        ..TestReport::new(step.id.clone(), kind.to_string(), script.display().to_string(), Verdict::NotRun)
    }
}

fn check_table(parts: &[PartTally], _built: bool) -> Vec<CheckRow> {
    parts
        .iter()
        .map(|part| CheckRow {
            task: format!("{}: tests passed", part.id),
            done: format!("{} of {}", part.passed, part.total),
        })
        .collect()
}
