//! Merging and reusing an output folder without mixing or forging grades: shards of different
//! suite versions and shards missing a listed report are refused, students a shard did not mark
//! carry over, stored results edited by hand are redone, a second marking into a folder in use
//! is refused, and reports of an earlier class are moved aside.

use std::os::fd::AsRawFd;
use std::path::Path;

use crate::scale::{class, mark};
use crate::support::{bhgrade, copy_tree, repo};

fn merge(dirs: &[&Path], out: &Path) -> std::process::Output {
    bhgrade().arg("merge").args(dirs).arg("--out").arg(out).output().unwrap()
}

#[test]
fn merge_refuses_another_version_of_the_suite_and_a_missing_report() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    mark(&class, &one, &["--shard", "1/2"]);
    // The same suite, one part reweighted: its answers are the same, its marks are not.
    let suite = dir.path().join("tiny");
    copy_tree(&repo().join("fixtures/suites/tiny"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    std::fs::write(suite.join("suite.yaml"), yaml.replacen("weight: 1", "weight: 5", 1)).unwrap();
    let output = bhgrade()
        .args(["mark", "--jobs", "2", "--shard", "2/2", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&two)
        .arg(&class)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let refused = merge(&[&one, &two], &dir.path().join("all"));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("different version of suite `tiny`"), "{stderr}");

    std::fs::remove_file(one.join("students/alice.json")).unwrap();
    let refused = merge(&[&one], &dir.path().join("all"));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("alice is listed in class.json but its report alice.json is missing"), "{stderr}");
}

#[test]
fn students_a_shard_did_not_mark_carry_over_and_fail_the_merge() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("shard");
    mark(&class, &out, &[]);
    // As an interrupted marking leaves it: bob listed as not marked, no report of his.
    let roster_path = out.join("class.json");
    let mut roster: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&roster_path).unwrap()).unwrap();
    roster["students"] = serde_json::json!(["alice", "carol"]);
    roster["incomplete"] = serde_json::json!([{ "student": "bob" }]);
    std::fs::write(&roster_path, roster.to_string()).unwrap();
    std::fs::remove_file(out.join("students/bob.json")).unwrap();
    let all = dir.path().join("all");
    let output = merge(&[&out], &all);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not marked in their shard (interrupted): bob"), "{stderr}");
    let summary = std::fs::read_to_string(all.join("summary.md")).unwrap();
    assert!(summary.contains("Not marked") && summary.contains("- bob"), "{summary}");
    let grades = std::fs::read_to_string(all.join("grades.csv")).unwrap();
    assert!(grades.lines().any(|row| row.starts_with("bob,") && row.ends_with(",not marked")), "{grades}");
}

#[test]
fn a_stored_result_edited_by_hand_is_redone_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    mark(&class, &out, &[]);
    let before = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    // Every stored run of the class says it hit the wall-clock limit: still valid JSON.
    let mut edited = 0;
    for entry in walkdir::WalkDir::new(out.join(".bhgrade-results")) {
        let entry = entry.unwrap();
        if entry.path().to_string_lossy().ends_with(".run.json") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let forged = text.replace("\"wall_limit_hit\":false", "\"wall_limit_hit\":true");
            assert_ne!(text, forged);
            std::fs::write(entry.path(), forged).unwrap();
            edited += 1;
        }
    }
    assert!(edited > 0);
    mark(&class, &out, &[]);
    assert_eq!(std::fs::read_to_string(out.join("grades.csv")).unwrap(), before, "the forged results were not used");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Stored results not trusted, so redone"), "{summary}");
    assert_eq!(summary.matches(".run.json`").count(), edited, "{summary}");
}

#[test]
fn a_second_marking_into_a_folder_in_use_is_refused_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    let store = out.join(".bhgrade-results");
    std::fs::create_dir_all(&store).unwrap();
    // This test process holds the lock, as a running marking would.
    let lock = std::fs::File::create(store.join("lock")).unwrap();
    std::fs::write(store.join("lock"), "bhgrade pid 4242 on lab-pc since 2026-11-23T10:00:00Z").unwrap();
    // SAFETY: flock on a file this test owns.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    let output = bhgrade()
        .args(["mark", "--suite"])
        .arg(repo().join("fixtures/suites/tiny"))
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in use by another marking (bhgrade pid 4242 on lab-pc"), "{stderr}");
    assert!(!out.join("summary.md").exists());
    drop(lock);
    mark(&class, &out, &[]);
}

#[test]
fn reports_of_students_no_longer_marked_are_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    mark(&class, &out, &[]);
    std::fs::remove_dir_all(class.join("carol")).unwrap();
    let again = mark(&class, &out, &[]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("carol was marked into"), "{stderr}");
    assert!(!out.join("students/carol.json").exists() && out.join("stale/students/carol.json").exists());
    let all = dir.path().join("all");
    let merged = merge(&[&out], &all);
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let grades = std::fs::read_to_string(all.join("grades.csv")).unwrap();
    assert!(!grades.contains("carol"), "{grades}");
}
