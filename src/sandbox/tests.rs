//! Tests of the sandbox against small adversarial programs (sh one-liners). Limits are small;
//! nothing sleeps to synchronise: every check is made on the returned outcome or on /proc.

use super::test_support::{limits, sandbox_with, sh, survivors};
use super::*;
use crate::skip::skipped;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::Duration;
use std::time::Instant;

fn sandbox() -> (tempfile::TempDir, Sandbox) {
    sandbox_with(Policy::default())
}

fn no_cgroups() -> Policy {
    Policy { use_cgroups: false, ..Policy::default() }
}

#[test]
fn exit_code_and_output() {
    let (tmp, sb) = sandbox();
    let out = sb.run(&sh(&tmp, "echo out; echo err >&2; exit 3"), &limits(5000)).unwrap();
    assert_eq!(out.exit, Exit::Code(3));
    assert_eq!(out.stdout, b"out\n");
    assert_eq!(out.stderr, b"err\n");
    assert!(!out.wall_limit_hit && !out.cpu_limit_hit && !out.memory_limit_hit);
    assert!(!out.leftovers_killed && !out.output_limit_hit());
}

#[test]
fn bytes_stay_bytes() {
    let (tmp, sb) = sandbox();
    let out = sb.run(&sh(&tmp, r"printf 'a\000b\377'"), &limits(5000)).unwrap();
    assert_eq!(out.stdout, b"a\0b\xff");
}

#[test]
fn death_by_signal() {
    let (tmp, sb) = sandbox();
    let out = sb.run(&sh(&tmp, "kill -SEGV $$"), &limits(5000)).unwrap();
    assert_eq!(out.exit, Exit::Signal(libc::SIGSEGV));
    assert_eq!(out.exit.describe(), "signal 11 (SIGSEGV)");
}

#[test]
fn wall_limit_kills_a_sleeper() {
    let (tmp, sb) = sandbox();
    let start = Instant::now();
    let out = sb.run(&Command::new("sleep", tmp.path()).arg("1005"), &limits(500)).unwrap();
    assert!(out.wall_limit_hit);
    assert_eq!(out.exit, Exit::Signal(libc::SIGTERM));
    assert!(out.wall >= Duration::from_millis(500), "{:?}", out.wall);
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert!(!out.cpu_limit_hit);
}

#[test]
fn sigterm_ignored_gets_sigkill() {
    let (tmp, sb) = sandbox();
    let start = Instant::now();
    let out = sb.run(&sh(&tmp, "trap '' TERM; sleep 1006; sleep 1006"), &limits(500)).unwrap();
    assert!(out.wall_limit_hit);
    assert_eq!(out.exit, Exit::Signal(libc::SIGKILL));
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert!(survivors("1006").is_empty());
}

#[test]
fn stdout_cap_ends_the_run() {
    let (tmp, sb) = sandbox();
    let mut lim = limits(10_000);
    lim.output_bytes = 1000;
    let start = Instant::now();
    let out = sb.run(&Command::new("yes", tmp.path()), &lim).unwrap();
    assert!(out.stdout_truncated && !out.stderr_truncated);
    assert_eq!(out.stdout.len(), 1000);
    assert!(!out.wall_limit_hit);
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn stderr_cap_ends_the_run() {
    let (tmp, sb) = sandbox();
    let mut lim = limits(10_000);
    lim.output_bytes = 10_000;
    let out = sb.run(&sh(&tmp, "yes >&2"), &lim).unwrap();
    assert!(out.stderr_truncated && !out.stdout_truncated);
    assert_eq!(out.stderr.len(), 10_000);
}

#[test]
fn stdin_is_piped() {
    let (tmp, sb) = sandbox();
    let input = b"hello\0world\xff\n".to_vec();
    let out = sb.run(&Command::new("cat", tmp.path()).stdin(input.clone()), &limits(5000)).unwrap();
    assert_eq!(out.stdout, input);
    assert_eq!(out.stdin_unwritten, 0);
    // It is a pipe, never a file: a script may re-open /dev/stdin.
    let out = sb.run(&sh(&tmp, "test -p /dev/stdin && cat /dev/stdin").stdin("x"), &limits(5000));
    assert_eq!(out.unwrap().stdout, b"x");
}

#[test]
fn big_stdin_never_read_does_not_hang() {
    let (tmp, sb) = sandbox();
    let big = vec![b'7'; 10 << 20];
    let start = Instant::now();
    let out = sb.run(&sh(&tmp, "echo done").stdin(big.clone()), &limits(5000)).unwrap();
    assert_eq!(out.exit, Exit::Code(0));
    assert_eq!(out.stdout, b"done\n");
    assert!(out.stdin_unwritten > 0);
    assert!(start.elapsed() < Duration::from_secs(2));
    // Still alive, never reading: the wall limit ends it.
    let out = sb.run(&Command::new("sleep", tmp.path()).arg("1007").stdin(big), &limits(500));
    assert!(out.unwrap().wall_limit_hit);
    assert!(start.elapsed() < Duration::from_secs(4));
}

#[test]
fn background_child_is_killed_promptly() {
    for policy in [Policy::default(), no_cgroups()] {
        let (tmp, sb) = sandbox_with(policy);
        let start = Instant::now();
        let out = sb.run(&sh(&tmp, "sleep 1008 & echo hi"), &limits(10_000)).unwrap();
        assert_eq!(out.stdout, b"hi\n");
        assert_eq!(out.exit, Exit::Code(0));
        assert!(out.leftovers_killed);
        assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
        assert!(survivors("1008").is_empty());
    }
}

#[test]
fn setsid_escaper_holding_the_pipe_is_killed() {
    // Without cgroups the pipe it holds gives it away; with them, the cgroup does.
    for policy in [Policy::default(), no_cgroups()] {
        let (tmp, sb) = sandbox_with(policy);
        let start = Instant::now();
        let out = sb.run(&sh(&tmp, "setsid sleep 1009 & echo hi"), &limits(10_000)).unwrap();
        assert_eq!(out.stdout, b"hi\n");
        assert!(out.leftovers_killed);
        assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
        assert!(survivors("1009").is_empty());
    }
}

#[test]
fn setsid_escaper_without_pipes_is_killed_by_the_cgroup() {
    let (tmp, sb) = sandbox();
    if sb.cgroups.is_none() {
        return skipped("setsid_escaper_without_pipes_is_killed_by_the_cgroup", "no cgroups");
    }
    let script = "setsid sleep 1010 </dev/null >/dev/null 2>&1 & echo hi";
    let out = sb.run(&sh(&tmp, script), &limits(10_000)).unwrap();
    assert_eq!(out.stdout, b"hi\n");
    assert!(out.leftovers_killed);
    assert!(survivors("1010").is_empty());
}

#[test]
fn fork_bomb_is_contained() {
    let (tmp, sb) = sandbox();
    if sb.cgroups.is_none() {
        return skipped("fork_bomb_is_contained", "no cgroups");
    }
    let start = Instant::now();
    let out = sb.run(&sh(&tmp, "b() { b | b & }; b; sleep 1011"), &limits(1000)).unwrap();
    assert!(out.wall_limit_hit || out.leftovers_killed);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(survivors("1011").is_empty());
}

/// python3, which makes a memory hog in a line; `None` (and `test` said to be skipped) without.
fn memory_hog(test: &str) -> Option<&'static str> {
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"].into_iter().find(|p| Path::new(p).exists());
    if python.is_none() {
        skipped(test, "no python3");
    }
    python
}

#[test]
fn memory_hog_hits_the_limit() {
    let Some(python) = memory_hog("memory_hog_hits_the_limit") else { return };
    for policy in [Policy::default(), no_cgroups()] {
        let (tmp, sb) = sandbox_with(policy);
        let mut lim = limits(10_000);
        lim.memory_bytes = 100 << 20;
        let cmd = Command::new(python, tmp.path()).args(["-c", "x = bytearray(10**9); print(len(x))"]);
        let out = sb.run(&cmd, &lim).unwrap();
        assert!(out.memory_limit_hit, "{out:?}");
        assert!(!out.exit.success());
        assert!(out.stdout.is_empty());
        if sb.memory_cgroup_active() {
            assert_eq!(out.exit, Exit::Signal(libc::SIGKILL));
            assert!(out.memory_peak_bytes.is_some_and(|p| p <= 100 << 20));
            assert_eq!(out.memory_source, MemorySource::Cgroup);
        } else {
            assert_eq!(out.exit, Exit::Signal(libc::SIGKILL), "killed by measurement: {out:?}");
            assert_eq!(out.memory_source, MemorySource::Resident);
            assert!(out.memory_peak_bytes.is_some_and(|p| p > 100 << 20), "{out:?}");
        }
    }
}

/// Without a memory cgroup the limit is the run's measured resident memory: a JVM-like
/// reservation (4 GiB of writable address space, a little of it touched) and a real JVM, which
/// commits an initial heap of a sixty-fourth of the machine's memory and a stack per thread up
/// front, run under a 256 MiB limit; a program that really touches more is killed, and so is a
/// run whose processes together (not each) pass it.
#[test]
fn without_a_memory_cgroup_resident_memory_is_the_limit() {
    let (tmp, sb) = sandbox_with(no_cgroups());
    let mut lim = limits(20_000);
    lim.memory_bytes = 256 << 20;
    if let Some(python) = memory_hog("without_a_memory_cgroup_resident_memory_is_the_limit (its python half)") {
        let reserve = "import mmap\n\
            m = mmap.mmap(-1, 4 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE)\n\
            for i in range(0, 32 << 20, 4096): m[i] = 1\n\
            import time; time.sleep(0.2); print('reserved')";
        let out = sb.run(&Command::new(python, tmp.path()).args(["-c", reserve]), &lim).unwrap();
        assert_eq!(out.stdout, b"reserved\n", "{out:?}");
        assert!(out.exit.success() && !out.memory_limit_hit, "{out:?}");
        assert_eq!(out.memory_source, MemorySource::Resident);
        assert!(out.memory_peak_bytes.is_some_and(|p| (30 << 20..128 << 20).contains(&p)), "{out:?}");

        let hog = "x = bytearray(400 << 20)\nimport time; time.sleep(10); print('survived')";
        let out = sb.run(&Command::new(python, tmp.path()).args(["-c", hog]), &lim).unwrap();
        assert!(out.memory_limit_hit && out.stdout.is_empty(), "{out:?}");
        assert_eq!(out.exit, Exit::Signal(libc::SIGKILL));
        assert!(out.wall < Duration::from_secs(5), "killed at once, not at the wall limit: {out:?}");

        // Two processes of 160 MiB each: neither alone is over 256 MiB, the run is.
        let half = format!("{python} -c 'x = bytearray(160 << 20); import time; time.sleep(10)'");
        let out = sb.run(&sh(&tmp, &format!("{half} & {half} & wait; echo survived")), &lim).unwrap();
        assert!(out.memory_limit_hit && out.stdout.is_empty(), "{out:?}");
        assert!(out.memory_peak_bytes.is_some_and(|p| p > 256 << 20), "{out:?}");
    }
    let Some(java) = ["/usr/bin/java", "/usr/local/bin/java"].into_iter().find(|p| Path::new(p).exists()) else {
        return skipped("without_a_memory_cgroup_resident_memory_is_the_limit (its JVM half)", "no java");
    };
    let out = sb.run(&Command::new(java, tmp.path()).arg("-version"), &lim).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.exit.success() && !out.memory_limit_hit, "{stderr}\n{out:?}");
    assert!(stderr.contains("version"), "{stderr}");
}

#[test]
fn cpu_limit_kills_a_busy_loop() {
    let (tmp, sb) = sandbox();
    let mut lim = limits(20_000);
    lim.cpu = Duration::from_millis(300);
    let out = sb.run(&sh(&tmp, "while :; do :; done"), &lim).unwrap();
    assert!(out.cpu_limit_hit, "{out:?}");
    assert!(!out.wall_limit_hit);
    // Killed by the tree's CPU check, or (it reads /proc only every 100 ms) the RLIMIT_CPU
    // backstop.
    assert!(matches!(out.exit, Exit::Signal(libc::SIGKILL | libc::SIGXCPU)), "{out:?}");
    assert!(out.cpu >= Duration::from_millis(300));
}

/// Two busy children in the background, the script waiting: the tree is killed once the
/// three together have used the limit, not when each has.
#[test]
fn cpu_limit_holds_for_the_whole_tree() {
    for policy in [Policy::default(), no_cgroups()] {
        let (tmp, sb) = sandbox_with(policy.clone());
        let mut lim = limits(10_000);
        lim.cpu = Duration::from_secs(1);
        let script = "busy() { while :; do :; done; }; busy & busy & wait";
        let out = sb.run(&Command::new("/bin/bash", tmp.path()).args(["-c", script]), &lim).unwrap();
        let what = format!("cgroups {}: {out:?}", policy.use_cgroups);
        assert!(out.cpu_limit_hit && !out.wall_limit_hit, "{what}");
        // Killed within a few looks: two busy processes gain up to 2 CPU-seconds a second, and
        // on a starved machine (load 13 once failed a 1.5 s bound) a look can come late.
        assert!(out.cpu >= Duration::from_secs(1) && out.cpu < Duration::from_secs(2), "{what}");
        let expected = if sb.cgroups.is_some() { CpuSource::Cgroup } else { CpuSource::Rusage };
        assert_eq!(out.cpu_source, expected, "{what}");
    }
}

/// A process orphaned inside the run (its parent exited without waiting) is reaped by the
/// run's init or subreaper, and its CPU time is the run's.
#[test]
fn cpu_of_orphans_is_counted() {
    for policy in [Policy::default(), no_cgroups(), Policy { pid_namespace: false, ..no_cgroups() }] {
        let (tmp, sb) = sandbox_with(policy);
        let script = r#"mkfifo "$HOME/f"
            ( ( i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done; echo > "$HOME/f" ) & )
            read x < "$HOME/f""#;
        let out = sb.run(&Command::new("/bin/bash", tmp.path()).args(["-c", script]), &limits(10_000)).unwrap();
        assert_eq!(out.exit, Exit::Code(0), "{out:?}");
        assert!(out.cpu >= Duration::from_millis(100), "{out:?}");
    }
}

/// The CPUs of a kernel list (`0-2,5`).
fn cpus_of(list: &str) -> Vec<usize> {
    list.split(',')
        .filter_map(|part| match part.split_once('-') {
            Some((a, b)) => Some((a.parse().ok()?..=b.parse().ok()?).collect::<Vec<usize>>()),
            None => Some(vec![part.parse().ok()?]),
        })
        .flatten()
        .collect()
}

#[test]
fn a_pinned_run_sees_only_its_cpu() {
    let allowed = procs::allowed_cpus().unwrap();
    for policy in [Policy::default(), no_cgroups()] {
        let (tmp, sb) = sandbox_with(policy);
        // A child of the shell reads it: the whole tree is pinned.
        let cpus_seen = |cpus: Vec<usize>| {
            let out = sb.run(&sh(&tmp, "cat /proc/self/status").cpus(cpus), &limits(5000)).unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let line = text.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap_or_default();
            cpus_of(line.trim())
        };
        for cpu in [0, 1].into_iter().filter(|c| allowed.contains(c)) {
            assert_eq!(cpus_seen(vec![cpu]), [cpu]);
        }
        assert_eq!(cpus_seen(Vec::new()), allowed);
        let err = sb.run(&sh(&tmp, "true").cpus([4096]), &limits(5000)).unwrap_err();
        assert!(matches!(err, SandboxError::Setup(_)), "{err}");
    }
}

/// Nothing of the harness's environment reaches the program: only what the sandbox sets and what
/// the command names (a suite's launch settings).
#[test]
fn environment_is_scrubbed() {
    let (tmp, sb) = sandbox();
    let cmd = Command::new("env", tmp.path()).env("JAVA_TOOL_OPTIONS", "-Xmx1m").env("TESTDIR", "/somewhere");
    let out = sb.run(&cmd, &limits(5000)).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut names: Vec<&str> = text.lines().filter_map(|l| l.split('=').next()).collect();
    names.sort_unstable();
    assert_eq!(names, ["HOME", "JAVA_TOOL_OPTIONS", "LANG", "PATH", "TESTDIR", "TMPDIR"], "{text}");
    let home = text.lines().find_map(|l| l.strip_prefix("HOME=")).unwrap();
    assert!(Path::new(home).starts_with(sb.scratch_root()), "{home}");
    assert!(text.contains(&format!("TMPDIR={home}\n")));
    assert!(text.contains("LANG=C.UTF-8\n"));
    assert!(!Path::new(home).exists(), "scratch folder left behind");
}

#[test]
fn scratch_is_writable_and_removed_even_when_locked() {
    let (tmp, sb) = sandbox();
    let script = "mkdir -p $HOME/a/b && touch $HOME/a/b/f && chmod 000 $HOME/a/b $HOME/a && echo $HOME";
    let out = sb.run(&sh(&tmp, script), &limits(5000)).unwrap();
    assert_eq!(out.exit, Exit::Code(0), "{:?}", String::from_utf8_lossy(&out.stderr));
    let home = String::from_utf8(out.stdout).unwrap();
    assert!(!Path::new(home.trim()).exists());
}

#[test]
fn no_network_when_isolated() {
    let (tmp, sb) = sandbox();
    if let Err(why) = &sb.netns {
        return skipped("no_network_when_isolated", why);
    }
    let out = sb.run(&Command::new("cat", tmp.path()).arg("/proc/net/dev"), &limits(5000)).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let interfaces: Vec<&str> = text.lines().skip(2).filter_map(|l| l.split(':').next()).collect();
    assert_eq!(interfaces.iter().map(|i| i.trim()).collect::<Vec<_>>(), ["lo"], "{text}");
}

#[test]
fn missing_program_is_a_harness_error() {
    let (tmp, sb) = sandbox();
    let err = sb.run(&Command::new("/no/such/program", tmp.path()), &limits(1000)).unwrap_err();
    assert!(matches!(err, SandboxError::Spawn { .. }), "{err}");
}

#[test]
fn parallel_runs() {
    let (tmp, sb) = sandbox();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (sb, tmp) = (&sb, &tmp);
                s.spawn(move || {
                    let cmd = sh(tmp, &format!("cat; echo {i}")).stdin(format!("in{i} "));
                    sb.run(&cmd, &limits(10_000)).unwrap()
                })
            })
            .collect();
        for (i, h) in handles.into_iter().enumerate() {
            assert_eq!(h.join().unwrap().stdout, format!("in{i} {i}\n").as_bytes());
        }
    });
}

#[test]
fn layers_are_reported() {
    let (_tmp, sb) = sandbox();
    let layers = sb.layers();
    let names: Vec<LayerName> = layers.iter().map(|l| l.name).collect();
    for want in [
        LayerName::ProcessGroup,
        LayerName::CgroupMemory,
        LayerName::CgroupPids,
        LayerName::Rlimits,
        LayerName::NetworkNamespace,
    ] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(layers.iter().all(|l| !l.detail.is_empty()));
    let (_tmp, sb) = sandbox_with(no_cgroups());
    let memory = sb.layers().into_iter().find(|l| l.name == LayerName::CgroupMemory).unwrap();
    assert!(!memory.active);
}

#[test]
fn describe_quotes_for_the_shell() {
    let cmd = Command::new("java", "/x").args(["-cp", ".", "BHMain", "it's here", ""]).env("TESTDIR", "/a b");
    assert_eq!(describe(&cmd), r"TESTDIR='/a b' java -cp . BHMain 'it'\''s here' ''");
}

#[test]
fn runs_as_another_user_when_asked() {
    if !procs::is_root() {
        return skipped("runs_as_another_user_when_asked", "not root");
    }
    let policy = Policy { run_as: Some(RunAs { uid: 65534, gid: 65534 }), ..Policy::default() };
    let (tmp, sb) = sandbox_with(policy);
    let out = sb.run(&sh(&tmp, "id -u; id -g; touch $HOME/f && echo ok"), &limits(5000)).unwrap();
    assert_eq!(out.stdout, b"65534\n65534\nok\n", "{}", String::from_utf8_lossy(&out.stderr));
    assert!(sb.layers().iter().any(|l| l.name == LayerName::UnprivilegedUser && l.active));
}

#[test]
fn without_pidfd_a_waiter_thread_notices_the_exit() {
    let (tmp, mut sb) = sandbox();
    sb.pidfd = Err("disabled for the test".into());
    let out = sb.run(&sh(&tmp, "cat; exit 4").stdin("x"), &limits(5000)).unwrap();
    assert_eq!((out.exit, out.stdout.as_slice()), (Exit::Code(4), &b"x"[..]));
    let out = sb.run(&Command::new("sleep", tmp.path()).arg("1013"), &limits(300)).unwrap();
    assert!(out.wall_limit_hit);
    let out = sb.run(&sh(&tmp, "sleep 1013 & echo hi"), &limits(5000)).unwrap();
    assert!(out.leftovers_killed);
    assert!(survivors("1013").is_empty());
}

#[test]
fn pids_limit_stops_forking() {
    let (tmp, sb) = sandbox_with(Policy { pids_max: 8, ..Policy::default() });
    if !sb.layers().iter().any(|l| l.name == LayerName::CgroupPids && l.active) {
        return skipped("pids_limit_stops_forking", "the cgroup pids layer is inactive");
    }
    let script = "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 1014 & done; wait";
    let out = sb.run(&Command::new("/bin/bash", tmp.path()).args(["-c", script]), &limits(1000)).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fork") || stderr.contains("Resource temporarily unavailable"), "{stderr}");
    assert!(survivors("1014").is_empty());
}

#[test]
fn probe_removes_cgroups_of_dead_harnesses() {
    let (_tmp, sb) = sandbox();
    let Some(setup) = &sb.cgroups else {
        return skipped("probe_removes_cgroups_of_dead_harnesses", "no cgroups");
    };
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let ns = cgroup::Setup::tag().split('-').next().unwrap().to_string();
    let mut orphan = std::process::Command::new("sleep").arg("1015").spawn().unwrap();
    let mut stale = Vec::new();
    for parent in setup.parents() {
        let dir = parent.join(format!("bhgrade-{ns}-{dead_pid}-0"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("cgroup.procs"), orphan.id().to_string()).unwrap();
        stale.push(dir);
    }
    let (_tmp2, _sb2) = sandbox();
    assert!(stale.iter().all(|d| !d.exists()), "{stale:?}");
    assert!(orphan.wait().unwrap().signal() == Some(libc::SIGKILL));
}

#[test]
fn outcomes_stored_before_cpu_source_still_load() {
    let (tmp, sb) = sandbox();
    let out = sb.run(&sh(&tmp, "echo hi"), &limits(5000)).unwrap();
    let mut json = serde_json::to_value(&out).unwrap();
    json.as_object_mut().unwrap().remove("cpu_source");
    let old: RunOutcome = serde_json::from_value(json).unwrap();
    assert_eq!(old.cpu_source, CpuSource::Rusage);
    assert_eq!(old.stdout, out.stdout);
}
