//! A class at scale, through the real command: the 14 sample submissions copied and renamed into
//! a class of 14 and one of 300 (`student001`, ...), each marked with the small suite
//! `fixtures/suites/tiny` by `bhgrade mark`, and for each size:
//!
//! - the wall time against the physical limit: wall ÷ (CPU of every run, builds included ÷
//!   cores), and ÷ (that plus bhgrade's own CPU ÷ cores);
//! - bhgrade's own peak memory (`VmHWM` of its process, read every 20 ms while it runs) and its
//!   own CPU (its threads: planning, judging with the reference, reporting; the runs' supervisors
//!   count with the runs), read from its process once it has ended, before it is reaped;
//! - the result store's size (files and bytes) and the whole output folder's;
//! - the time to write the reports and the class page: `bhgrade merge` of the output folder into
//!   a new one (it reads every report and writes every file again), median of three;
//! - the class page: its size, and its load time in headless Chromium (from the start of
//!   navigation to the load event, from a copy of the page with a script that writes it into the
//!   title), against the same for an empty page, median of five each.
//!
//! `cargo bench --bench class`. Env: `BHGRADE_BENCH_CLASS` (the class sizes, default `14,300`),
//! `BHGRADE_CHROMIUM` (the browser; else `chromium` on the PATH; without one the load time is
//! left out, and said to be). Every figure is measured in this one run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What marking one class cost.
struct Marking {
    wall: Duration,
    /// CPU of bhgrade's own threads, and of everything it started and reaped (the runs).
    own_cpu: Duration,
    runs_cpu: Duration,
    peak_kib: u64,
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sizes: Vec<usize> = std::env::var("BHGRADE_BENCH_CLASS")
        .unwrap_or_else(|_| "14,300".into())
        .split(',')
        .map(|size| size.trim().parse().expect("BHGRADE_BENCH_CLASS: sizes such as 14,300"))
        .collect();
    let cores = bhgrade::pipeline::slots::usable_cpus().len();
    let browser = chromium();
    println!("usable cores: {cores}; suite: fixtures/suites/tiny; browser: {}", browser_name(&browser));
    println!(
        "| class | wall | runs' CPU | bhgrade's CPU | wall ÷ (runs' CPU ÷ cores) | wall ÷ (all CPU ÷ cores) \
         | bhgrade's peak memory | store | output folder | reports and class page | class page | load in \
         Chromium (empty page) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for size in sizes {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let class = class_of(repo, dir.path(), size);
        let out = dir.path().join("out");
        let marking = mark(repo, &class, &out);
        let limit = |cpu: Duration| marking.wall.as_secs_f64() / (cpu.as_secs_f64() / cores as f64);
        let store = folder_size(&out.join(bhgrade::store::STORE_DIR));
        let whole = folder_size(&out);
        let reports = median((0..3).map(|i| merge(&out, &dir.path().join(format!("merged{i}")))).collect());
        let page = out.join("index.html");
        let page_kib = std::fs::metadata(&page).map_or(0, |m| m.len()) >> 10;
        let load = browser.as_ref().map_or_else(
            || "no browser".to_string(),
            |browser| {
                let (page_ms, empty_ms) = load_times(browser, &page, dir.path());
                format!("{page_ms:.0} ms ({empty_ms:.0} ms)")
            },
        );
        println!(
            "| {size} | {:.1} s | {:.1} s | {:.1} s | {:.3} | {:.3} | {:.1} MiB | {} files, {:.1} MiB | {} files, \
             {:.1} MiB | {:.2} s | {page_kib} KiB | {load} |",
            marking.wall.as_secs_f64(),
            marking.runs_cpu.as_secs_f64(),
            marking.own_cpu.as_secs_f64(),
            limit(marking.runs_cpu),
            limit(marking.runs_cpu + marking.own_cpu),
            marking.peak_kib as f64 / 1024.0,
            store.0,
            store.1 as f64 / 1048576.0,
            whole.0,
            whole.1 as f64 / 1048576.0,
            reports.as_secs_f64(),
        );
    }
}

/// A class of `size` in `dir/class`: the sample submissions in turn, each copy named
/// `studentNNN`.
fn class_of(repo: &Path, dir: &Path, size: usize) -> PathBuf {
    let samples = repo.join("fixtures/submissions");
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&samples)
        .expect("fixtures/submissions")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("src").is_dir())
        .collect();
    fixtures.sort();
    let class = dir.join("class");
    std::fs::create_dir_all(&class).expect("the class folder");
    for i in 0..size {
        copy_tree(&fixtures[i % fixtures.len()], &class.join(format!("student{:03}", i + 1)));
    }
    class
}

/// A copy of the folder `from` at `to` (`cp -r`: the samples are plain files and folders).
fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-r").arg(from).arg(to).status().expect("cp starts");
    assert!(status.success(), "cp -r {} {}", from.display(), to.display());
}

/// Marks `class` into `out`, watching bhgrade's process.
fn mark(repo: &Path, class: &Path, out: &Path) -> Marking {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bhgrade"))
        .args(["mark", "--quiet", "--suite"])
        .arg(repo.join("fixtures/suites/tiny"))
        .arg("--out")
        .arg(out)
        .arg(class)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bhgrade starts");
    let pid = child.id() as i32;
    let stderr = child.stderr.take().expect("its standard error");
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut peak_kib = 0;
    // Polled, not waited for: its memory can be read only while it runs, its CPU only once it
    // has ended and before it is reaped (WNOWAIT leaves it a zombie until `wait` below).
    while !ended(pid) {
        peak_kib = peak_kib.max(status_kib(pid, "VmHWM:"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let wall = started.elapsed();
    let ticks = stat_ticks(pid);
    let status = child.wait().expect("bhgrade is reaped");
    let stderr = reader.join().unwrap_or_default();
    assert!(status.success(), "bhgrade mark failed ({status}):\n{stderr}");
    Marking { wall, own_cpu: ticks.0, runs_cpu: ticks.1, peak_kib }
}

/// Whether `pid` has ended (it is left to be reaped).
fn ended(pid: i32) -> bool {
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid writes only into `info`.
    let found = unsafe {
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT)
    };
    // SAFETY: si_pid is set when waitid found a child that has ended, else left 0.
    found == 0 && unsafe { info.si_pid() } == pid
}

/// A `/proc/PID/status` figure in KiB (0 when it cannot be read).
fn status_kib(pid: i32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|line| line.starts_with(field)).unwrap_or_default();
    line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).unwrap_or(0)
}

/// The CPU of `pid`'s own threads (utime + stime) and of the children it reaped (cutime +
/// cstime), from its `stat`.
fn stat_ticks(pid: i32) -> (Duration, Duration) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("bhgrade's stat");
    // After the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime (tpgid is -1 without a terminal: every field is kept in its place).
    let fields: Vec<&str> = stat.rsplit_once(") ").expect("a stat line").1.split(' ').collect();
    let field = |index: usize| fields[index].parse::<u64>().expect("a CPU time in ticks");
    let (utime, stime, cutime, cstime) = (field(11), field(12), field(13), field(14));
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let seconds = |a: u64, b: u64| Duration::from_secs_f64((a + b) as f64 / ticks);
    (seconds(utime, stime), seconds(cutime, cstime))
}

/// Files and bytes under `dir`.
fn folder_size(dir: &Path) -> (usize, u64) {
    let files: Vec<u64> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| entry.metadata().ok().map(|m| m.len()))
        .collect();
    (files.len(), files.iter().sum())
}

/// The wall time of `bhgrade merge OUT --out TO`: every report read, every file written again.
fn merge(out: &Path, to: &Path) -> Duration {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_bhgrade"))
        .arg("merge")
        .arg(out)
        .arg("--out")
        .arg(to)
        .output()
        .expect("bhgrade merge starts");
    assert!(output.status.success(), "bhgrade merge failed: {}", String::from_utf8_lossy(&output.stderr));
    started.elapsed()
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os("BHGRADE_CHROMIUM").map(PathBuf::from);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path).map(|dir| dir.join("chromium")).collect::<Vec<_>>();
    named.into_iter().chain(on_path).find(|program| program.is_file())
}

fn browser_name(browser: &Option<PathBuf>) -> String {
    match browser {
        Some(program) => {
            let version = Command::new(program).arg("--version").output().map(|o| o.stdout).unwrap_or_default();
            String::from_utf8_lossy(&version).trim().to_string()
        }
        None => "none (no chromium on the PATH, BHGRADE_CHROMIUM unset): load times left out".into(),
    }
}

/// The script that writes a page's load time (milliseconds from the start of navigation to the
/// load event), into its title.
const TIMING: &str =
    "<script>addEventListener('load', () => { document.title = 'LOADED ' + performance.now(); });</script>";

/// The median load time of `page` and of an empty page, in milliseconds.
fn load_times(browser: &Path, page: &Path, dir: &Path) -> (f64, f64) {
    let timed = dir.join("timed.html");
    let html = std::fs::read_to_string(page).expect("the class page");
    std::fs::write(&timed, html.replacen("</body>", &format!("{TIMING}</body>"), 1)).expect("a timed copy");
    let empty = dir.join("empty.html");
    std::fs::write(&empty, format!("<!doctype html><html><head><title></title></head><body>{TIMING}</body></html>"))
        .expect("an empty page");
    let median_of = |file: &Path| {
        let mut times: Vec<f64> = (0..5).map(|_| load_time(browser, file, dir)).collect();
        times.sort_by(f64::total_cmp);
        times[2]
    };
    (median_of(&timed), median_of(&empty))
}

fn load_time(browser: &Path, file: &Path, dir: &Path) -> f64 {
    let profile = tempfile::tempdir_in(dir).expect("a profile");
    let output = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", file.display()))
        .stderr(Stdio::null())
        .output()
        .expect("chromium starts");
    let dom = String::from_utf8_lossy(&output.stdout);
    let title = dom.split("<title>").nth(1).and_then(|rest| rest.split("</title>").next()).unwrap_or_default();
    title.strip_prefix("LOADED ").and_then(|ms| ms.trim().parse().ok()).unwrap_or(f64::NAN)
}
