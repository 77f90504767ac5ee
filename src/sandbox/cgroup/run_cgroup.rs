//! Per-run cgroups: a probed [`Setup`] (where cgroups may be created, v1 or v2, and with which
//! controllers) → one [`RunCgroup`] per run (memory and pids limits, CPU pinning, membership,
//! kill-everything, OOM count, memory peak and the CPU time of the whole run).
//!
//! Run cgroups are made under the harness's own cgroup (so any limit on the harness still
//! holds for its runs; in cgroup v2, beside the leaf the harness may have moved into, see
//! `delegate.rs`) and named `bhgrade-<pid namespace>-<harness pid>-<n>`; cgroups left by
//! a harness that died are removed at the next probe (see `delegate::remove_stale`).
//!
//! A run cgroup is made before its run is known (see `parked.rs`): [`Setup::create`] sets what
//! holds for every run (`pids.max`), [`RunCgroup::prepare`] what the run asks for (memory
//! limit, CPUs) just before the program starts.
//!
//! This is the bottom of the cgroup files: it also holds what they all share, the names of
//! bhgrade's cgroups, [`CgroupFs`] (the kernel's cgroup files, or a fake tree in tests) and the
//! record of why the harness could not start itself in a scope of its own (`scope.rs`).
//! Above it: `delegate.rs` (a v2 parent made usable), `probe.rs` (the [`Setup`]
//! and the layers), `scope.rs` (a systemd scope); `mount.rs` sits below all four.

use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::sandbox::layer::{Layer, LayerName};
use crate::sandbox::outcome::SandboxError;
use crate::sandbox::procs;

/// Killed processes need a moment to leave the cgroup (a big JVM frees its memory first).
const KILL_TIMEOUT: Duration = Duration::from_secs(5);

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// How every cgroup bhgrade makes is named: `bhgrade-<pid namespace>-<pid>-...`.
pub(crate) const NAME_PREFIX: &str = "bhgrade-";

/// The variable naming the transient scope bhgrade started itself in.
pub(crate) const OWN_SCOPE_VAR: &str = "BHGRADE_OWN_SCOPE";

static FAILURE: OnceLock<String> = OnceLock::new();

/// `<pid namespace>-<pid>` of this harness. A cgroup hierarchy may be shared with harnesses
/// in other pid namespaces (containers), where a pid means another process: only names
/// from our own namespace can be checked for a dead owner.
pub(crate) fn harness_tag() -> String {
    use std::os::unix::fs::MetadataExt;
    let ns = fs::metadata("/proc/self/ns/pid").map_or(0, |m| m.ino());
    format!("{ns}-{}", std::process::id())
}

/// Record why the harness could not start itself in a scope (said in the cgroup layers' rows).
pub fn record_scope_failure(why: String) {
    let _ = FAILURE.set(why);
}

pub(crate) fn scope_failure() -> Option<&'static str> {
    FAILURE.get().map(String::as_str)
}

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
    [LayerName::CgroupMemory, LayerName::CgroupPids]
        .into_iter()
        .map(|name| Layer {
            name,
            active: false,
            required: true,
            detail: "disabled by policy".into(),
            held_above: false,
        })
        .collect()
}

impl Setup {
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

/// The pids of a `cgroup.procs` file. A process being reaped is listed as `0` for a moment
/// (its pid is already released, it is still in the cgroup; a fork bomb's cgroup shows such
/// lines often): kill(2) of 0 would signal the harness's own process group, the harness and
/// the marker's shell included, so only positive pids are members.
pub(crate) fn procs_of(text: &str) -> impl Iterator<Item = i32> + '_ {
    text.lines().filter_map(|l| l.trim().parse::<i32>().ok()).filter(|&pid| pid > 0)
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
            pids.extend(procs_of(&fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default()));
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

    /// The cgroup of a harness that died (see `delegate::remove_stale`).
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
pub(crate) fn rmdir_patiently(dir: &Path) -> Result<(), SandboxError> {
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

/// What the probe does to a cgroup tree.
pub(crate) trait CgroupFs {
    fn read(&self, path: &Path) -> io::Result<String>;
    fn write(&self, path: &Path, value: &str) -> io::Result<()>;
    fn mkdir(&self, path: &Path) -> io::Result<()>;
    /// Whether this process may write to `path` (a cgroup folder: make children in it).
    fn writable(&self, path: &Path) -> bool;
    /// The names of the child cgroups of `dir`.
    fn children(&self, dir: &Path) -> Vec<String>;
    /// Whether systemd manages this cgroup tree (then a cgroup is the harness's to divide only
    /// when systemd delegated it).
    fn under_systemd(&self) -> bool;
    /// Whether systemd delegated `dir` (a unit with `Delegate=yes`).
    fn delegated(&self, dir: &Path) -> bool;
    /// Kill whatever is left in a cgroup of a dead harness and remove it.
    fn remove_stale(&self, dir: &Path, version: Version);
}

/// The real cgroup filesystems.
pub(crate) struct Kernel;

impl CgroupFs for Kernel {
    fn read(&self, path: &Path) -> io::Result<String> {
        std::fs::read_to_string(path)
    }

    fn write(&self, path: &Path, value: &str) -> io::Result<()> {
        std::fs::write(path, value)
    }

    fn mkdir(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }

    fn writable(&self, path: &Path) -> bool {
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
            return false;
        };
        // SAFETY: `c` is a valid C string.
        unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
    }

    fn children(&self, dir: &Path) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect()
    }

    fn under_systemd(&self) -> bool {
        Path::new("/run/systemd/system").is_dir()
    }

    fn delegated(&self, dir: &Path) -> bool {
        // systemd 251 and later mark a delegated cgroup (`trusted.` when the system manager
        // delegates, `user.` for a user's manager); a scope bhgrade asked for itself is known by
        // the name it gave it, which older systemd versions leave unmarked.
        let own_scope = std::env::var_os(OWN_SCOPE_VAR).is_some_and(|name| dir.file_name() == Some(name.as_os_str()));
        own_scope || ["trusted.delegate", "user.delegate"].iter().any(|name| xattr_is_one(dir, name))
    }

    fn remove_stale(&self, dir: &Path, version: Version) {
        drop(RunCgroup::stale(version, dir.to_path_buf()));
    }
}

fn xattr_is_one(path: &Path, name: &str) -> bool {
    let (Ok(path), Ok(name)) =
        (std::ffi::CString::new(path.as_os_str().as_encoded_bytes()), std::ffi::CString::new(name))
    else {
        return false;
    };
    let mut value = [0u8; 8];
    // SAFETY: valid C strings and a buffer of the length given.
    let len = unsafe { libc::getxattr(path.as_ptr(), name.as_ptr(), value.as_mut_ptr().cast(), value.len()) };
    len > 0 && value[..len as usize].starts_with(b"1")
}

#[cfg(test)]
#[test]
fn a_process_being_reaped_is_never_a_member() {
    // What a fork bomb's cgroup.procs reads like while its processes die: a 0 among the pids.
    assert_eq!(procs_of("1203\n0\n1207\n\n-4\nx\n").collect::<Vec<_>>(), [1203, 1207]);
}
