//! A cgroup v2 folder (the harness's own, or `Policy::cgroup_parent`) → a [`Prepared`] parent
//! for run cgroups, with the controllers enabled, or why it cannot be one.
//!
//! Cgroup v2 lets a cgroup other than the root hand controllers to its children only while it
//! holds no process itself ("no internal processes"), and a harness started in a delegated
//! scope (which `scope.rs` asks systemd for) is a process of that very scope. So the harness
//! moves itself into a leaf child, `bhgrade-<tag>-harness`, and then enables the controllers in
//! the scope: run cgroups are siblings of that leaf. The leaf is named like the run cgroups, so
//! the stale-cgroup cleanup of the next harness removes it once its harness is dead and leaves
//! it alone while it lives. A cgroup the harness shares with other processes, or that systemd
//! manages and did not delegate, is left exactly as it was.
//!
//! The kernel is reached through [`CgroupFs`], so that these decisions are tested on a fake
//! tree of regular files that simulates the kernel's rules (this is how they are tested on
//! machines whose memory controller is bound to cgroup v1).

use std::io;
use std::path::{Path, PathBuf};

use super::run_cgroup::{harness_tag, procs_of, scope_failure, CgroupFs, Version, NAME_PREFIX};
use crate::sandbox::procs;

const LEAF_SUFFIX: &str = "-harness";

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
    controllers: Vec<(&'static str, Result<(), Missing>)>,
}

/// Why run cgroups cannot have a controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Missing {
    pub(crate) why: String,
    /// The cgroup above does not pass the controller down: only whoever manages that cgroup
    /// can delegate it, so another cgroup of this harness's would lack it too.
    pub(crate) held_above: bool,
}

impl From<String> for Missing {
    fn from(why: String) -> Missing {
        Missing { why, held_above: false }
    }
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl Prepared {
    /// Whether run cgroups get `controller` (enabled in the parent's `cgroup.subtree_control`).
    pub(crate) fn controller(&self, controller: &str) -> Result<(), Missing> {
        self.controllers
            .iter()
            .find(|(c, _)| *c == controller)
            .map_or_else(|| Err(format!("{controller} was not asked for").into()), |(_, r)| r.clone())
    }
}

/// Where the folder given to [`prepare`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The harness's own cgroup (from `/proc/self/cgroup`).
    Own,
    /// Named by whoever runs the harness (`Policy::cgroup_parent`), or made by the harness
    /// itself for its runs: the harness's to divide, whoever manages the tree.
    Given,
}

/// Make `dir` a parent whose children get the `wanted` controllers: runs go beside a harness
/// leaf rather than in it; a harness in another harness's leaf moves to its own; a harness in
/// the cgroup whose controllers must be enabled moves into its leaf first. Nothing is changed
/// in a cgroup systemd did not delegate, nor in one the harness shares with other processes
/// (enabling even a threaded controller there would turn it into a thread domain whose children
/// no process can join).
pub(crate) fn prepare(
    fs: &dyn CgroupFs,
    dir: &Path,
    me: &Harness,
    wanted: &[&'static str],
    origin: Origin,
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
    if !root_cgroup {
        let kind = fs.read(&parent.join("cgroup.type")).unwrap_or_default();
        if kind.trim() != "domain" {
            return Err(format!(
                "{} is a `{}` cgroup, not a plain domain: its children cannot hold a run (a cgroup with \
                 processes in it once had a threaded controller enabled)",
                parent.display(),
                kind.trim()
            ));
        }
        if origin == Origin::Own && fs.under_systemd() && !fs.delegated(&parent) {
            return Err(not_delegated_by_systemd(&parent));
        }
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
        // The root cgroup may hold processes and enable controllers alike; any other must be
        // emptied first, which the harness can do only for itself.
        let others: Vec<u32> = members(fs, &parent).into_iter().filter(|&p| p != me.pid).collect();
        if !root_cgroup && !others.is_empty() {
            return Err(not_alone(fs, &parent, &others));
        }
        if !root_cgroup && leaf_owner.is_none() && here {
            leaf = Some(move_into_leaf(fs, &parent, me)?);
        }
    }
    let controllers = wanted
        .iter()
        .map(|&c| {
            let result = if !has(&available, c) {
                Err(Missing { why: not_available(&parent, c), held_above: true })
            } else if has(&enabled, c) {
                Ok(())
            } else {
                fs.write(&subtree, &format!("+{c}"))
                    .map_err(|e| Missing::from(format!("enabling {c} in {}: {e}", subtree.display())))
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
    procs_of(&fs.read(&dir.join("cgroup.procs")).unwrap_or_default()).map(|pid| pid as u32).collect()
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

fn not_alone(fs: &dyn CgroupFs, dir: &Path, others: &[u32]) -> String {
    let others: Vec<String> = others.iter().map(u32::to_string).collect();
    let how = if fs.under_systemd() {
        format!("which it asks systemd for by itself (a transient scope with Delegate=yes){}", own_scope_note())
    } else {
        "so start it as the only process of a cgroup delegated to you, or as root (runs then get cgroups under the \
         root cgroup)"
            .to_string()
    };
    format!(
        "bhgrade is not alone in {} (also pids {}), and a cgroup that gives controllers to its children may hold \
         no process: bhgrade needs a cgroup of its own, {how}",
        dir.display(),
        others.join(", "),
    )
}

fn not_delegated_by_systemd(dir: &Path) -> String {
    format!(
        "{} is systemd's and not delegated: bhgrade divides only a cgroup systemd delegated (a unit with \
         Delegate=yes), and gets one by starting itself in a transient scope{}",
        dir.display(),
        own_scope_note()
    )
}

/// Why the harness is not in a scope of its own, when it tried to get one (see `scope.rs`).
fn own_scope_note() -> String {
    scope_failure().map_or_else(String::new, |why| format!("; that failed here: {why}"))
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
#[path = "delegate_tests.rs"]
mod tests;
