//! Cgroups from the command line's side: starting bhgrade again in a systemd scope of its own
//! (cgroup v2 under systemd, see `sandbox/cgroup/scope.rs`), and the advice `bhgrade doctor`
//! gives when the cgroup layers are missing, per kind of machine and marker.

use std::os::unix::process::CommandExt;

use bhgrade::sandbox::{own_scope, record_scope_failure, OwnScope, Sandbox};

use super::CliError;

/// On cgroup v2 under systemd, replace this process by itself run as the only process of a
/// transient scope systemd delegates to it; where that cannot be had, carry on here (the
/// cgroup layers then say why) rather than fail.
pub(super) fn enter_own_scope() -> Result<(), CliError> {
    let request = match own_scope() {
        OwnScope::NotNeeded => return Ok(()),
        OwnScope::Unavailable(why) => {
            record_scope_failure(why);
            return Ok(());
        }
        OwnScope::Start(request) => request,
    };
    // A manager that refuses (no bus, no permission) is found out before this process is
    // replaced, so that the marking still runs.
    if let Err(why) = request.preflight() {
        record_scope_failure(why);
        return Ok(());
    }
    let program = std::env::current_exe()
        .map_err(|e| CliError::Harness(format!("cannot find bhgrade's own program to start it in a scope: {e}")))?;
    let error = request.command(&program, std::env::args_os().skip(1)).exec();
    record_scope_failure(format!("`{}` could not be started: {error}", request.shown()));
    Ok(())
}

/// How to get the cgroups the table says are missing, for this machine and this marker: the
/// one-line hint of the rows cannot say what to do on a machine without a systemd session.
pub(super) fn advice(sandbox: &Sandbox) -> Option<String> {
    let layers = sandbox.layers();
    let missing: Vec<_> = layers.iter().filter(|l| l.name.is_cgroup() && !l.active).collect();
    if missing.is_empty() {
        return None;
    }
    let root = bhgrade::sandbox::is_root();
    let fallback = "each run's resident memory is measured and the run is killed once past its limit, its CPU \
                    time is counted from the rusage of every process it made, and RLIMIT_NPROC bounds its \
                    processes where it counts the run alone (the rows above say which)";
    if !bhgrade::sandbox::is_cgroup_v2() {
        return (!root).then(|| {
            format!(
                "Cgroups: this machine mounts cgroup v1, which cannot be delegated safely to an ordinary user, \
                 so {fallback}. For cgroup limits, run bhgrade as root (`sudo bhgrade mark ...`; programs then run \
                 as a user of their own), or boot the machine with cgroup v2 (`systemd.unified_cgroup_hierarchy=1`), where \
                 bhgrade gets a cgroup of its own from systemd by itself."
            )
        });
    }
    // In a delegated cgroup that lacks the controllers, another scope would lack them too: the
    // row says who can delegate them.
    if missing.iter().any(|l| l.held_above) {
        return None;
    }
    if !bhgrade::sandbox::under_systemd() {
        return Some(format!(
            "Cgroups: this machine has cgroup v2 without systemd. As root, bhgrade makes its runs' cgroups under \
             the root cgroup (in `bhgrade`); as an ordinary user, it needs a cgroup that root made and handed to \
             you (`chown -R` on it) and bhgrade started as its only process. Without either, {fallback}."
        ));
    }
    if root {
        return Some(format!(
            "Cgroups: bhgrade starts itself in a transient systemd scope delegated to it, which did not work \
             here (the rows above say why); check that systemd runs as this machine's init and that \
             `systemd-run --scope -p Delegate=yes true` works as root. Until then, {fallback}."
        ));
    }
    let uid = bhgrade::sandbox::uid();
    let user = bhgrade::sandbox::user_name(uid).unwrap_or_else(|| uid.to_string());
    Some(format!(
        "Cgroups: as an ordinary user, bhgrade starts itself in a scope your systemd user manager delegates to \
         you, but only a manager that outlives your logins: without linger, systemd stops the manager when \
         your last login ends, and a marking moved into it (one left running with nohup or in tmux) would be \
         stopped with it, so bhgrade marks where it was started. Without a user manager (no systemd login \
         session: `sudo -u`, `su` without `-l`, cron, a service), or without linger, have root make yours \
         outlive logins, then run bhgrade as before (it finds the manager itself, with or without \
         XDG_RUNTIME_DIR):\n\n\
         \x20   sudo loginctl enable-linger {user}\n\n\
         Or run bhgrade as root (`sudo bhgrade mark ...`; each submission then runs as a user of its own), or mark as it is: \
         {fallback}."
    ))
}
