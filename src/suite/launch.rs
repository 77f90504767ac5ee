//! How a suite's program is started: the `launch` section → a [`Launch`] (its command line, the
//! environment it runs with, and the memory its runtime needs beyond the program's own limit).
//!
//! A limit is a ceiling, not a change of conditions: a runtime that sizes itself from the
//! machine it finds (a JVM picks its collector and heap from the memory and cores it sees) must
//! be told what it would have found on the course's machine. The suite says how, in plain
//! environment variables, so nothing in the harness knows about any runtime.

use crate::sandbox::{Limits, RunOutcome};

/// What `{…}` may name inside a launch variable's value.
pub const PLACEHOLDERS: &[&str] = &["memory_mb"];

/// A suite's launch settings, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program and its first arguments; the test's command word and puzzle follow.
    pub command: Vec<String>,
    /// Variables given to every run, in suite order; values may hold placeholders.
    pub env: Vec<(String, String)>,
    /// Memory allowed beyond a test's `memory_mb` before the run is killed: the runtime's own
    /// (code, threads, collector), so that the program itself gets all of `memory_mb`.
    pub memory_overhead_bytes: u64,
    /// Lines of standard error the launch settings themselves make the runtime print (a JVM
    /// given options in its environment says so on every start), by their beginning: dropped
    /// before a run is judged or shown, so the settings do not change what the program printed.
    pub stderr_noise: Vec<String>,
}

impl Launch {
    /// A launch with only a command line.
    pub fn command(command: Vec<String>) -> Launch {
        Launch { command, env: Vec::new(), memory_overhead_bytes: 0, stderr_noise: Vec::new() }
    }

    /// A run's outcome with [`Launch::quiet`] standard error: what every pipeline judges.
    pub fn quiet_run<E>(&self, run: Result<RunOutcome, E>) -> Result<RunOutcome, E> {
        run.map(|mut outcome| {
            outcome.stderr = self.quiet(std::mem::take(&mut outcome.stderr));
            outcome
        })
    }

    /// `stderr` without the lines that begin with one of [`Launch::stderr_noise`].
    pub fn quiet(&self, stderr: Vec<u8>) -> Vec<u8> {
        if self.stderr_noise.is_empty() {
            return stderr;
        }
        let noise = |line: &[u8]| self.stderr_noise.iter().any(|prefix| line.starts_with(prefix.as_bytes()));
        let mut kept = Vec::with_capacity(stderr.len());
        for line in stderr.split_inclusive(|&b| b == b'\n') {
            if !noise(line) {
                kept.extend_from_slice(line);
            }
        }
        kept
    }

    /// The variables of a run under `limits`, placeholders filled in.
    pub fn env_for(&self, limits: &Limits) -> Vec<(String, String)> {
        let memory_mb = (limits.memory_bytes >> 20).to_string();
        self.env.iter().map(|(name, value)| (name.clone(), value.replace("{memory_mb}", &memory_mb))).collect()
    }

    /// The memory a run is killed at: the test's limit plus the runtime's overhead.
    pub fn memory_ceiling(&self, limits: &Limits) -> u64 {
        limits.memory_bytes.saturating_add(self.memory_overhead_bytes)
    }
}

/// The first `{name}` in `value` that is not a known placeholder (or an unclosed `{`).
pub fn unknown_placeholder(value: &str) -> Option<String> {
    let mut rest = value;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else { return Some(after.to_string()) };
        let name = &after[..end];
        if !PLACEHOLDERS.contains(&name) {
            return Some(name.to_string());
        }
        rest = &after[end + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn placeholders_are_filled_from_the_limits() {
        let launch = Launch {
            command: vec!["java".into(), "Main".into()],
            env: vec![("OPTS".into(), "-Xmx{memory_mb}m -Xms{memory_mb}m".into())],
            memory_overhead_bytes: 256 << 20,
            stderr_noise: vec!["NOTE: Picked up".into()],
        };
        let limits = Limits {
            wall: Duration::from_secs(1),
            cpu: Duration::from_secs(1),
            memory_bytes: 512 << 20,
            output_bytes: 1,
        };
        assert_eq!(launch.env_for(&limits), vec![("OPTS".to_string(), "-Xmx512m -Xms512m".to_string())]);
        assert_eq!(launch.memory_ceiling(&limits), 768 << 20);
        let stderr = b"NOTE: Picked up OPTS: -Xmx512m\nException in thread\n  NOTE: Picked up\nend".to_vec();
        assert_eq!(launch.quiet(stderr), b"Exception in thread\n  NOTE: Picked up\nend");
    }

    #[test]
    fn unknown_placeholders_are_found() {
        assert_eq!(unknown_placeholder("-Xmx{memory_mb}m"), None);
        assert_eq!(unknown_placeholder("plain"), None);
        assert_eq!(unknown_placeholder("{cores}"), Some("cores".into()));
        assert_eq!(unknown_placeholder("-Xmx{memory_mb"), Some("memory_mb".into()));
    }
}
