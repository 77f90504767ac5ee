//! Tests of the layers that keep a run from the marker and from other runs: no terminal, five
//! device files, an IPC namespace, a fresh session keyring, and the seccomp filter (each layer
//! alone, with the others off where they would hide it). A test whose layer this machine lacks
//! says so ("skipped: ...") and checks nothing it cannot.

use super::test_support::{limits, sandbox_with};
use super::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// The lines a shell script printed (its stderr in the message if it failed).
fn lines(sb: &Sandbox, cwd: &Path, script: &str) -> Vec<String> {
    let cmd = Command::new("/bin/sh", cwd).arg("-c").arg(script);
    let out = sb.run(&cmd, &limits(10_000)).unwrap();
    assert_eq!(out.exit, Exit::Code(0), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

/// Held by the tests whose sandboxes run without seccomp as root: each empties the run user's
/// keyring when it goes, which would race with another's count.
static KEYRINGS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn skip_without(layer: &Result<impl Sized, String>, name: &str, test: &str) -> bool {
    match layer {
        Ok(_) => false,
        Err(why) => {
            crate::skip::skipped(test, format!("{name} unavailable: {why}"));
            true
        }
    }
}

#[test]
fn a_run_has_a_session_of_its_own_and_no_terminal() {
    // Without a PID namespace the run's /proc/self/stat names sessions as the harness sees
    // them: inside one, a session led from outside (the parked supervisor's, or the harness's
    // own when it runs in a container) reads as 0 on both sides, and the test would prove
    // nothing.
    let policy = Policy { landlock: false, pid_namespace: false, own_root: false, ..Policy::default() };
    let (tmp, sb) = sandbox_with(policy);
    let script = "cut -d' ' -f6 /proc/self/stat; (exec 3</dev/tty) 2>/dev/null && echo opened || echo no-tty";
    let out = lines(&sb, tmp.path(), script);
    // SAFETY: getsid(0) cannot fail for the calling process.
    let ours = unsafe { libc::getsid(0) };
    assert_ne!(out[0], "0", "the run's session is led by a process the harness cannot see");
    assert_ne!(out[0], ours.to_string(), "the run shares the harness's session");
    assert_eq!(out[1], "no-tty");
}

#[test]
fn only_five_device_files_are_open_to_a_run() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(&sb.landlock, "filesystem (landlock)", "only_five_device_files_are_open_to_a_run") {
        return;
    }
    let script = "for d in /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/ptmx /dev/shm/x; do \
                  if (exec 3<\"$d\") 2>/dev/null; then echo \"$d\"; fi; done; \
                  ls /dev >/dev/null 2>&1 && echo listed; (: > /dev/shm/bhgrade-test) 2>/dev/null && echo wrote; true";
    let opened = lines(&sb, tmp.path(), script);
    assert_eq!(opened, ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]);
}

#[test]
fn sysv_objects_die_with_their_run() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(&sb.ipcns, "ipc namespace", "sysv_objects_die_with_their_run") {
        return;
    }
    // Message queues: shared memory is refused to every run (seccomp, below).
    let table = || std::fs::read_to_string("/proc/sysvipc/msg").unwrap_or_default();
    let before = table();
    let script = "ipcmk -Q >/dev/null && ipcs -q | grep -c '^0x'";
    assert_eq!(lines(&sb, tmp.path(), script), ["1"], "the run sees its own queue only");
    assert_eq!(lines(&sb, tmp.path(), script), ["1"], "the next run does not see the first run's");
    assert_eq!(table(), before, "a queue outlived its run");
    if sb.seccomp.is_ok() {
        let refused = "ipcmk -M 4096 >/dev/null 2>&1; echo $?";
        assert_ne!(lines(&sb, tmp.path(), refused), ["0"], "a SysV shared-memory segment was made");
    }
}

#[test]
fn a_run_starts_in_a_session_keyring_of_its_own() {
    let _alone = KEYRINGS.lock().unwrap_or_else(|e| e.into_inner());
    let (tmp, sb) = sandbox_with(Policy { seccomp: false, ..Policy::default() });
    if skip_without(&sb.keyring, "keyring", "a_run_starts_in_a_session_keyring_of_its_own") {
        return;
    }
    // The test's own session keyring holds the serial of the run's, if it inherits it.
    // SAFETY: KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3), creating it (1).
    let ours = unsafe { libc::syscall(libc::SYS_keyctl, 0 as libc::c_long, -3 as libc::c_long, 1 as libc::c_long) };
    assert!(ours > 0, "{}", std::io::Error::last_os_error());
    let script = "perl -e 'require \"syscall.ph\"; print syscall(&SYS_keyctl, 0, -3, 1), \"\\n\"'";
    let theirs = lines(&sb, tmp.path(), script);
    assert_ne!(theirs, [ours.to_string()], "the run was in the harness's session keyring");
    assert!(theirs[0].parse::<i64>().is_ok_and(|id| id > 0), "{theirs:?}");
}

#[test]
fn seccomp_denies_keyrings_terminal_injection_namespaces_and_unix_sockets() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(&sb.seccomp, "seccomp", "seccomp_denies_keyrings_terminal_injection_namespaces_and_unix_sockets") {
        return;
    }
    // Each prints the errno of a call: 1 is EPERM; TIOCSTI on a pipe would otherwise be ENOTTY
    // (25), keyctl would answer, clone3 falls back to clone (38, ENOSYS), and an x32 getpid
    // (bit 30 set) would answer or be ENOSYS where the kernel has no x32. First, a unix-domain
    // socket is refused (EPERM) while a connected pair of them is not.
    let script = r#"perl -e '
        require "syscall.ph"; require "sys/ioctl.ph";
        $! = 0; socket(my $s, 1, 1, 0); print $! + 0, "
";
        print socketpair(my $x, my $y, 1, 1, 0) ? "pair
" : "no pair: $!
";
        $! = 0; syscall(&SYS_keyctl, 0, -3, 0); print $! + 0, "\n";
        $! = 0; my $c = "x"; ioctl(STDIN, &TIOCSTI, $c); print $! + 0, "\n";
        $! = 0; syscall(&SYS_unshare, 0x10000000); print $! + 0, "\n";
        $! = 0; syscall(435, 0, 0); print $! + 0, "\n";
        $! = 0; syscall(0x40000000 + 39); print $! + 0, "\n";'"#;
    let expected: &[&str] = if cfg!(target_arch = "x86_64") {
        &["1", "pair", "1", "1", "1", "38", "1"]
    } else {
        &["1", "pair", "1", "1", "1", "38"]
    };
    let got = lines(&sb, tmp.path(), script);
    assert_eq!(got[..expected.len()], *expected);
}

#[test]
fn keys_a_run_leaves_without_seccomp_go_with_the_sandbox() {
    if !procs::is_root() {
        return crate::skip::skipped(
            "keys_a_run_leaves_without_seccomp_go_with_the_sandbox",
            "needs root to switch user",
        );
    }
    let _alone = KEYRINGS.lock().unwrap_or_else(|e| e.into_inner());
    let policy = || Policy { seccomp: false, ..Policy::default() };
    let (tmp, sb) = sandbox_with(policy());
    let add = "perl -e 'require \"syscall.ph\"; my ($t, $d, $p) = (\"user\", \"bhgrade-test-left\", \"x\"); \
               print syscall(&SYS_add_key, $t, $d, $p, 1, -4) > 0 ? \"added\\n\" : \"refused $!\\n\"'";
    // KEYCTL_READ (11) of the user keyring (-4): 4 bytes per key. Root may not look into
    // another user's keyring (not even /proc/keys shows it), so the user looks.
    let count = "perl -e 'require \"syscall.ph\"; my $b = \"\\0\" x 4096; \
                 print syscall(&SYS_keyctl, 11, -4, $b, 4096) / 4, \"\\n\"'";
    assert_eq!(lines(&sb, tmp.path(), count), ["0"], "the run user's keyring holds keys already");
    assert_eq!(lines(&sb, tmp.path(), add), ["added"]);
    assert_eq!(lines(&sb, tmp.path(), count), ["1"], "the key is there while marking goes on");
    drop(sb);
    let (tmp, sb) = sandbox_with(policy());
    assert_eq!(lines(&sb, tmp.path(), count), ["0"], "the key outlived the sandbox");
}

/// The pid of the live process whose command line holds `tag`, once it has appeared.
fn wait_for(tag: &str, within: Duration) -> Option<i32> {
    let deadline = std::time::Instant::now() + within;
    while std::time::Instant::now() < deadline {
        let found = std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
            let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            cmdline.split(|&b| b == 0).any(|arg| arg == tag.as_bytes()).then_some(pid)
        });
        if found.is_some() {
            return found;
        }
        std::thread::yield_now();
    }
    None
}

/// The parent of `pid`, from /proc.
fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').nth(1)?.parse().ok()).unwrap_or(0)
}

#[test]
fn a_supervisor_killed_from_outside_is_a_harness_failure_not_the_programs() {
    let (tmp, sb) = sandbox_with(Policy::default());
    let tag = format!("bhgrade-lost-supervisor-{}", std::process::id());
    let cmd = Command::new("/bin/sh", tmp.path()).arg("-c").arg("sleep 30; :").arg(&tag);
    std::thread::scope(|scope| {
        let run = scope.spawn(|| sb.run(&cmd, &limits(10_000)));
        let shell = wait_for(&tag, Duration::from_secs(10)).expect("the run started");
        // The program's parent is the init of its PID namespace, or the supervisor itself; the
        // supervisor is the harness's own child.
        let mut supervisor = parent_of(shell);
        if parent_of(supervisor) != std::process::id() as i32 {
            supervisor = parent_of(supervisor);
        }
        assert_eq!(parent_of(supervisor), std::process::id() as i32, "found the supervisor");
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe { libc::kill(supervisor, libc::SIGKILL) };
        match run.join().unwrap() {
            Err(SandboxError::SupervisorLost { exit }) => assert!(exit.contains("SIGKILL"), "{exit}"),
            other => panic!("expected the supervisor to be lost, got {other:?}"),
        }
    });
}

#[test]
fn a_run_lists_only_its_own_processes_in_proc() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(&sb.own_root, "own root", "a_run_lists_only_its_own_processes_in_proc") {
        return;
    }
    // A process of the harness's that the run must not see, named so it cannot be mistaken:
    // counting the machine's processes proves nothing in a container that holds only a few.
    let marker = "bhgrade-own-proc-marker-4d1f";
    let mut witness = std::process::Command::new("/bin/sh")
        .args(["-c", "read line", marker])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its init, the shell, and ls (or cat): a handful, never the machine's.
    // The script names the marker in two halves, or its own command line would hold it.
    let (head, tail) = marker.split_at(8);
    let script = format!(
        "ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline | tr '\\0' ' '; echo; cat /proc/net/dev | grep -c ':'; \
         cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | m={head}; grep -c \"${{m}}{tail}\" || true"
    );
    let out = lines(&sb, tmp.path(), &script);
    drop(witness.stdin.take());
    witness.wait().unwrap();
    let seen_here = std::fs::read_dir("/proc").unwrap().count();
    let listed: usize = out[0].parse().unwrap();
    assert!(listed <= 5, "the run lists {listed} processes: {out:?}");
    assert_eq!(out[1].trim(), "", "the run's PID 1 shows a command line (the harness's): {out:?}");
    assert_eq!(out[3], "0", "the run sees a process of the harness's: {out:?}");
    assert_eq!(out[2], "1", "only the loopback device of the run's network namespace: {out:?}");
    assert!(seen_here > listed, "the run's /proc leaked into the harness's mount namespace");
}

/// A run's root holds what its allow-list names and nothing else: not the machine's `/tmp`,
/// `/run`, `/home` or `/sys`, not its accounts, not a socket or file of the marker's by path
/// (each of which the harness can reach while the run goes on).
#[test]
fn a_run_sees_only_the_root_built_for_it() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(&sb.own_root, "own root", "a_run_sees_only_the_root_built_for_it") {
        return;
    }
    let secret = tmp.path().join("marker-secret.txt");
    std::fs::write(&secret, "secret").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o666)).unwrap();
    let socket_path = tmp.path().join("marker.sock");
    let socket = std::os::unix::net::UnixListener::bind(&socket_path).unwrap();
    socket.set_nonblocking(true).unwrap();
    std::fs::set_permissions(&socket_path, std::fs::Permissions::from_mode(0o777)).unwrap();
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o777)).unwrap();
    sb.add_copy(&copy);
    let script = format!(
        "for d in home run sys root var srv mnt media boot usr etc proc dev; do [ -e /$d ] && printf '%s ' $d; done; echo; \
         awk '{{ print $5 }}' /proc/self/mountinfo | sort | tr '\\n' ' '; echo; \
         cut -d: -f1 /etc/passwd | tr '\\n' ' '; echo; \
         for p in {secret} {socket} /sys/fs/cgroup /run /home; do [ -e \"$p\" ] && echo \"sees $p\"; done; \
         chmod 600 {secret} 2>/dev/null && echo chmod; \
         echo written > mine.txt && cat mine.txt",
        secret = secret.display(),
        socket = socket_path.display()
    );
    let out = lines(&sb, &copy, &script);
    let top: Vec<&str> = out[0].split_whitespace().collect();
    for absent in ["home", "run", "sys", "root", "var", "srv", "mnt", "media", "boot"] {
        assert!(!top.contains(&absent), "the run's root holds /{absent}: {out:?}");
    }
    for present in ["usr", "etc", "proc", "dev"] {
        assert!(top.contains(&present), "the run's root lacks /{present}: {out:?}");
    }
    let machine = ["/sys", "/run", "/home", "/root", "/var", "/dev/pts", "/dev/shm", "/dev/tty"];
    let mounts: Vec<&str> = out[1].split_whitespace().collect();
    assert!(!mounts.iter().any(|m| machine.iter().any(|p| m.starts_with(p))), "{mounts:?}");
    assert!(out[2].split_whitespace().count() <= 3, "the machine's accounts: {}", out[2]);
    assert_eq!(&out[3..], ["written"], "reached the marker's files by path, or could not write its copy: {out:?}");
    assert_eq!(std::fs::read_to_string(copy.join("mine.txt")).unwrap(), "written\n");
    assert!(socket.accept().is_err(), "connected to the marker's socket");
    assert_eq!(std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777, 0o666);
}

/// A pristine run starts from the copy as it was and leaves nothing in it; a run that keeps its
/// writes (a build) changes the copy for the runs after it.
#[test]
fn a_pristine_run_leaves_nothing_for_the_next() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(&sb.pristine, "pristine runs", "a_pristine_run_leaves_nothing_for_the_next") {
        return;
    }
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::write(copy.join("built.txt"), "built\n").unwrap();
    let open = std::fs::Permissions::from_mode(0o777);
    std::fs::set_permissions(&copy, open.clone()).unwrap();
    std::fs::set_permissions(copy.join("built.txt"), open).unwrap();
    sb.add_copy(&copy);
    let script = "cat built.txt; ls; echo run >> built.txt; echo saved > progress.txt; mkdir -p work";
    let run = |pristine: bool| {
        let cmd = Command::new("/bin/sh", &copy).arg("-c").arg(script).pristine(pristine);
        let out = sb.run(&cmd, &limits(10_000)).unwrap();
        assert_eq!(out.exit, Exit::Code(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(run(true), "built\nbuilt.txt\n");
    assert_eq!(run(true), "built\nbuilt.txt\n", "a pristine run saw what the one before it wrote");
    assert_eq!(std::fs::read_to_string(copy.join("built.txt")).unwrap(), "built\n");
    assert!(!copy.join("progress.txt").exists() && !copy.join("work").exists());
    assert_eq!(run(false), "built\nbuilt.txt\n");
    assert_eq!(run(true), "built\nrun\nbuilt.txt\nprogress.txt\nwork\n", "a build's writes are kept");
}

/// As root, each submission's runs run as an identity of its own, lent while it is held: two
/// submissions marked at once never share a uid, and neither is the shared `nobody`.
#[test]
fn each_submission_runs_as_an_identity_of_its_own() {
    let (tmp, sb) = sandbox_with(Policy::default());
    if skip_without(
        &sb.identities.as_ref().map(|_| ()).map_err(Clone::clone),
        "own identity",
        "each_submission_runs_as_an_identity_of_its_own",
    ) {
        return;
    }
    let (first, second) = (sb.identity().unwrap(), sb.identity().unwrap());
    let ids_of = |identity: &Identity| {
        let cmd = Command::new("/bin/sh", tmp.path()).arg("-c").arg("id -u; id -g").run_as(Some(identity.ids()));
        let out = sb.run(&cmd, &limits(10_000)).unwrap();
        assert_eq!(out.exit, Exit::Code(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).split_whitespace().map(|n| n.parse::<u32>().unwrap()).collect::<Vec<_>>()
    };
    let (a, b) = (ids_of(&first), ids_of(&second));
    assert_eq!(a, [first.ids().uid, first.ids().gid]);
    assert_eq!(b, [second.ids().uid, second.ids().gid]);
    assert_ne!(a[0], b[0]);
    assert!(![a[0], b[0]].contains(&RunAs::nobody().uid));
    if sb.own_root_active() {
        // The box's accounts name it (a JVM's `user.name` is not `?`).
        let cmd = Command::new("/bin/sh", tmp.path()).arg("-c").arg("whoami").run_as(Some(first.ids()));
        assert_eq!(String::from_utf8_lossy(&sb.run(&cmd, &limits(10_000)).unwrap().stdout), "student\n");
    }
    drop(first);
    // Another submission gets one again (not the one still held; other markings on the machine
    // may hold the rest).
    assert_ne!(sb.identity().unwrap().ids().uid, second.ids().uid);
}

/// A build that takes its own copy's permissions away leaves the runs after it unable to start:
/// the student's doing (exit status 127, the reason on stderr), never a failure of the harness.
#[test]
fn a_copy_whose_build_locked_it_fails_the_student_not_the_harness() {
    let (tmp, sb) = sandbox_with(Policy::default());
    let copy = tmp.path().join("copy");
    std::fs::create_dir_all(copy.join("src")).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(copy.join("src"), std::fs::Permissions::from_mode(0o777)).unwrap();
    if let Some(ids) = sb.run_as() {
        // The copy is the run user's, as `build::prepare` hands it over.
        std::os::unix::fs::chown(copy.join("src"), Some(ids.uid), Some(ids.gid)).unwrap();
    }
    sb.add_copy(&copy);
    let build = Command::new("/bin/sh", copy.join("src")).arg("-c").arg("chmod 000 .");
    assert_eq!(sb.run(&build, &limits(10_000)).unwrap().exit, Exit::Code(0));
    let out = sb.run(&Command::new("/bin/true", copy.join("src")).pristine(true), &limits(10_000)).unwrap();
    assert_eq!(out.exit, Exit::Code(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("may not be entered"), "{out:?}");
    std::fs::set_permissions(copy.join("src"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whatever a run writes outside a copy it keeps (its HOME, its /tmp, a pristine run's copy)
/// lands in one tmpfs of its own, bounded in bytes and in files, and gone with the run: the
/// machine's disk, its /tmp and the run folder see none of it.
#[test]
fn a_runs_home_and_tmp_are_in_its_own_bounded_tmpfs() {
    let policy = Policy { disk_bytes: 4 << 20, disk_files: 64, ..Policy::default() };
    let (tmp, sb) = sandbox_with(policy);
    if skip_without(&sb.pristine, "pristine runs", "a_runs_home_and_tmp_are_in_its_own_bounded_tmpfs") {
        return;
    }
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o777)).unwrap();
    sb.add_copy(&copy);
    let marker = format!("bhgrade-run-tmpfs-test-{}", std::process::id());
    let script = format!(
        r#"head -c 1048576 /dev/zero > "$HOME/{marker}" && echo home
        head -c 1048576 /dev/zero > copied && echo copy
        head -c 1048576 /dev/zero > /tmp/{marker} && echo tmp
        head -c 2097152 /dev/zero > "$HOME/more" 2>/dev/null || echo full
        rm -f /tmp/{marker} "$HOME/more" copied
        i=0; while [ $i -lt 100 ] && true 2>/dev/null > /tmp/f$i; do i=$((i+1)); done; echo $i"#
    );
    let cmd = Command::new("/bin/sh", &copy).arg("-c").arg(script).pristine(true);
    let out = sb.run(&cmd, &limits(10_000)).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let want = ["home", "copy", "tmp", "full"];
    assert_eq!(lines.get(..4), Some(&want[..]), "{}", String::from_utf8_lossy(&out.stderr));
    let files: u64 = lines[4].parse().unwrap();
    assert!(files < 64, "{files} files made in a tmpfs of 64");
    assert!(!copy.join("copied").exists() && !Path::new("/tmp").join(&marker).exists());
    let on_disk = walkdir_names(tmp.path());
    assert!(!on_disk.iter().any(|name| name == &marker || name == "f0"), "{on_disk:?}");
}

/// Every name below `dir`.
fn walkdir_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        names.push(entry.file_name().to_string_lossy().into_owned());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            names.extend(walkdir_names(&entry.path()));
        }
    }
    names
}

/// Without a memory cgroup, what a run writes into its own tmpfs counts as its memory beside
/// what its processes hold: 40 MiB sorted fits a 64 MiB limit, and not after 40 MiB in /tmp.
/// Memory is then read every few milliseconds, so the sort holds its 40 MiB (its output blocked
/// on a pipe nobody reads) until the run ends: a busy machine may leave the watcher unscheduled
/// for longer than a sort takes, and a peak it never saw is no test of what it counts.
#[test]
fn without_a_memory_cgroup_a_runs_tmpfs_counts_as_its_memory() {
    let (tmp, sb) = sandbox_with(Policy { use_cgroups: false, ..Policy::default() });
    let test = "without_a_memory_cgroup_a_runs_tmpfs_counts_as_its_memory";
    if skip_without(&sb.pristine, "pristine runs", test) {
        return;
    }
    let limits = Limits { memory_bytes: 64 << 20, ..limits(10_000) };
    let sort = "head -c 41943040 /dev/zero | sort -S 200M > /dev/null; echo sorted";
    let run = |script: String| sb.run(&Command::new("/bin/sh", tmp.path()).arg("-c").arg(script), &limits).unwrap();
    let alone = run(sort.to_string());
    assert!(!alone.memory_limit_hit && alone.stdout == b"sorted\n", "{alone:?}");
    let held = "head -c 41943040 /dev/zero | sort -S 200M | sleep 8; echo sorted";
    let after_writing = run(format!("head -c 41943040 /dev/zero > /tmp/written; {held}"));
    assert!(after_writing.memory_limit_hit, "{after_writing:?}");
    assert!(after_writing.memory_peak_bytes.is_some_and(|peak| peak > 64 << 20), "{after_writing:?}");
}
