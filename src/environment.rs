//! The marking environment: each test's limits and the launch settings, the machine, its load, the
//! parallelism and the active isolation layers → [`Environment`], recorded in every report
//! because timings depend on them. Below the plan and the pipeline: it takes their parts, not
//! them.

use std::time::SystemTime;

use crate::clock::utc_timestamp;
use crate::results::model::Environment;
use crate::sandbox::{Limits, Sandbox};
use crate::suite::Launch;

/// How many runs go at once, and the cores each has.
#[derive(Clone, Copy, Debug)]
pub struct Parallelism {
    pub jobs: usize,
    pub cores_per_run: usize,
}

/// Describes where and how marking runs now: the limits of each test (its run's, in test
/// order) in words, the `launch` settings as the runs get them, the parallelism and the
/// sandbox's layers.
pub fn describe(launch: &Launch, test_limits: &[&Limits], parallelism: Parallelism, sandbox: &Sandbox) -> Environment {
    Environment {
        limits: describe_test_limits(test_limits.iter().copied()),
        launch_env: describe_launch_env(launch, test_limits.iter().copied()),
        ..describe_machine(parallelism, sandbox)
    }
}

/// The launch variables as runs get them: placeholders filled with the runs' limits, or, where
/// runs differ, named with the values they take (`-XmxNm (N: each test's memory_mb, 512 or
/// 1024)`), never a raw `{memory_mb}`.
fn describe_launch_env<'a>(launch: &Launch, run_limits: impl Iterator<Item = &'a Limits>) -> String {
    let mut memories: Vec<u64> = run_limits.map(|limits| limits.memory_bytes >> 20).collect();
    memories.sort_unstable();
    memories.dedup();
    let placeholder = launch.env.iter().any(|(_, value)| value.contains("{memory_mb}"));
    let (fill, note) = match memories.as_slice() {
        [one] => (one.to_string(), String::new()),
        _ if !placeholder => (String::new(), String::new()),
        many => {
            let values: Vec<String> = many.iter().map(u64::to_string).collect();
            ("N".to_string(), format!(" (N: each test's memory_mb, {})", values.join(" or ")))
        }
    };
    let words: Vec<String> =
        launch.env.iter().map(|(name, value)| format!("{name}={}", value.replace("{memory_mb}", &fill))).collect();
    format!("{}{note}", words.join(" "))
}

/// The tests' limits in words: each distinct set once, with the number of tests it applies
/// to, in test order.
fn describe_test_limits<'a>(tests: impl IntoIterator<Item = &'a Limits>) -> String {
    let mut groups: Vec<(Limits, usize)> = Vec::new();
    for limits in tests {
        match groups.iter_mut().find(|(seen, _)| seen == limits) {
            Some((_, count)) => *count += 1,
            None => groups.push((*limits, 1)),
        }
    }
    let limits = groups
        .iter()
        .map(|(limits, count)| {
            let tests = if *count == 1 { "1 test".to_string() } else { format!("{count} tests") };
            format!("{} ({tests})", describe_limits(limits))
        })
        .collect::<Vec<_>>()
        .join("; ");
    if limits.is_empty() {
        "none".into()
    } else {
        limits
    }
}

/// Describes the machine, its load, the parallelism and the isolation now (limits left empty).
fn describe_machine(parallelism: Parallelism, sandbox: &Sandbox) -> Environment {
    Environment {
        bhgrade_version: env!("CARGO_PKG_VERSION").to_string(),
        machine: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into()),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        load_average: read_trimmed("/proc/loadavg")
            .map(|line| line.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| "unknown".into()),
        jobs: parallelism.jobs,
        cores_per_run: parallelism.cores_per_run,
        marked_at: utc_timestamp(SystemTime::now()),
        limits: String::new(),
        launch_env: String::new(),
        isolation: sandbox.layers().iter().filter(|layer| layer.active).map(|layer| layer.name.to_string()).collect(),
    }
}

/// Limits in words, e.g. "CPU 10 s (wall-clock backstop 35 s), memory 1024 MiB, output 1024 KiB".
fn describe_limits(limits: &Limits) -> String {
    format!(
        "CPU {} s (wall-clock backstop {} s), memory {} MiB, output {} KiB",
        limits.cpu.as_secs_f64(),
        limits.wall.as_secs_f64(),
        limits.memory_bytes >> 20,
        limits.output_bytes >> 10
    )
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|text| text.trim().to_string())
}
