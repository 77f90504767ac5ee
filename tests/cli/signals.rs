//! SIGTERM (what `timeout`, Slurm and systemd send) stops marking as Ctrl-C does: finished
//! results are kept, the rest is listed as not marked, and the same command finishes the job.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Stdio;

use crate::support::{copy_tree, repo};

const STUDENTS: [&str; 4] = ["alice", "bob", "carol", "dave"];

fn mark_command(class: &Path, out: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade"));
    // One job, so that after the first student's line the others are still waiting their turn.
    command.args(["mark", "--jobs", "1", "--suite"]).arg(repo().join("fixtures/suites/tiny")).arg("--out").arg(out);
    command.arg(class);
    command
}

/// The names under summary.md's "Not marked" heading.
fn not_marked_in(summary: &str) -> Vec<String> {
    let mut lines = summary.lines().skip_while(|l| !l.starts_with("## Not marked"));
    lines.next();
    lines
        .take_while(|l| !l.starts_with('|') && !l.starts_with("##"))
        .filter_map(|l| l.strip_prefix("- "))
        .map(str::to_string)
        .collect()
}

#[test]
fn sigterm_stops_marking_like_ctrl_c_and_the_same_command_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for student in STUDENTS {
        copy_tree(&repo().join("fixtures/submissions/correct"), &class.join(student));
    }
    let out = dir.path().join("out");
    let mut child = mark_command(&class, &out).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.starts_with("alice:") {
        line.clear();
    }
    assert!(line.starts_with("alice:"), "bhgrade ended before reporting a student");
    // SAFETY: kill(2) on our own child, which has not been waited for, so its pid is still its.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{rest}");
    assert!(rest.contains("interrupted: not marked"), "{rest}");

    assert!(out.join("students/alice.md").is_file() && out.join("students/alice.json").is_file());
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let not_marked = not_marked_in(&summary);
    assert!(not_marked.contains(&"dave".to_string()), "{summary}");
    assert!(!not_marked.contains(&"alice".to_string()), "{summary}");
    for student in STUDENTS {
        let has_report = out.join(format!("students/{student}.json")).is_file();
        assert_ne!(has_report, not_marked.iter().any(|n| n == student), "{student}: {summary}");
    }

    let again = mark_command(&class, &out).output().unwrap();
    let text = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{text}");
    assert!(text.lines().any(|l| l.starts_with("alice:") && l.contains("reused]")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("dave:") && !l.contains("reused")), "{text}");
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let rows: Vec<&str> = grades.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(rows, STUDENTS, "{grades}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!summary.contains("Not marked"), "{summary}");
}

/// A class of four copies of the correct fixture and a scratch parent (TMPDIR) of its own,
/// reachable by the run user, so a test can see what a stopped marking left there.
fn class_and_scratch(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let class = dir.join("class");
    for student in STUDENTS {
        copy_tree(&repo().join("fixtures/submissions/correct"), &class.join(student));
    }
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for folder in [dir, &tmp] {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (class, tmp)
}

/// Starts `command` (bhgrade, or a program that starts it), waits until the first student is
/// reported, lets `stop` signal it, and checks the stop was clean: status 143, the summary
/// printed and written, nothing left in the scratch parent.
fn stopped_cleanly(mut command: std::process::Command, tmp: &Path, out: &Path, stop: impl FnOnce(i32)) {
    let mut child = command.env("TMPDIR", tmp).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.starts_with("alice:") {
        line.clear();
    }
    assert!(line.starts_with("alice:"), "bhgrade ended before reporting a student");
    stop(child.id() as i32);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "one request, a clean stop: {rest}");
    assert!(rest.contains("stopping: "), "the stop is acknowledged: {rest}");
    assert!(rest.contains("interrupted: not marked"), "{rest}");
    assert!(std::fs::read_to_string(out.join("summary.md")).unwrap().contains("## Not marked"));
    let left: Vec<_> = std::fs::read_dir(tmp).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "the stop left {left:?} behind");
}

/// The same command run to the end after the stops: every student marked, none twice.
fn the_rest_is_finished(class: &Path, out: &Path) {
    let again = mark_command(class, out).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let rows: Vec<&str> = grades.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(rows, STUDENTS, "{grades}");
}

/// GNU `timeout` passes a SIGTERM it gets on to bhgrade and then to bhgrade's whole process
/// group: two signals at once, one request.
#[test]
fn gnu_timeout_stops_marking_cleanly_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let (class, tmp) = class_and_scratch(dir.path());
    for attempt in 0..10 {
        let out = dir.path().join(format!("out{attempt}"));
        let mut command = std::process::Command::new("timeout");
        command.args(["--preserve-status", "600"]).arg(mark_command(&class, &out).get_program());
        command.args(mark_command(&class, &out).get_args());
        // The child is `timeout`, bhgrade's parent: a SIGTERM to it is handled as its own
        // expiry is, passed on to bhgrade and then to the group.
        // SAFETY: kill(2) on a child of ours that has not been waited for.
        stopped_cleanly(command, &tmp, &out, |timeout| unsafe {
            libc::kill(timeout, libc::SIGTERM);
        });
        if attempt == 9 {
            the_rest_is_finished(&class, &out);
        }
    }
}

/// The two SIGTERMs a `kill PID; kill -- -PGID` (or a busy machine's `timeout`) delivers a few
/// milliseconds apart: still one request.
#[test]
fn two_sigterms_milliseconds_apart_are_one_request() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let (class, tmp) = class_and_scratch(dir.path());
    for attempt in 0..10u64 {
        let out = dir.path().join(format!("out{attempt}"));
        let mut command = mark_command(&class, &out);
        command.process_group(0);
        stopped_cleanly(command, &tmp, &out, |pid| {
            // SAFETY: kill(2) on our own child (and the group it leads), not yet waited for.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            // The gap is the condition under test (a busy machine's delivery), not a wait.
            std::thread::sleep(std::time::Duration::from_millis(attempt * 3));
            // SAFETY: as above.
            unsafe { libc::kill(-pid, libc::SIGTERM) };
        });
        if attempt == 9 {
            the_rest_is_finished(&class, &out);
        }
    }
}
