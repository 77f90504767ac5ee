//! Supervisors parked ahead of their runs: a [`Recipe`] (the sandbox's cgroup setup and
//! supervisor plan) → a [`Pool`] of [`Parked`] processes, refilled by one thread while runs go
//! on, so that a run finds its supervisor already in a fresh cgroup (see `parked.rs` for why).
//!
//! The refill thread is the parent of every process it parks, and a parked process dies with
//! its parent thread (`PR_SET_PDEATHSIG`): the thread lives as long as the pool, which ends
//! with its sandbox, after every run. A run that finds the pool empty parks a supervisor
//! itself (then it is the parent, and lives as long as the run).

use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::cgroup::Setup;
use super::outcome::SandboxError;
use super::parked::{self, Parked};
use super::subids::SubIds;
use super::supervisor;

/// How to park a supervisor for this sandbox.
#[derive(Debug, Clone)]
pub(crate) struct Recipe {
    pub cgroups: Option<Arc<Setup>>,
    pub pids_max: u64,
    pub plan: supervisor::SplitSpec,
    /// What maps each supervisor's user namespace, when the harness does (`subids.rs`).
    pub subids: Option<Arc<SubIds>>,
}

impl Recipe {
    /// A supervisor in a fresh cgroup, with room for `capacity` bytes of the run's strings.
    pub(crate) fn park(&self, capacity: usize) -> Result<Parked, SandboxError> {
        let cgroup = match &self.cgroups {
            Some(setup) => Some(setup.create(self.pids_max)?),
            None => None,
        };
        parked::park(self.plan, cgroup, capacity, self.subids.as_deref())
            .map_err(|source| SandboxError::Os { what: "parking a supervisor", source })
    }
}

#[derive(Debug)]
struct Shared {
    ready: Mutex<Vec<Parked>>,
    /// Most processes kept parked: as many as runs may start at once.
    cap: usize,
}

/// Parked supervisors for one sandbox.
#[derive(Debug)]
pub(crate) struct Pool {
    recipe: Recipe,
    shared: Arc<Shared>,
    refill: Mutex<Option<(Sender<()>, JoinHandle<()>)>>,
}

impl Pool {
    pub(crate) fn new(recipe: Recipe) -> Pool {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let shared = Arc::new(Shared { ready: Mutex::new(Vec::new()), cap: (cores * 2).clamp(2, 16) });
        Pool { recipe, shared, refill: Mutex::new(None) }
    }

    pub(crate) fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// A parked supervisor, if one is ready; either way another is parked for a later run.
    pub(crate) fn take(&self) -> Option<Parked> {
        let parked = self.shared.ready.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut refill = self.refill.lock().unwrap_or_else(|e| e.into_inner());
        if refill.is_none() {
            let (tx, rx) = mpsc::channel::<()>();
            let (recipe, shared) = (self.recipe.clone(), Arc::clone(&self.shared));
            let thread = std::thread::Builder::new().name("bhgrade-park".into()).spawn(move || {
                while rx.recv().is_ok() {
                    if shared.ready.lock().unwrap_or_else(|e| e.into_inner()).len() >= shared.cap {
                        continue;
                    }
                    // A failure shows again, as an error, when a run parks its own.
                    if let Ok(p) = recipe.park(parked::DEFAULT_CAPACITY) {
                        shared.ready.lock().unwrap_or_else(|e| e.into_inner()).push(p);
                    }
                }
            });
            if let Ok(thread) = thread {
                *refill = Some((tx, thread));
            }
        }
        if let Some((tx, _)) = refill.as_ref() {
            let _ = tx.send(());
        }
        parked
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let refill = self.refill.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((tx, thread)) = refill {
            drop(tx);
            let _ = thread.join();
        }
        // Each ends (its socket closes) and is reaped; its cgroup is removed.
        self.shared.ready.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}
