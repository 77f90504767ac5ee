//! A cgroup of the harness's own on cgroup v2 under systemd: the harness's situation (v2 or
//! not, root or an ordinary user, the systemd manager it can reach, its own cgroup) → an
//! [`OwnScope`]: the `systemd-run --scope -p Delegate=...` command that re-executes the harness
//! as the only process of a transient scope systemd delegates to it, or why none is asked for.
//!
//! A login's session scope holds the shell (and `su` or `sudo`) as well as bhgrade, and a
//! service's cgroup belongs to systemd: neither may be divided into run cgroups (see
//! `delegate.rs`). podman does the same for an ordinary user (`shared/docs/judges.md`).
//! The command line runs the harness itself, so its pid, terminal, standard streams, signals and
//! exit status are what the marker started; `BHGRADE_OWN_SCOPE` names the scope for the probe
//! (systemd before 251 does not mark a delegated cgroup), and set by the marker to anything
//! (`BHGRADE_OWN_SCOPE=none`) keeps bhgrade where it was started.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::mount::{is_cgroup_v2, own_v2_dir};
use super::run_cgroup::{procs_of, CgroupFs, Kernel, OWN_SCOPE_VAR};
use crate::sandbox::procs;

/// The controllers asked of systemd for the scope (what run cgroups use; a user's manager
/// delegates those it has, usually memory and pids).
const DELEGATED: [&str; 3] = ["cpuset", "memory", "pids"];

/// Whether the harness should start itself again in a scope of its own.
#[derive(Debug)]
pub enum OwnScope {
    /// Start this command (the harness's own command line follows it).
    Start(ScopeRequest),
    /// Where the harness is will do (cgroup v1, no systemd, a delegated cgroup of its own, or a
    /// scope it already asked for).
    NotNeeded,
    /// A scope would be needed but cannot be had here: why.
    Unavailable(String),
}

/// `systemd-run [--user] --scope ... --unit UNIT --`, with the environment the harness is to
/// start with.
#[derive(Debug)]
pub struct ScopeRequest {
    /// Everything but the unit's name.
    options: Vec<OsString>,
    unit: String,
    env: Vec<(OsString, OsString)>,
}

impl ScopeRequest {
    /// The whole command line before the program.
    fn args(&self) -> Vec<OsString> {
        let mut args = self.options.clone();
        args.extend(["--unit".into(), (&self.unit).into(), "--".into()]);
        args
    }

    /// Ask systemd for a scope running `true`: whether the manager answers and grants one (the
    /// same request, without the unit name the harness will take).
    pub fn preflight(&self) -> Result<(), String> {
        let mut command = Command::new("systemd-run");
        command.args(&self.options).args(["--", "true"]).envs(self.env.iter().map(|(k, v)| (k, v)));
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let output = command.output().map_err(|e| format!("cannot start systemd-run: {e}"))?;
        if output.status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&output.stderr).trim().replace('\n', "; ");
        Err(format!("`{}` failed ({}): {said}", self.shown(), output.status))
    }

    /// The command that starts `program` with `args` in the scope.
    pub fn command(&self, program: &Path, args: impl IntoIterator<Item = OsString>) -> Command {
        let mut command = Command::new("systemd-run");
        command.args(self.args()).arg(program).args(args).envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// The request as a marker would type it.
    pub fn shown(&self) -> String {
        let args: Vec<String> = self.args().iter().map(|a| a.to_string_lossy().into_owned()).collect();
        format!("systemd-run {} COMMAND", args.join(" "))
    }
}

/// What this harness should do to get a cgroup it may divide.
pub fn own_scope() -> OwnScope {
    let asked_before = std::env::var_os(OWN_SCOPE_VAR).is_some();
    let needs_scope = !asked_before && is_cgroup_v2() && Kernel.under_systemd();
    let situation = Situation {
        needs_scope,
        alone_in_delegated: needs_scope
            && own_v2_dir().is_some_and(|own| {
                let procs = Kernel.read(&own.join("cgroup.procs")).unwrap_or_default();
                procs_of(&procs).eq([std::process::id() as i32]) && Kernel.delegated(&own)
            }),
        root: procs::is_root(),
        in_user_manager: own_v2_dir()
            .is_some_and(|own| own.to_string_lossy().contains(&format!("/user@{}.service/", procs::uid()))),
        // Unique among live harnesses (the pid), and among the scopes of dead ones that systemd
        // may still be collecting (the time).
        unit: format!(
            "bhgrade-{}-{}.scope",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
        ),
    };
    decide(&situation, user_manager)
}

/// What [`own_scope`] found out about this harness.
struct Situation {
    /// Cgroup v2 under systemd, and no scope asked for yet (nor refused by the marker).
    needs_scope: bool,
    /// The harness is the only process of a cgroup systemd delegated (a scope the marker made).
    alone_in_delegated: bool,
    root: bool,
    /// Already in a cgroup of the user's systemd manager (a scope the marker asked it for): the
    /// marking lives and dies with that manager wherever in it it runs.
    in_user_manager: bool,
    unit: String,
}

fn decide(situation: &Situation, user_manager: impl FnOnce(bool) -> Result<PathBuf, String>) -> OwnScope {
    if !situation.needs_scope || situation.alone_in_delegated {
        return OwnScope::NotNeeded;
    }
    let unit = situation.unit.clone();
    let mut options: Vec<OsString> = Vec::new();
    let mut env = vec![(OsString::from(OWN_SCOPE_VAR), OsString::from(&unit))];
    if !situation.root {
        match user_manager(!situation.in_user_manager) {
            Ok(runtime) => env.push(("XDG_RUNTIME_DIR".into(), runtime.into_os_string())),
            Err(why) => return OwnScope::Unavailable(why),
        }
        options.push("--user".into());
    }
    // Only the controllers runs use: systemd enables each delegated one in the slices above the
    // scope, and `Delegate=yes` would have it enable `cpu` and `io` there too, for nothing.
    // Each run has its own pids.max; the scope's default TasksMax (15% of the machine's pids)
    // would let a few concurrent fork bombs leave the harness itself unable to fork.
    let delegate = format!("Delegate={}", DELEGATED.join(" "));
    for option in ["--scope", "--quiet", "--collect", "-p", &delegate, "-p", "TasksMax=infinity"] {
        options.push(option.into());
    }
    OwnScope::Start(ScopeRequest { options, unit, env })
}

/// The runtime folder of this user's systemd manager, when one runs and will outlive the
/// marking: `XDG_RUNTIME_DIR`, or `/run/user/UID` where `sudo -u` or `su` left the variable out.
///
/// A manager outlives the marking only when it lingers (`must_linger`, unless the marking runs in
/// that manager already): without linger, systemd stops it once the user's last login ends, and
/// everything in it with it. A marking left running after a logout
/// (`nohup`, `tmux`) keeps its login's session open as long as it runs where it was started; moved
/// into the manager, it would leave the session empty, end it, and be stopped with the manager.
fn user_manager(must_linger: bool) -> Result<PathBuf, String> {
    use std::os::unix::fs::MetadataExt;
    let uid = procs::uid();
    let runtime =
        std::env::var_os("XDG_RUNTIME_DIR").map_or_else(|| PathBuf::from(format!("/run/user/{uid}")), PathBuf::from);
    let socket = runtime.join("systemd/private");
    let owned = std::fs::metadata(&runtime).is_ok_and(|m| m.uid() == uid);
    if !owned || !socket.exists() {
        return Err(format!("uid {uid} has no systemd user manager running ({} is missing)", socket.display()));
    }
    let user = procs::user_name(uid).unwrap_or_else(|| uid.to_string());
    if must_linger && !lingers(Path::new(LINGER_DIR), &user) {
        return Err(format!(
            "the systemd user manager of uid {uid} does not linger, so it stops when {user}'s last login ends and \
             would take a marking moved into it along (one left running with nohup or in tmux): marking where it \
             was started"
        ));
    }
    Ok(runtime)
}

/// Where logind keeps a file for each user whose manager lingers (`loginctl enable-linger`).
const LINGER_DIR: &str = "/var/lib/systemd/linger";

fn lingers(dir: &Path, user: &str) -> bool {
    dir.join(user).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn situation(needs_scope: bool, alone_in_delegated: bool, root: bool) -> Situation {
        Situation { needs_scope, alone_in_delegated, root, in_user_manager: false, unit: "bhgrade-7-1.scope".into() }
    }

    fn no_manager(_must_linger: bool) -> Result<PathBuf, String> {
        Err("uid 1000 has no systemd user manager running".into())
    }

    fn start(scope: OwnScope) -> ScopeRequest {
        match scope {
            OwnScope::Start(request) => request,
            other => panic!("expected a scope to be asked for, got {other:?}"),
        }
    }

    #[test]
    fn root_asks_the_system_manager_for_a_scope_with_only_the_controllers_runs_use() {
        let request = start(decide(&situation(true, false, true), |_| panic!("root needs no user manager")));
        let shown = request.shown();
        assert_eq!(
            shown,
            "systemd-run --scope --quiet --collect -p Delegate=cpuset memory pids -p TasksMax=infinity --unit \
             bhgrade-7-1.scope -- COMMAND"
        );
        assert_eq!(request.env, [(OsString::from(OWN_SCOPE_VAR), OsString::from("bhgrade-7-1.scope"))]);
        // The preflight asks for the same scope without taking the harness's unit name.
        let command = request.command(Path::new("/usr/bin/bhgrade"), ["doctor".into()]);
        let args: Vec<_> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args.last().map(String::as_str), Some("doctor"));
        assert!(args.contains(&"/usr/bin/bhgrade".to_string()));
    }

    #[test]
    fn a_user_asks_their_own_manager_and_is_told_where_it_listens() {
        let request = start(decide(&situation(true, false, false), |must_linger| {
            assert!(must_linger, "a login's marking must not move into a manager that stops at logout");
            Ok(PathBuf::from("/run/user/1000"))
        }));
        assert!(request.shown().starts_with("systemd-run --user --scope "), "{}", request.shown());
        assert!(request.env.contains(&("XDG_RUNTIME_DIR".into(), "/run/user/1000".into())));
    }

    #[test]
    fn without_a_user_manager_the_reason_is_kept() {
        match decide(&situation(true, false, false), no_manager) {
            OwnScope::Unavailable(why) => assert!(why.contains("no systemd user manager"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_marking_already_in_the_users_manager_may_move_within_it() {
        let inside = Situation { in_user_manager: true, ..situation(true, false, false) };
        start(decide(&inside, |must_linger| {
            assert!(!must_linger);
            Ok(PathBuf::from("/run/user/1000"))
        }));
    }

    #[test]
    fn only_a_lingering_manager_outlives_the_login() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("marker"), "").unwrap();
        assert!(lingers(dir.path(), "marker"));
        assert!(!lingers(dir.path(), "student"));
    }

    #[test]
    fn no_scope_on_v1_without_systemd_once_asked_or_alone_in_a_delegated_one() {
        for (needs, alone, root) in
            [(false, false, true), (false, false, false), (true, true, false), (true, true, true)]
        {
            assert!(matches!(decide(&situation(needs, alone, root), no_manager), OwnScope::NotNeeded));
        }
    }
}
