//! A [`Policy`] and a scratch root → the probed [`Sandbox`]: which mechanisms each run gets on
//! this machine, proven here, and the folders it hands out. Its runs are `run.rs`'s and its
//! description `layers.rs`'s, both above it; the facade (`sandbox.rs`) hands it on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::command::Command;
use super::identity::{self, Identity};
use super::layer::Layer;
use super::outcome::SandboxError;
use super::policy::{Policy, RunAs};
use super::quota::{self, PrivateFolder};
use super::root::{self, ACCOUNTS_FOLDER};
use super::{cgroup, child, landlock, pool, procs, root_inside, scratch, seccomp, subids, supervisor};

/// The probed machine: which mechanisms each run gets. Cheap to share between threads.
#[derive(Debug)]
pub struct Sandbox {
    pub(super) scratch_root: PathBuf,
    pub(super) policy: Policy,
    pub(super) cgroups: Option<Arc<cgroup::Setup>>,
    pub(super) cgroup_layers: Vec<Layer>,
    /// How runs are pinned to CPUs: by a cpuset (what it is), or why not.
    pub(super) cpuset: Result<String, String>,
    /// Supervisors parked ahead of their runs; made at the first run.
    pub(super) pool: OnceLock<pool::Pool>,
    pub(super) pidfd: Result<(), String>,
    pub(super) netns: Result<(), String>,
    pub(super) pidns: Result<(), String>,
    pub(super) ipcns: Result<(), String>,
    /// Whether each run gets a root of its own, built up from nothing (with a `/proc` of its own
    /// PID namespace), proven here.
    pub(super) own_root: Result<(), String>,
    /// Whether a run may start from its copy as built and keep none of its writes (an overlay
    /// in its root), proven here.
    pub(super) pristine: Result<(), String>,
    /// The filter every program gets, proven on this kernel.
    pub(super) seccomp: Result<&'static seccomp::Filter, String>,
    /// Whether the kernel has keyrings (each run then gets a session keyring of its own).
    pub(super) keyring: Result<(), String>,
    /// Whether each submission's folder can get a size-limited tmpfs of its own.
    pub(super) quota: Result<(), String>,
    /// The kernel's Landlock ABI version.
    pub(super) landlock: Result<u32, String>,
    pub(super) run_as: Result<Option<RunAs>, String>,
    /// The identities lent to submissions (as root, uids of the machine's; as an ordinary user,
    /// its subordinate ids), or why there are none.
    pub(super) identities: Result<identity::Identities, String>,
    /// An ordinary user's subordinate ids, proven here, which map each run's user namespace
    /// (`subids.rs`); or why there are none.
    pub(super) subids: Result<Arc<subids::SubIds>, String>,
    /// Private copies that programs started inside them may write to (see [`Sandbox::add_copy`]).
    pub(super) copies: Mutex<Vec<PathBuf>>,
    /// Folders every program may read (see [`Sandbox::add_readable`]).
    pub(super) readable: Mutex<Vec<PathBuf>>,
}

impl Sandbox {
    /// Probe with the default (`auto`) [`Policy`].
    pub fn probe(scratch_root: &Path) -> Result<Sandbox, SandboxError> {
        Sandbox::probe_with(scratch_root, Policy::default())
    }

    /// Find out what this machine offers. Missing mechanisms are not errors (they show in
    /// [`Sandbox::layers`]); an unusable scratch root is.
    pub fn probe_with(scratch_root: &Path, policy: Policy) -> Result<Sandbox, SandboxError> {
        let scratch_err = |source| SandboxError::Scratch { path: scratch_root.to_path_buf(), source };
        std::fs::create_dir_all(scratch_root).map_err(scratch_err)?;
        let scratch_root = scratch_root.canonicalize().map_err(scratch_err)?;
        tempfile::Builder::new().prefix("probe-").tempdir_in(&scratch_root).map_err(scratch_err)?;
        let (cgroups, cgroup_layers, cpuset) = if policy.use_cgroups {
            cgroup::probe(policy.cgroup_parent.as_deref())
        } else {
            (None, cgroup::disabled_layers(), Err("cgroups disabled by policy".to_string()))
        };
        let run_as = match policy.run_as {
            None => Ok(None),
            Some(ids) if procs::is_root() => {
                if ids.uid == 0 {
                    Err("run_as names root itself".to_string())
                } else {
                    Ok(Some(ids))
                }
            }
            Some(_) => Err("the harness is not root, so it cannot switch user".to_string()),
        };
        let run_as = match run_as {
            Ok(Some(ids)) => {
                // The programs' user must be able to pass through to its scratch folders.
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&scratch_root, std::fs::Permissions::from_mode(0o711)).map_err(scratch_err)?;
                if scratch::searchable(&scratch_root, ids) {
                    Ok(Some(ids))
                } else {
                    Err(format!(
                        "uid {} cannot reach the scratch folder {} (a folder above it is private)",
                        ids.uid,
                        scratch_root.display()
                    ))
                }
            }
            other => other,
        };
        let disabled = || Err("disabled by policy".to_string());
        let netns = if policy.isolate_network { procs::probe_unshare(libc::CLONE_NEWNET) } else { disabled() };
        let pidns = if policy.pid_namespace { procs::probe_unshare(libc::CLONE_NEWPID) } else { disabled() };
        let ipcns = if policy.isolate_ipc { procs::probe_unshare(libc::CLONE_NEWIPC) } else { disabled() };
        let own_root = if policy.own_root && policy.pid_namespace {
            let ids = match &run_as {
                Ok(Some(ids)) => (ids.uid, ids.gid),
                Ok(None) | Err(_) => (procs::uid(), procs::gid()),
            };
            match root::accounts_for(&scratch_root.join(ACCOUNTS_FOLDER), ids) {
                Ok(_) => root_inside::probe(&scratch_root),
                Err(e) => Err(format!("writing the box's accounts: {e}")),
            }
        } else {
            disabled()
        };
        let pristine = match &own_root {
            Ok(()) => root::probe_run_tmpfs(&scratch_root, policy.disk_files),
            Err(_) => Err("no root of the run's own to lay an overlay in".into()),
        };
        let (identities, subids) = identity::probe_pool(&run_as, policy.identities, pristine.is_ok());
        Ok(Sandbox {
            pidfd: procs::probe_pidfd(),
            netns,
            pidns,
            ipcns,
            pristine,
            own_root,
            seccomp: if policy.seccomp { seccomp::probe() } else { Err("disabled by policy".to_string()) },
            keyring: procs::probe_keyring(),
            quota: if policy.disk_quota { quota::probe(&scratch_root) } else { disabled() },
            landlock: if policy.landlock { landlock::probe() } else { Err("disabled by policy".to_string()) },
            scratch_root,
            policy,
            cgroups: cgroups.map(Arc::new),
            cgroup_layers,
            cpuset,
            pool: OnceLock::new(),
            run_as,
            subids,
            identities,
            copies: Mutex::new(Vec::new()),
            readable: Mutex::new(Vec::new()),
        })
    }

    /// The parked supervisors of this sandbox, made at the first run from what was probed.
    pub(super) fn pool(&self) -> &pool::Pool {
        self.pool.get_or_init(|| {
            let mut namespaces = 0;
            if self.netns.is_ok() {
                namespaces |= libc::CLONE_NEWNET;
            }
            if self.pidns.is_ok() {
                namespaces |= libc::CLONE_NEWPID;
            }
            if self.ipcns.is_ok() {
                namespaces |= libc::CLONE_NEWIPC;
            }
            let unshare = procs::unshare_flags(namespaces);
            let subids = self.subids.as_ref().ok().filter(|_| unshare & libc::CLONE_NEWUSER != 0).cloned();
            let map_ids = match (&subids, unshare & libc::CLONE_NEWUSER != 0) {
                (Some(_), _) => supervisor::IdMap::ByHarness,
                (None, true) => supervisor::IdMap::Own(procs::uid(), procs::gid()),
                (None, false) => supervisor::IdMap::None,
            };
            pool::Pool::new(pool::Recipe {
                cgroups: self.cgroups.clone(),
                pids_max: self.policy.pids_max,
                subids,
                plan: supervisor::SplitSpec {
                    unshare,
                    map_ids,
                    report_fd: -1,
                    harness: std::process::id() as i32,
                    seccomp: self.seccomp.as_ref().ok().copied(),
                    own_root: self.own_root_active(),
                },
            })
        })
    }

    /// Declare a private copy (a submission's scratch folder): a program whose working folder
    /// is inside it may write anywhere in it. Outside every such copy, a program writes only
    /// to its own run folder (`HOME`) under Landlock. `build::prepare` declares its copies;
    /// copies that no longer exist are forgotten.
    pub fn add_copy(&self, dir: &Path) {
        remember(&self.copies, dir);
    }

    /// A fresh folder for one submission's copy, build and scratch in `parent`: on a tmpfs of
    /// [`Policy::disk_bytes`] of its own where the machine allows (see `sandbox/quota.rs`).
    pub fn private_folder(&self, parent: &Path, prefix: &str) -> std::io::Result<PrivateFolder> {
        let limit = (self.policy.disk_bytes, self.policy.disk_files);
        quota::private_folder(parent, prefix, self.quota.is_ok().then_some(limit), self.subids.as_ref().ok().cloned())
    }

    /// Declare a folder every program may read but none may write (a stacscheck tree's one
    /// copy, outside every submission's, which no student can rename or change).
    pub fn add_readable(&self, dir: &Path) {
        remember(&self.readable, dir);
    }

    /// Where `cwd` is: beneath a declared copy without a link on the way, outside every copy,
    /// or reached through a link the student made (see [`scratch::WorkingFolder`]).
    pub(super) fn working_folder(&self, cwd: &Path) -> scratch::WorkingFolder {
        let copies = self.copies.lock().unwrap_or_else(|e| e.into_inner());
        scratch::WorkingFolder::of(cwd, &copies)
    }

    pub(super) fn readable_folders(&self) -> Vec<PathBuf> {
        self.readable.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn scratch_root(&self) -> &Path {
        &self.scratch_root
    }

    /// The user programs run as, when switching user is active and a run names no identity.
    pub fn run_as(&self) -> Option<RunAs> {
        self.run_as.clone().ok().flatten()
    }

    /// An identity of its own for one submission, held until dropped (`None` when there are
    /// none, or all are lent: the submission then runs as [`Sandbox::run_as`], or as the
    /// marker).
    pub fn identity(&self) -> Option<Identity> {
        self.identities.as_ref().ok()?.lend()
    }

    /// The user a command runs as: its own identity, else the shared one (root only); `None`:
    /// the marker's own.
    pub(super) fn user_of(&self, cmd: &Command) -> Option<RunAs> {
        cmd.run_as.or(self.run_as())
    }

    /// The user a command runs as, by the machine's numbers (a subordinate id's are not those
    /// inside its namespace): what the machine's permission bits are checked against.
    pub(super) fn host_user_of(&self, cmd: &Command) -> Option<RunAs> {
        let ids = self.user_of(cmd)?;
        Some(self.identities.as_ref().map_or(ids, |pool| pool.on_machine(ids)))
    }

    /// Hand a submission's copy (its private folder `top`) to the identity lent it. As root,
    /// all of it; with subordinate ids, all below `top`, which stays the marker's (so that the
    /// marker may still make folders in it) and only passable (`0711`).
    pub fn hand_over_copy(&self, top: &Path, ids: RunAs) -> std::io::Result<()> {
        match &self.subids {
            Ok(subids) => {
                use std::os::unix::fs::PermissionsExt;
                subids.chown_tree(top, Some(ids), true)?;
                std::fs::set_permissions(top, std::fs::Permissions::from_mode(0o711))
            }
            Err(_) => crate::fsutil::chown_tree(top, ids.uid, ids.gid),
        }
    }

    /// Make `dir` in a copy afresh (what an earlier run left there removed) and hand it to the
    /// identity lent its submission (`None`: the sandbox's shared user, if it switches to one).
    pub fn fresh_folder(&self, dir: &Path, ids: Option<RunAs>) -> std::io::Result<()> {
        if dir.exists() {
            if let Ok(subids) = &self.subids {
                subids.chown_tree(dir, None, false)?;
            }
            let _ = std::fs::remove_dir_all(dir);
        }
        std::fs::create_dir(dir)?;
        match (&self.subids, ids.or(self.run_as())) {
            (Ok(subids), Some(ids)) => subids.chown_tree(dir, Some(ids), false),
            (Err(_), Some(ids)) => {
                // The folder it is made in may be the student's: between the mkdir and the
                // chown, a run of theirs could put a link in its place. The chown is on a
                // descriptor opened without following links, so it changes the folder just made
                // or fails. (With subordinate ids, the folder it is made in is the marker's.)
                use std::os::unix::fs::OpenOptionsExt;
                let folder = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
                    .open(dir)?;
                std::os::unix::fs::fchown(&folder, Some(ids.uid), Some(ids.gid))
            }
            (_, None) => Ok(()),
        }
    }

    /// Whether each run's memory is bounded by a cgroup (else it is measured: see
    /// [`MemorySource::Resident`](super::outcome::MemorySource::Resident)).
    pub fn memory_cgroup_active(&self) -> bool {
        self.cgroups.as_ref().is_some_and(|c| c.has_memory())
    }

    /// Whether each run gets a root of its own (`sandbox/root.rs`).
    pub(super) fn own_root_active(&self) -> bool {
        self.pidns.is_ok() && self.own_root.is_ok()
    }

    /// Whether each run's tasks are bounded by a pids cgroup.
    pub(super) fn pids_cgroup_active(&self) -> bool {
        self.cgroups.as_ref().is_some_and(|c| c.has_pids())
    }

    /// Whether a run gets a user namespace of its own (an ordinary user's harness making PID
    /// or network namespaces).
    pub(super) fn own_user_namespace(&self) -> bool {
        !procs::is_root() && (self.netns.is_ok() || self.pidns.is_ok() || self.ipcns.is_ok())
    }

    /// `RLIMIT_NPROC` of each program, where no pids cgroup bounds the run and the limit
    /// counts only processes that are not the marker's own: the run's alone in its own user
    /// namespace (Linux 5.14 on counts per user namespace), which gets the pids cgroup's own
    /// per-run limit (so a program's thread count meets the same ceiling with cgroups or
    /// without, and concurrent fork bombs stay far inside the marker's own tasks limit, such as
    /// a service's `TasksMax`); or every process of the user programs run as when root switches
    /// to it, which gets [`child::nproc_backstop`] for all runs together.
    pub(crate) fn nproc_backstop(&self) -> Option<u64> {
        self.nproc_scope().ok()?;
        Some(if self.run_as().is_some() { child::nproc_backstop() } else { self.policy.pids_max })
    }

    /// What the `RLIMIT_NPROC` backstop counts (`Ok`), or why there is none (`Err`).
    pub(super) fn nproc_scope(&self) -> Result<&'static str, String> {
        if self.pids_cgroup_active() {
            return Err("not needed: a pids cgroup bounds each run".into());
        }
        if self.run_as().is_some() {
            return Ok("every process of that user on the machine");
        }
        if self.own_user_namespace() {
            return match procs::kernel_version() {
                Some(v) if v >= (5, 14) => Ok("the run's own processes, in its user namespace"),
                _ => Err("this kernel (before 5.14) counts every process of the user, in every user namespace".into()),
            };
        }
        Err("programs run as the harness's own user, whose every process would count".into())
    }
}

/// Add `dir` (as its real path) to a list of declared folders once, forgetting those that no
/// longer exist.
fn remember(folders: &Mutex<Vec<PathBuf>>, dir: &Path) {
    let Ok(dir) = dir.canonicalize() else { return };
    let mut folders = folders.lock().unwrap_or_else(|e| e.into_inner());
    folders.retain(|d| d.exists());
    if !folders.contains(&dir) {
        folders.push(dir);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // With the filter, no run could add a key; without it, none may outlive the marking.
        if let (Err(_), Some(ids)) = (&self.seccomp, self.run_as()) {
            procs::clear_keyrings_of(ids.uid, ids.gid);
            for lent in self.identities.as_ref().map(|pool| pool.used()).unwrap_or_default() {
                procs::clear_keyrings_of(lent.uid, lent.gid);
            }
        }
    }
}
