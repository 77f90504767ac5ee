//! `bhgrade stacscheck` against what stacscheck itself does, on the same tree and submission
//! (`fixtures/stacscheck-bench/`: a build, then tens of CPU-bound and memory-hungry Java steps).
//!
//! stacscheck's way, reproduced here with `std::process`, unsandboxed: the submission is copied
//! to a temporary folder (stacscheck runs in the student's own folder; the copy keeps `.class`
//! files out of the fixture and is not timed), then every script of the tree runs one after
//! another as `bash SCRIPT` in the submission's `src/`, with the whole environment plus
//! `TESTDIR` and a fresh `SCRATCHDIR`, the `.in` file on a pipe, and prog output (stdout, then
//! stderr) compared with the `.out` file by stacscheck's rule. Its wall clock includes the
//! build. Then the binary runs `bhgrade stacscheck TESTS SUBMISSION` with default options (one
//! run per core, sandboxed), which must exit 0 (every step passed).
//!
//! Besides the wall times it prints the CPU time each way used (user + system of every process
//! it waited for) and the load average before the first run: the ratio can only be near the
//! number of cores when the machine is otherwise idle.
//!
//! `cargo bench --bench stacscheck`. Env: `BHGRADE_BENCH_REPEAT` (runs of each, alternating,
//! default 1; the medians are reported), `BHGRADE_BENCH_VERBOSE` (set to print every step's
//! time in stacscheck's way).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// What stacscheck does with a script, by its name's prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Build,
    Test,
    Info,
    Prog,
}

/// One script run, in stacscheck's order.
#[derive(Debug)]
struct Step {
    id: String,
    kind: Kind,
    script: PathBuf,
    testdir: PathBuf,
    input: Vec<u8>,
    expected: Option<Vec<u8>>,
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tests = repo.join("fixtures/stacscheck-bench/Tests");
    let submission = repo.join("fixtures/stacscheck-bench/submission");
    let repeat = std::env::var("BHGRADE_BENCH_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(1usize).max(1);
    let verbose = std::env::var_os("BHGRADE_BENCH_VERBOSE").is_some();
    let timeout = config_timeout(&tests.join("practical.config"));
    let mut steps = Vec::new();
    walk(&tests, &tests, &mut steps);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();

    let (mut sequential, mut bhgrade) = (Vec::new(), Vec::new());
    let (mut sequential_cpu, mut bhgrade_cpu) = (Vec::new(), Vec::new());
    for round in 1..=repeat {
        let cpu = children_cpu();
        let wall = run_sequentially(&steps, &submission, timeout, verbose);
        sequential_cpu.push(children_cpu() - cpu);
        eprintln!("round {round}/{repeat}: stacscheck's way (sequential bash) {:.2} s", wall.as_secs_f64());
        sequential.push(wall);
        let cpu = children_cpu();
        let wall = run_bhgrade(&tests, &submission);
        bhgrade_cpu.push(children_cpu() - cpu);
        eprintln!("round {round}/{repeat}: bhgrade stacscheck {:.2} s", wall.as_secs_f64());
        bhgrade.push(wall);
    }
    let (sequential, bhgrade) = (median(&mut sequential), median(&mut bhgrade));
    let (sequential_cpu, bhgrade_cpu) = (median(&mut sequential_cpu), median(&mut bhgrade_cpu));
    let of = if repeat > 1 { format!(" (median of {repeat})") } else { String::new() };
    println!("| figure | value |\n|---|---|");
    println!("| cores | {cores} |");
    println!("| load average before the first run | {} |", load.join(" "));
    println!("| steps (1 build, all passing both ways) | {} |", steps.len());
    println!("| stacscheck's way: one after another with plain `bash`, unsandboxed{of} | {:.2} s |", secs(sequential));
    println!("| `bhgrade stacscheck`, default options{of} | {:.2} s |", secs(bhgrade));
    println!("| speed-up of bhgrade (target >= 1.6) | {:.2}x |", secs(sequential) / secs(bhgrade));
    println!("| CPU time, stacscheck's way{of} | {:.2} s |", secs(sequential_cpu));
    println!("| CPU time, `bhgrade stacscheck`{of} | {:.2} s |", secs(bhgrade_cpu));
}

/// User + system time of every child process waited for so far (and of their descendants that
/// were waited for in turn).
fn children_cpu() -> Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn secs(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// The tree's `timeout` (stacscheck's default is 60 s).
fn config_timeout(config: &Path) -> Duration {
    let text = std::fs::read_to_string(config).expect("practical.config");
    let seconds = text
        .lines()
        .filter_map(|line| line.split_once('='))
        .find(|(key, _)| key.trim() == "timeout")
        .map_or(60.0, |(_, value)| value.trim().parse::<f64>().expect("a number of seconds"));
    Duration::from_secs_f64(seconds)
}

/// stacscheck's walk of a whole tree: in each folder its builds, tests, infos, then each prog
/// script once per `.out` file (with the `.in` of the same name, if any), each alphabetical;
/// then its subfolders, alphabetical, depth first. Hidden files are skipped.
fn walk(root: &Path, dir: &Path, steps: &mut Vec<Step>) {
    let mut names: Vec<(String, bool)> = std::fs::read_dir(dir)
        .expect("a readable folder")
        .map(|entry| entry.expect("a folder entry"))
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), entry.path().is_dir()))
        .filter(|(name, _)| !name.starts_with('.'))
        .collect();
    names.sort();
    let rel = dir.strip_prefix(root).expect("inside the tree").to_string_lossy().into_owned();
    let id = |name: &str| if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
    let scripts = |prefix: &str| -> Vec<String> {
        names
            .iter()
            .filter(|(name, is_dir)| !is_dir && name.starts_with(prefix) && name.ends_with(".sh"))
            .map(|(name, _)| name.clone())
            .collect()
    };
    for (prefix, kind) in [("build", Kind::Build), ("test", Kind::Test), ("info", Kind::Info)] {
        for name in scripts(prefix) {
            steps.push(Step {
                id: id(name.trim_end_matches(".sh")),
                kind,
                script: dir.join(&name),
                testdir: dir.to_path_buf(),
                input: Vec::new(),
                expected: None,
            });
        }
    }
    let outs: Vec<&String> =
        names.iter().filter(|(n, is_dir)| !is_dir && n.ends_with(".out")).map(|(n, _)| n).collect();
    for prog in scripts("prog") {
        for out in &outs {
            let stem = out.trim_end_matches(".out");
            let input = std::fs::read(dir.join(format!("{stem}.in"))).unwrap_or_default();
            steps.push(Step {
                id: id(&format!("{}-{stem}", prog.trim_end_matches(".sh"))),
                kind: Kind::Prog,
                script: dir.join(&prog),
                testdir: dir.to_path_buf(),
                input,
                expected: Some(std::fs::read(dir.join(out)).expect("the .out file")),
            });
        }
    }
    for (name, is_dir) in &names {
        if *is_dir {
            walk(root, &dir.join(name), steps);
        }
    }
}

/// Copies `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the copy");
    for entry in std::fs::read_dir(from).expect("the submission") {
        let entry = entry.expect("a submission entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copied file");
        }
    }
}

/// Every step one after another, as stacscheck runs them; panics on any failure (the fixture
/// must pass). Returns the wall-clock time of the steps, the build included.
fn run_sequentially(steps: &[Step], submission: &Path, timeout: Duration, verbose: bool) -> Duration {
    let copy = tempfile::tempdir().expect("a temporary folder");
    copy_dir(submission, copy.path());
    let srcdir = copy.path().join("src");
    let start = Instant::now();
    for step in steps {
        let step_start = Instant::now();
        let (status, output) = run_script(step, &srcdir, timeout);
        let passed = match step.kind {
            Kind::Build | Kind::Test => status == Some(0),
            Kind::Info => true,
            Kind::Prog => normalise(&output) == normalise(step.expected.as_deref().unwrap_or_default()),
        };
        if verbose {
            eprintln!("  {:<40} {:>6.2} s", step.id, step_start.elapsed().as_secs_f64());
        }
        assert!(
            passed,
            "stacscheck's way: {} failed (exit status {status:?}); output:\n{}",
            step.id,
            String::from_utf8_lossy(&output)
        );
    }
    start.elapsed()
}

/// Runs one script as stacscheck does and returns its exit status (`None` when killed, or past
/// the timeout) and its stdout with its stderr appended.
fn run_script(step: &Step, srcdir: &Path, timeout: Duration) -> (Option<i32>, Vec<u8>) {
    let scratch = tempfile::tempdir().expect("a SCRATCHDIR");
    let mut child = Command::new("bash")
        .arg(&step.script)
        .current_dir(srcdir)
        .env("TESTDIR", &step.testdir)
        .env("SCRATCHDIR", scratch.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = step.input.clone();
    // A script may exit without reading all of its input: a broken pipe is no error here.
    let feeder = std::thread::spawn(move || drop(stdin.write_all(&input)));
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).expect("the script's output");
            bytes
        })
    };
    let stdout = reader(Box::new(child.stdout.take().expect("stdout")));
    let stderr = reader(Box::new(child.stderr.take().expect("stderr")));
    let status = match child.wait_timeout(timeout).expect("waiting for bash") {
        Some(status) => status.code(),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    };
    feeder.join().expect("the input feeder");
    let mut output = stdout.join().expect("the stdout reader");
    output.extend(stderr.join().expect("the stderr reader"));
    (status, output)
}

/// stacscheck's comparison form: each line's trailing whitespace stripped, empty lines dropped.
fn normalise(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|line| line.trim_end().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

/// `bhgrade stacscheck TESTS SUBMISSION` with default options; panics unless it exits 0.
fn run_bhgrade(tests: &Path, submission: &Path) -> Duration {
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_bhgrade"))
        .arg("stacscheck")
        .arg(tests)
        .arg(submission)
        .stdin(Stdio::null())
        .output()
        .expect("bhgrade starts");
    let wall = start.elapsed();
    assert!(
        output.status.success(),
        "bhgrade stacscheck ended with {}; its report:\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    wall
}
