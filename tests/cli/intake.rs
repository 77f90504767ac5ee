//! Submission intake through the real CLI: one submissions folder holding every kind of entry
//! a class hands in (folders, every archive format, archives in archives, unsupported
//! archives, stray files, names that collide, names that are not UTF-8, a CRLF build script,
//! an IDE's copy of `src`), marked once with the tiny suite. Every student must appear in
//! `grades.csv` with the right build verdict and a detail that says why, and no two students
//! may share a report file.
//!
//! Build scripts only `echo` where they ran: what is tested is what reaches the build, so no
//! JDK build is needed (the tests themselves then fail fast, which does not matter here).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::{mark_command, repo};

/// A build script that says which folder it ran in (`built in work/src`).
const BUILD: &[u8] = b"echo \"built in $(basename \"$(dirname \"$PWD\")\")/$(basename \"$PWD\")\"\n";

fn write(path: &Path, body: &[u8]) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, body).expect("write");
}

fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).expect("zip entry");
        zip.write_all(body).expect("zip write");
    }
    zip.finish().expect("zip finish").into_inner()
}

fn tar_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for (name, body) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(body.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, name, *body).expect("tar entry");
    }
    tar.into_inner().expect("tar finish")
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip finish")
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut enc = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).expect("xz");
    enc.write_all(bytes).expect("xz write");
    enc.finish().expect("xz finish")
}

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(bytes).expect("bzip2");
    enc.finish().expect("bzip2 finish")
}

/// What each student must get: build verdict, and texts its detail (or build log) must hold.
struct Expect {
    verdict: &'static str,
    detail: &'static [&'static str],
    log: &'static str,
}

const fn ok(log: &'static str) -> Expect {
    Expect { verdict: "ok", detail: &[], log }
}

const fn failed(detail: &'static [&'static str]) -> Expect {
    Expect { verdict: "build_failed", detail, log: "" }
}

fn expectations() -> BTreeMap<&'static str, Expect> {
    BTreeMap::from([
        // issue 11: an IDE's copy of src is not a second candidate.
        ("alice", ok("built in work/src")),
        ("bob", ok("built in bob/src")),
        ("carol", ok("built in carol/src")),
        (
            "dave",
            failed(&["dave.rar is a RAR archive, which bhgrade cannot open; ask the student for a .zip or .tar.gz"]),
        ),
        ("erin", failed(&["erin.7z is a 7-Zip archive, which bhgrade cannot open"])),
        ("frank", failed(&["frank.pdf is a file (.pdf), not a folder or an archive"])),
        ("GRACE", ok("built in GRACE/src")),
        ("heidi", ok("built in work/src")),
        ("ivan", ok("built in code/src")),
        ("abc1", ok("built in abc1/src")),
        (
            "abc1.zip",
            Expect {
                detail: &["marked as abc1.zip: abc1, abc1.zip in the submissions folder"],
                ..ok("built in abc1/src")
            },
        ),
        ("judy", failed(&["Windows (CRLF) line endings", "dos2unix build.sh"])),
        ("ren%E9e", ok("built in ren%E9e/src")),
    ])
}

struct Marked {
    _dir: tempfile::TempDir,
    out: PathBuf,
    status: Option<i32>,
    stderr: String,
}

/// The class folder described in the module documentation, marked once.
fn marked() -> &'static Marked {
    static MARKED: OnceLock<Marked> = OnceLock::new();
    MARKED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let subs = dir.path().join("subs");
        write(&subs.join("alice/.idea/src/build.sh"), b"exit 1\n");
        write(&subs.join("alice/work/src/build.sh"), BUILD);
        let tar_of = |who: &str| tar_bytes(&[(&format!("{who}/src/build.sh"), BUILD)]);
        write(&subs.join("bob.tar.xz"), &xz(&tar_of("bob")));
        write(&subs.join("carol.tar.bz2"), &bz2(&tar_of("carol")));
        write(&subs.join("dave.rar"), b"Rar!\x1a\x07\x01\x00 the rest of a RAR archive");
        write(&subs.join("erin.7z"), b"7z\xbc\xaf\x27\x1c the rest of a 7-Zip archive");
        write(&subs.join("frank.pdf"), b"%PDF-1.4 a report instead of code");
        write(&subs.join("GRACE.ZIP"), &zip_bytes(&[("GRACE/src/build.sh", BUILD)]));
        let inner = zip_bytes(&[("src/build.sh", BUILD)]);
        write(&subs.join("heidi.zip"), &zip_bytes(&[("heidi/work.zip", &inner)]));
        write(&subs.join("ivan.tar.gz"), &gz(&tar_bytes(&[("ivan/code.zip", &inner)])));
        write(&subs.join("abc1/src/build.sh"), BUILD);
        write(&subs.join("abc1.zip"), &zip_bytes(&[("abc1/src/build.sh", BUILD)]));
        write(&subs.join("judy/src/build.sh"), b"echo building\r\ntrue\r\n");
        let odd = subs.join(OsStr::from_bytes(b"ren\xe9e"));
        write(&odd.join("src/build.sh"), BUILD);
        write(&odd.join(OsStr::from_bytes(b"src/caf\xe9.java")), b"// a Latin-1 file name");
        write(&subs.join(".DS_Store"), b"junk");
        write(&subs.join("README.md"), b"the marker's notes");

        let out = dir.path().join("out");
        let tmp = dir.path().join("tmp");
        fs::create_dir(&tmp).expect("mkdir");
        let output = mark_command(&repo().join("fixtures/suites/tiny"), &out, &subs)
            .env("TMPDIR", &tmp)
            .output()
            .expect("run bhgrade mark");
        Marked {
            _dir: dir,
            out,
            status: output.status.code(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    })
}

fn report(marked: &Marked, student: &str) -> serde_json::Value {
    let path = marked.out.join(format!("students/{student}.json"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("no report for {student}: {e}\n{}", marked.stderr));
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn every_entry_of_the_submissions_folder_is_accounted_for() {
    let marked = marked();
    assert_eq!(marked.status, Some(0), "{}", marked.stderr);
    let expected = expectations();
    let csv = fs::read_to_string(marked.out.join("grades.csv")).expect("grades.csv");
    let mut in_csv: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap_or_default()).collect();
    in_csv.sort();
    let mut want: Vec<&str> = expected.keys().copied().collect();
    want.sort();
    assert_eq!(in_csv, want, "{csv}");
    let mut problems = Vec::new();
    for (student, expect) in &expected {
        let report = report(marked, student);
        let build = &report["build"];
        let (verdict, detail, log) = (
            build["verdict"].as_str().unwrap_or_default(),
            build["detail"].as_str().unwrap_or_default(),
            build["log_tail"].as_str().unwrap_or_default(),
        );
        if verdict != expect.verdict {
            problems.push(format!("{student}: build {verdict}, not {} ({detail})", expect.verdict));
        }
        for part in expect.detail {
            if !detail.contains(part) {
                problems.push(format!("{student}: detail {detail:?} lacks {part:?}"));
            }
        }
        if !log.contains(expect.log) {
            problems.push(format!("{student}: build log {log:?} lacks {:?}", expect.log));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_two_students_share_a_report_file() {
    let marked = marked();
    let students = expectations().len();
    let reports = fs::read_dir(marked.out.join("students"))
        .expect("out/students")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    assert_eq!(reports, students, "{}", marked.stderr);
    // Junk and the folder's notes are nobody's.
    for name in [".DS_Store", "README"] {
        assert!(!marked.out.join(format!("students/{name}.json")).exists(), "{name} was marked");
    }
}

/// A student named like a class file must not have their report replaced by it, nor replace
/// it: the students' files live under `students/`.
#[test]
fn a_student_named_summary_keeps_their_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let subs = dir.path().join("subs");
    let students = ["summary", "grades", "index", "gradebook", "class", "canvas", "junit"];
    for student in students {
        write(&subs.join(student).join("src/build.sh"), b"echo mine\n");
    }
    let out = dir.path().join("out");
    let output = mark_command(&repo().join("fixtures/suites/tiny"), &out, &subs).output().expect("run bhgrade mark");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // Each student's markdown and JSON record (the feedback copies are elsewhere).
    let (mut markdown, mut json) = (0, 0);
    for entry in walkdir::WalkDir::new(out.join("students")).into_iter().flatten() {
        let Ok(text) = fs::read_to_string(entry.path()) else { continue };
        let is = |ext: &str| entry.path().extension().is_some_and(|x| x == ext);
        if is("md") && students.iter().any(|s| text.contains(&format!("| Student | `{s}` |"))) {
            markdown += 1;
        }
        if is("json") && text.contains("\"log_tail\": \"mine\\n\"") {
            json += 1;
        }
    }
    assert_eq!((markdown, json), (students.len(), students.len()), "reports overwritten by class files");
    // And the class's own files are still the class's.
    let roster: serde_json::Value = serde_json::from_str(&fs::read_to_string(out.join("class.json")).unwrap()).unwrap();
    assert_eq!(roster["students"].as_array().map(Vec::len), Some(students.len()), "{roster}");
    assert!(fs::read_to_string(out.join("summary.md")).unwrap().contains("(students/summary.md)"));
}

/// bhgrade never marks its own output: a marking run in the submissions folder leaves its
/// `--out` (and an earlier marking's output) out of the class, listed; an `--out` that is the
/// submissions folder, or inside a student's entry, is refused before anything is marked.
#[test]
fn bhgrade_never_marks_its_own_output() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for student in ["alice", "bob"] {
        write(&class.join(student).join("src/build.sh"), BUILD);
    }
    let tiny = repo().join("fixtures/suites/tiny");
    let in_class = |out: &str| {
        let mut command = crate::support::bhgrade();
        command.current_dir(&class).args(["mark", ".", "--jobs", "2", "--suite"]).arg(&tiny).args(["--out", out]);
        let output = command.output().unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let students = |out: &str| -> Vec<String> {
        let grades = fs::read_to_string(class.join(out).join("grades.csv")).unwrap();
        grades.lines().skip(1).map(|row| row.split(',').next().unwrap().to_string()).collect()
    };
    // The second time, `reports` is there; the third, an earlier marking's output is.
    for (out, ignored) in [("reports", None), ("reports", Some("reports")), ("marks", Some("reports"))] {
        let (status, stderr) = in_class(out);
        assert_eq!(status, Some(0), "{stderr}");
        assert_eq!(students(out), ["alice", "bob"], "{stderr}");
        if let Some(ignored) = ignored {
            assert!(stderr.contains(&format!("ignored: ./{ignored} (bhgrade's own output")), "{stderr}");
        }
    }
    let (status, stderr) = in_class(".");
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("--out .: is the submissions folder"), "{stderr}");
    let (status, stderr) = in_class("alice/marks");
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("--out alice/marks: is inside alice's submission (./alice)"), "{stderr}");
    assert!(!class.join("alice/marks/grades.csv").exists(), "nothing was marked into it");
}

/// A correct submission in a folder whose name is not UTF-8 (`caf\xe9`, Latin-1) builds and runs
/// with the real JDK and earns every mark: the JVM is never asked to work in a folder whose
/// name it cannot decode.
#[test]
fn a_correct_submission_in_a_folder_named_in_latin_1_earns_every_mark() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    crate::support::copy_tree(&repo().join("fixtures/submissions/correct"), &class.join(OsStr::from_bytes(b"caf\xe9")));
    let out = dir.path().join("out");
    let marking = mark_command(&repo().join("fixtures/suites/tiny"), &out, &class).output().unwrap();
    assert_eq!(marking.status.code(), Some(0), "{}", String::from_utf8_lossy(&marking.stderr));
    let grades = fs::read_to_string(out.join("grades.csv")).unwrap();
    assert_eq!(grades.lines().nth(1), Some("caf%E9,1.00,1.00,2.00"), "{grades}");
}

/// The sample folders the README marks hold no phantom student: every entry bhgrade takes for a
/// student is a fixture (a folder with `src/` and `expected.yaml`), and the folder's own
/// tooling (`variants.py`, `verify.sh`, the checker's `cases`) is left out and listed.
#[test]
fn the_sample_folders_mark_no_phantom_student() {
    for folder in ["submissions", "lbs-submissions", "gaps-submissions"] {
        let folder = repo().join("fixtures").join(folder);
        let found = bhgrade::build::intake(&folder).unwrap();
        let students: Vec<&str> = found.submissions.iter().map(|s| s.name.as_str()).collect();
        let fixtures = crate::expectations::fixtures_in(&folder);
        assert_eq!(students, fixtures.keys().map(String::as_str).collect::<Vec<_>>(), "{}", folder.display());
        let ignored: Vec<_> = found.ignored.iter().map(|i| i.path.file_name().unwrap().to_owned()).collect();
        for entry in std::fs::read_dir(&folder).unwrap() {
            let name = entry.unwrap().file_name();
            let is_student = fixtures.contains_key(name.to_str().unwrap());
            assert!(is_student || ignored.contains(&name), "{name:?} in {} is neither", folder.display());
        }
    }
}

/// A submission that never reached a build (a PDF instead of code) gets feedback with no empty
/// block where the build's output would be; a build that printed gets its output.
#[test]
fn feedback_shows_no_empty_block_for_a_build_that_printed_nothing() {
    let m = marked();
    let frank = fs::read_to_string(m.out.join("feedback/frank.md")).unwrap();
    assert!(frank.contains("The submission did not build, so no test was run."), "{frank}");
    assert!(!frank.contains("```text\n```"), "an empty block: {frank}");
    for entry in fs::read_dir(m.out.join("feedback")).unwrap().flatten() {
        let text = fs::read_to_string(entry.path()).unwrap();
        assert!(!text.contains("```text\n```"), "an empty block in {}", entry.path().display());
    }
}
