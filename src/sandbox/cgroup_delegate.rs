//! A cgroup v2 folder (the harness's own, or `Policy::cgroup_parent`) → a [`Prepared`] parent
//! for run cgroups, with the controllers enabled, or why it cannot be one.
//!
//! Cgroup v2 lets a cgroup other than the root hand controllers to its children only while it
//! holds no process itself ("no internal processes"), and a harness started in a delegated
//! scope (`systemd-run --user --scope -p Delegate=yes bhgrade ...`) is a process of that very
//! scope. So the harness moves itself into a leaf child, `bhgrade-<tag>-harness`, and then
//! enables the controllers in the scope: run cgroups are siblings of that leaf. The leaf is
//! named like the run cgroups, so the stale-cgroup cleanup of the next harness removes it once
//! its harness is dead and leaves it alone while it lives.
//!
//! The kernel is reached through [`CgroupFs`], so that these decisions are tested on a fake
//! tree of regular files that simulates the kernel's rules (this is how they are tested on
//! machines whose memory controller is bound to cgroup v1).

use std::io;
use std::path::{Path, PathBuf};

use super::cgroup::{RunCgroup, Version};
use super::cgroup_probe::{harness_tag, NAME_PREFIX};
use super::procs;

const LEAF_SUFFIX: &str = "-harness";

/// What the probe does to a cgroup tree.
pub(crate) trait CgroupFs {
    fn read(&self, path: &Path) -> io::Result<String>;
    fn write(&self, path: &Path, value: &str) -> io::Result<()>;
    fn mkdir(&self, path: &Path) -> io::Result<()>;
    /// Whether this process may write to `path` (a cgroup folder: make children in it).
    fn writable(&self, path: &Path) -> bool;
    /// The names of the child cgroups of `dir`.
    fn children(&self, dir: &Path) -> Vec<String>;
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

    fn remove_stale(&self, dir: &Path, version: Version) {
        drop(RunCgroup::stale(version, dir.to_path_buf()));
    }
}

/// The process that moves (its whole thread group goes with it) and the tag its cgroups are
/// named with.
#[derive(Debug, Clone)]
pub(crate) struct Harness {
    pub(crate) pid: u32,
    pub(crate) tag: String,
}

impl Harness {
    pub(crate) fn this() -> Harness {
        Harness { pid: std::process::id(), tag: harness_tag() }
    }

    fn leaf_name(&self) -> String {
        format!("{NAME_PREFIX}{}{LEAF_SUFFIX}", self.tag)
    }
}

/// A parent for run cgroups, and what became of each controller asked for.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) parent: PathBuf,
    /// The leaf the harness moved into during this probe, if it had to.
    pub(crate) leaf: Option<PathBuf>,
    controllers: Vec<(&'static str, Result<(), String>)>,
}

impl Prepared {
    /// Whether run cgroups get `controller` (enabled in the parent's `cgroup.subtree_control`).
    pub(crate) fn controller(&self, controller: &str) -> Result<(), String> {
        self.controllers
            .iter()
            .find(|(c, _)| *c == controller)
            .map_or_else(|| Err(format!("{controller} was not asked for")), |(_, r)| r.clone())
    }
}

/// Make `dir` a parent whose children get the `wanted` controllers: runs go beside a harness
/// leaf rather than in it; a harness in another harness's leaf moves to its own; a harness in
/// the cgroup whose controllers must be enabled moves into its leaf first.
pub(crate) fn prepare(
    fs: &dyn CgroupFs,
    dir: &Path,
    me: &Harness,
    wanted: &[&'static str],
) -> Result<Prepared, String> {
    let here = members(fs, dir).contains(&me.pid);
    let leaf_owner = leaf_tag(dir);
    let parent = match (&leaf_owner, dir.parent()) {
        (Some(_), Some(up)) => up.to_path_buf(),
        _ => dir.to_path_buf(),
    };
    // The cgroups of dead harnesses are killed with their processes: leave another
    // harness's leaf before it may be taken for one.
    let mut leaf = None;
    if here && leaf_owner.as_ref().is_some_and(|owner| *owner != me.tag) {
        leaf = Some(move_into_leaf(fs, &parent, me)?);
    }
    remove_stale(fs, &parent, Version::V2, me);
    let root_cgroup = is_root_cgroup(fs, &parent);
    if !fs.writable(&parent) {
        return Err(not_delegated(&parent, root_cgroup, here, None));
    }
    let controllers_file = parent.join("cgroup.controllers");
    let available = fs.read(&controllers_file).map_err(|e| format!("{}: {e}", controllers_file.display()))?;
    let subtree = parent.join("cgroup.subtree_control");
    let enabled = fs.read(&subtree).unwrap_or_default();
    let has = |list: &str, c: &str| list.split_whitespace().any(|x| x == c);
    let missing = wanted.iter().any(|c| has(&available, c) && !has(&enabled, c));
    if missing {
        if !fs.writable(&subtree) {
            return Err(not_delegated(&parent, root_cgroup, here, Some(&subtree)));
        }
        // The root cgroup may hold processes and enable controllers alike; and where other
        // processes would stay, moving would only leave a useless leaf behind.
        let alone = members(fs, &parent) == [me.pid];
        if !root_cgroup && leaf_owner.is_none() && alone {
            leaf = Some(move_into_leaf(fs, &parent, me)?);
        }
    }
    let controllers = wanted
        .iter()
        .map(|&c| {
            let result = if !has(&available, c) {
                Err(not_available(&parent, c))
            } else if has(&enabled, c) {
                Ok(())
            } else {
                fs.write(&subtree, &format!("+{c}")).map_err(|e| not_enabled(fs, &parent, c, &e, me))
            };
            (c, result)
        })
        .collect();
    Ok(Prepared { parent, leaf, controllers })
}

/// Move the harness's whole thread group into its leaf of `parent` (made if need be).
fn move_into_leaf(fs: &dyn CgroupFs, parent: &Path, me: &Harness) -> Result<PathBuf, String> {
    let leaf = parent.join(me.leaf_name());
    match fs.mkdir(&leaf) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
            return Err(format!("making {} to move the harness into: {e}", leaf.display()))
        }
        _ => {}
    }
    let procs = leaf.join("cgroup.procs");
    fs.write(&procs, &me.pid.to_string())
        .map_err(|e| format!("moving the harness (pid {}) into {}: {e}", me.pid, leaf.display()))?;
    Ok(leaf)
}

/// The tag of the harness whose leaf `dir` is.
fn leaf_tag(dir: &Path) -> Option<String> {
    let name = dir.file_name()?.to_str()?;
    let tag = name.strip_prefix(NAME_PREFIX)?.strip_suffix(LEAF_SUFFIX)?;
    let (ns, pid) = tag.split_once('-')?;
    (ns.parse::<u64>().is_ok() && pid.parse::<u32>().is_ok()).then(|| tag.to_string())
}

/// Every cgroup but the root has a `cgroup.type`.
fn is_root_cgroup(fs: &dyn CgroupFs, dir: &Path) -> bool {
    fs.read(&dir.join("cgroup.type")).is_err_and(|e| e.kind() == io::ErrorKind::NotFound)
}

fn members(fs: &dyn CgroupFs, dir: &Path) -> Vec<u32> {
    let text = fs.read(&dir.join("cgroup.procs")).unwrap_or_default();
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

fn not_delegated(dir: &Path, root_cgroup: bool, harness_there: bool, file: Option<&Path>) -> String {
    let uid = procs::uid();
    let path = file.unwrap_or(dir).display();
    let what = if harness_there { "the harness's own cgroup " } else { "" };
    if root_cgroup {
        format!(
            "{what}{} is the root cgroup, which only root may change (uid {uid} may not write {path})",
            dir.display()
        )
    } else {
        format!("{what}{} is not delegated to uid {uid}: it may not write {path}", dir.display())
    }
}

fn not_available(dir: &Path, controller: &str) -> String {
    let how = if procs::is_root() {
        ""
    } else {
        "; under systemd, root delegates it to users with `Delegate=cpu cpuset io memory pids` in a drop-in for \
         user@.service"
    };
    format!(
        "the {controller} controller is not available in {} (the cgroup above does not pass it down{how})",
        dir.display()
    )
}

fn not_enabled(fs: &dyn CgroupFs, dir: &Path, controller: &str, error: &io::Error, me: &Harness) -> String {
    let subtree = dir.join("cgroup.subtree_control");
    let mut why = format!("enabling {controller} in {}: {error}", subtree.display());
    let others: Vec<String> = members(fs, dir).into_iter().filter(|p| *p != me.pid).map(|p| p.to_string()).collect();
    if error.raw_os_error() == Some(libc::EBUSY) && !others.is_empty() {
        // An ordinary user's row gets the systemd-run command from the layer's own hint.
        let how = if procs::is_root() {
            "`systemd-run --scope -p Delegate=yes bhgrade mark ...`"
        } else {
            "a scope systemd delegates to you"
        };
        why.push_str(&format!(
            "; a cgroup that gives controllers to its children may hold no process, and bhgrade is not alone in \
             {} (also pids {}): start bhgrade itself, not a shell that runs it, as the only process of {how}",
            dir.display(),
            others.join(", ")
        ));
    }
    why
}

/// Remove the cgroups (and kill the processes) that a dead harness of our pid namespace left
/// in `parent`: its run cgroups and its leaf. A name whose pid is alive is kept, even when the
/// pid was reused by another process (a leak, never a kill of a live harness), and so is any
/// cgroup holding this harness.
pub(crate) fn remove_stale(fs: &dyn CgroupFs, parent: &Path, version: Version, me: &Harness) {
    let own_ns = me.tag.split('-').next().unwrap_or_default();
    for name in fs.children(parent) {
        let Some(rest) = name.strip_prefix(NAME_PREFIX) else {
            continue;
        };
        let mut parts = rest.split('-');
        let (Some(ns), Some(pid)) = (parts.next(), parts.next().and_then(|p| p.parse::<u32>().ok())) else {
            continue;
        };
        if ns != own_ns || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let dir = parent.join(&name);
        if members(fs, &dir).contains(&me.pid) {
            continue;
        }
        fs.remove_stale(&dir, version);
    }
}

#[cfg(test)]
#[path = "cgroup_delegate_tests.rs"]
mod tests;
