//! The run's cgroups, in one room: where the hierarchies are mounted (`mount.rs`, at the
//! bottom), one run's cgroup and the calls on cgroup files (`run_cgroup.rs`), a v2 parent made
//! usable (`delegate.rs`), a systemd scope of the harness's own (`scope.rs`), and the probe that
//! puts them together into a [`Setup`] and the cgroup layers (`probe.rs`, at the top).

mod delegate;
mod mount;
mod probe;
mod run_cgroup;
mod scope;

pub(crate) use mount::is_cgroup_v2;
pub(crate) use probe::probe;
pub use run_cgroup::record_scope_failure;
pub(crate) use run_cgroup::{disabled_layers, CgroupFs, Kernel, RunCgroup, Setup};
pub use scope::{own_scope, OwnScope, ScopeRequest};

/// Whether systemd is this machine's init (what gives bhgrade a delegated scope on v2).
pub(crate) fn under_systemd() -> bool {
    Kernel.under_systemd()
}
