//! What the sandbox's test modules share: a probed sandbox in a folder of its own, small
//! limits, a shell one-liner as a command, and the processes a test left behind.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use super::command::Command;
use super::outcome::Limits;
use super::policy::Policy;
use super::probed::Sandbox;

/// A sandbox probed with `policy`, its scratch root in a new folder that other users can pass
/// through (a run as another uid must reach its copy), removed when the first is dropped.
pub(super) fn sandbox_with(policy: Policy) -> (tempfile::TempDir, Sandbox) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sb = Sandbox::probe_with(&tmp.path().join("scratch"), policy).unwrap();
    (tmp, sb)
}

/// Small limits: `wall_ms` of wall-clock time, 5 s of CPU, 256 MiB, 1 MiB of output.
pub(super) fn limits(wall_ms: u64) -> Limits {
    Limits {
        wall: Duration::from_millis(wall_ms),
        cpu: Duration::from_secs(5),
        memory_bytes: 256 << 20,
        output_bytes: 1 << 20,
    }
}

/// `sh -c SCRIPT` in `cwd`.
pub(super) fn sh(cwd: impl AsRef<Path>, script: &str) -> Command {
    Command::new("/bin/sh", cwd.as_ref()).arg("-c").arg(script).arg("sh")
}

/// Live processes with `tag` as a whole argument of their command line (a test tags what it
/// starts, `sleep 1006`, to find it again).
pub(super) fn survivors(tag: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == tag.as_bytes()))
        })
        .collect()
}
