//! Tests of the isolation layers: the supervisor (PID namespace and subreaper), Landlock, the
//! staging of inputs, and the isolation modes. A test whose layer this machine lacks says so
//! ("skipped: ...") and checks nothing it cannot.

use super::test_support::{limits, sandbox_with, sh, survivors};
use super::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Without cgroups, so that only the supervisor can catch what escapes the process group.
fn supervisor_only(pid_namespace: bool) -> Policy {
    Policy { use_cgroups: false, pid_namespace, ..Policy::default() }
}

fn landlock_or_skip(sb: &Sandbox, test: &str) -> bool {
    match &sb.landlock {
        Ok(_) => true,
        Err(why) => {
            crate::skip::skipped(test, format!("filesystem (landlock) unavailable: {why}"));
            false
        }
    }
}

#[test]
fn setsid_escapers_die_with_the_program_without_cgroups() {
    for pid_namespace in [true, false] {
        let (tmp, sb) = sandbox_with(supervisor_only(pid_namespace));
        if pid_namespace && sb.pidns.is_err() {
            let why = format!("PID namespace unavailable: {:?}", sb.pidns);
            crate::skip::skipped("setsid_escapers_die_with_the_program_without_cgroups (its PID namespace half)", why);
            continue;
        }
        // Double fork, new session, no pipe held: neither the group nor a pipe leads to it.
        let script = "(setsid sleep 1020 </dev/null >/dev/null 2>&1 &); echo hi";
        let out = sb.run(&sh(tmp.path(), script), &limits(10_000)).unwrap();
        assert_eq!(out.stdout, b"hi\n", "pid namespace {pid_namespace}: {out:?}");
        assert_eq!(out.exit, Exit::Code(0));
        assert!(out.leftovers_killed, "pid namespace {pid_namespace}");
        assert!(survivors("1020").is_empty(), "pid namespace {pid_namespace}");
    }
}

#[test]
fn the_supervisor_passes_on_the_programs_status() {
    for pid_namespace in [true, false] {
        let (tmp, sb) = sandbox_with(supervisor_only(pid_namespace));
        let out = sb.run(&sh(tmp.path(), "exit 3"), &limits(5000)).unwrap();
        assert_eq!(out.exit, Exit::Code(3));
        let out = sb.run(&sh(tmp.path(), "kill -SEGV $$"), &limits(5000)).unwrap();
        assert_eq!(out.exit, Exit::Signal(libc::SIGSEGV), "pid namespace {pid_namespace}");
        let out = sb.run(&Command::new("sleep", tmp.path()).arg("1021"), &limits(300)).unwrap();
        assert!(out.wall_limit_hit);
        assert_eq!(out.exit, Exit::Signal(libc::SIGTERM), "pid namespace {pid_namespace}");
        let out = sb.run(&sh(tmp.path(), "trap '' TERM; sleep 1022; sleep 1022"), &limits(300)).unwrap();
        assert_eq!(out.exit, Exit::Signal(libc::SIGKILL), "pid namespace {pid_namespace}");
        assert!(survivors("1022").is_empty());
    }
}

#[test]
fn a_program_cannot_kill_its_supervisor() {
    for pid_namespace in [true, false] {
        let (tmp, sb) = sandbox_with(supervisor_only(pid_namespace));
        let script = "(setsid sleep 1023 </dev/null >/dev/null 2>&1 &); kill -KILL $PPID; echo alive";
        let out = sb.run(&sh(tmp.path(), script), &limits(5000)).unwrap();
        assert_eq!(out.stdout, b"alive\n", "pid namespace {pid_namespace}: {out:?}");
        assert!(survivors("1023").is_empty(), "pid namespace {pid_namespace}");
    }
}

#[test]
fn writes_land_only_in_the_home_and_the_declared_copy() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if !landlock_or_skip(&sb, "writes_land_only_in_the_home_and_the_declared_copy") {
        return;
    }
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    let copy = tmp.path().join("copy");
    std::fs::create_dir_all(copy.join("src")).unwrap();
    if let Some(ids) = sb.run_as() {
        for dir in [&copy, &copy.join("src")] {
            std::os::unix::fs::chown(dir, Some(ids.uid), Some(ids.gid)).unwrap();
        }
    }
    sb.add_copy(&copy);
    let marker = format!("/tmp/bhgrade-landlock-test-{}", std::process::id());
    let script = r#"
        touch "$HOME/a" && touch b && touch ../c && echo wrote
        cat "$1/secret.txt" 2>/dev/null && echo LEAK-read
        touch "$1/pwned" 2>/dev/null && echo LEAK-write
        touch "$2" 2>/dev/null
        ls -A "$3" 2>/dev/null | grep -q bhgrade-owner && echo LEAK-list
        echo done"#;
    let cmd = sh(copy.join("src"), script).args([outside.as_os_str(), marker.as_ref(), sb.scratch_root().as_os_str()]);
    let out = sb.run(&cmd, &limits(5000)).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "wrote\ndone\n", "{}", String::from_utf8_lossy(&out.stderr));
    assert!(copy.join("src/b").exists() && copy.join("c").exists());
    // A file in /tmp lands in the run's own (with a root of its own) or nowhere: never the machine's.
    assert!(!outside.join("pwned").exists() && !Path::new(&marker).exists());
}

#[test]
fn inputs_on_the_command_line_are_readable_and_nothing_beside_them() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if !landlock_or_skip(&sb, "inputs_on_the_command_line_are_readable_and_nothing_beside_them") {
        return;
    }
    let suite = tmp.path().join("suite");
    std::fs::create_dir_all(suite.join("instances")).unwrap();
    std::fs::write(suite.join("instances/p.txt"), "13 4 1\n").unwrap();
    std::fs::write(suite.join("expected.json"), "{}").unwrap();
    // Started outside any copy, a program may read its working folder: an empty one here.
    let cwd = tmp.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let script = r#"cat "$1"; cat "$(dirname "$1")/../expected.json" 2>/dev/null && echo LEAK"#;
    let cmd = sh(&cwd, script).arg(suite.join("instances/p.txt"));
    let out = sb.run(&cmd, &limits(5000)).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "13 4 1\n", "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn inputs_the_user_cannot_reach_are_staged() {
    let (tmp, sb) = sandbox_with(Policy::default());
    let Some(ids) = sb.run_as() else {
        return crate::skip::skipped(
            "inputs_the_user_cannot_reach_are_staged",
            "unprivileged user inactive (not root)",
        );
    };
    let private = tmp.path().join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let puzzle = private.join("p.txt");
    std::fs::write(&puzzle, "13 4 1\n").unwrap();
    let out = sb.run(&sh(tmp.path(), r#"cat "$1"; echo "$1""#).arg(&puzzle), &limits(5000)).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let (content, path) = text.split_once('\n').unwrap();
    assert_eq!(content, "13 4 1", "uid {}: {}", ids.uid, String::from_utf8_lossy(&out.stderr));
    assert!(Path::new(path.trim()).starts_with(sb.scratch_root()), "{path}");
    assert!(path.trim().ends_with("/p.txt"));
    // A reachable input is passed as it is.
    let open = tmp.path().join("p.txt");
    std::fs::write(&open, "x").unwrap();
    let out = sb.run(&sh(tmp.path(), r#"echo "$1""#).arg(&open), &limits(5000)).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), open.to_str().unwrap());
}

#[test]
fn isolation_off_keeps_only_the_limits() {
    let (_tmp, sb) = sandbox_with(Policy::for_isolation(Isolation::Off));
    // Off keeps the cgroups' limits where the machine gives the harness cgroups (an ordinary
    // user's may not, in any mode).
    let mut missing: Vec<LayerName> = sb.missing_layers().into_iter().map(|l| l.name).collect();
    if !procs::is_root() {
        missing.retain(|name| !name.is_cgroup());
    }
    // Off keeps the run's own session, but nothing that stops a program opening a terminal.
    let mut expected = vec![
        LayerName::NetworkNamespace,
        LayerName::IpcNamespace,
        LayerName::OwnRoot,
        LayerName::Terminal,
        LayerName::Landlock,
    ];
    if procs::is_root() {
        expected.push(LayerName::UnprivilegedUser);
    }
    assert_eq!(missing, expected, "in the order the layers are listed");
    let layers = sb.layers();
    for always in [LayerName::ProcessGroup, LayerName::Supervisor, LayerName::Rlimits] {
        assert!(layers.iter().any(|l| l.name == always && l.active && l.required), "{always}");
    }
}

#[test]
fn isolation_modes_parse() {
    for mode in [Isolation::Auto, Isolation::Strict, Isolation::Off] {
        assert_eq!(mode.name().parse::<Isolation>(), Ok(mode));
    }
    assert!("none".parse::<Isolation>().unwrap_err().contains("auto, strict or off"));
    assert_eq!(Policy::for_isolation(Isolation::Strict), Policy::default());
}

#[test]
fn an_unreachable_scratch_root_disables_the_user_switch() {
    if !procs::is_root() {
        return crate::skip::skipped("an_unreachable_scratch_root_disables_the_user_switch", "not root");
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let sb = Sandbox::probe_with(&tmp.path().join("scratch"), Policy::default()).unwrap();
    let user = sb.layers().into_iter().find(|l| l.name == LayerName::UnprivilegedUser).unwrap();
    assert!(!user.active && user.detail.contains("cannot reach"), "{user:?}");
    assert!(sb.run_as().is_none());
}
