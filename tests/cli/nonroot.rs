//! Marking as an ordinary user: no cgroup can be made, so the memory limit is the run's
//! measured resident memory, and PID and network namespaces come from an unprivileged user
//! namespace. The correct fixture must get full marks all the same. Needs root (to become
//! `nobody`) and `setpriv`; skipped with a printed reason elsewhere.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{copy_tree, repo};

#[test]
fn nobody_gets_the_right_verdicts() {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].into_iter().find(|p| Path::new(p).exists());
    // SAFETY: geteuid cannot fail.
    let (Some(setpriv), true) = (setpriv, unsafe { libc::geteuid() } == 0) else {
        println!("skipped: nobody_gets_the_right_verdicts: needs root (to become nobody) and setpriv");
        return;
    };
    let bhgrade = assert_cmd::cargo::cargo_bin("bhgrade");
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path();
    fs::set_permissions(base, fs::Permissions::from_mode(0o755)).expect("chmod");
    let can_run = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bhgrade)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !can_run {
        println!("skipped: nobody_gets_the_right_verdicts: nobody cannot run {}", bhgrade.display());
        return;
    }
    copy_tree(&repo().join("fixtures/suites/tiny"), &base.join("suite"));
    copy_tree(&repo().join("fixtures/submissions/correct"), &base.join("correct"));
    // Below what a JVM commits up front (an initial heap of a sixty-fourth of the machine's
    // memory, a stack per thread: what a data-segment limit counted, so the JVM could not start
    // a thread, or start at all), far above what the correct solver uses (some 40 MiB).
    let yaml = fs::read_to_string(base.join("suite/suite.yaml")).expect("read suite");
    let lowered = yaml.replace("memory_mb: 512", "memory_mb: 256");
    assert_ne!(yaml, lowered, "the tiny suite sets memory_mb: 512");
    fs::write(base.join("suite/suite.yaml"), lowered).expect("write suite");
    let chown = std::process::Command::new("chown").args(["-R", "65534:65534"]).arg(base).status().expect("chown");
    assert!(chown.success());

    let output = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bhgrade)
        .args(["test", "--all", "--suite"])
        .arg(base.join("suite"))
        .arg("--out")
        .arg(base.join("out"))
        .arg(base.join("correct"))
        .env("HOME", base)
        .env("TMPDIR", base)
        .output()
        .expect("run bhgrade as nobody");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let all = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(output.status.code(), Some(0), "{all}");
    assert!(stdout.contains("**Score: 2.00 / 2.00**"), "{all}");
    assert!(!stdout.contains("memory limit") && !stdout.contains("memory_limit"), "{all}");
    assert!(!stdout.contains("unable to create native thread"), "{all}");
    // It says how memory is limited without a cgroup.
    if stderr.contains("`cgroup memory` unavailable") {
        assert!(stderr.contains("resident memory"), "{all}");
    }
}
