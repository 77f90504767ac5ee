//! `bhref --game superpuzz COMMAND ...`: the reference speaking a Superpuzz practical's contract,
//! and `bhref --game superpuzz stats`.
//!
//! Input: the command line ([`SuperpuzzCli`], parsed by the layer every game shares,
//! [`crate::cli`]), a deal file (or standard input) and, for `CHECK`, a candidate solution.
//! Output: the contract's first line (`true`/`false`; `1 c g ...`, `0` or `-1`), a generated
//! deal, or the stats report; `bhref: message` on standard error and exit status 2 for a bad
//! deal or bad usage.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use super::generate::{generate, DEFAULT_WIDTH, WIDTHS};
use super::referee::{deal_of, SOLVER_CAP};
use super::solve::{solve, Order, Outcome};
use super::stats::{report as stats_report, StatsRequest};
use crate::cli::{
    check_sources, emit, emit_check, emit_text, load, read_source, report, seed, ContractFlags, Failure, GameArg,
};
use crate::gaps::check::check;
use crate::gaps::model::{solution_line, Variant};
use crate::gaps::oracle::{self, Decision};
use crate::gaps::parse::read_integers;

const AFTER_HELP: &str = "\
Commands in full:
  bhref --game superpuzz CHECK DEAL [SOLUTION] [--explain]
  bhref --game superpuzz SOLVE [DEAL] [--weighted MU] [--oracle bfs] [--nodes N]
  bhref --game superpuzz GEN seed [width=6]
  bhref --game superpuzz stats [--deals N] [--width W] [--seed S] [--weighted MU] [--oracle]
  bhref --game superpuzz COMMAND --help    a command's arguments and output in full

A deal is a Gaps layout of 4 suits: `W 4` (W = 6, 7 or 8 ranks, the seed's 0 to W-1), then 4
rows of W+1 numbers: the row's 0 (row s: card s*W+1, never played), then the W cells, 0 for a
hole. A move is two integers, the card and the position of the hole it goes into (cells counted
from 0 row by row, the first column of 0s included). A hole takes the card one higher of the
suit on its left (none after a suit's last card or a hole); a hole on the left edge takes any 1.
Won: every row holds one suit's 1 to W-1 from the left edge, whatever suit in whatever row.

Exit status: 0 when the answer was printed; 2 for a bad deal (its file, line and column are
named) or bad usage.";

const SOLVE_ABOUT: &str = "\
Prints a shortest win on one line, exactly what a student's program must print:
  1 c1 g1 c2 g2 ...  a win with the fewest moves (as CHECK reads it after the 1)
  0                  no win exists
  -1                 undecided within --nodes positions

The search is A* with a bound that never overestimates the moves left, so the win printed is a
shortest one. --weighted MU orders the search by MU times the bound plus the moves made (the
seed's weighted best-first search, MU = 1.8): faster, its win not proven shortest. --oracle bfs
decides with the second oracle instead (a breadth-first walk over every reachable position,
which also finds a shortest win).";

const GEN_ABOUT: &str = "\
Prints the deal of a seed: Gaps' deal of 4 suits of W ranks (`bhref --game gaps GEN seed W 4`):
the deck shuffled with java.util.Random(seed), dealt row by row, each 0 leaving a hole and going
to the front of its suit's row.";

/// `bhref --game superpuzz COMMAND ...`.
#[derive(Debug, Parser)]
#[command(
    name = "bhref",
    version,
    about = "The reference for Superpuzz (seed 003), speaking a Superpuzz practical's command-line contract",
    override_usage = "bhref --game superpuzz COMMAND [ARGS]",
    after_help = AFTER_HELP,
    subcommand_required = true
)]
pub struct SuperpuzzCli {
    #[command(flatten)]
    pub game: GameArg,
    #[command(subcommand)]
    pub command: SuperpuzzCommand,
}

/// Superpuzz's commands.
#[derive(Debug, Subcommand)]
pub enum SuperpuzzCommand {
    /// Does SOLUTION win DEAL? Prints true or false
    #[command(name = "CHECK")]
    Check(CheckArgs),
    /// Find a shortest win of a deal: prints `1 c g ...`, `0` or `-1`
    #[command(name = "SOLVE", long_about = SOLVE_ABOUT)]
    Solve(SolveArgs),
    /// Print the deal of a seed
    #[command(name = "GEN", long_about = GEN_ABOUT)]
    Gen(GenArgs),
    /// Measure solvability, optimal lengths, search cost and the weighted search's excess
    #[command(name = "stats")]
    Stats(StatsArgs),
}

/// The arguments of `CHECK`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The deal file, or `-` for standard input (then SOLUTION must be a file)
    #[arg(value_name = "DEAL")]
    pub deal: PathBuf,
    /// The file holding the moves; standard input when not given
    #[arg(value_name = "SOLUTION")]
    pub solution: Option<PathBuf>,
    #[command(flatten)]
    pub flags: ContractFlags,
}

/// The arguments of `SOLVE`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The deal file; standard input when not given or `-`
    #[arg(value_name = "DEAL", default_value = "-", hide_default_value = true)]
    pub deal: PathBuf,
    /// Order the search by MU times the bound plus the moves made (not proven shortest)
    #[arg(long, value_name = "MU", value_parser = weight)]
    pub weighted: Option<f64>,
    /// Decide with the breadth-first oracle instead (`bfs`)
    #[arg(long, value_name = "bfs", value_parser = ["bfs"])]
    pub oracle: Option<String>,
    /// Give up after meeting N positions (20000000 by default)
    #[arg(long, value_name = "N")]
    pub nodes: Option<usize>,
}

fn weight(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(mu) if (1.0..=100.0).contains(&mu) => Ok(mu),
        _ => Err(format!("expected a weight from 1 to 100, not `{text}`")),
    }
}

fn width(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(w) if WIDTHS.contains(&w) => Ok(w),
        _ => Err(format!("expected a width of 6, 7 or 8, not `{text}`")),
    }
}

/// The arguments of `GEN`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct GenArgs {
    /// The seed of java.util.Random (any integer of Java's long)
    #[arg(value_name = "SEED", value_parser = seed)]
    pub seed: i64,
    /// Ranks per suit, the deal's width (6, 7 or 8)
    #[arg(value_name = "WIDTH", default_value_t = DEFAULT_WIDTH, value_parser = width)]
    pub width: u32,
}

/// The flags of `stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// How many deals (seeds S to S+N-1)
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub deals: u64,
    /// The first seed
    #[arg(long, value_name = "S", default_value_t = 1, allow_negative_numbers = true)]
    pub seed: i64,
    /// The deals' width
    #[arg(long, value_name = "W", default_value_t = DEFAULT_WIDTH, value_parser = width)]
    pub width: u32,
    /// Give up on a deal after meeting N positions (counted as undecided)
    #[arg(long, value_name = "N", default_value_t = SOLVER_CAP)]
    pub nodes: usize,
    /// Also run the weighted best-first search with this MU and report its excess moves
    #[arg(long, value_name = "MU", value_parser = weight)]
    pub weighted: Option<f64>,
    /// Also decide every deal with the breadth-first oracle and compare
    #[arg(long)]
    pub oracle: bool,
    /// Threads (default: the machine's cores)
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
}

fn run_check(args: &CheckArgs) -> Result<(), Failure> {
    let (deal_path, solution_path) = check_sources(&args.deal, args.solution.as_ref(), "deal")?;
    let layout = load(deal_path, deal_of)?;
    let report = check(&layout, Variant::Common, &read_integers(&read_source(solution_path)?));
    emit_check(report.is_solution(), &report.finding, &args.flags);
    Ok(())
}

fn run_solve(args: &SolveArgs) -> Result<(), Failure> {
    let layout = load(&args.deal, deal_of)?;
    let cap = args.nodes.unwrap_or(SOLVER_CAP);
    let line = if args.oracle.is_some() {
        match oracle::decide(&layout, Variant::Common, cap) {
            Decision::Winnable(moves) => solution_line(&moves),
            Decision::Unwinnable { .. } => "0".to_string(),
            Decision::TooLarge { .. } => "-1".to_string(),
        }
    } else {
        let order = args.weighted.map_or(Order::Optimal, Order::Weighted);
        match solve(&layout, order, cap) {
            Outcome::Solved { moves, .. } => solution_line(&moves),
            Outcome::Unsolvable { .. } => "0".to_string(),
            Outcome::GaveUp { .. } => "-1".to_string(),
        }
    };
    emit(&[line]);
    Ok(())
}

fn run_stats(args: &StatsArgs) -> Result<(), Failure> {
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let request = StatsRequest {
        deals: args.deals,
        seed: args.seed,
        width: args.width,
        cap: args.nodes,
        weighted: args.weighted,
        oracle: args.oracle,
        threads,
    };
    emit_text(&stats_report(&request));
    Ok(())
}

/// Runs `bhref --game superpuzz COMMAND ...` on `args` (the program's name first), parsed by
/// `command`: this game's clap command as the registry ([`crate::games`]) completed it.
pub fn main(command: clap::Command, args: Vec<OsString>) -> ExitCode {
    let cli: SuperpuzzCli = match crate::cli::parse(command, "bhref --game superpuzz", args) {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    report(match &cli.command {
        SuperpuzzCommand::Check(args) => run_check(args),
        SuperpuzzCommand::Solve(args) => run_solve(args),
        SuperpuzzCommand::Gen(args) => {
            emit_text(&generate(args.seed, args.width));
            Ok(())
        }
        SuperpuzzCommand::Stats(args) => run_stats(args),
    })
}
