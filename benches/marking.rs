//! Marking at scale: K copies of the correct fixture with the tiny suite, marked with one job
//! and with two, and the harness's own overhead per run (wall time of the whole marking minus
//! the builds' and the programs' own wall time, per run, with one job).
//!
//! `cargo bench --bench marking` (env `BHGRADE_BENCH_COPIES`, default 4). Prints figures; the
//! ratio is measured in the same process, so a noisy machine affects both sides alike.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bhgrade::build::Submission;
use bhgrade::pipeline::{self, MarkOptions};
use bhgrade::report::ClassReport;
use bhgrade::sandbox::Sandbox;

static NEVER: AtomicBool = AtomicBool::new(false);

fn main() {
    let copies: usize = std::env::var("BHGRADE_BENCH_COPIES").ok().and_then(|v| v.parse().ok()).unwrap_or(4);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = bhgrade::suite::load_definition(&repo.join("fixtures/suites/tiny"))
        .and_then(|definition| definition.verify())
        .expect("the tiny suite loads");
    let scratch = tempfile::tempdir().expect("scratch");
    let submissions: Vec<Submission> = (0..copies)
        .map(|i| Submission { name: format!("copy{i}"), path: repo.join("fixtures/submissions/correct") })
        .collect();
    let sandbox = Sandbox::probe(scratch.path()).expect("sandbox");
    let mut rows = Vec::new();
    for jobs in [1, 2] {
        let options = MarkOptions { jobs, scratch_root: scratch.path().to_path_buf(), store: None, stop: &NEVER };
        let start = Instant::now();
        let class = pipeline::mark(&suite, &submissions, &sandbox, &options, &mut []).expect("marking");
        rows.push((jobs, start.elapsed(), class));
    }
    let runs: usize = rows[0].2.students.iter().map(|s| s.parts.iter().map(|p| p.tests.len()).sum::<usize>()).sum();
    println!("marking {copies} copies of the correct fixture, {runs} runs in all");
    for (jobs, wall, _) in &rows {
        println!("  --jobs {jobs}: {:.2} s", wall.as_secs_f64());
    }
    println!("  speed-up of --jobs 2 over --jobs 1: {:.2}x", rows[0].1.as_secs_f64() / rows[1].1.as_secs_f64());
    let (_, wall, class) = &rows[0];
    let children = child_time(class);
    let overhead = wall.saturating_sub(children);
    println!(
        "  harness overhead with --jobs 1: {:.1} ms per run ({:.1}% of the marking's wall time)",
        overhead.as_secs_f64() * 1000.0 / runs as f64,
        100.0 * overhead.as_secs_f64() / wall.as_secs_f64()
    );
}

/// The wall time the builds and the programs took themselves.
fn child_time(class: &ClassReport) -> Duration {
    let ms: u64 = class
        .students
        .iter()
        .map(|s| s.build.wall_ms + s.parts.iter().flat_map(|p| &p.tests).map(|t| t.wall_ms).sum::<u64>())
        .sum();
    Duration::from_millis(ms)
}
