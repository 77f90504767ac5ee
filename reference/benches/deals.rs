//! A benchmark over the course generator's standard deals, one thread.
//!
//! Input: `cargo bench -p bhref --bench deals -- [FIRST_SEED] [DEALS] [blackhole|wormhole]`
//! (defaults 1, 200, blackhole). Output: total and per-deal time and node figures, and the
//! hardest deals by nodes, printed to standard output.

use std::time::{Duration, Instant};

use bhref::blackhole::generate::deal;
use bhref::blackhole::model::Game;
use bhref::blackhole::solve::{solve, Budget, Outcome};
use bhref::blackhole::stats::thread_cpu_time;

fn main() {
    // `cargo bench` passes `--bench`; only the plain arguments are ours.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let first: i64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    let count: i64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let game = match args.get(2).map(String::as_str) {
        Some("wormhole") => Game::WormHole,
        _ => Game::BlackHole,
    };
    let budget = Budget::default();
    let mut rows = Vec::new();
    let started = Instant::now();
    let cpu_started = thread_cpu_time();
    for seed in first..first + count {
        let puzzle = deal(seed, 51, 13, 4, 17);
        let solution = solve(&puzzle, game, &budget);
        let tag = match solution.outcome {
            Outcome::Solved(_) => "solved",
            Outcome::Unsolvable => "unsolvable",
            Outcome::GaveUp => "gave-up",
        };
        rows.push((solution.stats.nodes, solution.stats.elapsed, seed, tag));
    }
    let total = started.elapsed();
    let cpu = cpu_started.zip(thread_cpu_time()).map(|(a, b)| b.saturating_sub(a));
    rows.sort();
    fn nodes_total(rows: &[(u64, Duration, i64, &str)]) -> f64 {
        rows.iter().map(|r| r.0).sum::<u64>().max(1) as f64
    }
    let nodes: u64 = rows.iter().map(|r| r.0).sum();
    let solve_time: Duration = rows.iter().map(|r| r.1).sum();
    println!("{game}: {count} deals from seed {first} in {:.3} s", total.as_secs_f64());
    if let Some(cpu) = cpu {
        println!(
            "  {:.3} s of CPU, {:.0} ns of CPU per node",
            cpu.as_secs_f64(),
            cpu.as_nanos() as f64 / nodes_total(&rows)
        );
    }
    println!("  {nodes} nodes, {:.0} ns per node", solve_time.as_nanos() as f64 / nodes.max(1) as f64);
    println!("  median {:?}, max {:?}", rows[rows.len() / 2].1, rows.iter().map(|r| r.1).max().unwrap_or_default());
    println!("  hardest:");
    for (nodes, time, seed, tag) in rows.iter().rev().take(10) {
        println!("    seed {seed:>6} {tag:<10} {nodes:>10} nodes {:>9.3} ms", time.as_secs_f64() * 1000.0);
    }
}
