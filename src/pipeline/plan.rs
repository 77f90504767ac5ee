//! Planning: a suite's tests → the distinct runs they need ([`PlannedRun`]), made once per suite.
//!
//! Tests with the same command line, input and limits share one run, so a SOLVE answer graded
//! for several tests costs one program run.

use std::ffi::OsString;
use std::path::Path;

use crate::sandbox::{Command, Limits};
use crate::store::{Key, ResultStore};
use crate::suite::{Suite, Test};

/// One distinct program run, and the tests (indices into the suite's test list) it serves.
#[derive(Clone, Debug)]
pub struct PlannedRun {
    program: OsString,
    args: Vec<OsString>,
    stdin: Vec<u8>,
    pub limits: Limits,
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
            env: Vec::new(),
        }
    }

    /// The key of this run's stored result for a submission whose build has key `build`.
    pub fn key(&self, build: &Key, launch: &[String]) -> Key {
        ResultStore::run_key(build, launch, self.command_word, &self.input_digest, &self.limits)
    }
}

/// Groups the suite's tests into distinct runs: the launch command plus the test's command word
/// and the absolute instance path, the candidate input on standard input, and the limits.
pub fn plan_runs(suite: &Suite, tests: &[&Test]) -> Vec<PlannedRun> {
    let mut runs: Vec<PlannedRun> = Vec::new();
    for (index, test) in tests.iter().enumerate() {
        let mut args: Vec<OsString> = suite.launch[1..].iter().map(Into::into).collect();
        args.push(test.def.task.command.into());
        args.push(test.def.puzzle.clone().into_os_string());
        let stdin = test.def.input.clone().unwrap_or_default().into_bytes();
        let limits = test.def.limits;
        match runs.iter_mut().find(|run| run.args == args && run.stdin == stdin && run.limits == limits) {
            Some(run) => run.tests.push(index),
            None => runs.push(PlannedRun {
                program: suite.launch[0].clone().into(),
                args,
                stdin,
                limits,
                tests: vec![index],
                command_word: test.def.task.command,
                input_digest: test.def.input_digest.clone(),
            }),
        }
    }
    runs
}
