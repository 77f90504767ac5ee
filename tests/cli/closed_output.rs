//! A marking survives its own output (issue 46): standard output and error that go into a pipe
//! whose reader leaves after one line (`bhgrade mark ... 2>&1 | head -1`) or onto a full disk
//! (`/dev/full`) neither stop nor wedge a marking or a `test`: the work finishes, every file is
//! written, the status is the marking's own, and SIGINT and SIGTERM still stop it cleanly.

use std::io::BufReader;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use crate::support::repo;

const STUDENTS: [&str; 3] = ["alice", "bob", "carol"];

/// Far longer than the markings here take (seconds); reached only by a marking that wedged.
const WEDGED_AFTER: Duration = Duration::from_secs(600);

fn bhgrade(args: &[&str]) -> Command {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("bhgrade"));
    command.args(args);
    command
}

/// `bhgrade mark --jobs 1 --suite tiny --out OUT CLASS` for a class of three correct copies.
fn marking(dir: &Path) -> (Command, std::path::PathBuf) {
    let members = STUDENTS.map(|student| (student, "submissions/correct"));
    let class = crate::support::class_of(dir, &members);
    let out = dir.join("out");
    let mut command = bhgrade(&["mark", "--jobs", "1", "--suite"]);
    command.arg(repo().join("fixtures/suites/tiny")).arg("--out").arg(&out).arg(class);
    (command, out)
}

/// Starts `command` with standard output and error both in one pipe (`2>&1 |`), reads up to the
/// first line that starts with `prefix` (past notes such as a sweep of a killed marking's
/// leftovers), and closes the pipe as `head` does; fails if the output ends first.
fn spawn_into_a_reader_that_leaves(command: &mut Command, prefix: &str) -> Child {
    let (reader, writer) = std::io::pipe().unwrap();
    let child = command.stdout(writer.try_clone().unwrap()).stderr(writer).spawn().unwrap();
    // `command` holds the write end's last copies but the child's: drop them, so the reader
    // sees the output end if bhgrade ends first.
    command.stdout(Stdio::null()).stderr(Stdio::null());
    crate::signals::read_up_to(&mut BufReader::new(reader), prefix);
    child
}

/// Waits for `child` to end by itself, failing (and killing it) if it wedged.
fn ends_by_itself(mut child: Child) -> ExitStatus {
    let pid = child.id();
    let (sent, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || sent.send(child.wait().unwrap()));
    match ended.recv_timeout(WEDGED_AFTER) {
        Ok(status) => status,
        Err(_) => {
            // SAFETY: kill(2) on our own child, which the waiting thread has not reaped.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("bhgrade wedged once its output's reader left");
        }
    }
}

/// Every class file and every student's files, as a whole marking writes them.
fn every_file_written(out: &Path, students: &[&str]) {
    for file in ["summary.md", "grades.csv", "canvas.csv", "junit.xml", "index.html", "class.json"] {
        assert!(out.join(file).is_file(), "{file} was not written");
    }
    for student in students {
        for file in bhgrade::report::StudentOutput::ALL.map(|output| output.file(student)) {
            assert!(out.join(&file).is_file(), "{file} was not written");
        }
    }
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let rows: Vec<&str> = grades.lines().skip(1).map(|row| row.split(',').next().unwrap()).collect();
    assert_eq!(rows, students, "{grades}");
}

#[test]
fn a_marking_whose_reader_leaves_after_one_line_finishes_and_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let (mut command, out) = marking(dir.path());
    let child = spawn_into_a_reader_that_leaves(&mut command, "alice:");
    let status = ends_by_itself(child);
    assert_eq!(status.code(), Some(0), "the pipe's error is no failure of the marking");
    every_file_written(&out, &STUDENTS);
}

#[test]
fn a_test_whose_reader_leaves_after_one_line_ends_with_its_own_status() {
    let correct = repo().join("fixtures/submissions/correct");
    let suite = repo().join("fixtures/suites/tiny");
    let mut command = bhgrade(&["test"]);
    command.arg(&correct).arg("--suite").arg(&suite);
    // The report's title, its first line on standard output.
    let child = spawn_into_a_reader_that_leaves(&mut command, "# ");
    assert_eq!(ends_by_itself(child).code(), Some(0));
}

#[test]
fn a_marking_onto_a_full_disk_finishes_and_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let (mut command, out) = marking(dir.path());
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let child = command.stdout(full()).stderr(full()).spawn().unwrap();
    assert_eq!(ends_by_itself(child).code(), Some(0));
    every_file_written(&out, &STUDENTS);
}

/// SIGINT and SIGTERM after the reader left: one signal still stops the marking cleanly, with
/// the status that names it and the class files written with what was not marked listed.
#[test]
fn a_signal_after_the_reader_left_still_stops_the_marking_cleanly() {
    for (signal, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let dir = tempfile::tempdir().unwrap();
        let (mut command, out) = marking(dir.path());
        let child = spawn_into_a_reader_that_leaves(&mut command, "alice:");
        // SAFETY: kill(2) on our own child, not yet waited for.
        unsafe { libc::kill(child.id() as i32, signal) };
        assert_eq!(ends_by_itself(child).code(), Some(status), "signal {signal}");
        let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(summary.contains("## Not marked"), "{summary}");
        assert!(out.join("students/alice.json").is_file());
    }
}
