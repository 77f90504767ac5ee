//! Per-run cgroups: a probed [`Setup`] (where cgroups may be created, v1 or v2) → one
//! [`RunCgroup`] per run (memory and pids limits, membership, kill-everything, OOM and peak).
//!
//! Run cgroups are made under the harness's own cgroup (so any limit on the harness still
//! holds for its runs) and named `bhgrade-<pid namespace>-<harness pid>-<n>`; cgroups left by
//! a harness that died are removed at the next probe.

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{procs, Layer, Limits, SandboxError};

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;
const NAME_PREFIX: &str = "bhgrade-";
/// Killed processes need a moment to leave the cgroup (a big JVM frees its memory first).
const KILL_TIMEOUT: Duration = Duration::from_secs(5);

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

#[derive(Debug)]
pub(crate) struct Setup {
    version: Version,
    memory_parent: Option<PathBuf>,
    pids_parent: Option<PathBuf>,
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
    /// Where run cgroups can go, and the two layers ("cgroup memory", "cgroup pids") saying so.
    pub(crate) fn probe(parent_override: Option<&Path>) -> (Option<Setup>, Vec<Layer>) {
        let v2 = statfs_type(Path::new("/sys/fs/cgroup")) == Some(CGROUP2_SUPER_MAGIC);
        let (version, found) =
            if v2 { (Version::V2, probe_v2(parent_override)) } else { (Version::V1, ["memory", "pids"].map(probe_v1)) };
        let [memory, pids] = found;
        let label = if v2 { "cgroup v2" } else { "cgroup v1" };
        let layer = |name: &str, found: &Result<PathBuf, String>, what: String| Layer {
            name: name.to_string(),
            active: found.is_ok(),
            required: true,
            detail: match found {
                Ok(parent) => format!("{label} under {}: {what}", parent.display()),
                Err(why) => format!("{label}: {why}"),
            },
        };
        let layers = vec![
            layer("cgroup memory", &memory, "memory limit per run, OOM detected, peak measured".into()),
            layer("cgroup pids", &pids, "pids.max per run, every process killed at the end".into()),
        ];
        let setup = Setup { version, memory_parent: memory.ok(), pids_parent: pids.ok() };
        if setup.memory_parent.is_none() && setup.pids_parent.is_none() {
            return (None, layers);
        }
        (Some(setup), layers)
    }

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

    /// A fresh cgroup (one directory per v1 hierarchy) with the run's limits set.
    pub(crate) fn create(&self, limits: &Limits, pids_max: u64) -> Result<RunCgroup, SandboxError> {
        let name = format!("{NAME_PREFIX}{}-{}", harness_tag(), NEXT_ID.fetch_add(1, Ordering::Relaxed));
        let mut cg =
            RunCgroup { version: self.version, dirs: Vec::new(), memory_dir: None, join: Vec::new(), removed: false };
        for (parent, is_memory) in [(&self.memory_parent, true), (&self.pids_parent, false)] {
            let Some(parent) = parent else { continue };
            let dir = parent.join(&name);
            if !cg.dirs.contains(&dir) {
                fs::create_dir(&dir).map_err(|e| cg_err(&dir, e))?;
                cg.dirs.push(dir.clone());
            }
            if is_memory {
                cg.memory_dir = Some(dir.clone());
            }
            set_limits(self.version, &dir, is_memory, limits.memory_bytes, pids_max)?;
        }
        for dir in &cg.dirs {
            let procs = dir.join("cgroup.procs");
            let file = OpenOptions::new().write(true).open(&procs).map_err(|e| cg_err(&procs, e))?;
            cg.join.push(file);
        }
        Ok(cg)
    }
}

fn set_limits(
    version: Version,
    dir: &Path,
    memory: bool,
    memory_bytes: u64,
    pids_max: u64,
) -> Result<(), SandboxError> {
    let bytes = memory_bytes.to_string();
    let files: &[(&str, &str, bool)] = match (version, memory) {
        // memsw is the memory+swap limit; it must be set after the memory limit and exists
        // only when swap accounting is on.
        (Version::V1, true) => {
            &[("memory.limit_in_bytes", &bytes, true), ("memory.memsw.limit_in_bytes", &bytes, false)]
        }
        (Version::V2, true) => &[("memory.max", &bytes, true), ("memory.swap.max", "0", false)],
        (Version::V1 | Version::V2, false) => &[],
    };
    for (file, value, required) in files {
        let path = dir.join(file);
        match fs::write(&path, value) {
            Ok(()) => {}
            Err(e) if !required && e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(cg_err(&path, e)),
        }
    }
    let pids = dir.join("pids.max");
    if pids.exists() {
        fs::write(&pids, pids_max.to_string()).map_err(|e| cg_err(&pids, e))?;
    }
    Ok(())
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
    /// `cgroup.procs` of each directory, opened before the fork so that the child joins with
    /// one write(2) of "0" (async-signal-safe) before exec.
    join: Vec<File>,
    removed: bool,
}

impl RunCgroup {
    pub(crate) fn join_fds(&self) -> Vec<RawFd> {
        self.join.iter().map(|f| f.as_raw_fd()).collect()
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
        if self.version == Version::V2 {
            if let Some(dir) = self.dirs.first() {
                // cgroup.kill (Linux 5.14+) kills atomically, even a fork bomb mid-fork.
                let _ = fs::write(dir.join("cgroup.kill"), "1");
            }
        }
        let start = Instant::now();
        loop {
            let alive: Vec<i32> =
                self.members().into_iter().filter(|&p| Some(p) != keep && !procs::is_zombie(p)).collect();
            if alive.is_empty() {
                return Ok(());
            }
            if start.elapsed() > KILL_TIMEOUT {
                return Err(SandboxError::Unkillable { path: self.dirs[0].clone(), pids: alive });
            }
            for pid in alive {
                // SAFETY: kill(2) has no memory-safety preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(1));
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
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(cg_err(dir, e)),
        }
    }
}

fn statfs_type(path: &Path) -> Option<i64> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: zeroed statfs is a valid out-parameter; `c` is a valid C string.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: see above.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some(st.f_type as i64)
}

/// A mounted cgroup hierarchy: where it is mounted, and which part of it is mounted there.
struct Mount {
    point: PathBuf,
    root: String,
}

/// From /proc/self/mountinfo: the mount of a v1 controller, or of the v2 hierarchy (`None`).
fn find_mount(controller: Option<&str>) -> Option<Mount> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (root, point) = (*left.get(3)?, *left.get(4)?);
        let fstype = *right.first()?;
        let wanted = match controller {
            None => fstype == "cgroup2",
            Some(c) => fstype == "cgroup" && right.get(2)?.split(',').any(|o| o == c),
        };
        wanted.then(|| Mount { point: PathBuf::from(unescape_mountinfo(point)), root: unescape_mountinfo(root) })
    })
}

fn unescape_mountinfo(s: &str) -> String {
    s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
}

/// The harness's own cgroup path in a v1 controller's hierarchy, or the v2 one (`None`).
fn own_cgroup(controller: Option<&str>) -> Option<String> {
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let wanted = match controller {
            None => id == "0" && controllers.is_empty(),
            Some(c) => controllers.split(',').any(|x| x == c),
        };
        wanted.then(|| path.to_string())
    })
}

/// The directory of our own cgroup inside a mount, allowing for a mount of a sub-tree.
fn own_dir(mount: &Mount, own: &str) -> PathBuf {
    let rel = own.strip_prefix(mount.root.as_str()).unwrap_or(own).trim_start_matches('/');
    if rel.is_empty() {
        mount.point.clone()
    } else {
        mount.point.join(rel)
    }
}

fn probe_v1(controller: &str) -> Result<PathBuf, String> {
    let mount = find_mount(Some(controller)).ok_or_else(|| format!("no {controller} controller mounted"))?;
    let own =
        own_cgroup(Some(controller)).ok_or_else(|| format!("not in a {controller} cgroup (/proc/self/cgroup)"))?;
    let parent = own_dir(&mount, &own);
    try_parent(&parent, Version::V1, controller)?;
    Ok(parent)
}

fn probe_v2(parent_override: Option<&Path>) -> [Result<PathBuf, String>; 2] {
    let parent = match parent_override {
        Some(p) => Ok(p.to_path_buf()),
        None => find_mount(None)
            .zip(own_cgroup(None))
            .map(|(mount, own)| own_dir(&mount, &own))
            .ok_or_else(|| "cannot find our own cgroup".to_string()),
    };
    ["memory", "pids"].map(|controller| {
        let parent = parent.clone()?;
        let avail = fs::read_to_string(parent.join("cgroup.controllers"))
            .map_err(|e| format!("{}: {e}", parent.join("cgroup.controllers").display()))?;
        if !avail.split_whitespace().any(|c| c == controller) {
            return Err(format!("{controller} controller not available in {}", parent.display()));
        }
        let subtree = parent.join("cgroup.subtree_control");
        let enabled = fs::read_to_string(&subtree).unwrap_or_default();
        if !enabled.split_whitespace().any(|c| c == controller) {
            // Fails with EBUSY when the parent holds processes (the harness itself): then a
            // delegated parent must be given in Policy::cgroup_parent.
            fs::write(&subtree, format!("+{controller}"))
                .map_err(|e| format!("enabling {controller} in {}: {e}", subtree.display()))?;
        }
        try_parent(&parent, Version::V2, controller)?;
        Ok(parent)
    })
}

/// Clean up after dead harnesses, then make and remove one test cgroup.
fn try_parent(parent: &Path, version: Version, controller: &str) -> Result<(), String> {
    remove_stale(parent, version);
    let dir = parent.join(format!("{NAME_PREFIX}{}-probe-{}", harness_tag(), NEXT_ID.fetch_add(1, Ordering::Relaxed)));
    fs::create_dir(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
    let (file, value) = match (version, controller) {
        (Version::V1, "memory") => ("memory.limit_in_bytes", "67108864"),
        (Version::V2, "memory") => ("memory.max", "67108864"),
        (Version::V1 | Version::V2, _) => ("pids.max", "64"),
    };
    let result = fs::write(dir.join(file), value).map_err(|e| format!("writing {}: {e}", dir.join(file).display()));
    let _ = fs::remove_dir(&dir);
    result
}

/// `<pid namespace>-<pid>` of this harness. A cgroup hierarchy may be shared with harnesses
/// in other pid namespaces (containers), where a pid means another process: only names
/// from our own namespace can be checked for a dead owner.
fn harness_tag() -> String {
    use std::os::unix::fs::MetadataExt;
    let ns = fs::metadata("/proc/self/ns/pid").map_or(0, |m| m.ino());
    format!("{ns}-{}", std::process::id())
}

/// Remove the cgroups (and kill the processes) left by a harness of our pid namespace that
/// died without cleaning up.
fn remove_stale(parent: &Path, version: Version) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let own_tag = harness_tag();
    let own_ns = own_tag.split('-').next().unwrap_or_default().to_string();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(NAME_PREFIX)) else {
            continue;
        };
        let mut parts = rest.split('-');
        let (Some(ns), Some(pid)) = (parts.next(), parts.next().and_then(|p| p.parse::<u32>().ok())) else {
            continue;
        };
        if ns != own_ns || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let stale = RunCgroup { version, dirs: vec![entry.path()], memory_dir: None, join: Vec::new(), removed: false };
        drop(stale);
    }
}
