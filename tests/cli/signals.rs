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
