//! Finding where run cgroups may go, once per sandbox: the mounts and the harness's own
//! cgroups (from /proc) → a [`Setup`] with a parent folder per controller (memory, pids, and
//! for the whole run's CPU time and pinning, cpuacct and cpuset), the [`Layer`]s saying so,
//! and the "cpu pinning" detail. Cgroups left by harnesses that died are removed on the way.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::delegate::{self, Harness, Missing, Origin};
use super::mount::{find_mount, is_cgroup_v2, own_cgroup, own_dir, own_v2_dir};
use super::run_cgroup::{harness_tag, rmdir_patiently, CgroupFs, Kernel, Setup, Version, NAME_PREFIX};
use crate::sandbox::layer::{Layer, LayerName};
use crate::sandbox::procs;

static NEXT_PROBE: AtomicU64 = AtomicU64::new(0);

/// Where run cgroups can go, the "cgroup memory" and "cgroup pids" layers, and how runs are
/// pinned to CPUs (`Ok`: by a cpuset, with what it is; `Err`: why there is no cpuset).
pub(crate) fn probe(parent_override: Option<&Path>) -> (Option<Setup>, Vec<Layer>, Result<String, String>) {
    let v2 = is_cgroup_v2();
    let (version, [memory, pids, cpuset], leaf) = if v2 {
        let (found, leaf) = probe_v2(parent_override);
        (Version::V2, found, leaf)
    } else {
        (Version::V1, ["memory", "pids", "cpuset"].map(|controller| probe_v1(controller).map_err(Missing::from)), None)
    };
    let label = if v2 { "cgroup v2" } else { "cgroup v1" };
    // Said because the harness's own cgroup changed (what `/proc/PID/cgroup` shows).
    let moved = leaf.as_deref().and_then(Path::file_name).map_or_else(String::new, |name| {
        format!(" (the harness moved itself into {}, so that this cgroup holds no process)", name.to_string_lossy())
    });
    let layer = |name: LayerName, found: &Result<PathBuf, Missing>, what: String| Layer {
        name,
        active: found.is_ok(),
        required: true,
        held_above: found.as_ref().is_err_and(|missing| missing.held_above),
        detail: match found {
            Ok(parent) => format!("{label} under {}{moved}: {what}", parent.display()),
            Err(why) => format!("{label}: {why}"),
        },
    };
    let layers = vec![
        layer(LayerName::CgroupMemory, &memory, "memory limit per run, OOM detected, peak measured".into()),
        layer(LayerName::CgroupPids, &pids, "pids.max per run, every process killed at the end".into()),
    ];
    let mut pinning = match &cpuset {
        Ok(parent) => Ok(format!("{label} cpuset under {}", parent.display())),
        Err(why) => Err(format!("{label}: {why}")),
    };
    let mut setup = Setup {
        version,
        memory_parent: memory.ok(),
        pids_parent: pids.ok(),
        cpuacct_parent: None,
        cpuset_parent: cpuset.ok(),
        cpuset_inherit: None,
    };
    if setup.memory_parent.is_none() && setup.pids_parent.is_none() {
        return (None, layers, pinning.and(Err("no run cgroup (neither memory nor pids)".into())));
    }
    if version == Version::V1 {
        setup.cpuacct_parent = probe_v1("cpuacct").ok();
        setup.cpuset_inherit = setup.cpuset_parent.as_deref().and_then(cpuset_of);
        if setup.cpuset_parent.is_some() && setup.cpuset_inherit.is_none() {
            setup.cpuset_parent = None;
            pinning = Err(format!("{label}: cannot read the parent's cpuset.cpus and cpuset.mems"));
        }
    }
    (Some(setup), layers, pinning)
}

/// `cpuset.cpus` and `cpuset.mems` of a v1 cpuset (what its children must be given).
fn cpuset_of(dir: &Path) -> Option<(String, String)> {
    let read = |file: &str| fs::read_to_string(dir.join(file)).ok().map(|s| s.trim().to_string());
    let (cpus, mems) = (read("cpuset.cpus")?, read("cpuset.mems")?);
    (!cpus.is_empty() && !mems.is_empty()).then_some((cpus, mems))
}

fn probe_v1(controller: &str) -> Result<PathBuf, String> {
    let mount = find_mount(Some(controller)).ok_or_else(|| format!("no {controller} controller mounted"))?;
    let own =
        own_cgroup(Some(controller)).ok_or_else(|| format!("not in a {controller} cgroup (/proc/self/cgroup)"))?;
    let parent = own_dir(&mount, &own);
    try_parent(&parent, Version::V1, controller)?;
    Ok(parent)
}

const V2_CONTROLLERS: [&str; 3] = ["memory", "pids", "cpuset"];

/// The parent per controller, and the leaf the harness moved into to make it one.
fn probe_v2(parent_override: Option<&Path>) -> ([Result<PathBuf, Missing>; 3], Option<PathBuf>) {
    let me = Harness::this();
    let prepared = match parent_override {
        Some(dir) => delegate::prepare(&Kernel, dir, &me, &V2_CONTROLLERS, Origin::Given),
        None => own_v2_dir().ok_or_else(|| "cannot find our own cgroup".to_string()).and_then(|dir| {
            delegate::prepare(&Kernel, &dir, &me, &V2_CONTROLLERS, Origin::Own)
                .or_else(|why| root_subtree(&me).unwrap_or(Err(why)))
        }),
    };
    let found = V2_CONTROLLERS.map(|controller| {
        let prepared = prepared.as_ref().map_err(|why| Missing::from(why.clone()))?;
        prepared.controller(controller)?;
        try_parent(&prepared.parent, Version::V2, controller)?;
        Ok(prepared.parent.clone())
    });
    (found, prepared.ok().and_then(|p| p.leaf))
}

/// As root on a machine without systemd, where the harness's own cgroup cannot be divided (it
/// shares it): a subtree of the root cgroup, `bhgrade`, for every harness's runs. The root
/// cgroup may hold processes and still pass controllers down, so nothing has to move.
fn root_subtree(me: &Harness) -> Option<Result<delegate::Prepared, String>> {
    if !procs::is_root() || Kernel.under_systemd() {
        return None;
    }
    let root = find_mount(None).filter(|m| m.root == "/")?.point;
    let subtree = root.join("bhgrade");
    if let Err(e) = fs::create_dir(&subtree) {
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            return Some(Err(format!("making {}: {e}", subtree.display())));
        }
    }
    for controller in V2_CONTROLLERS {
        // Each on its own: one the root does not offer must not stop the others.
        let _ = Kernel.write(&root.join("cgroup.subtree_control"), &format!("+{controller}"));
    }
    Some(delegate::prepare(&Kernel, &subtree, me, &V2_CONTROLLERS, Origin::Given))
}

/// Clean up after dead harnesses, then do in a test cgroup what a run's cgroup will do: set the
/// controller's limit, move a real process in, read the controller's counter back, and remove it.
fn try_parent(parent: &Path, version: Version, controller: &str) -> Result<(), String> {
    delegate::remove_stale(&Kernel, parent, version, &Harness::this());
    let dir =
        parent.join(format!("{NAME_PREFIX}{}-probe-{}", harness_tag(), NEXT_PROBE.fetch_add(1, Ordering::Relaxed)));
    fs::create_dir(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
    let result = limit(&dir, parent, version, controller).and_then(|counter| move_a_process(&dir, counter));
    // Its process is killed and reaped already; a probe cgroup that cannot go is swept as stale.
    let _ = rmdir_patiently(&dir);
    result
}

/// Set the controller's probe limit in `dir`; the counter file that shows it at work.
fn limit(dir: &Path, parent: &Path, version: Version, controller: &str) -> Result<&'static str, String> {
    let (file, value, counter) = match (version, controller) {
        (Version::V1, "memory") => ("memory.limit_in_bytes", "67108864".to_string(), "memory.usage_in_bytes"),
        (Version::V2, "memory") => ("memory.max", "67108864".to_string(), "memory.current"),
        (_, "pids") => ("pids.max", "64".to_string(), "pids.current"),
        // A cpuset that can be given one of the harness's CPUs can pin a run.
        (_, "cpuset") => {
            let cpu = procs::allowed_cpus().ok().and_then(|c| c.first().copied()).unwrap_or(0);
            if version == Version::V1 {
                let mems =
                    cpuset_of(parent).map(|(_, mems)| mems).filter(|m| fs::write(dir.join("cpuset.mems"), m).is_ok());
                mems.ok_or_else(|| format!("cannot set cpuset.mems in {}", dir.display()))?;
            }
            ("cpuset.cpus", cpu.to_string(), "cpuset.cpus")
        }
        _ => return Ok("cgroup.procs"),
    };
    fs::write(dir.join(file), value).map_err(|e| format!("writing {}: {e}", dir.join(file).display()))?;
    Ok(counter)
}

/// Move a process of the harness's into `dir` and read `counter` there.
fn move_a_process(dir: &Path, counter: &str) -> Result<(), String> {
    let sleeper =
        Sleeper::start().map_err(|e| format!("cannot start a process to move into {}: {e}", dir.display()))?;
    let procs = dir.join("cgroup.procs");
    fs::write(&procs, sleeper.pid.to_string()).map_err(|e| format!("moving a process into {}: {e}", dir.display()))?;
    let read =
        fs::read_to_string(dir.join(counter)).map_err(|e| format!("reading {}: {e}", dir.join(counter).display()))?;
    if read.trim().is_empty() {
        return Err(format!("{} is empty with a process in {}", counter, dir.display()));
    }
    Ok(())
}

/// A child that only waits to be killed; killed and reaped when dropped.
struct Sleeper {
    pid: i32,
}

impl Sleeper {
    fn start() -> std::io::Result<Sleeper> {
        // SAFETY: the child only calls pause(2) until it is killed (async-signal-safe; no
        // allocation, no lock of the parent's other threads).
        match unsafe { procs::clone_process() }? {
            0 => loop {
                // SAFETY: see above.
                unsafe { libc::pause() };
            },
            pid => Ok(Sleeper { pid }),
        }
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        // SAFETY: kill(2) and waitpid(2) on our own child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}
