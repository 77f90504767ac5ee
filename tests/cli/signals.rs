//! SIGTERM (what `timeout`, Slurm and systemd send) stops marking as Ctrl-C does: finished
//! results are kept, the rest is listed as not marked, and the same command finishes the job.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Stdio;

use crate::support::repo;

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

/// A class of four copies of the correct fixture, `STUDENTS`, in `dir/class`.
fn class_of_four(dir: &Path) -> std::path::PathBuf {
    crate::support::class_of(dir, &STUDENTS.map(|student| (student, "submissions/correct")))
}

/// Reads `stderr` up to its first line that starts with `prefix`, and returns that line
/// (failing if bhgrade ends first).
pub(crate) fn read_up_to(stderr: &mut impl BufRead, prefix: &str) -> String {
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.starts_with(prefix) {
        line.clear();
    }
    assert!(line.starts_with(prefix), "bhgrade ended before saying `{prefix}`");
    line
}

#[test]
fn sigterm_stops_marking_like_ctrl_c_and_the_same_command_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let class = class_of_four(dir.path());
    let out = dir.path().join("out");
    let mut child = mark_command(&class, &out).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    read_up_to(&mut stderr, "alice:");
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
    let class = class_of_four(dir);
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
    read_up_to(&mut stderr, "alice:");
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

/// The class's roster: the four students by login, and Erin, who handed nothing in.
const ROSTER: &str = "Student,ID,SIS User ID,SIS Login ID,Section,Tiny suite (777)\n\
    \"    Points Possible\",,,,,\n\
    Alice,1,,alice,\nBob,2,,bob,\nCarol,3,,carol,\nDave,4,,dave,\nErin,5,,erin,\n";

/// Marks `class` with `roster` (and `--force`, when asked), stops it with Ctrl-C (SIGINT) once
/// `after` students are reported, and returns what it said on standard error.
fn interrupted(class: &Path, out: &Path, roster: &Path, after: usize, force: bool) -> String {
    let mut command = mark_command(class, out);
    command.arg("--roster").arg(roster);
    if force {
        command.arg("--force");
    }
    let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    // Students are reported in name order: the `after`-th is the last one to wait for.
    read_up_to(&mut stderr, &format!("{}:", STUDENTS[after - 1]));
    // SAFETY: kill(2) on our own child, which has not been waited for, so its pid is still its.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{rest}");
    rest
}

/// What an interrupted marking wrote: every student in both gradebooks, marks only for those it
/// marked, blank and "not marked" for the rest (never 0, never "handed nothing in"); 0 only for
/// the student on the roster who handed nothing in; and it said so.
fn no_grade_for_what_was_not_marked(out: &Path, stderr: &str) {
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let (summary, grades, canvas) = (read("summary.md"), read("grades.csv"), read("canvas.csv"));
    let not_marked = not_marked_in(&summary);
    assert!(not_marked.contains(&"dave".to_string()), "{summary}");
    assert!(stderr.contains("interrupted: not marked (blank in grades.csv and canvas.csv)"), "{stderr}");
    assert!(stderr.contains("roster: 1 student on the roster handed nothing in, 0 submissions not on it"), "{stderr}");
    assert!(summary.contains("- Erin (erin): no submission of theirs was found; 0 marks in canvas.csv"), "{summary}");
    assert_eq!(grades.lines().next(), Some("student,check,solve,total"));
    assert_eq!(canvas.lines().next(), Some("Student,ID,SIS User ID,SIS Login ID,Section,Tiny suite (777)"));
    let canvas_total = |login: &str| {
        let row = canvas.lines().find(|row| row.split(',').nth(3) == Some(login)).unwrap_or_else(|| panic!("{canvas}"));
        row.rsplit(',').next().unwrap().to_string()
    };
    assert_eq!(canvas_total("erin"), "0.00", "{canvas}");
    for student in STUDENTS {
        let row =
            grades.lines().find(|row| row.starts_with(&format!("{student},"))).unwrap_or_else(|| panic!("{grades}"));
        if not_marked.iter().any(|name| name == student) {
            assert_eq!(row, format!("{student},,,not marked"), "{grades}");
            assert_eq!(canvas_total(student), "", "{canvas}");
            let line = format!("({student}): handed in as {student}, not marked; blank in canvas.csv");
            assert!(summary.contains(&line), "{summary}");
            assert!(!summary.contains(&format!("({student}): no submission")), "{summary}");
        } else {
            let total: f64 = row.rsplit(',').next().unwrap().parse().unwrap_or_else(|_| panic!("{grades}"));
            assert_eq!(canvas_total(student).parse::<f64>().ok(), Some(total), "{canvas}");
        }
    }
}

/// Ctrl-C after one student and after two, then a `--force` marking of a finished class stopped
/// after one: each time the gradebooks hold the marks of what was marked and nothing else.
#[test]
fn an_interrupted_marking_gives_no_grade_for_what_it_did_not_mark() {
    let dir = tempfile::tempdir().unwrap();
    let class = class_of_four(dir.path());
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, ROSTER).unwrap();
    for after in [1, 2] {
        let out = dir.path().join(format!("out{after}"));
        let stderr = interrupted(&class, &out, &roster, after, false);
        no_grade_for_what_was_not_marked(&out, &stderr);
    }
    let out = dir.path().join("out1");
    let finished = mark_command(&class, &out).arg("--roster").arg(&roster).output().unwrap();
    assert_eq!(finished.status.code(), Some(0), "{}", String::from_utf8_lossy(&finished.stderr));
    let stderr = interrupted(&class, &out, &roster, 1, true);
    no_grade_for_what_was_not_marked(&out, &stderr);
}

/// A second Ctrl-C, after bhgrade said it is stopping and a second after the first, stops it at
/// once, and its last line says what that left (a build that never ends keeps it from stopping
/// cleanly first).
#[test]
fn a_second_ctrl_c_stops_at_once_with_a_closing_line() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let members = [("alice", "submissions/correct"), ("bob", "hostile/build-never-ends")];
    let class = crate::support::class_of(dir.path(), &members);
    // Two jobs: Alice is marked beside Bob's build, which goes on for its two minutes.
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade"));
    command.args(["mark", "--jobs", "2", "--suite"]).arg(repo().join("fixtures/suites/tiny"));
    command.arg("--out").arg(dir.path().join("out")).arg(&class);
    let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    read_up_to(&mut stderr, "alice:");
    let pid = child.id() as i32;
    // SAFETY: kill(2) on our own child, not yet waited for.
    unsafe { libc::kill(pid, libc::SIGINT) };
    read_up_to(&mut stderr, "stopping:");
    // Ctrl-C again and again until bhgrade is gone: those within a second of the first are part
    // of the first request, the first one after that stops it at once.
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        // SAFETY: as above; try_wait has just seen the child still running.
        unsafe { libc::kill(pid, libc::SIGINT) };
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT), "stopped by the signal itself: {rest}");
    assert!(rest.trim_end().lines().last().unwrap_or_default().starts_with("stopped at once: "), "{rest}");
}
