//! Shared helpers: the repository's paths, a quick copy of the bundled suite, and one marking
//! run of every fixture submission shared by the tests that read its reports.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn bhgrade() -> Command {
    Command::cargo_bin("bhgrade").expect("the bhgrade binary is built")
}

/// Copies a folder tree (files and folders only).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk fixture");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A class in `dir/class`: each (student, fixture) a copy of `fixtures/FIXTURE` named after the
/// student.
pub fn class_of(dir: &Path, members: &[(&str, &str)]) -> PathBuf {
    let class = dir.join("class");
    for (student, fixture) in members {
        copy_tree(&repo().join("fixtures").join(fixture), &class.join(student));
    }
    class
}

/// The bundled suite with small CPU limits, so a program that never ends costs little.
pub fn quick_suite(dir: &Path) -> PathBuf {
    let suite = dir.join("suite");
    copy_tree(&repo().join("suites/cs3105-p1"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).expect("read suite");
    let quick = yaml.replace("cpu_seconds: 10\n", "cpu_seconds: 3\n").replace("cpu_seconds: 60 }", "cpu_seconds: 3 }");
    assert_ne!(yaml, quick, "the bundled suite sets CPU limits to shorten");
    std::fs::write(suite.join("suite.yaml"), quick).expect("write suite");
    suite
}

/// The reports of one marking run of every fixture submission with the quick suite.
pub struct Marked {
    _dir: tempfile::TempDir,
    pub out: PathBuf,
    pub status: i32,
    pub stderr: String,
}

impl Marked {
    pub fn json(&self, student: &str) -> serde_json::Value {
        let text = std::fs::read_to_string(self.out.join(format!("students/{student}.json")))
            .unwrap_or_else(|e| panic!("no report for {student}: {e}"));
        serde_json::from_str(&text).expect("valid JSON")
    }

    pub fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.out.join(name)).unwrap_or_else(|e| panic!("no {name}: {e}"))
    }
}

/// `bhgrade mark --jobs 2 --suite SUITE --out OUT CLASS`, to add to and run.
pub fn mark_command(suite: &Path, out: &Path, class: &Path) -> Command {
    let mut command = bhgrade();
    command.args(["mark", "--jobs", "2", "--suite"]).arg(suite).arg("--out").arg(out).arg(class);
    command
}

pub fn marked() -> &'static Marked {
    static MARKED: OnceLock<Marked> = OnceLock::new();
    MARKED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let suite = quick_suite(dir.path());
        let out = dir.path().join("out");
        let output =
            mark_command(&suite, &out, &repo().join("fixtures/submissions")).output().expect("run bhgrade mark");
        Marked {
            _dir: dir,
            out,
            status: output.status.code().unwrap_or(-1),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    })
}

/// A process as `/proc` shows it now.
pub struct Process {
    pub pid: i32,
    dir: PathBuf,
}

impl Process {
    /// Every process now, but those that have ended and wait to be reaped (zombies).
    pub fn live() -> Vec<Process> {
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|entry| Some(Process { pid: entry.file_name().to_str()?.parse().ok()?, dir: entry.path() }))
            .filter(|process| !process.stat().rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')))
            .collect()
    }

    fn stat(&self) -> String {
        std::fs::read_to_string(self.dir.join("stat")).unwrap_or_default()
    }

    /// Its arguments, as given.
    pub fn args(&self) -> Vec<Vec<u8>> {
        let cmdline = std::fs::read(self.dir.join("cmdline")).unwrap_or_default();
        cmdline.split(|&b| b == 0).filter(|arg| !arg.is_empty()).map(<[u8]>::to_vec).collect()
    }

    /// Its command line, arguments joined by spaces.
    pub fn command_line(&self) -> String {
        let args: Vec<String> = self.args().iter().map(|arg| String::from_utf8_lossy(arg).into_owned()).collect();
        args.join(" ")
    }

    /// Its working folder ("" when it cannot be read).
    pub fn cwd(&self) -> String {
        std::fs::read_link(self.dir.join("cwd")).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Its name (`comm`).
    pub fn name(&self) -> String {
        std::fs::read_to_string(self.dir.join("comm")).unwrap_or_default().trim().to_string()
    }

    /// Its PID namespace.
    pub fn pid_namespace(&self) -> Option<PathBuf> {
        std::fs::read_link(self.dir.join("ns/pid")).ok()
    }
}

/// A live process with `tag` as a whole argument of its command line, if there is one now.
pub fn process_with_arg(tag: &str) -> Option<i32> {
    Process::live().into_iter().find(|process| process.args().iter().any(|arg| arg == tag.as_bytes())).map(|p| p.pid)
}

/// The parent of `pid` from /proc (0 when it is gone).
pub fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').nth(1)?.parse().ok()).unwrap_or(0)
}

/// Whether `test` may go on that needs `what`: true when it is `available`. When it is not,
/// the test is said to be skipped ([`crate::skip::skipped`], a failure under
/// `BHGRADE_NO_SKIP`) and is to return having checked nothing.
pub fn require(test: &str, what: &str, available: bool) -> bool {
    if !available {
        crate::skip::skipped(test, format!("{what} is not installed"));
    }
    available
}

/// A value of a report's JSON read as the harness's own type (a [`bhgrade::verdict::Verdict`]
/// from `"accepted"`), `None` when it is not one.
pub fn typed<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Option<T> {
    serde_json::from_value(value.clone()).ok()
}

/// Each test's verdict in a student's JSON report, by test id (a value that is not a verdict
/// fails the test).
pub fn verdicts(report: &serde_json::Value) -> std::collections::BTreeMap<String, bhgrade::verdict::Verdict> {
    report["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .flat_map(|part| part["tests"].as_array().expect("tests"))
        .map(|test| (test["id"].as_str().expect("an id").to_string(), typed(&test["verdict"]).expect("a verdict")))
        .collect()
}
