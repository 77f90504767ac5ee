//! Per-run cgroups: a probed [`Setup`] (where cgroups may be created, v1 or v2, and with which
//! controllers) → one [`RunCgroup`] per run (memory and pids limits, CPU pinning, membership,
//! kill-everything, OOM count, memory peak and the CPU time of the whole run).
//!
//! Run cgroups are made under the harness's own cgroup (so any limit on the harness still
//! holds for its runs; in cgroup v2, beside the leaf the harness may have moved into, see
//! `cgroup_delegate.rs`) and named `bhgrade-<pid namespace>-<harness pid>-<n>`; cgroups left by
//! a harness that died are removed at the next probe (see `cgroup_delegate::remove_stale`).
//!
//! A run cgroup is made before its run is known (see `parked.rs`): [`Setup::create`] sets what
//! holds for every run (`pids.max`), [`RunCgroup::prepare`] what the run asks for (memory
//! limit, CPUs) just before the program starts.

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::cgroup_probe::{self, harness_tag, NAME_PREFIX};
use super::{procs, Layer, SandboxError};

/// Killed processes need a moment to leave the cgroup (a big JVM frees its memory first).
const KILL_TIMEOUT: Duration = Duration::from_secs(5);

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

/// Where run cgroups go: one parent per controller (the same folder for all in v2).
#[derive(Debug)]
pub(crate) struct Setup {
    pub(crate) version: Version,
    pub(crate) memory_parent: Option<PathBuf>,
    pub(crate) pids_parent: Option<PathBuf>,
    /// v1 only: the cpuacct hierarchy, which measures the run's CPU time (v2 has `cpu.stat`
    /// in every cgroup).
    pub(crate) cpuacct_parent: Option<PathBuf>,
    pub(crate) cpuset_parent: Option<PathBuf>,
    /// v1: `cpuset.cpus` and `cpuset.mems` of the parent, which a new cpuset must be given
    /// before any process may join it.
    pub(crate) cpuset_inherit: Option<(String, String)>,
}

pub(crate) fn disabled_layers() -> Vec<Layer> {
    ["cgroup memory", "cgroup pids"]
        .iter()
        .map(|name| Layer {
            name: name.to_string(),
            active: false,
            required: true,
            detail: "disabled by policy".into(),
        })
        .collect()
}

impl Setup {
    /// Where run cgroups can go, and the layers ("cgroup memory", "cgroup pids") saying so;
    /// the cpuset is reported by the "cpu pinning" layer (see [`Setup::pinning`]).
    pub(crate) fn probe(parent_override: Option<&Path>) -> (Option<Setup>, Vec<Layer>, Result<String, String>) {
        cgroup_probe::probe(parent_override)
    }

    /// The memory and pids parents (what a stale harness's cgroups are looked for in by tests).
    #[cfg(test)]
    pub(crate) fn parents(&self) -> Vec<PathBuf> {
        self.memory_parent.iter().chain(&self.pids_parent).cloned().collect()
    }

    #[cfg(test)]
    pub(crate) fn tag() -> String {
        harness_tag()
    }

    pub(crate) fn has_memory(&self) -> bool {
        self.memory_parent.is_some()
    }

    pub(crate) fn has_pids(&self) -> bool {
        self.pids_parent.is_some()
    }

    /// Whether a run cgroup measures the CPU time of the whole run (v2, or v1 with cpuacct).
    pub(crate) fn measures_cpu(&self) -> bool {
        self.version == Version::V2 || self.cpuacct_parent.is_some()
    }

    pub(crate) fn has_cpuset(&self) -> bool {
        self.cpuset_parent.is_some()
    }

    /// A fresh cgroup (one directory per v1 hierarchy) with `pids.max` set, the `cgroup.procs`
    /// files opened for the process that will join it.
    pub(crate) fn create(&self, pids_max: u64) -> Result<RunCgroup, SandboxError> {
        let name = format!("{NAME_PREFIX}{}-{}", harness_tag(), NEXT_ID.fetch_add(1, Ordering::Relaxed));
        let mut cg = RunCgroup {
            version: self.version,
            dirs: Vec::new(),
            memory_dir: None,
            cpuset_dir: None,
            cpu_file: None,
            cpu_base: Duration::ZERO,
            join: Vec::new(),
            removed: false,
        };
        let parents = [&self.memory_parent, &self.pids_parent, &self.cpuacct_parent, &self.cpuset_parent];
        for (index, parent) in parents.into_iter().enumerate() {
            let Some(parent) = parent else { continue };
            let dir = parent.join(&name);
            if !cg.dirs.contains(&dir) {
                fs::create_dir(&dir).map_err(|e| cg_err(&dir, e))?;
                cg.dirs.push(dir.clone());
            }
            match index {
                0 => cg.memory_dir = Some(dir.clone()),
                // The probe found the pids controller here: a `pids.max` gone since (a manager
                // took the controller back) must stop the run, not drop its limit unsaid.
                1 => write(&dir.join("pids.max"), &pids_max.to_string())?,
                2 => cg.cpu_file = Some(dir.join("cpuacct.usage")),
                _ => {
                    if let Some((cpus, mems)) = &self.cpuset_inherit {
                        write(&dir.join("cpuset.cpus"), cpus)?;
                        write(&dir.join("cpuset.mems"), mems)?;
                    }
                    cg.cpuset_dir = Some(dir.clone());
                }
            }
        }
        if self.version == Version::V2 {
            cg.cpu_file = cg.dirs.first().map(|d| d.join("cpu.stat"));
        }
        for dir in &cg.dirs {
            let procs = dir.join("cgroup.procs");
            let file = OpenOptions::new().write(true).open(&procs).map_err(|e| cg_err(&procs, e))?;
            cg.join.push(file);
        }
        Ok(cg)
    }
}

fn write(path: &Path, value: &str) -> Result<(), SandboxError> {
    fs::write(path, value).map_err(|e| cg_err(path, e))
}

fn write_if_present(path: &Path, value: &str) -> Result<(), SandboxError> {
    match fs::write(path, value) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        other => other.map_err(|e| cg_err(path, e)),
    }
}

fn cg_err(path: &Path, source: std::io::Error) -> SandboxError {
    SandboxError::Cgroup { path: path.to_path_buf(), source }
}

/// One run's cgroup. Dropping it kills whatever is left in it and removes it.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    version: Version,
    dirs: Vec<PathBuf>,
    memory_dir: Option<PathBuf>,
    cpuset_dir: Option<PathBuf>,
    /// `cpuacct.usage` (v1, nanoseconds) or `cpu.stat` (v2, `usage_usec`).
    cpu_file: Option<PathBuf>,
    /// CPU time already used when the run started (by the parked supervisor joining).
    cpu_base: Duration,
    /// `cgroup.procs` of each directory, opened before the fork so that the child joins with
    /// one write(2) of "0" (async-signal-safe).
    join: Vec<File>,
    removed: bool,
}

impl RunCgroup {
    pub(crate) fn join_fds(&self) -> Vec<RawFd> {
        self.join.iter().map(|f| f.as_raw_fd()).collect()
    }

    /// The child has joined: the files are no longer needed.
    pub(crate) fn joined(&mut self) {
        self.join.clear();
    }

    /// Set what this run asks for: the memory limit, the CPUs (none: all of the parent's),
    /// and the CPU time counted from here.
    pub(crate) fn prepare(&mut self, memory_bytes: u64, cpus: Option<&str>) -> Result<(), SandboxError> {
        if let Some(dir) = &self.memory_dir {
            let bytes = memory_bytes.to_string();
            // memsw is the memory+swap limit; it must be set after the memory limit and exists
            // only when swap accounting is on.
            let files: [(&str, &str); 2] = match self.version {
                Version::V1 => [("memory.limit_in_bytes", &bytes), ("memory.memsw.limit_in_bytes", &bytes)],
                Version::V2 => [("memory.max", &bytes), ("memory.swap.max", "0")],
            };
            write(&dir.join(files[0].0), files[0].1)?;
            write_if_present(&dir.join(files[1].0), files[1].1)?;
        }
        if let (Some(dir), Some(cpus)) = (&self.cpuset_dir, cpus) {
            write(&dir.join("cpuset.cpus"), cpus)?;
        }
        self.cpu_base = self.read_cpu().unwrap_or_default();
        Ok(())
    }

    /// CPU time of every process that was ever in the run's cgroup since [`RunCgroup::prepare`].
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        Some(self.read_cpu()?.saturating_sub(self.cpu_base))
    }

    fn read_cpu(&self) -> Option<Duration> {
        let text = fs::read_to_string(self.cpu_file.as_ref()?).ok()?;
        match self.version {
            Version::V1 => Some(Duration::from_nanos(text.trim().parse().ok()?)),
            Version::V2 => {
                let usec = text.lines().find_map(|l| l.strip_prefix("usage_usec "))?.trim().parse().ok()?;
                Some(Duration::from_micros(usec))
            }
        }
    }

    /// Every process in the run's cgroups.
    pub(crate) fn members(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = Vec::new();
        for dir in &self.dirs {
            let text = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
            pids.extend(text.lines().filter_map(|l| l.trim().parse::<i32>().ok()));
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    pub(crate) fn signal_all(&self, sig: i32) {
        for pid in self.members() {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(pid, sig) };
        }
    }

    /// SIGKILL every member except `keep` until none is left alive. Zombies stay listed until
    /// their parent reaps them (the main process: `keep`; others: init, once their parent is
    /// killed), and cannot be killed any further, so they are not waited for.
    pub(crate) fn kill_all(&self, keep: Option<i32>) -> Result<(), SandboxError> {
        let alive = |pids: Vec<i32>| -> Vec<i32> {
            pids.into_iter().filter(|&p| Some(p) != keep && !procs::is_zombie(p)).collect()
        };
        // Usually the run is over and its cgroup empty: one read, no signal, no wait.
        let mut pids = alive(self.members());
        if pids.is_empty() {
            return Ok(());
        }
        if self.version == Version::V2 {
            if let Some(dir) = self.dirs.first() {
                // cgroup.kill (Linux 5.14+) kills atomically, even a fork bomb mid-fork.
                let _ = fs::write(dir.join("cgroup.kill"), "1");
            }
        }
        let start = Instant::now();
        loop {
            for &pid in &pids {
                // SAFETY: kill(2) has no memory-safety preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(1));
            pids = alive(self.members());
            if pids.is_empty() {
                return Ok(());
            }
            if start.elapsed() > KILL_TIMEOUT {
                return Err(SandboxError::Unkillable { path: self.dirs[0].clone(), pids });
            }
        }
    }

    /// How many times the kernel's OOM killer fired in this cgroup.
    pub(crate) fn oom_kills(&self) -> u64 {
        let Some(dir) = &self.memory_dir else {
            return 0;
        };
        let file = match self.version {
            Version::V1 => "memory.oom_control",
            Version::V2 => "memory.events",
        };
        let text = fs::read_to_string(dir.join(file)).unwrap_or_default();
        text.lines().filter_map(|l| l.strip_prefix("oom_kill ")).filter_map(|n| n.trim().parse::<u64>().ok()).sum()
    }

    pub(crate) fn peak_bytes(&self) -> Option<u64> {
        let dir = self.memory_dir.as_ref()?;
        let file = match self.version {
            Version::V1 => "memory.max_usage_in_bytes",
            Version::V2 => "memory.peak",
        };
        fs::read_to_string(dir.join(file)).ok()?.trim().parse().ok()
    }

    /// Kill what is left and remove the directories.
    pub(crate) fn remove(mut self) -> Result<(), SandboxError> {
        self.removed = true;
        self.kill_all(None)?;
        self.join.clear();
        for dir in &self.dirs {
            rmdir_patiently(dir)?;
        }
        Ok(())
    }

    /// The cgroup of a harness that died (see `cgroup_delegate::remove_stale`).
    pub(crate) fn stale(version: Version, dir: PathBuf) -> RunCgroup {
        RunCgroup {
            version,
            dirs: vec![dir],
            memory_dir: None,
            cpuset_dir: None,
            cpu_file: None,
            cpu_base: Duration::ZERO,
            join: Vec::new(),
            removed: false,
        }
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        if !self.removed {
            let _ = self.kill_all(None);
            for dir in &self.dirs {
                let _ = rmdir_patiently(dir);
            }
        }
    }
}

/// rmdir fails with EBUSY while the kernel still accounts a dying task to the cgroup.
fn rmdir_patiently(dir: &Path) -> Result<(), SandboxError> {
    let start = Instant::now();
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) if start.elapsed() < KILL_TIMEOUT && e.raw_os_error() == Some(libc::EBUSY) => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(cg_err(dir, e)),
        }
    }
}
