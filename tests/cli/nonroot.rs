//! Marking as an ordinary user: no cgroup can be made, so the memory limit is the run's
//! measured resident memory, and PID and network namespaces come from an unprivileged user
//! namespace. The correct fixture must get full marks all the same. Needs root (to become
//! `nobody`) and `setpriv`; skipped with a printed reason elsewhere.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{copy_tree, repo};

/// `setpriv`, when this test runs as root and can become `nobody` with it; else says why not.
pub(crate) fn setpriv_as_root(test: &str) -> Option<&'static str> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].into_iter().find(|p| Path::new(p).exists());
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if setpriv.is_none() || !root {
        crate::skip::skipped(test, "needs root (to become nobody) and setpriv");
        return None;
    }
    setpriv
}

/// A fresh folder anyone may pass through.
fn open_folder() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    tmp
}

#[test]
fn nobody_gets_the_right_verdicts() {
    let Some(setpriv) = setpriv_as_root("nobody_gets_the_right_verdicts") else { return };
    let bhgrade = assert_cmd::cargo::cargo_bin("bhgrade");
    let tmp = open_folder();
    let base = tmp.path();
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

/// An ordinary user to mark as: `nobody`, or one with subordinate ids of its own.
pub(crate) struct Marker {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    /// Its subordinate uids (first, count), if `/etc/subuid` gives it some.
    pub(crate) subordinate: Option<(u32, u32)>,
}

/// The user CI makes with subordinate ids (`.ci/run`): `bhgrade-subids`, with its first range.
pub(crate) const SUBIDS_USER: &str = "bhgrade-subids";

pub(crate) fn marker_with_subordinate_ids() -> Option<Marker> {
    let line = fs::read_to_string("/etc/passwd")
        .ok()?
        .lines()
        .find(|l| l.starts_with(&format!("{SUBIDS_USER}:")))?
        .to_string();
    let mut fields = line.split(':').skip(2);
    let (uid, gid) = (fields.next()?.parse().ok()?, fields.next()?.parse().ok()?);
    let range = |file: &str| -> Option<(u32, u32)> {
        let text = fs::read_to_string(file).ok()?;
        let line = text.lines().find(|l| l.starts_with(&format!("{SUBIDS_USER}:")))?;
        let mut f = line.split(':').skip(1);
        Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
    };
    range("/etc/subgid")?;
    Some(Marker { uid, gid, subordinate: Some(range("/etc/subuid")?) })
}

/// The containment layers hold for an ordinary user's marking too (as `nobody`, through
/// `setpriv`): `terminal-inject`, `keyring-read` (with a key of the marker's own in the session
/// keyring bhgrade starts in) and `ipc-exchange` (with another user's segment to find) answer
/// `0`, every attempt refused, beside `correct`; no SysV object outlives the marking. So do the
/// cases only a root of the run's own stops (`unix-socket`, `host-metadata`, `host-view`) and
/// `home-filler` (its HOME and /tmp in a tmpfs of the run's own, 64 MiB here): the box is built
/// inside the user namespace, and every report says so. Without a memory cgroup (none is
/// delegated here), memory no process maps ends as root's cgroup ends it: `memfd-hoard` at the
/// memory limit, and `shm-hoard` refused its segment, answering `0`. `nobody` has no subordinate
/// ids, so its runs are its own uid (no `own identity`). Needs root (to become `nobody`),
/// `setpriv` and perl.
#[test]
fn nobody_marking_keeps_the_hostile_cases_from_the_terminal_keys_and_ipc() {
    let test = "nobody_marking_keeps_the_hostile_cases_from_the_terminal_keys_and_ipc";
    let Some(setpriv) = setpriv_as_root(test) else { return };
    mark_hostile_cases_as(setpriv, &Marker { uid: 65534, gid: 65534, subordinate: None });
}

/// The same marking by an ordinary user with subordinate ids (`/etc/subuid`, `/etc/subgid`,
/// `newuidmap`, `newgidmap`): every submission runs as an id of its own lent from them (every
/// report lists `own identity`; a build that prints its ids is `student`, one of 60000-60999
/// inside, not the marker), and nothing any of them made is left on the machine under their ids (the
/// copies are given back to the marker and removed). Needs root, `setpriv`, perl and the user
/// `bhgrade-subids` with subordinate ids, which `.ci/run` makes.
#[test]
fn a_marker_with_subordinate_ids_lends_each_submission_one_of_them() {
    let test = "a_marker_with_subordinate_ids_lends_each_submission_one_of_them";
    let Some(setpriv) = setpriv_as_root(test) else { return };
    let helpers = ["/usr/bin/newuidmap", "/usr/bin/newgidmap"].iter().all(|p| Path::new(p).exists());
    let Some(marker) = marker_with_subordinate_ids().filter(|_| helpers) else {
        return crate::skip::skipped(test, format!("needs the user {SUBIDS_USER} with subordinate ids, and newuidmap"));
    };
    mark_hostile_cases_as(setpriv, &marker);
}

fn mark_hostile_cases_as(setpriv: &str, marker: &Marker) {
    let bhgrade = assert_cmd::cargo::cargo_bin("bhgrade");
    let tmp = open_folder();
    let base = tmp.path();
    copy_tree(&repo().join("fixtures/suites/hostile"), &base.join("suite"));
    let cases = [
        "terminal-inject",
        "keyring-read",
        "ipc-exchange",
        "unix-socket",
        "host-metadata",
        "host-view",
        "home-filler",
        "memfd-hoard",
        "shm-hoard",
    ];
    for case in cases {
        copy_tree(&repo().join("fixtures/hostile").join(case), &base.join("class").join(case));
    }
    fs::write(base.join("class/home-filler/src/hints.txt"), "disk_mb=64\n").expect("hints");
    copy_tree(&repo().join("fixtures/submissions/correct"), &base.join("class/correct"));
    // A build that shows who it runs as, in its report's log.
    copy_tree(&repo().join("fixtures/submissions/correct"), &base.join("class/whoami"));
    fs::write(base.join("class/whoami/src/build.sh"), "#!/bin/sh\nid\nexit 1\n").expect("build.sh");
    let owner = format!("{}:{}", marker.uid, marker.gid);
    let chown = std::process::Command::new("chown").args(["-R", &owner]).arg(base).status().expect("chown");
    assert!(chown.success());
    let segment = crate::hostile::MarkerSegment::create();
    let ipc_before = crate::hostile::sysv_objects();
    // The marker's own key, in the session keyring bhgrade starts in.
    let with_a_key = "require 'syscall.ph'; syscall(&SYS_keyctl, 1, 0); my ($t, $d, $p) = ('user', 'marker-token', \
                      'secret'); syscall(&SYS_add_key, $t, $d, $p, 6, -3) > 0 or die \"add_key: $!\"; exec @ARGV";
    let output = std::process::Command::new(setpriv)
        .arg(format!("--reuid={}", marker.uid))
        .arg(format!("--regid={}", marker.gid))
        .args(["--clear-groups", "perl", "-e", with_a_key])
        .arg(&bhgrade)
        .args(["mark", "--jobs", "2", "--disk-mb", "64", "--suite"])
        .arg(base.join("suite"))
        .arg("--out")
        .arg(base.join("out"))
        .arg(base.join("class"))
        .env("HOME", base)
        .env("TMPDIR", base)
        .output()
        .expect("run bhgrade as an ordinary user");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let own_identity = marker.subordinate.is_some();
    for case in cases.iter().chain(&["correct"]) {
        let text = fs::read_to_string(base.join(format!("out/students/{case}.json"))).expect("a report");
        let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let test = &report["parts"][0]["tests"][0];
        // Memory no process maps, counted without a memory cgroup as a cgroup charges it.
        let expected = if *case == "memfd-hoard" { "memory_limit" } else { "accepted" };
        assert_eq!(test["verdict"], expected, "{case}: {}\n{stderr}", test["first_line"]);
        let layers = &report["environment"]["isolation"];
        let has = |layer: &str| layers.as_array().is_some_and(|l| l.iter().any(|n| n == layer));
        for layer in ["own root", "pristine runs"] {
            assert!(has(layer), "{case}: no {layer}: {layers}");
        }
        assert_eq!(has("own identity"), own_identity, "{case}: {layers}");
    }
    let whoami = fs::read_to_string(base.join("out/students/whoami.md")).expect("whoami's report");
    // `id` prints `uid=N(name) gid=N(name) ...`.
    let uid = whoami.split("uid=").nth(1).and_then(|rest| rest.split('(').next()).and_then(|n| n.parse::<u32>().ok());
    if own_identity {
        let lent = uid.filter(|uid| (60000..61000).contains(uid)).expect("a lent id in the build's log");
        assert!(whoami.contains(&format!("uid={lent}(student) gid={lent}(student)")), "{whoami}");
    } else {
        assert_eq!(uid, Some(marker.uid), "the build ran as someone else:\n{whoami}");
    }
    if let Some((first, count)) = marker.subordinate {
        let left = walkdir::WalkDir::new(base)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| {
                e.metadata().is_ok_and(|m| (first..first + count).contains(&std::os::unix::fs::MetadataExt::uid(&m)))
            })
            .map(|e| e.path().display().to_string())
            .collect::<Vec<_>>();
        assert!(left.is_empty(), "left under subordinate ids: {left:?}");
    }
    assert_eq!(crate::hostile::sysv_objects(), ipc_before, "a SysV object outlived the marking");
    assert_eq!(segment.read(), crate::hostile::MarkerSegment::SECRET);
}
