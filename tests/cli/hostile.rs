//! The hostile corpus (`fixtures/hostile`, see its README) marked in one run beside a
//! well-behaved submission, with the isolation this machine offers (`--isolation auto`).
//!
//! For every case: its build verdict and test verdict; that no process of it survives (by
//! walking /proc); that nothing outside the scratch copies changed (the suite, every
//! submission folder, the harness's home, marker files in /tmp and /root); and that the
//! well-behaved submission still got a full, correct report. A case that needs a layer this
//! machine lacks is taken out of the run and reported as skipped, never passed.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bhgrade::sandbox::{Layer, LayerName, Policy, Sandbox};

use bhgrade::build::BuildVerdict;
use bhgrade::verdict::Verdict;

use crate::support::{bhgrade, copy_tree, repo, typed};

/// One case of the corpus: what marking it must give, and what it needs from the machine.
struct Case {
    name: &'static str,
    build: BuildVerdict,
    /// The verdicts any of which is right.
    verdict: &'static [Verdict],
    /// Layers without which the case would do real harm or prove nothing.
    needs: &'static [LayerName],
}

const LANDLOCK: LayerName = LayerName::Landlock;

const fn case(name: &'static str, verdict: &'static [Verdict]) -> Case {
    Case { name, build: BuildVerdict::Ok, verdict, needs: &[] }
}

const CORPUS: &[Case] = &[
    case("sleep-forever", &[Verdict::TimeLimit]),
    case("busy-loop", &[Verdict::TimeLimit]),
    // Pinned to one core, the bomb's shells may fill the memory cgroup before the run's time is
    // up: stopped either way, and either verdict is the truth.
    Case { needs: &[LayerName::CgroupPids], ..case("fork-bomb", &[Verdict::TimeLimit, Verdict::MemoryLimit]) },
    case("setsid-escape", &[Verdict::Accepted]),
    case("ignore-sigterm", &[Verdict::TimeLimit]),
    case("orphan-writer", &[Verdict::Accepted]),
    case("flood-stdout", &[Verdict::OutputLimit]),
    case("flood-stderr", &[Verdict::OutputLimit]),
    case("long-line", &[Verdict::OutputLimit]),
    case("binary-output", &[Verdict::FormatError]),
    case("heap-exhaustion", &[Verdict::MemoryLimit]),
    case("native-memory", &[Verdict::MemoryLimit]),
    // Memory no process maps: a memory cgroup charges it, and without one bhgrade counts the
    // memfds; SysV shared memory is refused to every run (seccomp).
    case("memfd-hoard", &[Verdict::MemoryLimit]),
    Case { needs: &[LayerName::Seccomp], ..case("shm-hoard", &[Verdict::Accepted]) },
    case("stack-overflow", &[Verdict::RuntimeError]),
    case("crash-signal", &[Verdict::RuntimeError]),
    case("exit-1", &[Verdict::RuntimeError]),
    case("exit-3", &[Verdict::RuntimeError]),
    case("exit-255", &[Verdict::RuntimeError]),
    case("stdin-forever", &[Verdict::Accepted]),
    Case { needs: &[LANDLOCK], ..case("write-outside", &[Verdict::Accepted]) },
    Case { needs: &[LANDLOCK], ..case("read-expected", &[Verdict::Accepted]) },
    Case { needs: &[LANDLOCK], ..case("read-other-student", &[Verdict::Accepted]) },
    Case { needs: &[LayerName::NetworkNamespace], ..case("connect-loopback", &[Verdict::Accepted]) },
    Case { needs: &[LayerName::Terminal], ..case("terminal-inject", &[Verdict::Accepted]) },
    // Without seccomp, a key a build adds to the run user's own keyring is seen by its run.
    Case { needs: &[LayerName::Keyring, LayerName::Seccomp], ..case("keyring-read", &[Verdict::Accepted]) },
    Case { needs: &[LayerName::IpcNamespace], ..case("ipc-exchange", &[Verdict::Accepted]) },
    // Reached by path, where no namespace and (before Landlock ABI 9) no Landlock right looks:
    // only a root of the run's own, which holds none of them, keeps these out.
    Case { needs: &[LayerName::OwnRoot], ..case("unix-socket", &[Verdict::Accepted]) },
    Case { needs: &[LayerName::OwnRoot], ..case("host-metadata", &[Verdict::Accepted]) },
    Case { needs: &[LayerName::OwnRoot], ..case("host-view", &[Verdict::Accepted]) },
    // Both attack a stacscheck tree (tests/cli/stacscheck.rs); with a suite, tree-swap has no
    // tree to forge, and src-link's build is the student's failure.
    case("tree-swap", &[Verdict::Accepted]),
    // Fills the disk of its own, then cannot build; see also the test of it beside another.
    Case {
        build: BuildVerdict::BuildFailed,
        needs: &[LayerName::DiskQuota],
        ..case("disk-filler", &[Verdict::NotRun])
    },
    // Fills its HOME and /tmp: a tmpfs of the run's own, bounded by the quota (or, first, by the
    // memory cgroup that counts its pages); without one they would be the scratch disk's.
    Case { needs: &[LayerName::PristineRuns], ..case("home-filler", &[Verdict::Accepted, Verdict::MemoryLimit]) },
    Case { build: BuildVerdict::BuildFailed, ..case("src-link", &[Verdict::NotRun]) },
    // One test here; marked with two by `a_run_never_finds_what_the_one_before_it_left`.
    case("state-carry", &[Verdict::Accepted]),
    Case { build: BuildVerdict::BuildTimeout, ..case("build-never-ends", &[Verdict::NotRun]) },
    case("build-daemon", &[Verdict::Accepted]),
    Case { build: BuildVerdict::BuildFailed, ..case("archive-dotdot", &[Verdict::NotRun]) },
    Case { build: BuildVerdict::BuildFailed, ..case("archive-absolute", &[Verdict::NotRun]) },
    case("archive-symlink", &[Verdict::Accepted]),
    case("sparse-write", &[Verdict::Accepted]),
    Case { build: BuildVerdict::BuildFailed, ..case("sparse-submission", &[Verdict::NotRun]) },
];

/// Each submission's disk quota in the corpus's run: above the 256 MiB a submission may unpack
/// to, well below the machine's memory.
const DISK_MB: u64 = 300;

/// The well-behaved submission marked in the same run.
pub(crate) const VICTIM: &str = "correct";

/// Files that hostile cases try to create outside every scratch copy.
const MARKERS: &[&str] = &[
    "/tmp/bhgrade-hostile-write-outside",
    "/root/bhgrade-hostile-write-outside",
    "/tmp/bhgrade-hostile-dotdot",
    "/tmp/bhgrade-hostile-absolute",
    "/tmp/bhgrade-hostile-symlink",
];

/// The marker's `PATH` with a folder of their home first, holding a `java` of their own that
/// starts the machine's (as a version manager's shim does): the folder two above that launcher is
/// the marker's home, which a run must never be granted for it. Every case runs under it.
fn path_through_the_markers_home(home: &Path) -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let java = std::env::split_paths(&path)
        .map(|dir| dir.join("java"))
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
        .expect("a java on PATH");
    let bin = home.join("bin");
    fs::create_dir_all(&bin).expect("mkdir");
    fs::write(bin.join("java"), format!("#!/bin/sh\nexec {} \"$@\"\n", java.display())).expect("a shim");
    fs::set_permissions(bin.join("java"), fs::Permissions::from_mode(0o755)).expect("chmod");
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).expect("PATH")
}

/// Size, mtime and (for small files) contents of every file below `dir`.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, i64, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let meta = e.metadata().expect("metadata");
            let body = if meta.len() <= 1 << 20 { fs::read(e.path()).expect("read") } else { Vec::new() };
            (e.path().to_path_buf(), (meta.len(), meta.mtime(), body))
        })
        .collect()
}

/// Live processes of this run: tagged `bhgrade-hostile-*` on their command line, or working,
/// running or named under `base`. Each with the case it seems to belong to.
fn survivors(base: &Path) -> Vec<(i32, String)> {
    let base = base.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for process in crate::support::Process::live() {
        let (pid, cmdline, cwd) = (process.pid, process.command_line(), process.cwd());
        if cmdline.contains("bhgrade-hostile") || cwd.starts_with(&base) || cmdline.contains(&base) {
            if cmdline.contains("bhgrade mark") || pid == std::process::id() as i32 {
                continue;
            }
            let owner = CORPUS.iter().map(|c| c.name).find(|n| cwd.contains(&format!("/{n}/")) || cmdline.contains(n));
            found.push((pid, format!("{} [{cmdline}] in {cwd}", owner.unwrap_or("?"))));
        }
    }
    found
}

pub(crate) fn verdicts(report: &serde_json::Value) -> Vec<(String, Option<Verdict>, u64)> {
    report["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|part| part["tests"].as_array().into_iter().flatten())
        .map(|t| {
            let id = t["id"].as_str().unwrap_or_default().to_string();
            (id, typed(&t["verdict"]), t["wall_ms"].as_u64().unwrap_or(0))
        })
        .collect()
}

#[test]
fn every_case_in_the_folder_has_an_expectation() {
    let mut on_disk: Vec<String> = bhgrade::build::intake(&repo().join("fixtures/hostile"))
        .expect("find the corpus")
        .submissions
        .into_iter()
        .map(|s| s.name)
        .collect();
    on_disk.sort();
    let mut modelled: Vec<String> = CORPUS.iter().map(|c| c.name.to_string()).collect();
    modelled.sort();
    assert_eq!(on_disk, modelled);
}

#[test]
fn the_hostile_corpus_is_contained() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path().canonicalize().expect("canonical");
    // Open folders, so that only the sandbox (not file modes) keeps the programs out.
    fs::set_permissions(&base, fs::Permissions::from_mode(0o755)).expect("chmod");
    let (suite, subs, home, scratch, out) =
        (base.join("suite"), base.join("subs"), base.join("home"), base.join("tmp"), base.join("out"));
    copy_tree(&repo().join("fixtures/suites/hostile"), &suite);
    fs::set_permissions(suite.join("expected.json"), fs::Permissions::from_mode(0o644)).expect("chmod");
    copy_tree(&repo().join("fixtures/hostile"), &subs);
    copy_tree(&repo().join("fixtures/submissions").join(VICTIM), &subs.join(VICTIM));
    for dir in [&home, &scratch] {
        fs::create_dir(dir).expect("mkdir");
    }

    let probe = Sandbox::probe_with(&base.join("probe"), Policy::default()).expect("probe the sandbox");
    let layers: Vec<Layer> = probe.layers();
    drop(probe);
    let mut skipped = Vec::new();
    for case in CORPUS {
        let missing: Vec<&Layer> = layers.iter().filter(|l| case.needs.contains(&l.name) && !l.active).collect();
        if let Some(layer) = missing.first() {
            crate::skip::skipped(case.name, format!("{} unavailable: {}", layer.name, layer.detail));
            let path = subs.join(case.name);
            if path.is_dir() {
                fs::remove_dir_all(&path).expect("remove a skipped case");
            } else {
                fs::remove_file(subs.join(format!("{}.tar.gz", case.name))).expect("remove a skipped case");
            }
            skipped.push(case.name);
        }
    }

    let path = path_through_the_markers_home(&home);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen on loopback");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().expect("address").port();
    // A daemon of the marker's, listening on a unix socket anyone may connect to (as D-Bus's is).
    let socket_path = home.join("marker.sock");
    let socket = std::os::unix::net::UnixListener::bind(&socket_path).expect("listen on a unix socket");
    socket.set_nonblocking(true).expect("non-blocking");
    fs::set_permissions(&socket_path, fs::Permissions::from_mode(0o777)).expect("chmod the socket");
    let victim_file = subs.join(VICTIM).join("src/BHMain.java");
    let hints = format!(
        "home={}\nvictim={}\nport={port}\nsocket={}\ndisk_mb={DISK_MB}\n",
        home.display(),
        victim_file.display(),
        socket_path.display()
    );
    let hinted =
        ["write-outside", "read-other-student", "connect-loopback", "unix-socket", "host-metadata", "home-filler"];
    for name in hinted {
        if subs.join(name).exists() {
            fs::write(subs.join(name).join("src/hints.txt"), &hints).expect("hints");
        }
    }
    // A sparse file costs no disk, but copying it would write 1 GiB.
    fs::File::create(subs.join("sparse-submission/src/huge.bin")).and_then(|f| f.set_len(1 << 30)).expect("sparse");
    for marker in MARKERS {
        let _ = fs::remove_file(marker);
    }
    let before: Vec<_> = [&suite, &subs, &home].iter().map(|d| snapshot(d)).collect();
    // What the marker holds while marking, for `keyring-read` and `ipc-exchange` to look for.
    let marker_key = MarkerKey::add();
    let marker_segment = MarkerSegment::create();
    let ipc_before = sysv_objects();

    let started = Instant::now();
    let output = bhgrade()
        .args(["mark", "--jobs", "2", "--isolation", "auto", "--disk-mb", &DISK_MB.to_string(), "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .arg(&subs)
        .env("HOME", &home)
        .env("PATH", &path)
        .env("TMPDIR", &scratch)
        .timeout(Duration::from_secs(300))
        .output()
        .expect("run bhgrade mark");
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let left = survivors(&base);
    for (pid, _) in &left {
        // Do not leave them to the next test; the assertion below still fails.
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert_eq!(output.status.code(), Some(0), "bhgrade mark failed: {stderr}");

    let mut problems = Vec::new();
    let mut table = vec!["| case | build | verdict | survivors | time |".to_string(), "|---|---|---|---|---|".into()];
    for case in CORPUS.iter().filter(|c| !skipped.contains(&c.name)) {
        let text = fs::read_to_string(out.join(format!("students/{}.json", case.name))).unwrap_or_default();
        let Ok(report) = serde_json::from_str::<serde_json::Value>(&text) else {
            problems.push(format!("{}: no readable report", case.name));
            continue;
        };
        let build: Option<BuildVerdict> = typed(&report["build"]["verdict"]);
        let tests = verdicts(&report);
        let verdict: Option<Verdict> = tests.first().and_then(|(_, verdict, _)| *verdict);
        if build != Some(case.build) || tests.len() != 1 || !verdict.is_some_and(|v| case.verdict.contains(&v)) {
            problems.push(format!(
                "{}: build {build:?} and {tests:?}, expected build {:?} and one of {:?}",
                case.name, case.build, case.verdict
            ));
        }
        let first_line = report["parts"][0]["tests"][0]["first_line"].as_str().unwrap_or_default();
        if first_line.contains("LEAKED") {
            problems.push(format!("{}: {first_line}", case.name));
        }
        let own: Vec<&(i32, String)> = left.iter().filter(|(_, what)| what.starts_with(case.name)).collect();
        let ms = report["build"]["wall_ms"].as_u64().unwrap_or(0) + tests.iter().map(|t| t.2).sum::<u64>();
        let (build, verdict) = (build.map_or("missing", BuildVerdict::name), verdict.map_or("missing", Verdict::name));
        table.push(format!("| {} | {build} | {verdict} | {} | {:.1} s |", case.name, own.len(), ms as f64 / 1000.0));
    }
    println!("{}", table.join("\n"));
    println!("marked {} cases and `{VICTIM}` in {:.1} s; skipped: {skipped:?}", table.len() - 2, elapsed.as_secs_f64());

    let victim: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join(format!("students/{VICTIM}.json"))).unwrap_or_default())
            .unwrap_or_default();
    let victim_verdicts = verdicts(&victim);
    if typed(&victim["build"]["verdict"]) != Some(BuildVerdict::Ok)
        || victim_verdicts.is_empty()
        || victim_verdicts.iter().any(|(_, v, _)| *v != Some(Verdict::Accepted))
        || victim["score"] != victim["max_score"]
    {
        problems.push(format!("{VICTIM}: not a full, correct report: {victim_verdicts:?}"));
    }
    if !left.is_empty() {
        problems.push(format!("survivors: {left:?}"));
    }
    if listener.accept().is_ok() {
        problems.push("a program connected to the loopback listener".into());
    }
    if socket.accept().is_ok() {
        problems.push("a program connected to the marker's unix socket".into());
    }
    drop(socket);
    let _ = fs::remove_file(&socket_path);
    let after: Vec<_> = [&suite, &subs, &home].iter().map(|d| snapshot(d)).collect();
    for (b, a) in before.iter().zip(&after) {
        let changed: Vec<&PathBuf> = a.keys().chain(b.keys()).filter(|p| a.get(*p) != b.get(*p)).collect();
        if !changed.is_empty() {
            problems.push(format!("changed outside the scratch copies: {changed:?}"));
        }
    }
    let ipc_after = sysv_objects();
    if ipc_after != ipc_before {
        problems.push(format!("SysV IPC objects outlived the marking: {ipc_after:?}, before: {ipc_before:?}"));
    }
    if marker_segment.read() != MarkerSegment::SECRET {
        problems.push(format!("the marker's segment was changed: {:?}", marker_segment.read()));
    }
    drop((marker_key, marker_segment));
    for marker in MARKERS.iter().filter(|m| Path::new(m).exists()) {
        problems.push(format!("{marker} was created"));
        let _ = fs::remove_file(marker);
    }
    let scratch_left: Vec<PathBuf> =
        fs::read_dir(&scratch).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    if !scratch_left.is_empty() {
        problems.push(format!("scratch folders left behind: {scratch_left:?}"));
    }
    assert!(problems.is_empty(), "{}\n\n{}\n\nbhgrade's stderr:\n{stderr}", problems.join("\n"), table.join("\n"));
}

/// A key in the session keyring the marker's shell hands to `bhgrade` (a Kerberos cache, a
/// token); invalidated when dropped.
struct MarkerKey(libc::c_long);

impl MarkerKey {
    fn add() -> MarkerKey {
        let payload = b"the marker's token";
        // SAFETY: NUL-terminated strings and a live payload of the given length;
        // KEY_SPEC_SESSION_KEYRING is -3.
        let id = unsafe {
            libc::syscall(
                libc::SYS_add_key,
                c"user".as_ptr(),
                c"bhgrade-hostile-marker-key".as_ptr(),
                payload.as_ptr(),
                payload.len(),
                -3 as libc::c_long,
            )
        };
        assert!(id > 0, "add a key to the session keyring: {}", std::io::Error::last_os_error());
        MarkerKey(id)
    }
}

impl Drop for MarkerKey {
    fn drop(&mut self) {
        // SAFETY: KEYCTL_INVALIDATE (21) of a key this test made.
        unsafe { libc::syscall(libc::SYS_keyctl, 21 as libc::c_long, self.0) };
    }
}

/// A SysV shared-memory segment at the key `ipc-exchange` looks for, holding another student's
/// data; removed when dropped.
/// Tests that make it run one at a time: there is one key, and the first to finish would remove
/// the other's segment.
pub(crate) struct MarkerSegment {
    id: libc::c_int,
    _alone: std::sync::MutexGuard<'static, ()>,
}

static ONE_SEGMENT: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl MarkerSegment {
    const KEY: libc::key_t = 0x6268_6772;
    pub(crate) const SECRET: &'static [u8] = b"another student's answer";

    pub(crate) fn create() -> MarkerSegment {
        let alone = ONE_SEGMENT.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: plain SysV calls; the segment is 4096 bytes, the write well inside it.
        unsafe {
            let id = libc::shmget(Self::KEY, 4096, libc::IPC_CREAT | 0o666);
            assert!(id >= 0, "shmget: {}", std::io::Error::last_os_error());
            let at = libc::shmat(id, std::ptr::null(), 0);
            assert!(at as isize != -1, "shmat: {}", std::io::Error::last_os_error());
            std::ptr::copy_nonoverlapping(Self::SECRET.as_ptr(), at.cast::<u8>(), Self::SECRET.len());
            libc::shmdt(at);
            MarkerSegment { id, _alone: alone }
        }
    }

    pub(crate) fn read(&self) -> Vec<u8> {
        // SAFETY: attached read-only, read within the segment, detached.
        unsafe {
            let at = libc::shmat(self.id, std::ptr::null(), libc::SHM_RDONLY);
            assert!(at as isize != -1, "shmat: {}", std::io::Error::last_os_error());
            let bytes = std::slice::from_raw_parts(at.cast::<u8>(), Self::SECRET.len()).to_vec();
            libc::shmdt(at);
            bytes
        }
    }
}

impl Drop for MarkerSegment {
    fn drop(&mut self) {
        // SAFETY: removing a segment this test made.
        unsafe { libc::shmctl(self.id, libc::IPC_RMID, std::ptr::null_mut()) };
    }
}

/// The key and id of every SysV object on the machine (the host's IPC namespace).
pub(crate) fn sysv_objects() -> Vec<String> {
    ["shm", "msg", "sem"]
        .iter()
        .flat_map(|kind| {
            let table = fs::read_to_string(format!("/proc/sysvipc/{kind}")).unwrap_or_default();
            let rows: Vec<String> = table
                .lines()
                .skip(1)
                .map(|row| format!("{kind} {}", row.split_whitespace().take(2).collect::<Vec<_>>().join(" ")))
                .collect();
            rows
        })
        .collect()
}

#[test]
fn doctor_shows_every_layer_and_what_strict_would_do() {
    let output = bhgrade().arg("doctor").output().expect("run bhgrade doctor");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("| layer | active | required | detail |"), "{text}");
    let probe_dir = tempfile::tempdir().expect("tempdir");
    let sandbox = Sandbox::probe_with(&probe_dir.path().join("probe"), Policy::default()).expect("probe");
    for layer in sandbox.layers() {
        assert!(text.contains(&format!("| {} |", layer.name)), "{} missing from:\n{text}", layer.name);
    }
    let verdict = if sandbox.missing_layers().is_empty() { "will mark" } else { "refuses" };
    assert!(text.contains(verdict), "{text}");
}

/// `strict` refuses to mark where a layer is missing: as `nobody`, who may not make cgroups
/// here. Needs root (to become `nobody`) and `setpriv`.
#[test]
fn strict_refuses_to_mark_without_every_layer() {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].into_iter().find(|p| Path::new(p).exists());
    // SAFETY: geteuid cannot fail.
    let (Some(setpriv), true) = (setpriv, unsafe { libc::geteuid() } == 0) else {
        println!("skipped: strict_refuses_to_mark_without_every_layer: needs root and setpriv");
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path();
    // nobody's scratch (TMPDIR) and reports go here.
    fs::set_permissions(base, fs::Permissions::from_mode(0o777)).expect("chmod");
    copy_tree(&repo().join("fixtures/suites/hostile"), &base.join("suite"));
    fs::set_permissions(base.join("suite/expected.json"), fs::Permissions::from_mode(0o644)).expect("chmod");
    copy_tree(&repo().join("fixtures/hostile/exit-3"), &base.join("subs/exit-3"));
    let as_nobody = |mode: &str| {
        std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("bhgrade"))
            .args(["mark", "--isolation", mode, "--suite"])
            .arg(base.join("suite"))
            .arg("--out")
            .arg(base.join(format!("out-{mode}")))
            .arg(base.join("subs"))
            .env("HOME", base)
            .env("TMPDIR", base)
            .output()
            .expect("run bhgrade as nobody")
    };
    let probe = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("bhgrade"))
        .arg("doctor")
        .env("TMPDIR", base)
        .output()
        .expect("doctor as nobody");
    let table = String::from_utf8_lossy(&probe.stdout);
    assert!(probe.status.success(), "doctor as nobody failed: {}", String::from_utf8_lossy(&probe.stderr));
    if !table.contains("**no**") {
        println!("skipped: strict_refuses_to_mark_without_every_layer: nobody lacks no layer here:\n{table}");
        return;
    }
    let strict = as_nobody("strict");
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("--isolation strict") && stderr.contains("doctor"), "{stderr}");
    assert!(!base.join("out-strict").exists(), "strict wrote reports");
    // `auto` marks, saying once what it lacks.
    let auto = as_nobody("auto");
    let stderr = String::from_utf8_lossy(&auto.stderr);
    assert_eq!(auto.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning: isolation layer")).collect();
    assert!(!warnings.is_empty(), "{stderr}");
    let mut unique = warnings.clone();
    unique.dedup();
    assert_eq!(unique, warnings, "each missing layer is named once");
}

/// A submission whose folders nest past PATH_MAX cannot be copied: the student's build fails
/// and says why; the harness is not blamed (exit 0, no harness problem).
#[test]
fn a_tree_nested_past_path_max_is_the_students_failure() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let class = tmp.path().join("class");
    copy_tree(&repo().join("fixtures/submissions").join(VICTIM), &class.join("deep"));
    // 200 folders of 24 letters: a path of some 5,000 bytes, made one level at a time.
    let nest =
        "for i in $(seq 200); do mkdir dddddddddddddddddddddddd && cd dddddddddddddddddddddddd || exit 1; done; : > f";
    let made = std::process::Command::new("bash").arg("-c").arg(nest).current_dir(class.join("deep")).status();
    assert!(made.is_ok_and(|s| s.success()), "make the deep tree");
    let out = tmp.path().join("out");
    let output = bhgrade()
        .args(["mark", "--suite"])
        .arg(repo().join("fixtures/suites/hostile"))
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run bhgrade mark");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("students/deep.json")).expect("report")).expect("JSON");
    assert_eq!(typed(&report["build"]["verdict"]), Some(BuildVerdict::BuildFailed), "{report:#}");
    assert!(report["build"]["detail"].as_str().unwrap_or_default().contains("longer than the system allows"));
    // The fixture's own tree cannot be removed by a plain remove_dir_all either.
    let _ = std::process::Command::new("rm").arg("-rf").arg(&class).status();
}

/// A run whose supervisor is killed from outside (an administrator, the system's OOM killer) is
/// not the student's: bhgrade runs it again, and the student gets the verdict of a run that
/// was watched to its end (here accepted), with no harness problem and exit 0.
#[test]
fn a_run_whose_supervisor_is_killed_from_outside_is_run_again() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tag = format!("bhgrade-lost-{}", std::process::id());
    let src = tmp.path().join("class/waits/src");
    fs::create_dir_all(&src).expect("mkdir");
    fs::write(src.join("build.sh"), "javac -J-XX:TieredStopAtLevel=1 BHMain.java\n").expect("build.sh");
    let program = format!(
        "public class BHMain {{ public static void main(String[] a) throws Exception {{ \
         new ProcessBuilder(\"sh\", \"-c\", \"sleep 0.5; :\", \"{tag}\").start().waitFor(); \
         System.out.println(\"0\"); }} }}\n"
    );
    fs::write(src.join("BHMain.java"), program).expect("BHMain.java");
    let out = tmp.path().join("out");
    let marking = std::process::Command::new(assert_cmd::cargo::cargo_bin("bhgrade"))
        .args(["mark", "--jobs", "1", "--suite"])
        .arg(repo().join("fixtures/suites/hostile"))
        .arg("--out")
        .arg(&out)
        .arg(tmp.path().join("class"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start bhgrade");
    let harness = marking.id() as i32;
    let parent = crate::support::parent_of;
    // The tagged shell's ancestors up to bhgrade: the last before it is the run's supervisor.
    let deadline = Instant::now() + Duration::from_secs(60);
    let supervisor = loop {
        let shell = crate::support::process_with_arg(&tag);
        let mut chain = shell.map_or(Vec::new(), |pid| vec![pid]);
        while let Some(&last) = chain.last() {
            let up = parent(last);
            if up <= 1 || up == harness || chain.len() > 8 {
                break;
            }
            chain.push(up);
        }
        if chain.len() > 1 && parent(*chain.last().expect("a chain")) == harness {
            break chain.last().copied();
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::yield_now();
    };
    let supervisor = supervisor.expect("the run started under a supervisor of bhgrade's");
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe { libc::kill(supervisor, libc::SIGKILL) };
    let output = marking.wait_with_output().expect("bhgrade ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("harness problem"), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("students/waits.json")).expect("report")).expect("JSON");
    assert_eq!(typed(&report["parts"][0]["tests"][0]["verdict"]), Some(Verdict::Accepted), "{report:#}");
}
