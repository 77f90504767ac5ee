//! The cost of each isolation layer per run: `/bin/true` spawned bare (std::process, the
//! reference), then through the sandbox with the layers switched on one after another, as a
//! mean per run and as a ratio against the bare spawn. Then the same for a JVM start
//! (`java -version`), where the layers' cost is measured against what a real run costs, and
//! last the figure that matters: a bare `java -version` against the same under the full
//! `auto` policy, run alternately (so that both see the same load), as means and medians, with
//! their difference in milliseconds and their ratio.
//!
//! The memory limit is 4 GiB: under about 1.8 GB a JVM 17 takes itself for a small machine,
//! picks the Serial collector, and then cannot map its archived heap (class-data sharing maps
//! it for G1 only), which costs its start some 30 ms. That is the limit changing the program,
//! not the sandbox's overhead; the last table shows it with a 1 GiB limit (and a run pinned to
//! one CPU gets the Serial collector whatever its memory).
//!
//! `cargo bench --bench sandbox` (env `BHGRADE_BENCH_RUNS`, default 40). Prints markdown
//! tables. Layers this machine lacks show as "not available" and are not timed.

use std::time::{Duration, Instant};

use bhgrade::sandbox::{Command, Isolation, Layer, LayerName, Limits, Policy, Sandbox};

const LIMITS: Limits = Limits {
    wall: Duration::from_secs(20),
    cpu: Duration::from_secs(20),
    memory_bytes: 4 << 30,
    output_bytes: 1 << 20,
};

/// The layers switched on cumulatively: a name, the layer that must be active for the row to
/// mean anything, and the change to the policy.
type Step = (&'static str, Option<LayerName>, fn(&mut Policy));

fn steps() -> Vec<Step> {
    vec![
        ("sandbox: process group, supervisor (subreaper), rlimits, pipes", None, |_| {}),
        ("+ PID namespace", Some(LayerName::Supervisor), |p| p.pid_namespace = true),
        ("+ own root (built from nothing)", Some(LayerName::OwnRoot), |p| p.own_root = true),
        ("+ network namespace", Some(LayerName::NetworkNamespace), |p| p.isolate_network = true),
        ("+ IPC namespace", Some(LayerName::IpcNamespace), |p| p.isolate_ipc = true),
        ("+ cgroups (memory, pids)", Some(LayerName::CgroupMemory), |p| p.use_cgroups = true),
        ("+ Landlock", Some(LayerName::Landlock), |p| p.landlock = true),
        ("+ seccomp", Some(LayerName::Seccomp), |p| p.seccomp = true),
        ("+ unprivileged user (= auto)", Some(LayerName::UnprivilegedUser), |p| p.run_as = Policy::default().run_as),
    ]
}

fn bare(program: &str, args: &[&str], runs: usize) -> Duration {
    let start = Instant::now();
    for _ in 0..runs {
        let out = std::process::Command::new(program).args(args).output().expect("bare spawn");
        assert!(out.status.success());
    }
    start.elapsed() / runs as u32
}

fn sandboxed(sb: &Sandbox, cwd: &std::path::Path, program: &str, args: &[&str], runs: usize) -> Duration {
    let cmd = Command::new(program, cwd).args(args.iter().copied());
    let start = Instant::now();
    for _ in 0..runs {
        let out = sb.run(&cmd, &LIMITS).expect("sandboxed run");
        assert!(out.exit.success(), "{out:?}");
    }
    start.elapsed() / runs as u32
}

fn table(title: &str, program: &str, args: &[&str], runs: usize) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path().join("cwd");
    std::fs::create_dir(&cwd).expect("mkdir");
    let reference = bare(program, args, runs);
    println!("\n### {title} ({runs} runs each)\n");
    println!("| layers | per run | ratio to a bare spawn |\n|---|---|---|");
    println!("| bare spawn (std::process) | {:.2} ms | 1.00 |", reference.as_secs_f64() * 1e3);
    let mut policy = Policy {
        use_cgroups: false,
        isolate_network: false,
        pid_namespace: false,
        landlock: false,
        run_as: None,
        ..Policy::for_isolation(Isolation::Off)
    };
    let mut previous = reference;
    for (i, (name, needs, change)) in steps().into_iter().enumerate() {
        change(&mut policy);
        let sb = Sandbox::probe_with(&tmp.path().join(format!("scratch-{i}")), policy.clone()).expect("probe");
        let layers: Vec<Layer> = sb.layers();
        // The supervisor is always active; what matters here is whether it got its namespace.
        let active = |want: LayerName| {
            layers.iter().find(|l| l.name == want).is_some_and(|l| match want {
                LayerName::Supervisor => l.detail.contains("own PID namespace"),
                _ => l.active,
            })
        };
        if let Some(want) = needs {
            if !active(want) {
                let why = layers.iter().find(|l| l.name == want).map_or(String::new(), |l| l.detail.clone());
                println!("| {name} | not available: {why} | |");
                continue;
            }
        }
        let mean = sandboxed(&sb, &cwd, program, args, runs);
        println!(
            "| {name} | {:.2} ms (+{:.2} ms) | {:.2} |",
            mean.as_secs_f64() * 1e3,
            (mean.as_secs_f64() - previous.as_secs_f64()) * 1e3,
            mean.as_secs_f64() / reference.as_secs_f64()
        );
        previous = mean;
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Bare and full-policy runs of one command, alternately.
fn overhead(title: &str, program: &str, args: &[&str], runs: usize, limits: &Limits) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path().join("cwd");
    std::fs::create_dir(&cwd).expect("mkdir");
    let sb = Sandbox::probe_with(&tmp.path().join("scratch"), Policy::default()).expect("probe");
    let cmd = Command::new(program, &cwd).args(args.iter().copied());
    // One of each first: the page cache, and the sandbox's first parked supervisor.
    bare(program, args, 1);
    sb.run(&cmd, limits).expect("sandboxed run");
    let (mut plain, mut full) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let out = std::process::Command::new(program).args(args).output().expect("bare spawn");
        plain.push(start.elapsed());
        assert!(out.status.success());
        let start = Instant::now();
        let out = sb.run(&cmd, limits).expect("sandboxed run");
        full.push(start.elapsed());
        assert!(out.exit.success(), "{out:?}");
    }
    let mean = |v: &[Duration]| v.iter().sum::<Duration>() / v.len() as u32;
    let (bare_mean, full_mean) = (mean(&plain), mean(&full));
    let (bare_median, full_median) = (median(plain), median(full));
    println!(
        "\n### {title}: bare against the full `auto` policy, memory limit {} MiB ({runs} runs each, alternately)\n",
        limits.memory_bytes >> 20
    );
    println!("| | bare spawn | full policy | difference | ratio |\n|---|---|---|---|---|");
    for (what, b, f) in [("mean", bare_mean, full_mean), ("median", bare_median, full_median)] {
        println!(
            "| {what} | {:.2} ms | {:.2} ms | {:+.2} ms | {:.2} |",
            ms(b),
            ms(f),
            ms(f) - ms(b),
            f.as_secs_f64() / b.as_secs_f64()
        );
    }
}

fn main() {
    let runs: usize = std::env::var("BHGRADE_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    println!(
        "## Sandbox overhead per run (load {})",
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim()
    );
    table("`/bin/true`", "/bin/true", &[], runs);
    if std::process::Command::new("java").arg("-version").output().is_ok_and(|o| o.status.success()) {
        table("`java -version`", "java", &["-version"], (runs / 4).max(3));
        overhead("`java -version`", "java", &["-version"], runs, &LIMITS);
        let small = Limits { memory_bytes: 1 << 30, ..LIMITS };
        overhead("`java -version`", "java", &["-version"], (runs / 2).max(3), &small);
    }
}
