//! Planning: a suite's tests → the distinct runs they need ([`PlannedRun`]), made once per suite.
//!
//! Tests with the same command line, input and limits share one run, so a SOLVE answer graded
//! for several tests costs one program run.

use std::ffi::OsString;
use std::path::Path;

use crate::sandbox::{Command, Limits};
use crate::store::{Key, ResultStore};
use crate::suite::{Suite, Test};

use super::timing;

/// One distinct program run, and the tests (indices into the suite's test list) it serves.
#[derive(Clone, Debug)]
pub struct PlannedRun {
    program: OsString,
    args: Vec<OsString>,
    stdin: Vec<u8>,
    /// The launch environment with its placeholders filled in for this run's limits.
    env: Vec<(String, String)>,
    /// The limits its verdict is judged against (the suite's).
    pub limits: Limits,
    /// The limits it runs under (the timing policy's margin, the runtime's memory overhead).
    pub run_limits: Limits,
    pub tests: Vec<usize>,
    command_word: &'static str,
    input_digest: String,
}

impl PlannedRun {
    /// The command to run in a built submission's source folder.
    pub fn command(&self, srcdir: &Path) -> Command {
        Command {
            program: self.program.clone(),
            args: self.args.clone(),
            cwd: srcdir.to_path_buf(),
            stdin: self.stdin.clone(),
            env: self.env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
            cpus: Vec::new(),
        }
    }

    /// The key of this run's stored result for a submission whose build has key `build`.
    pub fn key(&self, build: &Key) -> Key {
        let mut launch: Vec<String> = std::iter::once(&self.program)
            .chain(&self.args[..self.args.len() - 2])
            .map(|word| word.to_string_lossy().into_owned())
            .collect();
        launch.extend(self.env.iter().map(|(k, v)| format!("{k}={v}")));
        ResultStore::run_key(build, &launch, self.command_word, &self.input_digest, &self.run_limits)
    }
}

/// Groups the suite's tests into distinct runs: the launch command plus the test's command word
/// and the absolute instance path, the candidate input on standard input, and the limits.
pub fn plan_runs(suite: &Suite, tests: &[&Test]) -> Vec<PlannedRun> {
    let mut runs: Vec<PlannedRun> = Vec::new();
    for (index, test) in tests.iter().enumerate() {
        let mut args: Vec<OsString> = suite.launch.command[1..].iter().map(Into::into).collect();
        args.push(test.def.task.command.into());
        args.push(test.def.puzzle.clone().into_os_string());
        let stdin = test.def.input.clone().unwrap_or_default().into_bytes();
        let limits = test.def.limits;
        match runs.iter_mut().find(|run| run.args == args && run.stdin == stdin && run.limits == limits) {
            Some(run) => run.tests.push(index),
            None => runs.push(PlannedRun {
                program: suite.launch.command[0].clone().into(),
                args,
                stdin,
                env: suite.launch.env_for(&limits),
                limits,
                run_limits: timing::run_limits(&limits, &suite.launch),
                tests: vec![index],
                command_word: test.def.task.command,
                input_digest: test.def.input_digest.clone(),
            }),
        }
    }
    runs
}
