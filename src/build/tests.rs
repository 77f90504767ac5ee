//! Tests of discovery and preparation on small hand-made submissions; builds are shell
//! scripts, so no JDK is needed.

use super::*;
use std::io::Write;

fn sandbox(tmp: &Path) -> Sandbox {
    Sandbox::probe(&tmp.join("sandbox")).unwrap()
}

fn config() -> BuildConfig {
    BuildConfig {
        srcdir: "src".into(),
        command: vec!["bash".into(), "build.sh".into()],
        script: "build.sh".into(),
        limits: Limits {
            wall: Duration::from_secs(5),
            cpu: Duration::from_secs(5),
            memory_bytes: 256 << 20,
            output_bytes: 1 << 20,
        },
        cpus: Vec::new(),
    }
}

fn write(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, body).unwrap();
}

fn sub(path: &Path) -> Submission {
    Submission::plain(path.file_name().unwrap().to_string_lossy().into(), path.to_path_buf())
}

#[test]
fn intake_finds_every_entry_sorted_and_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::create_dir(dir.join("zed")).unwrap();
    fs::create_dir(dir.join(".hidden")).unwrap();
    fs::write(dir.join("abc.tar.gz"), b"").unwrap();
    fs::write(dir.join("Bob.ZIP"), b"").unwrap();
    fs::write(dir.join("marks.csv"), b"").unwrap();
    let names: Vec<String> = intake(dir).unwrap().submissions.into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["Bob", "abc", "marks", "zed"]);
    fs::create_dir(dir.join("abc")).unwrap();
    let names: Vec<String> = intake(dir).unwrap().submissions.into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["Bob", "abc", "abc.tar.gz", "marks", "zed"]);
}

#[test]
fn builds_in_src_after_deleting_stale_classes() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("subs/abc123");
    write(&student.join("src/Stale.class"), "old");
    write(&student.join("src/pkg/Deep.class"), "old");
    write(&student.join("src/A.java"), "class A {}");
    // Not executable (mode 644), prints to stderr, exits 0: a success.
    write(&student.join("src/build.sh"), "ls -R > listing.txt; echo 'make: nothing to clean' >&2; echo built");
    let sb = sandbox(tmp.path());
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root.join("src"));
    assert!(built.build.log_tail.contains("built") && built.build.log_tail.contains("nothing to clean"));
    assert!(built.build.detail.contains("deleted 2 stale .class"), "{}", built.build.detail);
    let listing = fs::read_to_string(built.srcdir.join("listing.txt")).unwrap();
    assert!(!listing.contains(".class"), "{listing}");
    // The original is untouched.
    assert!(student.join("src/Stale.class").exists());
    assert!(!student.join("src/listing.txt").exists());
    assert_eq!(built.content_hash.len(), 64);
}

#[test]
fn content_hash_depends_on_content_only() {
    let tmp = tempfile::tempdir().unwrap();
    let sb = sandbox(tmp.path());
    let mut hashes = Vec::new();
    for (name, body) in [("one", "x"), ("two", "x"), ("three", "y")] {
        let student = tmp.path().join("subs").join(name);
        write(&student.join("src/build.sh"), body);
        let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sb).unwrap();
        hashes.push(built.content_hash);
    }
    assert_eq!(hashes[0], hashes[1]);
    assert_ne!(hashes[0], hashes[2]);
}

#[test]
fn failing_build_shows_its_output() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "echo 'A.java:1: error: ; expected' >&2; exit 1");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed);
    assert!(built.build.detail.contains("exit status 1"), "{}", built.build.detail);
    assert!(built.build.log_tail.contains("; expected"));
}

#[test]
fn hanging_build_times_out() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "sleep 1012");
    let mut cfg = config();
    cfg.limits.wall = Duration::from_millis(500);
    let built = prepare(&sub(&student), &cfg, &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildTimeout);
}

#[test]
fn missing_build_script() {
    let tmp = tempfile::tempdir().unwrap();
    let sb = sandbox(tmp.path());
    let student = tmp.path().join("s");
    write(&student.join("src/A.java"), "class A {}");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::NoBuildScript);
    assert!(built.build.detail.contains("build.sh is missing from src"), "{}", built.build.detail);
    let other = tmp.path().join("t");
    write(&other.join("code/A.java"), "class A {}");
    let built = prepare(&sub(&other), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::NoBuildScript);
    assert!(built.build.detail.contains("no folder named"), "{}", built.build.detail);
}

#[test]
fn top_folder_with_build_script_is_used() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("build.sh"), "true");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root);
    assert!(built.build.detail.contains("top folder"));
}

#[test]
fn several_srcdirs() {
    let tmp = tempfile::tempdir().unwrap();
    let sb = sandbox(tmp.path());
    // Shallowest with the script wins, and the report says so.
    let student = tmp.path().join("s");
    write(&student.join("work/src/build.sh"), "true");
    write(&student.join("work/backup/old/src/build.sh"), "exit 1");
    write(&student.join("src/README"), "no script here");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root.join("work/src"));
    assert!(built.build.detail.contains("stacscheck would refuse"));
    // Two at the same depth: refused, both named.
    let twins = tmp.path().join("twins");
    write(&twins.join("a/src/build.sh"), "true");
    write(&twins.join("b/src/build.sh"), "true");
    let built = prepare(&sub(&twins), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed);
    assert!(built.build.detail.contains("a/src, b/src"), "{}", built.build.detail);
}

fn zip_of(path: &Path, files: &[(&str, &str)]) {
    let mut zip = zip::ZipWriter::new(fs::File::create(path).unwrap());
    for (name, body) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn archive_submission_with_a_top_folder_and_macosx() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("abc123.zip");
    zip_of(
        &archive,
        &[
            ("abc123/src/build.sh", "echo ok"),
            ("__MACOSX/abc123/src/._build.sh", "junk"),
            ("__MACOSX/abc123/src/build.sh", "exit 1"),
        ],
    );
    let s = Submission::plain("abc123".into(), archive);
    let built = prepare(&s, &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert!(built.srcdir.ends_with("abc123/src"));
}

#[test]
fn folder_holding_an_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("abc123");
    fs::create_dir_all(&student).unwrap();
    fs::write(student.join("report.pdf"), b"%PDF").unwrap();
    zip_of(&student.join("work.zip"), &[("src/build.sh", "echo ok")]);
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root.join("work/src"));
    assert!(built.build.detail.contains("extracted work.zip"));
}

#[test]
fn bad_archive_is_the_students_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("abc.zip");
    fs::write(&archive, b"not a zip").unwrap();
    let s = Submission::plain("abc".into(), archive);
    let built = prepare(&s, &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed);
    assert!(built.build.detail.starts_with("could not extract:"), "{}", built.build.detail);
    let evil = tmp.path().join("evil.zip");
    zip_of(&evil, &[("../../escape.txt", "x")]);
    let s = Submission::plain("evil".into(), evil);
    let built = prepare(&s, &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed);
    assert!(built.build.detail.contains("(..)"), "{}", built.build.detail);
}

#[test]
fn links_out_of_the_tree_are_not_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "cat secret 2>&1; true");
    std::os::unix::fs::symlink("/etc/hostname", student.join("src/secret")).unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert!(fs::symlink_metadata(built.srcdir.join("secret")).is_err());
    assert!(built.build.detail.contains("not copied: src/secret (link)"), "{}", built.build.detail);
}

#[test]
fn log_tail_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "seq 1 100000; seq 1 100000 >&2; exit 2");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert!(built.build.log_tail.len() <= LOG_TAIL_BYTES + 64, "{}", built.build.log_tail.len());
    assert!(built.build.log_tail.contains("--- stderr ---"));
    assert!(built.build.log_tail.ends_with("100000\n"));
}

/// A real JDK build and run, when the machine has one: the JVM must start under the
/// sandbox's limits (cgroup memory, network namespace, rlimits) and its heap exhaustion must
/// read as a memory limit.
#[test]
fn java_builds_and_runs_under_the_sandbox() {
    let has_jdk = ["/usr/bin/javac", "/usr/local/bin/javac"].iter().any(|p| Path::new(p).exists());
    if !has_jdk {
        return crate::skip::skipped("java_builds_and_runs_under_the_sandbox", "no JDK (javac)");
    }
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "javac *.java");
    write(
        &student.join("src/Hog.java"),
        "public class Hog { public static void main(String[] a) throws Exception {
            if (a.length == 0) { System.out.print(new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in)).readLine() + \"!\"); return; }
            java.util.List<long[]> l = new java.util.ArrayList<>();
            while (true) l.add(new long[1 << 20]); } }",
    );
    let sb = sandbox(tmp.path());
    let mut cfg = config();
    cfg.limits.wall = Duration::from_secs(60);
    cfg.limits.cpu = Duration::from_secs(60);
    cfg.limits.memory_bytes = 1 << 30;
    let built = prepare(&sub(&student), &cfg, &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    let mut limits = cfg.limits;
    limits.memory_bytes = 256 << 20;
    let echo = Command::new("java", &built.srcdir).arg("Hog").stdin("hi\n").run_as(built.run_as());
    let out = sb.run(&echo, &limits).unwrap();
    assert_eq!(out.stdout, b"hi!", "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.exit.success() && !out.memory_limit_hit);
    let hog = Command::new("java", &built.srcdir).args(["Hog", "hog"]).run_as(built.run_as());
    let out = sb.run(&hog, &limits).unwrap();
    assert!(out.memory_limit_hit, "{out:?}");
}

#[test]
fn build_as_another_user_can_write_its_copy() {
    use crate::sandbox::{Policy, RunAs};
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return crate::skip::skipped("build_as_another_user_can_write_its_copy", "not root");
    }
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "id -u > who.txt");
    let policy = Policy { run_as: Some(RunAs { uid: 65534, gid: 65534 }), ..Policy::default() };
    let sb = Sandbox::probe_with(&tmp.path().join("sandbox"), policy).unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    // The submission's own identity, lent for as long as it is marked; without one, the shared
    // user.
    let own = built.run_as().expect("an identity of its own as root");
    assert_eq!(fs::read_to_string(built.srcdir.join("who.txt")).unwrap(), format!("{}\n", own.uid));
    let shared = Policy { run_as: Some(RunAs { uid: 65534, gid: 65534 }), identities: None, ..Policy::default() };
    let sb = Sandbox::probe_with(&tmp.path().join("shared"), shared).unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch2"), &sb).unwrap();
    assert_eq!(built.run_as(), None);
    assert_eq!(fs::read_to_string(built.srcdir.join("who.txt")).unwrap(), "65534\n");
}

#[test]
fn copy_is_bounded_and_skips_git_and_macosx() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("from");
    for i in 0..10 {
        write(&from.join(format!("logs/{i}.log")), "x");
    }
    write(&from.join(".git/objects/ab/cdef"), "blob");
    write(&from.join("__MACOSX/._x"), "fork");
    let small = ExtractLimits { max_total_bytes: 1 << 20, max_entries: 5 };
    let err = tree::copy_tree(&from, &tmp.path().join("a"), &small).unwrap_err();
    assert!(matches!(err, tree::CopyError::TooBig(_)), "{err:?}");
    let tiny = ExtractLimits { max_total_bytes: 3, max_entries: 100 };
    let err = tree::copy_tree(&from, &tmp.path().join("b"), &tiny).unwrap_err();
    assert!(matches!(err, tree::CopyError::TooBig(_)), "{err:?}");
    tree::copy_tree(&from, &tmp.path().join("c"), &ExtractLimits::default()).unwrap();
    assert!(tmp.path().join("c/logs/9.log").exists());
    assert!(!tmp.path().join("c/.git").exists() && !tmp.path().join("c/__MACOSX").exists());
}

#[test]
fn hidden_srcdirs_are_not_candidates() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join(".idea/src/build.sh"), "exit 1");
    write(&student.join("__MACOSX/src/build.sh"), "exit 1");
    write(&student.join("work/src/build.sh"), "true");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root.join("work/src"));
    assert!(!built.build.detail.contains("several"), "{}", built.build.detail);
    // Only in a hidden folder: not used, and the verdict says where it was.
    let hidden = tmp.path().join("h");
    write(&hidden.join(".backup/src/build.sh"), "true");
    let built = prepare(&sub(&hidden), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::NoBuildScript);
    assert!(built.build.detail.contains("hidden or __MACOSX folders: .backup/src"), "{}", built.build.detail);
}

fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, body) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(body).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn archives_inside_archives_are_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let sb = sandbox(tmp.path());
    // A zip holding a folder holding a zip.
    let inner = zip_bytes(&[("src/build.sh", b"echo inner")]);
    let outer = tmp.path().join("abc.zip");
    fs::write(&outer, zip_bytes(&[("abc/work.zip", &inner)])).unwrap();
    let s = Submission::plain("abc".into(), outer);
    let built = prepare(&s, &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root.join("abc/work/src"));
    assert!(built.build.detail.contains("extracted abc/work.zip"), "{}", built.build.detail);
    // A tar.gz holding a zip, in a student's folder.
    let student = tmp.path().join("def");
    fs::create_dir_all(&student).unwrap();
    let gz = flate2::write::GzEncoder::new(fs::File::create(student.join("def.tgz")).unwrap(), Default::default());
    let mut tar = tar::Builder::new(gz);
    let mut header = tar::Header::new_gnu();
    header.set_size(inner.len() as u64);
    header.set_mode(0o644);
    tar.append_data(&mut header, "def/code.zip", &inner[..]).unwrap();
    tar.into_inner().unwrap().finish().unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert_eq!(built.srcdir, built.root.join("def/def/code/src"));
}

#[test]
fn nested_archives_share_the_submissions_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("big");
    fs::create_dir_all(&dir).unwrap();
    // Each under the budget alone, together over it.
    let limits = ExtractLimits::default();
    let chunk = vec![b'x'; (limits.max_total_bytes / 3) as usize];
    for i in 0..4 {
        let one = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        let mut zip = zip::ZipWriter::new(fs::File::create(dir.join(format!("part{i}.zip"))).unwrap());
        zip.start_file("blob", one).unwrap();
        zip.write_all(&chunk).unwrap();
        zip.finish().unwrap();
    }
    let built = prepare(&sub(&dir), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed);
    assert!(built.build.detail.starts_with("the submission is too big: more than"), "{}", built.build.detail);
}

#[test]
fn a_broken_nested_archive_is_a_note_when_another_holds_the_work() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    fs::create_dir_all(&student).unwrap();
    fs::write(student.join("a-old.zip"), b"PK\x03\x04 truncated").unwrap();
    fs::write(student.join("b-work.zip"), zip_bytes(&[("src/build.sh", b"true")])).unwrap();
    fs::write(student.join("notes.rar"), b"Rar!\x1a\x07\x00").unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    assert!(built.build.detail.contains("could not extract a-old.zip"), "{}", built.build.detail);
    // With only the broken one and a RAR, the failure is the verdict.
    fs::remove_file(student.join("b-work.zip")).unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed);
    assert!(built.build.detail.starts_with("could not extract a-old.zip"), "{}", built.build.detail);
    // With only the RAR, the verdict names it.
    fs::remove_file(student.join("a-old.zip")).unwrap();
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::NoBuildScript);
    assert!(
        built.build.detail.contains("notes.rar is a RAR archive, which bhgrade cannot open"),
        "{}",
        built.build.detail
    );
}

#[test]
fn files_that_are_no_archive_fail_saying_what_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let sb = sandbox(tmp.path());
    for (name, body, says) in [
        (
            "dave.rar",
            &b"Rar!\x1a\x07\x01\x00"[..],
            "dave.rar is a RAR archive, which bhgrade cannot open; ask the student for a .zip",
        ),
        ("erin.7z", b"7z\xbc\xaf\x27\x1c", "erin.7z is a 7-Zip archive"),
        ("frank.pdf", b"%PDF-1.4", "frank.pdf is a file (.pdf), not a folder or an archive"),
    ] {
        let path = tmp.path().join(name);
        fs::write(&path, body).unwrap();
        let s = Submission::plain(name.into(), path);
        let built = prepare(&s, &config(), &tmp.path().join("scratch"), &sb).unwrap();
        assert_eq!(built.build.verdict, BuildVerdict::BuildFailed, "{name}");
        assert!(built.build.detail.starts_with(says), "{}", built.build.detail);
    }
}

#[test]
fn crlf_build_script_fails_as_on_the_lab_machine_with_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let student = tmp.path().join("s");
    write(&student.join("src/build.sh"), "cd .\r\ntrue\r\n");
    let built = prepare(&sub(&student), &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::BuildFailed, "{:?}", built.build);
    assert!(built.build.detail.contains("Windows (CRLF) line endings"), "{}", built.build.detail);
    assert!(built.build.detail.contains("dos2unix build.sh"), "{}", built.build.detail);
    // What bash says on the lab machine too.
    assert!(built.build.log_tail.contains(r"$'true\r': command not found"), "{:?}", built.build.log_tail);
}

#[test]
fn names_that_are_not_utf8_are_copied_and_built() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    let student = subs.join(std::ffi::OsStr::from_bytes(b"ren\xe9e"));
    write(&student.join("src/build.sh"), "ls > listing.txt");
    write(&student.join(std::ffi::OsStr::from_bytes(b"src/caf\xe9.java")), "latin-1");
    write(&student.join(std::ffi::OsStr::from_bytes(b"src/caf\xe8.java")), "other");
    let found = intake(&subs).unwrap().submissions;
    assert_eq!(found[0].name, "ren%E9e");
    let built = prepare(&found[0], &config(), &tmp.path().join("scratch"), &sandbox(tmp.path())).unwrap();
    assert_eq!(built.build.verdict, BuildVerdict::Ok, "{:?}", built.build);
    let listing = fs::read(built.srcdir.join("listing.txt")).unwrap();
    assert!(listing.windows(9).any(|w| w == b"caf\xe9.java"), "{}", String::from_utf8_lossy(&listing));
    assert!(listing.windows(9).any(|w| w == b"caf\xe8.java"), "{}", String::from_utf8_lossy(&listing));
}

#[test]
fn a_renamed_student_is_told_why() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    write(&subs.join("abc1/src/build.sh"), "true");
    fs::write(subs.join("abc1.zip"), zip_bytes(&[("src/build.sh", b"true")])).unwrap();
    let found = intake(&subs).unwrap().submissions;
    let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["abc1", "abc1.zip"]);
    let sb = sandbox(tmp.path());
    let zipped = prepare(&found[1], &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert_eq!(zipped.build.verdict, BuildVerdict::Ok, "{:?}", zipped.build);
    assert!(
        zipped.build.detail.contains("marked as abc1.zip: abc1, abc1.zip in the submissions folder"),
        "{}",
        zipped.build.detail
    );
    let folder = prepare(&found[0], &config(), &tmp.path().join("scratch"), &sb).unwrap();
    assert!(!folder.build.detail.contains("marked as"), "{}", folder.build.detail);
}

#[test]
fn a_build_that_removes_or_replaces_its_source_folder_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, src) = (tmp.path(), tmp.path().join("src"));
    std::fs::create_dir(&src).unwrap();
    assert_eq!(super::srcdir_gone(&src, root), None);
    std::fs::remove_dir(&src).unwrap();
    assert_eq!(super::srcdir_gone(&src, root).as_deref(), Some("removed src, where the tests run"));
    std::os::unix::fs::symlink("/", &src).unwrap();
    assert_eq!(super::srcdir_gone(&src, root).as_deref(), Some("replaced src with a link"));
    std::fs::remove_file(&src).unwrap();
    std::fs::write(&src, "").unwrap();
    assert_eq!(super::srcdir_gone(&src, root).as_deref(), Some("replaced src with a file"));
}
