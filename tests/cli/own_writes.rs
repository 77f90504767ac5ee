//! What a run writes stays its own: hostile submissions that fill the disk under their copy
//! (`disk-filler`) or their HOME and /tmp (`home-filler`) fail alone beside a well-behaved one,
//! and one that leaves work for its next run (`state-carry`) never finds it. See
//! `fixtures/hostile/README.md`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use bhgrade::build::BuildVerdict;
use bhgrade::sandbox::{LayerName, Sandbox};
use bhgrade::verdict::Verdict;

use crate::hostile::{verdicts, VICTIM};
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
    let tmp = tempfile::tempdir().expect("tempdir");
    let small = tmp.path().join("small");
    fs::create_dir(&small).expect("mkdir");
    let target = std::ffi::CString::new(small.to_str().expect("UTF-8 path")).expect("no NUL");
    // SAFETY: NUL-terminated strings that outlive the call.
    let mounted = unsafe {
        libc::mount(c"tmpfs".as_ptr(), target.as_ptr(), c"tmpfs".as_ptr(), 0, c"size=256m,mode=0755".as_ptr().cast())
    };
    assert_eq!(mounted, 0, "mount a small tmpfs: {}", std::io::Error::last_os_error());
    let class = tmp.path().join("class");
    for case in ["disk-filler", "home-filler"] {
        copy_tree(&repo().join("fixtures/hostile").join(case), &class.join(case));
    }
    fs::write(class.join("home-filler/src/hints.txt"), "disk_mb=64\n").expect("hints");
    copy_tree(&repo().join("fixtures/submissions").join(VICTIM), &class.join(VICTIM));
    let out = tmp.path().join("out");
    let output = bhgrade()
        .args(["mark", "--jobs", "2", "--disk-mb", "64", "--suite"])
        .arg(repo().join("fixtures/suites/hostile"))
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .env("TMPDIR", &small)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run bhgrade mark");
    let left = fs::read_dir(&small).map(|d| d.count()).unwrap_or(0);
    // SAFETY: a NUL-terminated path this test mounted.
    unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report = |name: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(out.join(format!("students/{name}.json"))).expect("report"))
            .expect("JSON")
    };
    let victim = report(VICTIM);
    assert_eq!(victim["score"], victim["max_score"], "{stderr}");
    let filler = report("disk-filler");
    assert_eq!(typed(&filler["build"]["verdict"]), Some(BuildVerdict::BuildFailed), "{filler:#}");
    let home_filler = report("home-filler");
    assert_eq!(verdicts(&home_filler)[0].1, Some(Verdict::Accepted), "{home_filler:#}");
    assert_eq!(left, 0, "scratch left on the small file system");
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
