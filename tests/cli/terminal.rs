//! The marker's terminal is out of every build's and run's reach: `bhgrade mark` runs in a
//! shell on a real pseudo-terminal, as a marker's would, while `fixtures/hostile/terminal-inject`
//! tries to type a command into it (TIOCSTI) and to turn its echo off (`stty -echo`), from its
//! `build.sh` and from its program. Afterwards the shell finds nothing typed for it to run, and
//! `stty -g` reads the same as before marking.
//!
//! With `--isolation off`, which drops every layer but the limits, the same attack gets through
//! where the kernel still allows TIOCSTI (`dev.tty.legacy_tiocsti`) and programs run as root:
//! that half shows the attack is real, so the first half can fail. Last, as an ordinary user
//! (`nobody`) whose own terminal it is, the attack is refused again.

use std::fs;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;

use crate::support::{copy_tree, repo};

/// What the shell on the terminal printed: everything the master side read until the shell
/// and everything on the terminal had gone.
fn mark_on_a_terminal(class: &Path, out: &Path, isolation: &str, as_nobody: bool) -> String {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: two out-parameters; no name, settings or size.
    let r = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both fds were just made and belong to nobody else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut bhgrade = format!("'{}'", assert_cmd::cargo::cargo_bin("bhgrade").display());
    if as_nobody {
        // The marker's terminal is then nobody's own, which a program of nobody's could open
        // by its path but for Landlock.
        std::os::unix::fs::fchown(&slave, Some(65534), Some(65534)).expect("chown the terminal");
        let home = out.parent().expect("a parent").display();
        bhgrade =
            format!("setpriv --reuid=65534 --regid=65534 --clear-groups env HOME='{home}' TMPDIR='{home}' {bhgrade}");
    }
    // `read -t 0` asks whether a typed line waits, without waiting for one.
    let script = format!(
        "echo \"before=$(stty -g)\"; {bhgrade} mark --jobs 2 --isolation {isolation} --suite '{suite}' --out '{out}' \
         '{class}'; echo \"exit=$?\"; echo \"after=$(stty -g)\"; \
         if read -t 0; then read -r line; echo \"typed=[$line]\"; else echo typed=none; fi",
        suite = repo().join("fixtures/suites/hostile").display(),
        out = out.display(),
        class = class.display(),
    );
    let stdio = || Stdio::from(slave.try_clone().expect("dup the terminal"));
    let slave_fd = slave.as_raw_fd();
    let mut shell = std::process::Command::new("bash");
    shell.args(["--norc", "--noprofile", "-c", &script]).stdin(stdio()).stdout(stdio()).stderr(stdio());
    // SAFETY: setsid and ioctl only, between fork and exec.
    unsafe {
        shell.pre_exec(move || {
            if libc::setsid() < 0 || libc::ioctl(slave_fd, libc::TIOCSCTTY, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = shell.spawn().expect("start a shell on the terminal");
    drop(slave);
    drop(shell);
    let mut text = Vec::new();
    let mut reader = fs::File::from(master);
    // Ends with EIO once the last holder of the terminal's other side has closed it.
    let mut chunk = [0u8; 4096];
    while let Ok(n) = reader.read(&mut chunk) {
        if n == 0 {
            break;
        }
        text.extend_from_slice(&chunk[..n]);
    }
    child.wait().expect("wait for the shell");
    String::from_utf8_lossy(&text).into_owned()
}

fn field<'t>(text: &'t str, name: &str) -> &'t str {
    let prefix = format!("{name}=");
    text.lines().find_map(|l| l.trim_end_matches('\r').strip_prefix(prefix.as_str())).unwrap_or("(missing)")
}

#[test]
fn no_build_or_run_types_into_or_reconfigures_the_markers_terminal() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let class = tmp.path().join("class");
    copy_tree(&repo().join("fixtures/hostile/terminal-inject"), &class.join("terminal-inject"));

    let contained = |out: &str, as_nobody: bool| {
        let text = mark_on_a_terminal(&class, &tmp.path().join(out), "auto", as_nobody);
        assert_eq!(field(&text, "exit"), "0", "{text}");
        assert_eq!(field(&text, "typed"), "none", "a line was typed into the marker's shell:\n{text}");
        assert!(!text.contains("bhgrade-hostile-INJECTED"), "{text}");
        assert_eq!(field(&text, "before"), field(&text, "after"), "the terminal's settings changed:\n{text}");
        let report = fs::read_to_string(tmp.path().join(out).join("students/terminal-inject.json")).expect("report");
        let report: serde_json::Value = serde_json::from_str(&report).expect("json");
        assert_eq!(report["parts"][0]["tests"][0]["verdict"], "accepted", "{report:#}");
    };
    contained("out-auto", false);

    let legacy = fs::read_to_string("/proc/sys/dev/tty/legacy_tiocsti").is_ok_and(|v| v.trim() == "1");
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if legacy && root {
        let text = mark_on_a_terminal(&class, &tmp.path().join("out-off"), "off", false);
        assert!(text.contains("bhgrade-hostile-INJECTED"), "--isolation off should let the attack through:\n{text}");
    } else {
        println!("not shown here that the attack is real: needs root and dev.tty.legacy_tiocsti=1");
    }
    if !root {
        println!("not shown here as an ordinary user: needs root to become nobody");
        return;
    }
    // An ordinary user's marking, on a terminal the run's own user could open but for the sandbox.
    let chown = std::process::Command::new("chown").args(["-R", "65534:65534"]).arg(tmp.path()).status();
    assert!(chown.is_ok_and(|s| s.success()), "chown the class for nobody");
    std::fs::set_permissions(tmp.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    contained("out-nobody", true);
}
