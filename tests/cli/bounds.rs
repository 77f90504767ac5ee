//! Suite files are bounded: a FIFO, a device, an oversized file or a path that leaves the suite
//! folder is refused as an instance with an error naming it (never a hang or an out-of-memory
//! abort); generated instances with Windows line endings are the puzzles they are; and a solve
//! test's stored answer is confirmed without solving again, but never against its own witness.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{bhgrade, copy_tree, quick_suite, repo};

/// How long a refusal may take: far more than loading a suite needs, so a run that blocks on a
/// FIFO or reads `/dev/zero` is stopped (and fails the test) instead of hanging it.
const GUARD: Duration = Duration::from_secs(120);

/// Loads `suite` by marking an empty folder of submissions; the status and standard error.
fn load(suite: &Path) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let submissions = dir.path().join("subs");
    std::fs::create_dir(&submissions).unwrap();
    let output = bhgrade()
        .args(["mark", "--suite"])
        .arg(suite)
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg(&submissions)
        .timeout(GUARD)
        .output()
        .unwrap();
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A quick copy of the bundled suite whose `instances/empty-layout.txt` is made by `make`.
fn with_instance(make: impl FnOnce(&Path)) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = quick_suite(dir.path());
    let instance = suite.join("instances/empty-layout.txt");
    std::fs::remove_file(&instance).unwrap();
    make(&instance);
    (dir, suite)
}

fn assert_refused(suite: &Path, why: &str) {
    let (status, stderr) = load(suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("instances/empty-layout.txt") && stderr.contains(why), "{stderr}");
}

#[test]
fn a_fifo_instance_is_refused_not_waited_on() {
    let (_dir, suite) = with_instance(|path| {
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `name` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0, "mkfifo");
    });
    assert_refused(&suite, "FIFO");
}

#[test]
fn an_oversized_instance_is_refused_unread() {
    // Sparse: 17 MiB that take no disk.
    let (_dir, suite) = with_instance(|path| std::fs::File::create(path).unwrap().set_len(17 << 20).unwrap());
    assert_refused(&suite, "more than 16 MiB");
}

#[test]
fn a_symlink_out_of_the_suite_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("puzzle.txt");
    std::fs::copy(repo().join("suites/cs3105-p1/instances/empty-layout.txt"), &target).unwrap();
    let (_dir, suite) = with_instance(|path| std::os::unix::fs::symlink(&target, path).unwrap());
    assert_refused(&suite, "outside the suite folder");
    // `/dev/zero` is outside any suite: refused before a byte is read.
    let (_dir, suite) = with_instance(|path| std::os::unix::fs::symlink("/dev/zero", path).unwrap());
    assert_refused(&suite, "outside the suite folder");
    // A symlink that stays inside is followed.
    let (_dir, suite) =
        with_instance(|path| std::os::unix::fs::symlink("../instances/hole-not-ace.txt", path).unwrap());
    let (status, stderr) = load(&suite);
    assert!(!stderr.contains("outside the suite folder") && !stderr.contains("cannot read"), "{status} {stderr}");
}

/// A copy of the bundled suite with `instance` given Windows line endings.
fn crlf_copy(instance: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    copy_tree(&repo().join("suites/cs3105-p1"), &suite);
    let path = suite.join(instance);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains('\r'));
    std::fs::write(&path, text.replace('\n', "\r\n")).unwrap();
    (dir, suite)
}

#[test]
fn a_generated_instance_with_windows_line_endings_is_the_same_puzzle() {
    let (_dir, suite) = crlf_copy("instances/1-51-13-4-17.txt");
    let output = bhgrade().args(["regen", "--check", "--suite"]).arg(&suite).timeout(GUARD).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stderr.contains("another puzzle") && !stdout.contains("another puzzle"), "{stdout}{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    let (status, stderr) = load(&suite);
    assert!(!stderr.contains("changed since") && !stderr.contains("another puzzle"), "{status} {stderr}");
}

/// A copy of the bundled suite regenerated (so its solve tests store their solutions).
fn regenerated() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    copy_tree(&repo().join("suites/cs3105-p1"), &suite);
    let output = bhgrade().args(["regen", "--suite"]).arg(&suite).timeout(GUARD).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    (dir, suite)
}

#[test]
fn stored_solve_answers_are_confirmed_by_their_witness() {
    let (_dir, suite) = regenerated();
    let path = suite.join("expected.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let tests = json["tests"].as_object().unwrap();
    // Solve tests store their kind and the reference's detail; check tests neither.
    let (id, _) = tests
        .iter()
        .find(|(_, t)| t["answer"] == "1" && t["kind"] == "solve" && t["detail"].as_str().unwrap().starts_with("1 "))
        .expect("a solvable solve test, its solution stored");
    assert!(tests
        .values()
        .filter(|t| t["answer"] == "true" || t["answer"] == "false")
        .all(|t| t.get("detail").is_none()));
    let (status, stderr) = load(&suite);
    assert!(!stderr.contains("disagrees") && !stderr.contains("regen"), "{status} {stderr}");
    // A solvable test's answer made `0` beside its own witness: the reference decides.
    let mut tampered = json.clone();
    tampered["tests"][id]["answer"] = "0".into();
    std::fs::write(&path, tampered.to_string()).unwrap();
    let (status, stderr) = load(&suite);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains(id.as_str()) && stderr.contains("disagrees"), "{stderr}");
    // A witness that does not replay is not trusted either: the reference confirms the answer.
    let mut broken = json.clone();
    broken["tests"][id]["detail"] = "1 0 1".into();
    std::fs::write(&path, broken.to_string()).unwrap();
    let (status, stderr) = load(&suite);
    assert!(!stderr.contains("disagrees"), "{status} {stderr}");
}
