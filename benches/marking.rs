//! Marking at scale, fairly: a class that includes time-outs (copies of the correct fixture and
//! of never-ends, which spins on the timing suite's empty layout until its CPU limit), marked
//! with `--jobs 1` and `--jobs 2`; the sandbox's overhead per JVM run against a bare spawn; and
//! the README's main command (`bhgrade mark`: the bundled suite on the sample submissions).
//!
//! `cargo bench --bench marking`. Env: `BHGRADE_BENCH_COPIES` (copies of each fixture, default
//! 3), `BHGRADE_BENCH_RUNS` (JVM starts for the overhead, default 20), `BHGRADE_BENCH_SKIP_MAIN`
//! (set to skip the README command, which takes minutes). Every figure is measured in this one
//! run, so a noisy machine affects both sides of each ratio alike.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bhgrade::build::Submission;
use bhgrade::pipeline::{self, slots, MarkOptions, Slots};
use bhgrade::sandbox::{Command, Limits, Sandbox};

static NEVER: AtomicBool = AtomicBool::new(false);

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let copies = env_number("BHGRADE_BENCH_COPIES", 3);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = bhgrade::suite::load_definition(&repo.join("fixtures/suites/timing"))
        .and_then(|definition| definition.verify())
        .expect("the timing suite loads");
    let scratch = tempfile::tempdir().expect("scratch");
    let submissions: Vec<Submission> = ["correct", "never-ends"]
        .iter()
        .flat_map(|fixture| {
            (0..copies).map(move |i| {
                Submission::plain(format!("{fixture}-{i}"), repo.join("fixtures/submissions").join(fixture))
            })
        })
        .collect();
    let sandbox = Sandbox::probe(scratch.path()).expect("sandbox");
    let cpus = slots::usable_cpus();
    println!("| figure | value |\n|---|---|");
    println!("| usable cores | {} |", cpus.len());
    let mut walls = Vec::new();
    let mut totals = Vec::new();
    for jobs in [1, 2] {
        let options = MarkOptions {
            slots: Slots::new(&cpus, jobs, 1),
            scratch_root: scratch.path().to_path_buf(),
            store: None,
            stop: &NEVER,
        };
        let start = Instant::now();
        let class = pipeline::mark(&bhgrade::plan::from_suite(&suite), &submissions, &sandbox, &options, &mut [])
            .expect("marking");
        let wall = start.elapsed();
        let timeouts = class
            .students
            .iter()
            .flat_map(|s| s.parts.iter().flat_map(|p| &p.tests))
            .filter(|t| t.verdict == bhgrade::verdict::Verdict::TimeLimit)
            .count();
        println!(
            "| class of {} ({timeouts} time-outs), --jobs {jobs} | {:.2} s |",
            submissions.len(),
            wall.as_secs_f64()
        );
        walls.push(wall);
        totals.push(class.students.iter().map(|s| s.score).collect::<Vec<_>>());
    }
    assert_eq!(totals[0], totals[1], "the same marks with --jobs 1 and --jobs 2");
    println!(
        "| speed-up of --jobs 2 over --jobs 1 (target >= 1.8) | {:.2}x |",
        walls[0].as_secs_f64() / walls[1].as_secs_f64()
    );

    let runs = env_number("BHGRADE_BENCH_RUNS", 20);
    let (bare, sandboxed) = jvm_overhead(&sandbox, scratch.path(), runs);
    println!("| `java -version`, bare spawn (mean of {runs}) | {:.1} ms |", ms(bare));
    println!("| `java -version`, sandboxed, pinned (mean of {runs}) | {:.1} ms |", ms(sandboxed));
    println!("| sandbox overhead per JVM run (target <= 15 ms) | {:.1} ms |", ms(sandboxed) - ms(bare));

    if std::env::var_os("BHGRADE_BENCH_SKIP_MAIN").is_none() {
        let out = tempfile::tempdir().expect("out");
        let start = Instant::now();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_bhgrade"))
            .args(["mark", "--out"])
            .arg(out.path())
            .current_dir(repo)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("bhgrade mark");
        println!(
            "| README main command `bhgrade mark` (target < 180 s), exit {} | {:.1} s |",
            status.code().unwrap_or(-1),
            start.elapsed().as_secs_f64()
        );
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Mean time of a JVM start, spawned bare and run through the sandbox (interleaved, so that
/// drift in the machine's speed falls on both alike).
fn jvm_overhead(sandbox: &Sandbox, cwd: &Path, runs: usize) -> (Duration, Duration) {
    let limits = Limits {
        wall: Duration::from_secs(30),
        cpu: Duration::from_secs(30),
        memory_bytes: 2 << 30,
        output_bytes: 1 << 20,
    };
    let core = slots::usable_cpus()[0];
    let command = Command::new("java", cwd).arg("-version").cpus([core]);
    let (mut bare, mut sandboxed) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..runs {
        let start = Instant::now();
        let mut bare_java = std::process::Command::new("java");
        bare_java.arg("-version");
        // Pinned to the same one core, so that only the sandbox differs.
        // SAFETY: sched_setaffinity is async-signal-safe; the set is built before the fork.
        unsafe {
            use std::os::unix::process::CommandExt;
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut set);
            bare_java.pre_exec(move || {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                Ok(())
            });
        }
        let output = bare_java.output().expect("java");
        assert!(output.status.success());
        bare += start.elapsed();
        let start = Instant::now();
        let outcome = sandbox.run(&command, &limits).expect("sandboxed java");
        assert!(outcome.exit.success(), "{outcome:?}");
        sandboxed += start.elapsed();
    }
    (bare / runs as u32, sandboxed / runs as u32)
}
