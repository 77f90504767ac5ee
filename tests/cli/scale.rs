//! Marking at scale: shards merge to the same gradebook as one run, and marking again into the
//! same folder reuses every stored result (after an interruption, only the missing work is done).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use crate::support::{bhgrade, mark_command, repo};

/// A class of three: two good submissions and one that crashes.
pub(crate) fn class(dir: &Path) -> std::path::PathBuf {
    let members = [("alice", "submissions/correct"), ("bob", "submissions/crashes"), ("carol", "submissions/correct")];
    crate::support::class_of(dir, &members)
}

pub(crate) fn mark(class: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let output =
        mark_command(&repo().join("fixtures/suites/tiny"), out, class).args(extra).output().expect("run bhgrade");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

#[test]
fn two_shards_merge_to_the_unsharded_gradebook() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let whole = dir.path().join("whole");
    mark(&class, &whole, &[]);
    // Two shards as two processes at once, as two machines would run them.
    let shards: Vec<_> = ["1/2", "2/2"]
        .iter()
        .map(|shard| {
            let out = dir.path().join(format!("shard{}", &shard[..1]));
            let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade"))
                .args(["mark", "--jobs", "1", "--shard", shard, "--suite"])
                .arg(repo().join("fixtures/suites/tiny"))
                .arg("--out")
                .arg(&out)
                .arg(&class)
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn shard");
            (out, child)
        })
        .collect();
    let mut outs = Vec::new();
    for (out, child) in shards {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        outs.push(out);
    }
    let merged = dir.path().join("merged");
    let output = bhgrade().arg("merge").args(&outs).arg("--out").arg(&merged).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_same_marks(&merged, &whole);
}

/// `merged` (a merge of shards of [`class`]) has the gradebook and every verdict of `whole`
/// (one unsharded run).
pub(crate) fn assert_same_marks(merged: &Path, whole: &Path) {
    let read = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read(merged, "grades.csv"), read(whole, "grades.csv"));
    assert_eq!(read(merged, "grades.csv").lines().count(), 4);
    for student in ["alice", "bob", "carol"] {
        let verdicts = |dir: &Path| {
            let report: serde_json::Value =
                serde_json::from_str(&read(dir, &format!("students/{student}.json"))).unwrap();
            let tests = report["parts"].as_array().unwrap().iter().flat_map(|p| p["tests"].as_array().unwrap().clone());
            tests.map(|t| (t["id"].to_string(), t["verdict"].to_string())).collect::<Vec<_>>()
        };
        assert_eq!(verdicts(merged), verdicts(whole), "{student}");
    }
}

#[test]
fn merging_refuses_a_student_marked_twice() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    mark(&class, &out, &["--shard", "1/3"]);
    let output = bhgrade().arg("merge").arg(&out).arg(&out).arg("--out").arg(dir.path().join("m")).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("more than one shard"));
}

#[test]
fn an_interrupted_marking_resumes_with_only_the_missing_work() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade"))
        .args(["mark", "--jobs", "1", "--suite"])
        .arg(repo().join("fixtures/suites/tiny"))
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt as soon as the first student is reported: event-driven, no sleeping.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.contains(" / ") {
        line.clear();
    }
    assert!(line.starts_with("alice:"), "first report line: {line:?}");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(rest.contains("interrupted: not marked"), "{rest}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("marking was interrupted"), "{summary}");

    // How far bob and carol got before the stop depends on the machine (a worker may finish
    // the job it holds, or start a build, before the signal lands); what must hold whatever
    // got done is that the marking again reuses every stored run and redoes only the rest.
    let stored = stored_runs(&out);
    let again = mark(&class, &out, &[]);
    let text = String::from_utf8_lossy(&again.stderr);
    let reused = |student: &str| {
        let line = text.lines().find(|l| l.starts_with(&format!("{student}:"))).unwrap_or_else(|| panic!("{text}"));
        reused_in(line)
    };
    assert_eq!(reused("alice"), 3, "the student reported before the stop is not run again: {text}");
    let reused_in_all: usize = ["alice", "bob", "carol"].map(reused).iter().sum();
    assert_eq!(reused_in_all, stored, "every run stored before the stop, and no other, is reused: {text}");
    assert_eq!(stored_runs(&out), 9, "the missing runs are made and stored");

    let third = mark(&class, &out, &[]);
    let text = String::from_utf8_lossy(&third.stderr);
    for student in ["alice", "bob", "carol"] {
        assert!(text.lines().any(|l| l.starts_with(student) && l.contains("3 stored results reused")), "{text}");
    }
    let forced = mark(&class, &out, &["--force"]);
    assert!(!String::from_utf8_lossy(&forced.stderr).contains("reused"));
}

/// How many runs' results the store of the output folder `out` holds.
fn stored_runs(out: &Path) -> usize {
    walkdir::WalkDir::new(out.join(bhgrade::store::STORE_DIR))
        .into_iter()
        .filter(|entry| entry.as_ref().unwrap().file_name().to_string_lossy().ends_with(".run.json"))
        .count()
}

/// How many stored results a progress line says were reused (`[3 stored results reused]`).
fn reused_in(line: &str) -> usize {
    let Some((_, rest)) = line.split_once(" [") else { return 0 };
    match rest.split_once(" stored result") {
        Some((count, _)) => count.parse().unwrap_or_else(|_| panic!("{line}")),
        None => 0,
    }
}

/// Marking again into the same folder says which verdicts changed since the reports there were
/// written: here a report whose verdicts were edited stands for an earlier marking's.
#[test]
fn marking_again_names_each_verdict_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    let first = mark(&class, &out, &[]);
    assert!(!String::from_utf8_lossy(&first.stderr).contains("rejudge:"));
    let report_path = out.join("students/alice.json");
    let mut report: serde_json::Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap()).unwrap();
    let tests = report["parts"][0]["tests"].as_array_mut().unwrap();
    let changed = tests[0]["id"].as_str().unwrap().to_string();
    assert_eq!(tests[0]["verdict"], "accepted");
    tests[0]["verdict"] = "wrong_answer".into();
    std::fs::write(&report_path, serde_json::to_vec(&report).unwrap()).unwrap();
    let again = mark(&class, &out, &[]);
    let rejudged: Vec<String> = String::from_utf8_lossy(&again.stderr)
        .lines()
        .filter(|line| line.starts_with("rejudge:"))
        .map(str::to_string)
        .collect();
    assert_eq!(rejudged, [format!("rejudge: alice: {changed}: wrong_answer -> accepted")]);
}
