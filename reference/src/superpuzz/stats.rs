//! `stats`: the figures seed 003's questions ask for, measured on generated deals.
//!
//! Input: a [`StatsRequest`] (deals `GEN S..S+N-1 W 4`, a cap on positions, whether to compare
//! the seed's weighted search and the breadth-first oracle). Output: the report's text: the
//! solvable share with its 95% Wilson interval; how many wins the checker accepts (the weighted
//! search's too); optimal lengths (mean, median, max); CPU and positions per deal (median, p99,
//! max); with `weighted`, the mean excess of BF1's lines over the optimum in percent; with
//! `oracle`, how many lengths the oracle confirmed and the ratio of its CPU to the solver's on the
//! same deals (all, won, unwinnable: over the deals' total, and the median of each deal's own);
//! and the peak memory.
//!
//! Deals are shared out among threads one at a time; CPU time is each deal's own thread's, so
//! the figures do not depend on how many threads ran.

use std::fmt::Write as _;
use std::time::Duration;

use super::solve::{solve, Order, Outcome};
use crate::gaps::check::check;
use crate::gaps::generate::deal;
use crate::gaps::model::{move_integers, Variant};
use crate::gaps::oracle::{decide, Decision};
use crate::measure::{each_on_threads, peak_rss_kib, percentile, thread_cpu_of, wilson_interval};

/// What to measure.
#[derive(Clone, Debug)]
pub struct StatsRequest {
    pub deals: u64,
    pub seed: i64,
    pub width: u32,
    /// The most positions one deal's search may meet (a deal past it is undecided).
    pub cap: usize,
    /// Also run the seed's weighted best-first search with this μ.
    pub weighted: Option<f64>,
    /// Also decide each deal with the breadth-first oracle, and compare.
    pub oracle: bool,
    pub threads: usize,
}

/// One deal's figures.
#[derive(Clone, Debug, Default)]
struct DealFigures {
    /// `Some(true)` solved, `Some(false)` proved unsolvable, `None` undecided.
    solvable: Option<bool>,
    optimum: Option<usize>,
    /// Whether the checker (Gaps', under the common variant) accepts the solver's win and the
    /// weighted search's.
    checked: bool,
    positions: usize,
    cpu: Duration,
    weighted: Option<usize>,
    /// The oracle's length (`Some(0)` for none) and CPU.
    oracle: Option<(Option<usize>, Duration)>,
}

fn measure(request: &StatsRequest, index: u64) -> DealFigures {
    let layout = deal(request.seed.wrapping_add(index as i64), request.width, 4);
    let (outcome, cpu) = thread_cpu_of(|| solve(&layout, Order::Optimal, request.cap));
    let mut figures = DealFigures { cpu, ..DealFigures::default() };
    match outcome {
        Outcome::Solved { moves, positions, .. } => {
            (figures.solvable, figures.optimum, figures.positions) = (Some(true), Some(moves.len()), positions);
            figures.checked = check(&layout, Variant::Common, &move_integers(&moves)).is_solution();
        }
        Outcome::Unsolvable { positions } => (figures.solvable, figures.positions) = (Some(false), positions),
        Outcome::GaveUp { positions } => figures.positions = positions,
    }
    if let Some(mu) = request.weighted.filter(|_| figures.solvable == Some(true)) {
        if let Outcome::Solved { moves, .. } = solve(&layout, Order::Weighted(mu), request.cap) {
            figures.weighted = Some(moves.len());
            figures.checked &= check(&layout, Variant::Common, &move_integers(&moves)).is_solution();
        }
    }
    if request.oracle {
        let (decision, cpu) = thread_cpu_of(|| decide(&layout, Variant::Common, request.cap));
        let length = match decision {
            Decision::Winnable(moves) => Some(Some(moves.len())),
            Decision::Unwinnable { .. } => Some(None),
            Decision::TooLarge { .. } => None,
        };
        figures.oracle = length.map(|length| (length, cpu));
    }
    figures
}

/// Measures every deal of `request` and writes the report.
pub fn report(request: &StatsRequest) -> String {
    summarise(request, &each_on_threads(request.deals, request.threads, |index| measure(request, index)))
}

fn summarise(request: &StatsRequest, deals: &[DealFigures]) -> String {
    let mut out = String::new();
    let n = deals.len() as u64;
    let solved = deals.iter().filter(|d| d.solvable == Some(true)).count() as u64;
    let unsolvable = deals.iter().filter(|d| d.solvable == Some(false)).count();
    let undecided = deals.iter().filter(|d| d.solvable.is_none()).count();
    let (low, high) = wilson_interval(solved, solved + unsolvable as u64);
    let _ = writeln!(out, "deals: {n} (GEN {}..{} {} 4)", request.seed, request.seed + n as i64 - 1, request.width);
    let _ = writeln!(
        out,
        "solvable: {solved}, unsolvable: {unsolvable}, undecided: {undecided}; share solvable {:.1}% (95% {:.1}%-{:.1}%)",
        100.0 * solved as f64 / (solved as f64 + unsolvable as f64).max(1.0),
        100.0 * low,
        100.0 * high
    );
    let checked = deals.iter().filter(|d| d.checked).count();
    let _ = writeln!(out, "wins the checker accepts: {checked} of {solved} deals");
    let mut lengths: Vec<usize> = deals.iter().filter_map(|d| d.optimum).collect();
    lengths.sort_unstable();
    if !lengths.is_empty() {
        let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        let median = percentile(&lengths, 0.5).unwrap_or(0);
        let _ = writeln!(out, "optimal moves: mean {mean:.1}, median {median}, max {}", lengths[lengths.len() - 1]);
    }
    let mut cpu: Vec<Duration> = deals.iter().map(|d| d.cpu).collect();
    cpu.sort_unstable();
    let mut positions: Vec<usize> = deals.iter().map(|d| d.positions).collect();
    positions.sort_unstable();
    let at = |q| percentile(&cpu, q).unwrap_or_default().as_secs_f64();
    let total: f64 = cpu.iter().map(Duration::as_secs_f64).sum();
    let _ = writeln!(
        out,
        "cpu per deal: median {:.3} s, p99 {:.3} s, max {:.3} s; all deals {total:.1} s",
        at(0.5),
        at(0.99),
        at(1.0)
    );
    let count = |q| percentile(&positions, q).unwrap_or(0);
    let _ = writeln!(out, "positions per deal: median {}, p99 {}, max {}", count(0.5), count(0.99), count(1.0));
    if let Some(mu) = request.weighted {
        let excess: Vec<f64> = deals
            .iter()
            .filter_map(|d| Some(100.0 * (d.weighted? as f64 - d.optimum? as f64) / d.optimum?.max(1) as f64))
            .collect();
        let mean = excess.iter().sum::<f64>() / excess.len().max(1) as f64;
        let worst = excess.iter().copied().fold(0.0, f64::max);
        let _ = writeln!(
            out,
            "weighted best-first (mu {mu}): mean excess {mean:.1}%, max {worst:.1}%, on {} deals",
            excess.len()
        );
    }
    if request.oracle {
        let compared: Vec<&DealFigures> = deals.iter().filter(|d| d.oracle.is_some() && d.solvable.is_some()).collect();
        let agree = compared.iter().filter(|d| d.oracle.map(|o| o.0) == Some(d.optimum)).count();
        // The oracle's CPU over the solver's, on the deals of `solvable` (all when `None`).
        let ratio = |solvable: Option<bool>| {
            let of = || compared.iter().filter(|d| solvable.is_none() || d.solvable == solvable);
            let oracle_cpu: f64 = of().filter_map(|d| d.oracle.map(|o| o.1.as_secs_f64())).sum();
            oracle_cpu / of().map(|d| d.cpu.as_secs_f64()).sum::<f64>().max(1e-9)
        };
        // The same, deal by deal: the median of each deal's own ratio.
        let median_ratio = |solvable: Option<bool>| {
            let mut ratios: Vec<f64> = compared
                .iter()
                .filter(|d| solvable.is_none() || d.solvable == solvable)
                .filter_map(|d| Some(d.oracle?.1.as_secs_f64() / d.cpu.as_secs_f64().max(1e-9)))
                .collect();
            ratios.sort_unstable_by(f64::total_cmp);
            percentile(&ratios, 0.5).unwrap_or(0.0)
        };
        let _ = writeln!(
            out,
            "breadth-first oracle: same answer and length on {agree} of {} deals; its CPU {:.1}x the solver's ({:.1}x on the won deals, {:.1}x on the others); deal by deal, median {:.1}x ({:.1}x won, {:.1}x others)",
            compared.len(),
            ratio(None),
            ratio(Some(true)),
            ratio(Some(false)),
            median_ratio(None),
            median_ratio(Some(true)),
            median_ratio(Some(false))
        );
    }
    if let Some(kib) = peak_rss_kib() {
        let _ = writeln!(out, "peak memory: {} MiB", kib / 1024);
    }
    out
}
