//! The marking environment: a [`Plan`], the machine, its load, the parallelism and the active
//! isolation layers → [`Environment`], recorded in every report because timings depend on them.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::pipeline::Slots;
use crate::plan::Plan;
use crate::report::model::Environment;
use crate::sandbox::{Limits, Sandbox};

/// Describes where and how marking with `plan` runs now.
pub fn describe(plan: &Plan<'_>, slots: &Slots, sandbox: &Sandbox) -> Environment {
    Environment {
        limits: plan.limits_description.clone(),
        launch_env: describe_launch_env(plan),
        ..describe_machine(slots, sandbox)
    }
}

/// The launch variables as runs get them: placeholders filled with the runs' limits, or, where
/// runs differ, named with the values they take (`-XmxNm (N: each test's memory_mb, 512 or
/// 1024)`), never a raw `{memory_mb}`.
fn describe_launch_env(plan: &Plan<'_>) -> String {
    let mut memories: Vec<u64> = plan.runs.iter().map(|run| run.limits.memory_bytes >> 20).collect();
    memories.sort_unstable();
    memories.dedup();
    let placeholder = plan.launch.env.iter().any(|(_, value)| value.contains("{memory_mb}"));
    let (fill, note) = match memories.as_slice() {
        [one] => (one.to_string(), String::new()),
        _ if !placeholder => (String::new(), String::new()),
        many => {
            let values: Vec<String> = many.iter().map(u64::to_string).collect();
            ("N".to_string(), format!(" (N: each test's memory_mb, {})", values.join(" or ")))
        }
    };
    let words: Vec<String> =
        plan.launch.env.iter().map(|(name, value)| format!("{name}={}", value.replace("{memory_mb}", &fill))).collect();
    format!("{}{note}", words.join(" "))
}

/// The tests' limits in words: each distinct set once, with the number of tests it applies
/// to, in test order.
pub fn describe_test_limits<'a>(tests: impl IntoIterator<Item = &'a Limits>) -> String {
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
pub fn describe_machine(slots: &Slots, sandbox: &Sandbox) -> Environment {
    Environment {
        bhgrade_version: env!("CARGO_PKG_VERSION").to_string(),
        machine: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into()),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        load_average: read_trimmed("/proc/loadavg")
            .map(|line| line.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| "unknown".into()),
        jobs: slots.len(),
        cores_per_run: slots.cores_per_run(),
        marked_at: utc_timestamp(SystemTime::now()),
        limits: String::new(),
        launch_env: String::new(),
        isolation: sandbox.layers().iter().filter(|layer| layer.active).map(|layer| layer.name.to_string()).collect(),
    }
}

/// Limits in words, e.g. "CPU 10 s (wall-clock backstop 35 s), memory 1024 MiB, output 1024 KiB".
pub fn describe_limits(limits: &Limits) -> String {
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

/// `time` as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_timestamp(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let leap_day = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_723);
        assert_eq!(utc_timestamp(leap_day), "2000-02-29T01:02:03Z");
    }
}
