//! What a run writes stays its own: hostile submissions that fill the disk under their copy
//! (`disk-filler`) or their HOME and /tmp (`home-filler`) fail alone beside a well-behaved one,
//! and one that leaves work for its next run (`state-carry`) never finds it. See
//! `fixtures/hostile/README.md`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use bhgrade::build::BuildVerdict;
use bhgrade::sandbox::{LayerName, Sandbox};
use bhgrade::verdict::Verdict;

use crate::hostile::{verdicts, VICTIM};
use crate::nonroot::{marker_with_subordinate_ids, setpriv_as_root, Marker, SUBIDS_USER};
use crate::support::{bhgrade, copy_tree, repo, typed};

/// Whether this machine proves every layer in `needs`; if not, `test` is skipped (a failure
/// under `BHGRADE_NO_SKIP`) and says which is missing.
fn has_layers(test: &str, needs: &[LayerName]) -> bool {
    let probe = tempfile::tempdir().expect("tempdir");
    let layers = Sandbox::probe(&probe.path().join("probe")).map(|sb| sb.layers()).unwrap_or_default();
    match needs.iter().find(|n| !layers.iter().any(|l| l.name == **n && l.active)) {
        Some(name) => {
            crate::skip::skipped(test, format!("no {name} here (it needs root)"));
            false
        }
        None => true,
    }
}

/// `disk-filler` fills the disk under its copy, and `home-filler` its HOME and /tmp, beside
/// `correct`, on a scratch file system of 256 MiB with 64 MiB per submission: each fills only its
/// own (the first fails its build, the second writes no further than its quota); `correct` gets
/// full marks and the marking exits 0. Needs root (to mount).
#[test]
fn a_student_who_fills_the_disk_fails_alone() {
    if !has_layers("a_student_who_fills_the_disk_fails_alone", &[LayerName::DiskQuota, LayerName::PristineRuns]) {
        return;
    }
    let small = SmallDisk::mount();
    let class = small.base.path().join("class");
    for case in ["disk-filler", "home-filler"] {
        copy_tree(&repo().join("fixtures/hostile").join(case), &class.join(case));
    }
    fs::write(class.join("home-filler/src/hints.txt"), "disk_mb=64\n").expect("hints");
    copy_tree(&repo().join("fixtures/submissions").join(VICTIM), &class.join(VICTIM));
    let (output, out) = small.mark(None, &class);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let victim = report(&out, VICTIM);
    assert_eq!(victim["score"], victim["max_score"], "{stderr}");
    assert_filled_its_own_disk(&report(&out, "disk-filler"));
    let home_filler = report(&out, "home-filler");
    assert_eq!(verdicts(&home_filler)[0].1, Some(Verdict::Accepted), "{home_filler:#}");
    assert_eq!(small.unmount(), 0, "scratch left on the small file system");
}

/// The same build, `disk-filler`, beside two correct classmates on a scratch file system of
/// 256 MiB with 64 MiB each, marked as root (with a memory cgroup) and by an ordinary user
/// (`nobody`, and the user with subordinate ids CI makes; without a memory cgroup, none being
/// delegated to them here): bhgrade's own user and mount namespace gives an ordinary user's
/// submissions a tmpfs each as root's mounts do, so both classmates get full marks and the filler
/// a failed build of its own doing, stored: a second marking into the same folder redoes nothing
/// (every stored result is the same file). Needs root, `setpriv`, and the user `bhgrade-subids`.
#[test]
fn a_student_who_fills_the_disk_fails_alone_beside_two_classmates_whoever_marks() {
    let test = "a_student_who_fills_the_disk_fails_alone_beside_two_classmates_whoever_marks";
    let Some(setpriv) = setpriv_as_root(test) else { return };
    let Some(with_subids) = marker_with_subordinate_ids() else {
        return crate::skip::skipped(test, format!("needs the user {SUBIDS_USER} with subordinate ids"));
    };
    let nobody = Marker { uid: 65534, gid: 65534, subordinate: None };
    for marker in [None, Some(&nobody), Some(&with_subids)] {
        let small = SmallDisk::mount();
        let class = small.base.path().join("class");
        copy_tree(&repo().join("fixtures/hostile/disk-filler"), &class.join("disk-filler"));
        for name in [VICTIM, "classmate"] {
            copy_tree(&repo().join("fixtures/submissions").join(VICTIM), &class.join(name));
        }
        if let Some(marker) = marker {
            let owner = format!("{}:{}", marker.uid, marker.gid);
            let chown = std::process::Command::new("chown").args(["-R", &owner]).arg(small.base.path()).status();
            assert!(chown.expect("chown").success());
        }
        let who = format!("uid {}", marker.map_or(0, |m| m.uid));
        let mut stored = None;
        for marking in ["first", "second"] {
            let (output, out) = small.mark(marker.map(|m| (setpriv, m)), &class);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(0), "{who}, {marking} marking: {stderr}");
            for name in [VICTIM, "classmate"] {
                let classmate = report(&out, name);
                assert_eq!(classmate["score"], classmate["max_score"], "{who}: {name}: {stderr}");
            }
            let filler = report(&out, "disk-filler");
            assert_filled_its_own_disk(&filler);
            let layers = &filler["environment"]["isolation"];
            assert!(layers.as_array().is_some_and(|l| l.iter().any(|n| n == "disk quota")), "{who}: {layers}");
            let files = stored_files(&out);
            assert!(!files.is_empty(), "{who}: nothing stored");
            match &stored {
                None => stored = Some(files),
                Some(first) => assert_eq!(first, &files, "{who}: the second marking redid stored work"),
            }
        }
        assert_eq!(small.unmount(), 0, "{who}: scratch left on the small file system");
    }
}

/// What a build writes into its copy is memory (its disk is a tmpfs): with a build memory limit
/// of 128 MiB under a disk of 512 MiB, `disk-filler` is stopped at its memory limit as root (the
/// memory cgroup charges the pages) and as `nobody` (no memory cgroup: bhgrade counts what the
/// build added to its disk), the same verdict however it is marked. Needs root and `setpriv`.
#[test]
fn a_build_that_writes_past_its_memory_limit_into_its_copy_is_stopped_there_whoever_marks() {
    let test = "a_build_that_writes_past_its_memory_limit_into_its_copy_is_stopped_there_whoever_marks";
    let Some(setpriv) = setpriv_as_root(test) else { return };
    if !has_layers(test, &[LayerName::DiskQuota, LayerName::CgroupMemory]) {
        return;
    }
    let nobody = Marker { uid: 65534, gid: 65534, subordinate: None };
    for marker in [None, Some((setpriv, &nobody))] {
        let small = SmallDisk::mount();
        let base = small.base.path();
        copy_tree(&repo().join("fixtures/hostile/disk-filler"), &base.join("class/disk-filler"));
        copy_tree(&repo().join("fixtures/suites/hostile"), &base.join("suite"));
        let yaml = fs::read_to_string(base.join("suite/suite.yaml")).expect("suite.yaml");
        let build = "  limits: { wall_seconds: 10, output_kb: 64 }";
        assert!(yaml.contains(build), "the hostile suite's build limits changed");
        let lowered = yaml.replace(build, "  limits: { wall_seconds: 10, output_kb: 64, memory_mb: 128 }");
        fs::write(base.join("suite/suite.yaml"), lowered).expect("suite.yaml");
        let chown = std::process::Command::new("chown").args(["-R", "65534:65534"]).arg(base).status();
        assert!(chown.expect("chown").success());
        let (output, out) = small.mark_with(marker, &base.join("class"), &base.join("suite"), 512);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let filler = report(&out, "disk-filler");
        assert_eq!(typed(&filler["build"]["verdict"]), Some(BuildVerdict::BuildFailed), "{filler:#}");
        let detail = filler["build"]["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("memory limit of 128 MiB"), "as uid {:?}: {detail}", marker.map(|m| m.1.uid));
        small.unmount();
    }
}

/// A failed build that says it filled its own disk of 64 MiB.
fn assert_filled_its_own_disk(filler: &serde_json::Value) {
    assert_eq!(typed(&filler["build"]["verdict"]), Some(BuildVerdict::BuildFailed), "{filler:#}");
    let detail = filler["build"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("it filled its disk of 64 MiB"), "{detail}");
}

/// Every file of the result store in `out`, with its inode: a result redone is written anew.
fn stored_files(out: &Path) -> Vec<(std::path::PathBuf, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut files: Vec<_> = walkdir::WalkDir::new(out.join(".bhgrade-results"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && !e.file_name().to_string_lossy().starts_with(".lock"))
        .map(|e| (e.path().to_path_buf(), e.metadata().expect("stat").ino()))
        .collect();
    files.sort();
    files
}

fn report(out: &Path, name: &str) -> serde_json::Value {
    let text = fs::read_to_string(out.join(format!("students/{name}.json"))).expect("report");
    serde_json::from_str(&text).expect("JSON")
}

/// A scratch file system of 256 MiB that anyone may write (a tmpfs this test mounts), in a
/// folder anyone may pass through.
struct SmallDisk {
    base: tempfile::TempDir,
    small: std::path::PathBuf,
}

impl SmallDisk {
    fn mount() -> SmallDisk {
        let base = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(base.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        let small = base.path().join("small");
        fs::create_dir(&small).expect("mkdir");
        let target = std::ffi::CString::new(small.to_str().expect("UTF-8 path")).expect("no NUL");
        // SAFETY: NUL-terminated strings that outlive the call.
        let mounted = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                c"size=256m,mode=1777".as_ptr().cast(),
            )
        };
        assert_eq!(mounted, 0, "mount a small tmpfs: {}", std::io::Error::last_os_error());
        SmallDisk { base, small }
    }

    /// `bhgrade mark` of `class` with the hostile suite, 64 MiB each, as `marker` (else as
    /// this test's user); its output and the output folder.
    fn mark(&self, marker: Option<(&str, &Marker)>, class: &Path) -> (std::process::Output, std::path::PathBuf) {
        self.mark_with(marker, class, &repo().join("fixtures/suites/hostile"), 64)
    }

    /// `bhgrade mark` of `class` with `suite` and `disk_mb` each, as `marker` (else as this
    /// test's user).
    fn mark_with(
        &self,
        marker: Option<(&str, &Marker)>,
        class: &Path,
        suite: &Path,
        disk_mb: u64,
    ) -> (std::process::Output, std::path::PathBuf) {
        let out = self.base.path().join("out");
        let mut command = match marker {
            Some((setpriv, marker)) => {
                let mut command = std::process::Command::new(setpriv);
                command
                    .arg(format!("--reuid={}", marker.uid))
                    .arg(format!("--regid={}", marker.gid))
                    .arg("--clear-groups")
                    .arg(assert_cmd::cargo::cargo_bin("bhgrade"));
                command
            }
            None => std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade")),
        };
        command
            .args(["mark", "--jobs", "3", "--disk-mb", &disk_mb.to_string(), "--suite"])
            .arg(suite)
            .arg("--out")
            .arg(&out)
            .arg(class)
            .env("TMPDIR", &self.small)
            .env("HOME", self.base.path());
        (command.output().expect("run bhgrade mark"), out)
    }

    /// Unmount it; how many entries bhgrade left there.
    fn unmount(&self) -> usize {
        let left = fs::read_dir(&self.small).map(|d| d.count()).unwrap_or(0);
        let target = std::ffi::CString::new(self.small.to_str().expect("UTF-8 path")).expect("no NUL");
        // SAFETY: a NUL-terminated path this test mounted.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
        left
    }
}

/// `state-carry` leaves work in its working folder, HOME and /tmp for the next run, marked with
/// the hostile suite and a second test on the same layout, one run after the other: the second
/// run finds nothing (each run starts from the copy as built), so both answer `0`.
#[test]
fn a_run_never_finds_what_the_one_before_it_left() {
    if !has_layers("a_run_never_finds_what_the_one_before_it_left", &[LayerName::PristineRuns]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    let suite = tmp.path().join("suite");
    copy_tree(&repo().join("fixtures/suites/hostile"), &suite);
    // Another layout with no solution, so that `0` is right again.
    let other = repo().join("suites/cs3105-p1/instances/1-1-13-4-1.txt");
    fs::copy(other, suite.join("instances/again.txt")).expect("a second layout");
    let again = "      - id: again\n        kind: solve\n        puzzle: instances/again.txt\n";
    let yaml = fs::read_to_string(suite.join("suite.yaml")).expect("suite.yaml");
    fs::write(suite.join("suite.yaml"), format!("{}\n{again}", yaml.trim_end())).expect("a second test");
    let regen = bhgrade().args(["regen", "--suite"]).arg(&suite).timeout(Duration::from_secs(60)).output().unwrap();
    assert!(regen.status.success(), "{}", String::from_utf8_lossy(&regen.stderr));
    copy_tree(&repo().join("fixtures/hostile/state-carry"), &tmp.path().join("class/state-carry"));
    let out = tmp.path().join("out");
    let output = bhgrade()
        .args(["mark", "--jobs", "1", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .arg(tmp.path().join("class"))
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run bhgrade mark");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let text = fs::read_to_string(out.join("students/state-carry.json")).expect("report");
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let tests = &report["parts"][0]["tests"];
    assert_eq!(tests.as_array().map(Vec::len), Some(2), "{report:#}");
    for test in tests.as_array().into_iter().flatten() {
        assert_eq!(test["verdict"], "accepted", "{}: {}", test["id"], test["first_line"]);
    }
}
