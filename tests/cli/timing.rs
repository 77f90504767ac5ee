//! Fair time verdicts: a grade does not depend on what else the machine was doing, and a limit
//! is a ceiling, not a change of conditions.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Stdio};

use crate::support::{bhgrade, copy_tree, repo};

/// A class of three with a time-out: two good submissions and one that spins on the timing
/// suite's empty layout until its CPU limit.
fn class(dir: &Path) -> std::path::PathBuf {
    let class = dir.join("class");
    for (name, fixture) in [("alice", "correct"), ("bob", "never-ends"), ("carol", "always-gives-up")] {
        copy_tree(&repo().join("fixtures/submissions").join(fixture), &class.join(name));
    }
    class
}

/// Every student's verdict per test and total, from the JSON reports.
fn grades(out: &Path) -> BTreeMap<String, (String, Vec<(String, String)>)> {
    let mut grades = BTreeMap::new();
    for student in ["alice", "bob", "carol"] {
        let text = std::fs::read_to_string(out.join(format!("students/{student}.json"))).expect("a report");
        let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let verdicts = report["parts"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|part| part["tests"].as_array().unwrap())
            .map(|test| (test["id"].as_str().unwrap().to_string(), test["verdict"].as_str().unwrap().to_string()))
            .collect();
        grades.insert(student.to_string(), (report["score"].to_string(), verdicts));
    }
    grades
}

fn mark(class: &Path, out: &Path) {
    let output = bhgrade()
        .args(["mark", "--suite"])
        .arg(repo().join("fixtures/suites/timing"))
        .arg("--out")
        .arg(out)
        .arg(class)
        .output()
        .expect("run bhgrade");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// One busy-looping process per core, killed when dropped.
struct Load(Vec<Child>);

impl Load {
    fn one_per_core() -> Load {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let spin = |_| {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdout(Stdio::null())
                .spawn()
                .expect("start a busy loop")
        };
        Load((0..cores).map(spin).collect())
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn a_busy_machine_gives_the_same_verdicts_and_scores() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let quiet = dir.path().join("quiet");
    mark(&class, &quiet);
    let busy = dir.path().join("busy");
    {
        let _load = Load::one_per_core();
        mark(&class, &busy);
    }
    let (quiet, busy) = (grades(&quiet), grades(&busy));
    assert_eq!(quiet, busy, "verdicts and scores marked on a quiet machine, then beside a busy loop per core");
    let bob = &quiet["bob"].1;
    assert!(bob.contains(&("solve/empty-layout".to_string(), "time_limit".to_string())), "{bob:?}");
}

#[test]
fn a_time_limit_names_the_clock_that_ran_out_and_shows_both_figures() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let out = dir.path().join("out");
    mark(&class, &out);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("students/bob.json")).unwrap()).unwrap();
    let test = report["parts"][1]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "solve/empty-layout")
        .expect("the empty-layout test")
        .clone();
    let explanation = test["explanation"].as_str().unwrap();
    assert!(explanation.starts_with("CPU time ran out"), "{explanation}");
    assert!(explanation.contains("wall-clock"), "{explanation}");
    assert!(test["cpu_ms"].as_u64().unwrap() >= 2000, "{test}");
    assert_eq!(test["time_runs"].as_array().unwrap().len(), 1, "killed past the margin: run once, {test}");
    let markdown = std::fs::read_to_string(out.join("students/bob.md")).unwrap();
    assert!(markdown.contains("| CPU time | Wall time |"), "{markdown}");
    assert!(
        markdown.contains("JDK_JAVA_OPTIONS=-XX:-UseContainerSupport"),
        "the report states the JVM settings: {markdown}"
    );
}

/// CPU time (user + system) of a command run unsandboxed, from the shell's `times`.
fn bare_cpu_seconds(dir: &Path, command: &str) -> f64 {
    let script = format!("{command} >/dev/null 2>&1; times");
    let output = std::process::Command::new("bash").args(["-c", &script]).current_dir(dir).output().expect("bash");
    let text = String::from_utf8_lossy(&output.stdout);
    // `times` prints the shell's then its children's user and system times: `0m1.234s 0m0.100s`.
    let children = text.lines().nth(1).expect("children's times");
    children
        .split_whitespace()
        .map(|field| {
            let (minutes, seconds) = field.trim_end_matches('s').split_once('m').expect("NmS.SSSs");
            minutes.parse::<f64>().unwrap() * 60.0 + seconds.parse::<f64>().unwrap()
        })
        .sum()
}

#[test]
fn a_memory_hungry_program_runs_within_a_small_factor_of_its_unsandboxed_time() {
    let dir = tempfile::tempdir().unwrap();
    // One SOLVE test with exactly the bundled suite's launch settings and limits.
    let bundled = std::fs::read_to_string(repo().join("suites/cs3105-p1/suite.yaml")).unwrap();
    let header = &bundled[..bundled.find("gave_up_credit:").expect("the bundled suite's header ends there")];
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(suite.join("instances")).unwrap();
    std::fs::copy(repo().join("suites/cs3105-p1/instances/1-51-13-4-17.txt"), suite.join("instances/1-51-13-4-17.txt"))
        .unwrap();
    let parts = "parts:\n  - id: solve\n    weight: 1\n    tests:\n      - id: standard\n        kind: solve\n        puzzle: instances/1-51-13-4-17.txt\n";
    std::fs::write(suite.join("suite.yaml"), format!("{header}{parts}")).unwrap();
    bhgrade().args(["regen", "--suite"]).arg(&suite).assert().success();

    let submission = repo().join("fixtures/timing/memory-hungry");
    let output = bhgrade()
        .args(["test", "--all", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg(&submission)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/students/memory-hungry.json")).unwrap())
            .unwrap();
    let sandboxed = report["parts"][0]["tests"][0]["cpu_ms"].as_u64().unwrap() as f64 / 1000.0;

    let built = dir.path().join("built");
    copy_tree(&submission, &built);
    let src = built.join("src");
    let status = std::process::Command::new("bash").arg("build.sh").current_dir(&src).status().unwrap();
    assert!(status.success());
    let puzzle = repo().join("suites/cs3105-p1/instances/1-51-13-4-17.txt");
    let bare = bare_cpu_seconds(&src, &format!("java BHMain SOLVE {}", puzzle.display()));
    assert!(
        sandboxed <= 3.0 * bare + 1.0,
        "sandboxed {sandboxed:.2} s of CPU against {bare:.2} s unsandboxed: the limits changed the conditions"
    );
}

/// The time `bhgrade` itself spends stopped (Ctrl-Z, SIGSTOP, a suspended laptop) is nobody's
/// to watch and not the run's: a program that waits 1.5 s under a 3 s wall limit, while bhgrade
/// is stopped for 3 s in the middle of it, is still accepted, and its wall time is its own.
#[test]
fn time_while_bhgrade_itself_was_stopped_is_not_charged_to_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tag = format!("bhgrade-paused-{}", std::process::id());
    let src = dir.path().join("class/waits/src");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(src.join("build.sh"), "javac -J-XX:TieredStopAtLevel=1 BHMain.java\n").expect("build.sh");
    let program = format!(
        "public class BHMain {{ public static void main(String[] a) throws Exception {{ \
         Process p = new ProcessBuilder(\"sleep\", \"1.5\").start(); \
         new ProcessBuilder(\"sh\", \"-c\", \"sleep 9; :\", \"{tag}\").start(); \
         p.waitFor(); System.out.println(\"0\"); }} }}\n"
    );
    std::fs::write(src.join("BHMain.java"), program).expect("BHMain.java");
    let out = dir.path().join("out");
    let mut marking = std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade"))
        .args(["mark", "--jobs", "1", "--suite"])
        .arg(repo().join("fixtures/suites/hostile"))
        .arg("--out")
        .arg(&out)
        .arg(dir.path().join("class"))
        .stderr(Stdio::null())
        .spawn()
        .expect("start bhgrade");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let started = loop {
        let running = crate::support::process_with_arg(&tag).is_some();
        if running || std::time::Instant::now() > deadline {
            break running;
        }
        std::thread::yield_now();
    };
    assert!(started, "the program never started");
    let pid = marking.id() as i32;
    // SAFETY: kill(2) has no memory-safety preconditions; bhgrade is our child.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    // The stimulus itself: bhgrade stopped past the run's whole wall limit.
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let status = marking.wait().expect("bhgrade ends");
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(out.join("students/waits.json")).expect("a report");
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let test = &report["parts"][0]["tests"][0];
    assert_eq!(test["verdict"], "accepted", "{test:#}");
    let wall = test["wall_ms"].as_u64().unwrap_or(u64::MAX);
    assert!(wall < 3000, "the run was charged bhgrade's pause: {wall} ms");
}
