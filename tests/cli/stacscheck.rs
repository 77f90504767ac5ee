//! stacscheck trees run unchanged: the fixture tree's build, test, info and prog scripts (an
//! ancestor build, a `.in` read through `/dev/stdin`, a timeout) get stacscheck's results, with
//! bhgrade's verdicts, limits and reports.

use std::collections::BTreeMap;
use std::path::Path;

use bhgrade::verdict::Verdict;

use crate::support::{self, bhgrade, copy_tree, repo};

fn verdicts(out: &Path, student: &str) -> BTreeMap<String, Verdict> {
    let text = std::fs::read_to_string(out.join(format!("students/{student}.json"))).unwrap();
    support::verdicts(&serde_json::from_str(&text).unwrap())
}

#[test]
fn the_whole_tree_passes_the_correct_submission_but_for_the_timeout() {
    let out = tempfile::tempdir().unwrap();
    let output = bhgrade()
        .arg("stacscheck")
        .arg(repo().join("fixtures/stacscheck/Tests"))
        .arg(repo().join("fixtures/submissions/correct"))
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let report = std::fs::read_to_string(out.path().join("students/correct.md")).unwrap_or_default();
    assert_eq!(output.status.code(), Some(1), "{}\n{report}", String::from_utf8_lossy(&output.stderr));
    let got = verdicts(out.path(), "correct");
    let expected: BTreeMap<String, Verdict> = [
        ("build-all", Verdict::Accepted),
        ("Part1/prog-check-01Solved", Verdict::Accepted),
        ("Part1/prog-check-02Illegal", Verdict::Accepted),
        ("Part2/build-extra", Verdict::Accepted),
        ("Part2/test-solve-check", Verdict::Accepted),
        ("Part2/info-files", Verdict::Accepted),
        ("Part2/prog-solve-01Solvable", Verdict::Accepted),
        ("Part2/prog-solve-02Unsolvable", Verdict::Accepted),
        ("Part2/Slow/prog-slow-01Sleep", Verdict::TimeLimit),
    ]
    .into_iter()
    .map(|(id, verdict)| (id.to_string(), verdict))
    .collect();
    assert_eq!(got, expected);
    let markdown = std::fs::read_to_string(out.path().join("students/correct.md")).unwrap();
    assert!(markdown.contains("wall-clock time ran out"), "{markdown}");
    assert!(
        markdown.contains("with `TREE` set to the test tree's folder") && !markdown.contains("`SUITE`"),
        "{markdown}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("export TREE="), "{stdout}");
    // Every step's line to run it again names its script and input in the tree, never a
    // scratch file of the marking's.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("students/correct.json")).unwrap()).unwrap();
    for test in json["parts"].as_array().unwrap().iter().flat_map(|part| part["tests"].as_array().unwrap()) {
        let reproduce = test["reproduce"].as_str().unwrap();
        assert!(reproduce.contains("bash \"$TREE\"/") && !reproduce.contains("/tmp"), "{reproduce}");
        for path in reproduce.split("\"$TREE\"/").skip(1).map(|rest| rest.split([' ', '\'']).next().unwrap()) {
            assert!(repo().join("fixtures/stacscheck/Tests").join(path).exists(), "{path} in {reproduce}");
        }
    }
}

#[test]
fn a_class_marked_against_one_part_fails_exactly_the_buggy_checker() {
    let dir = tempfile::tempdir().unwrap();
    let members = [
        ("good", "submissions/correct"),
        ("trusting", "submissions/check-always-true"),
        ("broken", "submissions/does-not-compile"),
    ];
    let class = support::class_of(dir.path(), &members);
    let out = dir.path().join("out");
    let output = bhgrade()
        .args(["mark", "--jobs", "2", "--stacscheck"])
        .arg(repo().join("fixtures/stacscheck/Tests/Part1"))
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let all = |verdict: Verdict| -> BTreeMap<String, Verdict> {
        ["build-all", "Part1/prog-check-01Solved", "Part1/prog-check-02Illegal"]
            .into_iter()
            .map(|id| (id.to_string(), verdict))
            .collect()
    };
    assert_eq!(verdicts(&out, "good"), all(Verdict::Accepted));
    let mut trusting = all(Verdict::Accepted);
    trusting.insert("Part1/prog-check-02Illegal".into(), Verdict::WrongAnswer);
    assert_eq!(verdicts(&out, "trusting"), trusting);
    let mut broken = all(Verdict::NotRun);
    broken.insert("build-all".into(), Verdict::WrongAnswer);
    assert_eq!(verdicts(&out, "broken"), broken);
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    assert_eq!(
        grades,
        "student,root,Part1,total\nbroken,0.00,0.00,0.00\ngood,1.00,2.00,3.00\ntrusting,1.00,1.00,2.00\n"
    );
}

/// A tree of one folder holding `scripts` (name, body) and the fixture's configuration.
fn small_tree(dir: &Path, scripts: &[(&str, &str)]) -> std::path::PathBuf {
    let tree = dir.join("Tests");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::copy(repo().join("fixtures/stacscheck/Tests/practical.config"), tree.join("practical.config")).unwrap();
    for (name, body) in scripts {
        std::fs::write(tree.join(name), body).unwrap();
    }
    tree
}

#[test]
fn a_step_killed_by_a_signal_is_a_runtime_error_not_a_wrong_answer() {
    let dir = tempfile::tempdir().unwrap();
    let tree = small_tree(dir.path(), &[("test-crash.sh", "kill -SEGV $$\n"), ("test-fails.sh", "exit 1\n")]);
    let out = dir.path().join("out");
    let output = bhgrade()
        .arg("stacscheck")
        .arg(&tree)
        .arg(repo().join("fixtures/submissions/correct"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let got = verdicts(&out, "correct");
    assert_eq!(got["test-crash"], Verdict::RuntimeError);
    assert_eq!(got["test-fails"], Verdict::WrongAnswer);
}

#[test]
fn marking_a_tree_again_into_the_same_folder_reuses_every_stored_result() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    copy_tree(&repo().join("fixtures/submissions/correct"), &class.join("good"));
    copy_tree(&repo().join("fixtures/submissions/does-not-compile"), &class.join("broken"));
    let out = dir.path().join("out");
    let mark = || {
        bhgrade()
            .args(["mark", "--jobs", "2", "--stacscheck"])
            .arg(repo().join("fixtures/stacscheck/Tests/Part1"))
            .arg("--out")
            .arg(&out)
            .arg(&class)
            .output()
            .unwrap()
    };
    let first = mark();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let first_grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    let second = mark();
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    let text = String::from_utf8_lossy(&second.stderr);
    // The good submission's build and two progs; the broken one's failed build (its progs
    // are skipped, not run, so nothing of theirs is stored).
    assert!(text.lines().any(|l| l.starts_with("good:") && l.contains("[3 stored results reused]")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("broken:") && l.contains("[1 stored result reused]")), "{text}");
    assert_eq!(std::fs::read_to_string(out.join("grades.csv")).unwrap(), first_grades);
}

/// The sandbox failing (here: no file descriptors left for a run's pipes) is the harness's
/// problem: exit status 3, as for `mark` and `test`, never a student's fail.
#[test]
fn a_sandbox_that_fails_makes_stacscheck_exit_3() {
    use std::os::unix::process::CommandExt;
    let bin = assert_cmd::cargo::cargo_bin("bhgrade");
    let mut command = std::process::Command::new(bin);
    command
        .args(["stacscheck", "--jobs", "1"])
        .arg(repo().join("fixtures/stacscheck/Tests/Part1"))
        .arg(repo().join("fixtures/submissions/correct"));
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 10, rlim_max: 10 };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("could not"), "{stderr}");
}

/// A student's step cannot forge the steps after it: `tree-swap`'s build writes over the tree's
/// scripts and renames the tree away (the one copy is the harness's, out of its reach), and
/// `src-link`'s replaces its `src/` with a link to `/` (later steps are not started, and say
/// why, rather than being given read access to wherever the link leads). A step that no program
/// can pass still fails, and the marking is the students' doing, never the harness's (exit 1).
#[test]
fn no_step_can_forge_the_tree_or_leave_the_copy_for_the_steps_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let tree = small_tree(
        dir.path(),
        &[("build-all.sh", "bash build.sh\n"), ("test-impossible.sh", "exit 1\n"), ("test-fine.sh", "exit 0\n")],
    );
    let class = dir.path().join("class");
    for case in ["tree-swap", "src-link"] {
        copy_tree(&repo().join("fixtures/hostile").join(case), &class.join(case));
    }
    let out = dir.path().join("out");
    let output = bhgrade()
        .args(["mark", "--jobs", "2", "--stacscheck"])
        .arg(&tree)
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let swap = verdicts(&out, "tree-swap");
    assert_eq!(swap["build-all"], Verdict::Accepted, "{swap:?}");
    assert_eq!(swap["test-impossible"], Verdict::WrongAnswer, "the tree was forged: {swap:?}");
    assert_eq!(swap["test-fine"], Verdict::Accepted, "{swap:?}");
    let link = verdicts(&out, "src-link");
    // Not started: a test step fails as one that exits non-zero does.
    assert_eq!(link["test-impossible"], Verdict::WrongAnswer, "{link:?}");
    assert_eq!(link["test-fine"], Verdict::WrongAnswer, "a step ran through the link: {link:?}");
    let report = std::fs::read_to_string(out.join("students/src-link.md")).unwrap();
    assert!(report.contains("is a link out of the submission's copy"), "{report}");
    assert!(!tree.join("test-impossible.sh.real").exists() && tree.join("test-impossible.sh").exists());
}
