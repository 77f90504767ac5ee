//! `bhref stats`: the paper's table on random standard deals.
//!
//! Input: the command-line arguments after `stats` ([`StatsArgs`]). Output: a printed table per
//! game ([`GameReport`]): solvable fraction with its 95% confidence interval, trivially
//! unsolvable fraction, unsolvable and gave-up counts, time (wall-clock and CPU) and node
//! percentiles, peak memo, and the process's peak resident memory.
//!
//! The deals are the course generator's standard ones (`GEN seed 51 13 4 17`, seeds `S..S+N-1`),
//! solved one after another on one thread.

use std::fmt::Write as _;
use std::time::Duration;

use crate::blackhole::generate;
use crate::blackhole::model::{Game, Puzzle};
use crate::blackhole::sat;
use crate::blackhole::solve::{self, Budget, Outcome, Solution};
pub use crate::measure::{peak_rss_kib, percentile, thread_cpu_time, wilson_interval};

const USAGE: &str =
    "usage: bhref stats [--deals N] [--seed S] [--game blackhole|wormhole|both] [--budget-nodes N] [--sat-seconds T]";

/// What `bhref stats` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatsArgs {
    pub deals: u64,
    pub seed: i64,
    pub games: Vec<Game>,
    pub budget_nodes: u64,
    /// Seconds per game for the SAT oracle to confirm deals' verdicts, in seed order (0: none).
    pub sat_seconds: u64,
}

impl Default for StatsArgs {
    fn default() -> Self {
        StatsArgs {
            deals: 1000,
            seed: 1,
            games: vec![Game::BlackHole, Game::WormHole],
            budget_nodes: Budget::default().max_nodes,
            sat_seconds: 0,
        }
    }
}

/// Reads the flags of `bhref stats`, or says what is wrong with them.
pub fn parse_args(args: &[String]) -> Result<StatsArgs, String> {
    let mut parsed = StatsArgs::default();
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = || format!("bad value `{value}` for {flag}");
        match flag.as_str() {
            "--deals" => parsed.deals = value.parse().map_err(|_| bad())?,
            "--seed" => parsed.seed = value.parse().map_err(|_| bad())?,
            "--budget-nodes" => parsed.budget_nodes = value.parse().map_err(|_| bad())?,
            "--sat-seconds" => parsed.sat_seconds = value.parse().map_err(|_| bad())?,
            "--game" => {
                parsed.games = match value.as_str() {
                    "blackhole" => vec![Game::BlackHole],
                    "wormhole" => vec![Game::WormHole],
                    "both" => vec![Game::BlackHole, Game::WormHole],
                    _ => return Err(bad()),
                }
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(parsed)
}

/// Runs `bhref stats ARGS`, returning the process exit status.
pub fn main(args: &[String]) -> i32 {
    let args = match parse_args(args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bhref: {message}\n{USAGE}");
            return 2;
        }
    };
    let budget = Budget { max_nodes: args.budget_nodes, ..Budget::default() };
    // Dealt afresh each time they are needed, and solutions kept without their moves: the
    // peak resident memory printed is then the solver's, not this table's.
    let deals = || (0..args.deals).map(|i| generate::deal(args.seed + i as i64, 51, 13, 4, 17));
    let trivial = deals().filter(trivially_unsolvable).count();
    println!(
        "{} standard deals (GEN seed 51 13 4 17, seeds {}..={}), one thread",
        args.deals,
        args.seed,
        args.seed + args.deals as i64 - 1
    );
    println!("trivially unsolvable (no top card adjacent to the hole): {}", fraction(trivial as u64, args.deals));
    let mut searched = Vec::new();
    for &game in &args.games {
        let mut cpu_times = Vec::with_capacity(args.deals as usize);
        let mut solutions = Vec::with_capacity(args.deals as usize);
        for deal in deals() {
            let before = thread_cpu_time();
            let mut solution = solve::solve(&deal, game, &budget);
            if let (Some(before), Some(after)) = (before, thread_cpu_time()) {
                cpu_times.push(after.saturating_sub(before));
            }
            if let Outcome::Solved(moves) = &mut solution.outcome {
                *moves = Vec::new();
            }
            solutions.push(solution);
        }
        let mut report = GameReport::new(game, &solutions);
        if cpu_times.len() == solutions.len() {
            cpu_times.sort_unstable();
            report.cpu_times = cpu_times;
        }
        print!("{report}");
        searched.push((game, solutions));
    }
    // The search's peak, before the SAT oracle's formulas add theirs.
    match peak_rss_kib() {
        Some(kib) => println!("peak RSS (VmHWM): {:.1} MiB", kib as f64 / 1024.0),
        None => println!("peak RSS: unknown (no /proc/self/status)"),
    }
    if args.sat_seconds == 0 {
        return 0;
    }
    let mut disagreements = 0;
    for (game, solutions) in &searched {
        let time = Duration::from_secs(args.sat_seconds);
        let confirmed = confirm_with_sat(deals(), args.seed, solutions, *game, time);
        print!("\n{game}\n{confirmed}");
        disagreements += confirmed.disagreements.len();
    }
    i32::from(disagreements > 0)
}

/// What the SAT oracle made of the first deals' verdicts within its time.
#[derive(Clone, Debug, Default)]
pub struct SatSample {
    pub confirmed_solvable: u64,
    pub confirmed_unsolvable: u64,
    /// Deals whose search verdict the oracle contradicted (or whose model failed the checker),
    /// by seed.
    pub disagreements: Vec<i64>,
    /// Deals the search gave up on, or the oracle ran out of time on.
    pub undecided: u64,
    pub elapsed: Duration,
    /// The slowest deal's seed and time.
    pub slowest: Option<(i64, Duration)>,
}

/// Asks the SAT oracle about the deals in order until `time` has passed, comparing each
/// verdict with the search's.
fn confirm_with_sat(
    deals: impl Iterator<Item = Puzzle>,
    first_seed: i64,
    solutions: &[Solution],
    game: Game,
    time: Duration,
) -> SatSample {
    let start = std::time::Instant::now();
    let mut sample = SatSample::default();
    for (seed, (deal, solution)) in (first_seed..).zip(deals.zip(solutions)) {
        let left = time.saturating_sub(start.elapsed());
        if left.is_zero() {
            break;
        }
        let Ok(answer) = sat::decide(&deal, game, Some(left)) else {
            sample.disagreements.push(seed);
            continue;
        };
        if answer.verdict == sat::Verdict::GaveUp && start.elapsed() >= time {
            // Cut short by the sample's end: neither undecided nor the slowest.
            break;
        }
        if sample.slowest.is_none_or(|(_, slowest)| answer.elapsed > slowest) {
            sample.slowest = Some((seed, answer.elapsed));
        }
        match (&answer.verdict, &solution.outcome) {
            (sat::Verdict::Solvable(_), Outcome::Solved(_)) => sample.confirmed_solvable += 1,
            (sat::Verdict::Unsolvable, Outcome::Unsolvable) => sample.confirmed_unsolvable += 1,
            (sat::Verdict::GaveUp, _) | (_, Outcome::GaveUp) => sample.undecided += 1,
            (sat::Verdict::Solvable(_), Outcome::Unsolvable) | (sat::Verdict::Unsolvable, Outcome::Solved(_)) => {
                sample.disagreements.push(seed)
            }
        }
    }
    sample.elapsed = start.elapsed();
    sample
}

/// `SAT oracle: 812 deals confirmed in 60.0 s (812 per minute): ...`.
impl std::fmt::Display for SatSample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let confirmed = self.confirmed_solvable + self.confirmed_unsolvable;
        let seconds = self.elapsed.as_secs_f64();
        let per_minute = if seconds > 0.0 { confirmed as f64 * 60.0 / seconds } else { 0.0 };
        writeln!(
            f,
            "  SAT oracle  {confirmed} deals confirmed in {seconds:.1} s ({per_minute:.0} per minute): {} solvable, \
             {} unsolvable; {} undecided; {} disagreements",
            self.confirmed_solvable,
            self.confirmed_unsolvable,
            self.undecided,
            self.disagreements.len()
        )?;
        if let Some((seed, time)) = self.slowest {
            writeln!(f, "              slowest: seed {seed}, {:.3} s", time.as_secs_f64())?;
        }
        for seed in &self.disagreements {
            writeln!(f, "              DISAGREEMENT: seed {seed}")?;
        }
        Ok(())
    }
}

/// No card on top of a pile is adjacent to the hole: Black Hole cannot make a first move.
pub fn trivially_unsolvable(puzzle: &Puzzle) -> bool {
    puzzle.cards_in_piles() > 0
        && !puzzle.piles.iter().filter_map(|pile| pile.last()).any(|&top| puzzle.deck.adjacent(top, puzzle.hole))
}

/// The summary of one game over all deals.
#[derive(Clone, Debug, PartialEq)]
pub struct GameReport {
    pub game: Game,
    pub deals: u64,
    pub solved: u64,
    pub unsolvable: u64,
    pub gave_up: u64,
    /// Sorted per-deal wall-clock times and node counts.
    pub times: Vec<Duration>,
    /// Sorted per-deal CPU times of the solving thread, when the system reports them (on a
    /// shared machine they are the fairer measure).
    pub cpu_times: Vec<Duration>,
    pub nodes: Vec<u64>,
    pub peak_memo_entries: usize,
    pub peak_memo_bytes: usize,
}

impl GameReport {
    pub fn new(game: Game, solutions: &[Solution]) -> Self {
        let count = |f: fn(&Outcome) -> bool| solutions.iter().filter(|s| f(&s.outcome)).count() as u64;
        let mut times: Vec<Duration> = solutions.iter().map(|s| s.stats.elapsed).collect();
        let mut nodes: Vec<u64> = solutions.iter().map(|s| s.stats.nodes).collect();
        times.sort_unstable();
        nodes.sort_unstable();
        GameReport {
            game,
            deals: solutions.len() as u64,
            solved: count(|o| matches!(o, Outcome::Solved(_))),
            unsolvable: count(|o| matches!(o, Outcome::Unsolvable)),
            gave_up: count(|o| matches!(o, Outcome::GaveUp)),
            times,
            cpu_times: Vec::new(),
            nodes,
            peak_memo_entries: solutions.iter().map(|s| s.stats.peak_memo_entries).max().unwrap_or(0),
            peak_memo_bytes: solutions.iter().map(|s| s.stats.peak_memo_bytes).max().unwrap_or(0),
        }
    }
}

/// The table for one game, e.g. `solvable: 8750/10000 = 87.50% (95% CI 86.83%..88.14%)`.
impl std::fmt::Display for GameReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mut out = String::new();
        let _ = writeln!(out, "\n{}", self.game);
        let (low, high) = wilson_interval(self.solved, self.deals);
        let _ = writeln!(
            out,
            "  solvable:   {} (95% Wilson CI {:.2}%..{:.2}%)",
            fraction(self.solved, self.deals),
            100.0 * low,
            100.0 * high
        );
        let _ = writeln!(out, "  unsolvable: {}   gave up: {}", self.unsolvable, self.gave_up);
        let times: Vec<String> = [0.5, 0.9, 0.99, 1.0]
            .iter()
            .map(|&q| format!("{:.3}", percentile(&self.times, q).map_or(0.0, ms)))
            .collect();
        let _ =
            writeln!(out, "  time ms     median {}  p90 {}  p99 {}  max {}", times[0], times[1], times[2], times[3]);
        if !self.cpu_times.is_empty() {
            let cpu: Vec<String> = [0.5, 0.9, 0.99, 1.0]
                .iter()
                .map(|&q| format!("{:.3}", percentile(&self.cpu_times, q).map_or(0.0, ms)))
                .collect();
            let _ = writeln!(out, "  cpu ms      median {}  p90 {}  p99 {}  max {}", cpu[0], cpu[1], cpu[2], cpu[3]);
        }
        let nodes: Vec<u64> = [0.5, 0.9, 0.99, 1.0].iter().map(|&q| percentile(&self.nodes, q).unwrap_or(0)).collect();
        let _ =
            writeln!(out, "  nodes       median {}  p90 {}  p99 {}  max {}", nodes[0], nodes[1], nodes[2], nodes[3]);
        let total: Duration = self.times.iter().sum();
        let _ = writeln!(out, "  total time  {:.2} s", total.as_secs_f64());
        let _ = writeln!(
            out,
            "  peak memo   {} entries, {:.1} MiB",
            self.peak_memo_entries,
            self.peak_memo_bytes as f64 / (1024.0 * 1024.0)
        );
        f.write_str(&out)
    }
}

/// `k/n = p%`.
fn fraction(k: u64, n: u64) -> String {
    let percent = if n == 0 { 0.0 } else { 100.0 * k as f64 / n as f64 };
    format!("{k}/{n} = {percent:.2}%")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blackhole::model::Deck;
    use crate::blackhole::solve::Stats;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_parse_and_reject() {
        let args = parse_args(&strings(&["--deals", "5", "--seed", "7", "--game", "wormhole", "--budget-nodes", "9"]));
        assert_eq!(
            args,
            Ok(StatsArgs { deals: 5, seed: 7, games: vec![Game::WormHole], budget_nodes: 9, sat_seconds: 0 })
        );
        assert_eq!(parse_args(&strings(&["--sat-seconds", "60"])).map(|a| a.sat_seconds), Ok(60));
        assert_eq!(parse_args(&[]), Ok(StatsArgs::default()));
        assert!(parse_args(&strings(&["--game", "chess"])).is_err());
        assert!(parse_args(&strings(&["--deals"])).is_err());
        assert!(parse_args(&strings(&["--frobnicate", "1"])).is_err());
    }

    #[test]
    fn trivial_deals_have_no_first_move() {
        let deck = Deck { ranks: 13, suits: 4 };
        let stuck = Puzzle { deck, hole: 1, piles: vec![vec![2, 5], vec![7]] };
        assert!(trivially_unsolvable(&stuck));
        let open = Puzzle { deck, hole: 1, piles: vec![vec![5, 13], vec![7]] };
        assert!(!trivially_unsolvable(&open));
    }

    #[test]
    fn reports_count_outcomes_and_print_percentiles() {
        let solution = |outcome, ms| Solution {
            outcome,
            stats: Stats { nodes: ms, elapsed: Duration::from_millis(ms), peak_memo_entries: 3, peak_memo_bytes: 8192 },
        };
        let report = GameReport::new(
            Game::BlackHole,
            &[solution(Outcome::Solved(vec![]), 2), solution(Outcome::Unsolvable, 1), solution(Outcome::GaveUp, 9)],
        );
        assert_eq!((report.solved, report.unsolvable, report.gave_up), (1, 1, 1));
        let text = report.to_string();
        assert!(text.contains("solvable:   1/3 = 33.33%"), "{text}");
        assert!(text.contains("median 2.000") && text.contains("max 9.000"), "{text}");
        assert!(text.contains("nodes       median 2  p90 9  p99 9  max 9"), "{text}");
        assert!(peak_rss_kib().is_some());
        assert!(!text.contains("cpu ms"), "no CPU times were given");
        let mut timed = report.clone();
        timed.cpu_times = vec![Duration::from_millis(1), Duration::from_millis(4)];
        assert!(timed.to_string().contains("cpu ms      median 1.000  p90 4.000  p99 4.000  max 4.000"));
        // The thread's clock is read to the nanosecond, not at scheduler ticks (4 ms): a
        // fraction of a millisecond of work shows.
        let first = thread_cpu_time().expect("Linux has a CPU clock per thread");
        let mut spin = 0u64;
        for i in 0..200_000u64 {
            spin = std::hint::black_box(spin.wrapping_add(i * i));
        }
        assert!(spin > 0);
        let second = thread_cpu_time().expect("Linux has a CPU clock per thread");
        assert!(second > first, "{first:?} then {second:?}");
    }
}
