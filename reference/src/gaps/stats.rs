//! `bhref --game gaps stats`: the paper's figures (§3.1, Tables 1 and 2) measured on generated
//! deals.
//!
//! Input: a [`StatsRequest`] (deals `GEN S..S+N-1 R S'`, the variant, a budget of nodes, memory
//! and time, whether to confirm each `0` with the oracle, whether to count every reachable
//! position, how many random probes). Output: the report's text: winnability with its 95%
//! Wilson interval, the deals proved unwinnable (with the oracle's word) and those left
//! undecided, winning lines' lengths, nodes and CPU per deal (median, p99, max, mean) for the
//! search to the first win, positions per deal for the full search, the block search against it
//! (Table 2), the random-play success rates, and the peak memory.
//!
//! Deals are shared out among threads one at a time; CPU time is each deal's own thread's
//! (`CLOCK_THREAD_CPUTIME_ID`), so the figures do not depend on how many threads ran.

use std::fmt::Write as _;
use std::time::Duration;

use super::block::block_search;
use super::generate::deal;
use super::model::Variant;
use super::oracle::{self, Decision};
use super::play::sample;
use super::solve::{explore, solve, Budget, Outcome};
use crate::measure::{each_on_threads, peak_rss_kib, percentile, thread_cpu_of, wilson_interval};
use crate::rng::{scramble, SplitMix64};

/// What to measure.
#[derive(Clone, Debug)]
pub struct StatsRequest {
    pub deals: u64,
    pub seed: i64,
    pub ranks: u32,
    pub suits: u32,
    pub variant: Variant,
    pub budget_nodes: u64,
    /// The memory each deal's set of positions may use (a full set keeps counting, inexactly).
    pub memo_bytes: usize,
    /// A deal's search (and each depth-first count of every position) gives up past this much
    /// wall-clock time, so within as much CPU.
    pub time: Option<Duration>,
    /// Confirm each proved-unwinnable deal with the breadth-first oracle within this many
    /// positions.
    pub confirm: Option<usize>,
    /// Also count every reachable position (not stopping at a win), as the paper's Table 2.
    pub full: bool,
    /// Also run the block search (§4) against a full depth-first search, as the paper's Table 2.
    pub blocks: bool,
    /// Random play: the success rate with at most each of these many probes (Table 1).
    pub probes: Vec<u32>,
    /// Skip the search (random play only).
    pub no_search: bool,
    pub threads: usize,
}

/// One deal's figures.
#[derive(Clone, Debug, Default)]
struct DealFigures {
    /// `Some(true)` won, `Some(false)` proved unwinnable, `None` undecided.
    winnable: Option<bool>,
    moves: Option<usize>,
    nodes: u64,
    cpu: Duration,
    memo_bytes: usize,
    /// Positions the full search met, and whether its count is exact.
    positions: Option<(u64, bool)>,
    /// The first random probe that won.
    first_winning_probe: Option<u32>,
    blocks: Option<BlockFigures>,
    /// The oracle's word on a deal the search proved unwinnable, when asked.
    confirmation: Option<Confirmation>,
}

/// What the breadth-first oracle says of a deal the search proved unwinnable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Confirmation {
    /// It met every reachable position, none won.
    Confirmed,
    /// More positions are reachable than its cap.
    BeyondCap,
    /// It found a win: the search's proof is wrong.
    Contradicted,
}

/// One deal's block search against a full depth-first search (both to the end).
#[derive(Clone, Debug, Default)]
struct BlockFigures {
    dfs_positions: u64,
    dfs_cpu: Duration,
    blocks: u64,
    /// Positions in the blocks, summed over blocks.
    block_positions: u64,
    block_cpu: Duration,
    /// Both searches finished within the budget.
    complete: bool,
    /// Both found a won position, or neither did.
    agree: bool,
}

fn measure(request: &StatsRequest, index: u64) -> DealFigures {
    let seed = request.seed.wrapping_add(index as i64);
    let layout = deal(seed, request.ranks, request.suits);
    let budget = Budget { max_nodes: request.budget_nodes, memo_bytes: request.memo_bytes, time: request.time };
    let budget = if request.no_search { Budget { max_nodes: 0, ..budget } } else { budget };
    let (solution, cpu) = thread_cpu_of(|| solve(&layout, request.variant, &budget));
    let (winnable, moves) = match &solution.outcome {
        Outcome::Solved(line) => (Some(true), Some(line.len())),
        Outcome::Unsolvable => (Some(false), None),
        Outcome::GaveUp => (None, None),
    };
    let confirmation = request.confirm.filter(|_| winnable == Some(false)).map(|cap| {
        match oracle::decide(&layout, request.variant, cap) {
            Decision::Unwinnable { .. } => Confirmation::Confirmed,
            Decision::TooLarge { .. } => Confirmation::BeyondCap,
            Decision::Winnable(_) => Confirmation::Contradicted,
        }
    });
    let positions = request.full.then(|| {
        let all = explore(&layout, request.variant, &budget);
        (all.positions, all.complete)
    });
    let most = request.probes.iter().copied().max().unwrap_or(0);
    let mut rng = SplitMix64::new(scramble(0x6761_7073, seed as u64));
    let blocks = request.blocks.then(|| {
        let (dfs, dfs_cpu) = thread_cpu_of(|| explore(&layout, request.variant, &budget));
        let (count, block_cpu) = thread_cpu_of(|| block_search(&layout, &budget));
        BlockFigures {
            dfs_positions: dfs.positions,
            dfs_cpu,
            blocks: count.blocks,
            block_positions: count.positions,
            block_cpu,
            complete: dfs.complete && count.complete,
            agree: dfs.winnable == count.winnable,
        }
    });
    DealFigures {
        blocks,
        winnable,
        moves,
        nodes: solution.stats.nodes,
        cpu,
        memo_bytes: solution.stats.peak_memo_bytes,
        positions,
        first_winning_probe: sample(&layout, request.variant, most, &mut rng),
        confirmation,
    }
}

/// Measures every deal of `request`, on its threads.
fn measure_all(request: &StatsRequest) -> Vec<DealFigures> {
    each_on_threads(request.deals, request.threads, |index| measure(request, index))
}

fn rate(k: u64, n: u64) -> String {
    let (low, high) = wilson_interval(k, n);
    let share = if n == 0 { 0.0 } else { 100.0 * k as f64 / n as f64 };
    format!("{k}/{n} = {share:.3}% (95% Wilson interval {:.2}% to {:.2}%)", 100.0 * low, 100.0 * high)
}

/// `median m, p99 p, max x` of `values`, each shown by `show`.
fn spread<T: Copy + Ord>(values: &mut [T], show: impl Fn(T) -> String) -> String {
    values.sort_unstable();
    let at = |q| percentile(values, q).map_or_else(|| "-".to_string(), &show);
    format!("median {}, p99 {}, max {}", at(0.5), at(0.99), at(1.0))
}

/// Runs the request and writes the report.
pub fn report(request: &StatsRequest) -> String {
    let all = measure_all(request);
    let n = all.len() as u64;
    let mut out = String::new();
    let (first, last) = (request.seed, request.seed.wrapping_add(n.saturating_sub(1) as i64));
    let _ = writeln!(
        out,
        "Gaps, {} variant: {n} deals (GEN {first} {r} {s} to GEN {last} {r} {s}), {} threads",
        request.variant.name(),
        request.threads.max(1),
        r = request.ranks,
        s = request.suits
    );
    let won = all.iter().filter(|d| d.winnable == Some(true)).count() as u64;
    let lost = all.iter().filter(|d| d.winnable == Some(false)).count();
    let _ = writeln!(out, "winnable: {}; proved unwinnable {lost}; undecided {}", rate(won, n), n - won - lost as u64);
    if !request.no_search {
        out.push_str(&unwon_deals(request, &all));
    }
    let mut lengths: Vec<usize> = all.iter().filter_map(|d| d.moves).collect();
    let usual = lengths.iter().filter(|&&m| (90..=130).contains(&m)).count() as u64;
    let _ = writeln!(
        out,
        "winning lines: moves {}; {usual} of {} within 90 to 130",
        spread(&mut lengths, |m| m.to_string()),
        lengths.len()
    );
    let mut nodes: Vec<u64> = all.iter().map(|d| d.nodes).collect();
    let mut cpu: Vec<Duration> = all.iter().map(|d| d.cpu).collect();
    let mean_cpu = cpu.iter().sum::<Duration>().as_secs_f64() / n.max(1) as f64;
    let _ = writeln!(out, "search to the first win, per deal: nodes {}", spread(&mut nodes, |v| v.to_string()));
    let _ = writeln!(out, "  CPU {}, mean {mean_cpu:.4} s", spread(&mut cpu, |d| format!("{:.4} s", d.as_secs_f64())));
    if request.full {
        let mut positions: Vec<u64> = all.iter().filter_map(|d| d.positions.map(|(p, _)| p)).collect();
        let inexact = all.iter().filter(|d| d.positions.is_some_and(|(_, exact)| !exact)).count();
        let mean = positions.iter().sum::<u64>() as f64 / positions.len().max(1) as f64;
        let _ = writeln!(
            out,
            "full search, positions per deal: mean {mean:.0}, {}; not counted exactly {inexact}",
            spread(&mut positions, |v| v.to_string())
        );
    }
    if request.blocks {
        let _ = writeln!(out, "{}", table_2(&all));
    }
    for &probes in &request.probes {
        let wins = all.iter().filter(|d| d.first_winning_probe.is_some_and(|p| p <= probes)).count() as u64;
        let _ = writeln!(out, "random play, at most {probes} probes: {}", rate(wins, n));
    }
    let memo = all.iter().map(|d| d.memo_bytes).max().unwrap_or(0);
    let rss = peak_rss_kib().map_or_else(|| "unknown".to_string(), |kib| format!("{:.1} MiB", kib as f64 / 1024.0));
    let _ = writeln!(out, "peak memory: {rss} resident (the process); largest memo {:.1} MiB", memo as f64 / 1048576.0);
    out
}

/// The deals proved unwinnable and those left undecided, by seed, with the oracle's word on
/// the first when it was asked.
fn unwon_deals(request: &StatsRequest, all: &[DealFigures]) -> String {
    let seeds_where = |keep: &dyn Fn(&DealFigures) -> bool| -> Vec<String> {
        let kept = (0..).zip(all).filter(|(_, deal)| keep(deal));
        kept.map(|(index, _)| request.seed.wrapping_add(index).to_string()).collect()
    };
    let mut out = String::new();
    let proved = seeds_where(&|deal| deal.winnable == Some(false));
    if !proved.is_empty() {
        let _ = writeln!(out, "proved unwinnable: GEN {}", proved.join(", "));
    }
    if let Some(cap) = request.confirm {
        let said = |word: Confirmation| seeds_where(&|deal| deal.confirmation == Some(word));
        let named = |seeds: Vec<String>| {
            if seeds.is_empty() {
                "none".to_string()
            } else {
                format!("GEN {}", seeds.join(", "))
            }
        };
        let _ = writeln!(
            out,
            "  confirmed by the breadth-first oracle (at most {cap} positions): {} of {}; beyond its cap: {}; \
             contradicted (the oracle wins): {}",
            said(Confirmation::Confirmed).len(),
            proved.len(),
            named(said(Confirmation::BeyondCap)),
            named(said(Confirmation::Contradicted)),
        );
    }
    let undecided = seeds_where(&|deal| deal.winnable.is_none());
    if !undecided.is_empty() {
        let _ = writeln!(out, "undecided: GEN {}", undecided.join(", "));
    }
    out
}

/// The paper's Table 2 on the deals both searches finished: means per deal of the full
/// depth-first search's positions, the blocks, the block size (positions in blocks over
/// blocks), R (positions in blocks over the search's), and each one's CPU.
fn table_2(all: &[DealFigures]) -> String {
    let counted: Vec<&BlockFigures> = all.iter().filter_map(|d| d.blocks.as_ref()).filter(|b| b.complete).collect();
    let n = counted.len().max(1) as f64;
    let sum = |of: fn(&BlockFigures) -> u64| counted.iter().map(|b| of(b)).sum::<u64>() as f64;
    let cpu = |of: fn(&BlockFigures) -> Duration| counted.iter().map(|b| of(b)).sum::<Duration>().as_secs_f64() / n;
    let (dfs, blocks, in_blocks) = (sum(|b| b.dfs_positions), sum(|b| b.blocks), sum(|b| b.block_positions));
    let (dfs_cpu, block_cpu) = (cpu(|b| b.dfs_cpu), cpu(|b| b.block_cpu));
    let agree = counted.iter().filter(|b| b.agree).count();
    format!(
        "block search (Table 2), {} deals both counted in full ({agree} agree on the win): per deal, \
         DFS positions mean {:.0}, blocks mean {:.0}, block size {:.1}, R {:.2}; CPU mean DFS {dfs_cpu:.4} s, \
         block search {block_cpu:.4} s (DFS / blocks {:.2})",
        counted.len(),
        dfs / n,
        blocks / n,
        in_blocks / blocks.max(1.0),
        in_blocks / dfs.max(1.0),
        dfs_cpu / block_cpu.max(1e-9),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_run_reports_every_figure() {
        let request = StatsRequest {
            deals: 20,
            seed: 1,
            ranks: 5,
            suits: 4,
            variant: Variant::Basic,
            budget_nodes: 1_000_000,
            memo_bytes: 1 << 30,
            time: None,
            confirm: Some(1_000_000),
            full: true,
            blocks: true,
            probes: vec![1, 10],
            no_search: false,
            threads: 2,
        };
        let text = report(&request);
        for part in [
            "winnable: ",
            "winning lines",
            "nodes median",
            "CPU median",
            "full search",
            "block search (Table 2), 20 deals both counted in full (20 agree on the win)",
            "at most 10 probes",
            "proved unwinnable: GEN ",
            "contradicted (the oracle wins): none",
            "peak memory",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        assert!(text.contains("undecided 0"), "{text}");
    }
}
