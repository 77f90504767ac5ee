//! `bhref --game gaps COMMAND ...`: the reference speaking a Gaps practical's contract, and
//! `bhref --game gaps stats`.
//!
//! Input: the command line ([`GapsCli`], parsed by the layer every game shares, [`crate::cli`]),
//! a layout file (or standard input) and, for the check commands, a candidate solution from a
//! file or standard input. Output: the contract's first line (`true`/`false`; `1 c g ...`, `0`
//! or `-1`), extra lines asked for by flags, a generated layout, or the stats report;
//! `bhref: message` on standard error and exit status 2 for a bad layout or bad usage.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::check::check;
use super::generate::{generate, DEFAULT_RANKS, DEFAULT_SUITS};
use super::model::{solution_line, Variant};
use super::oracle::{self, Decision};
use super::parse::{parse_layout, read_integers, MAX_CARDS, MAX_SIDE};
use super::solve::{solve, Outcome};
use super::stats::{report as stats_report, StatsRequest};
use crate::cli::{
    check_sources, emit, emit_check, emit_solve, emit_text, load, read_source, report, seed, ContractFlags, Failure,
    GameArg,
};

const AFTER_HELP: &str = "\
Commands in full:
  bhref --game gaps CHECK LAYOUT [SOLUTION] [--explain]
  bhref --game gaps CHECKCOMMON LAYOUT [SOLUTION] [--explain]
  bhref --game gaps SOLVE [LAYOUT] [--oracle search|bfs] [--stats] [--nodes N] [--time-limit SECS]
  bhref --game gaps SOLVECOMMON [LAYOUT] [--oracle search|bfs] [--stats] [--nodes N] [--time-limit SECS]
  bhref --game gaps GEN seed [ranks=13] [suits=4]
  bhref --game gaps stats [--deals N] [--seed S] [--variant basic|common] [--full] [--blocks]
  [--probes 1,10]
  bhref --game gaps COMMAND --help    a command's arguments and output in full

A layout is `R S`, then S rows of R+1 numbers: the row's Ace (row s: card s*R+1), then the
cells, 0 for a gap. A move is two integers, the card and the position of the gap it goes into
(cells counted from 0 row by row, the Ace column included). The first line of output is exactly
what a student's program must print: `true`/`false` for checks; `1` and the moves, `0` (no
solution) or `-1` (undecided) for solves.

Exit status: 0 when the answer was printed; 2 for a bad layout (its file, line and column are
named) or bad usage.";

const CHECK_ABOUT: &str = "\
Prints `true` or `false` on one line, exactly what a student's program must print.

The solution is `card position` pairs, one per move, read up to the first token that is not an
integer; line breaks do not matter. It is true when every move is legal in turn and the game is
won after the last: a gap takes only the next card of the suit of the card on its left (none
after a King or a gap).";

const BASIC: &str = "

Basic variant (the paper's §2.1): a gap in the first column takes only the Two of its row's suit.";

const COMMON: &str = "

Common variant (§2.2): the Aces are removed, and a gap in the first column takes any Two.";

const CHECK_AFTER: &str = "\
Output: `true` or `false`; with --explain a second line, the checker's finding, e.g.
  false
  move 1 (card 8 into position 13) is illegal: only card 4, the next card of the suit of card 3 on the gap's left, may go there

Exit status: 0 when `true` or `false` was printed; 2 for a bad layout, an unreadable file, or bad usage.";

const SOLVE_ABOUT: &str = "\
Prints the answer on one line, exactly what a student's program must print:
  1 c1 g1 c2 g2 ...  a solution (as CHECK reads it after the 1)
  0                  no solution exists
  -1                 undecided within --nodes or --time-limit

Every solution printed has been replayed through the checker. --oracle bfs decides with the
second oracle instead (a breadth-first walk over every reachable position, capped at --nodes
positions, 3000000 by default): slow, and meant for small decks and for confirming a `0`.";

const SOLVE_AFTER: &str = "\
Output: the answer; with --stats three more lines, e.g.
  nodes: 20480
  time: 0.012 s
  peak memo: 1024 entries, 65536 bytes

Exit status: 0 when an answer was printed; 2 for a bad layout, an unreadable file, or bad usage.";

const GEN_ABOUT: &str = "\
Prints the deal of a seed: the deck 1..R*S shuffled with java.util.Random(seed) (for i from 0 to
N-2, swap cards i and i + nextInt(N-i)), dealt row by row, R cards a row; each Ace leaves a gap
(0) and goes to the front of its suit's row.";

const GEN_AFTER: &str = "Exit status: 0 when the layout was printed; 2 for bad usage.";

const STATS_ABOUT: &str = "\
Measures the paper's figures on the deals GEN S..S+N-1 R S': the share winnable with its 95%
Wilson interval, the deals proved unwinnable (with --confirm, each checked by the breadth-first
oracle) and those left undecided, winning lines' lengths, nodes and CPU per deal of the search
to the first win (median, p99, max, mean), with --full the positions a search of every reachable
position meets, with --blocks the paper's Table 2 (the block search against that full search,
basic variant), with --probes the success rate of random play with at most P probes, and the
peak memory.";

/// `bhref --game gaps COMMAND ...`.
#[derive(Debug, Parser)]
#[command(
    name = "bhref",
    version,
    about = "The reference for Gaps (Montana), speaking a Gaps practical's command-line contract",
    override_usage = "bhref --game gaps COMMAND [ARGS]",
    after_help = AFTER_HELP,
    subcommand_required = true
)]
pub struct GapsCli {
    #[command(flatten)]
    pub game: GameArg,
    #[command(subcommand)]
    pub command: GapsCommand,
}

/// Gaps' commands.
#[derive(Debug, Subcommand)]
pub enum GapsCommand {
    /// Does SOLUTION win LAYOUT under the basic variant? Prints true or false
    #[command(name = "CHECK", long_about = format!("{CHECK_ABOUT}{BASIC}"), after_help = CHECK_AFTER)]
    Check(CheckArgs),
    /// Does SOLUTION win LAYOUT under the common variant? Prints true or false
    #[command(name = "CHECKCOMMON", long_about = format!("{CHECK_ABOUT}{COMMON}"), after_help = CHECK_AFTER)]
    CheckCommon(CheckArgs),
    /// Solve a layout under the basic variant: prints `1 c g ...`, `0` or `-1`
    #[command(name = "SOLVE", long_about = format!("{SOLVE_ABOUT}{BASIC}"), after_help = SOLVE_AFTER)]
    Solve(SolveArgs),
    /// Solve a layout under the common variant: prints `1 c g ...`, `0` or `-1`
    #[command(name = "SOLVECOMMON", long_about = format!("{SOLVE_ABOUT}{COMMON}"), after_help = SOLVE_AFTER)]
    SolveCommon(SolveArgs),
    /// Print the deal of a seed
    #[command(name = "GEN", long_about = GEN_ABOUT, after_help = GEN_AFTER)]
    Gen(GenArgs),
    /// Measure winnability, search cost and random play on generated deals
    #[command(name = "stats", long_about = STATS_ABOUT)]
    Stats(StatsArgs),
}

/// The arguments of the check commands.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The layout file, or `-` for standard input (then SOLUTION must be a file)
    #[arg(value_name = "LAYOUT")]
    pub layout: PathBuf,
    /// The file holding the moves; standard input when not given
    #[arg(value_name = "SOLUTION")]
    pub solution: Option<PathBuf>,
    #[command(flatten)]
    pub flags: ContractFlags,
}

/// Which oracle decides a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Oracle {
    /// The depth-first search (the reference's answer)
    Search,
    /// The breadth-first walk over every reachable position (the second oracle)
    Bfs,
}

/// The arguments of the solve commands.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The layout file; standard input when not given or `-`
    #[arg(value_name = "LAYOUT", default_value = "-", hide_default_value = true)]
    pub layout: PathBuf,
    /// Which oracle decides
    #[arg(long, value_enum, default_value_t = Oracle::Search)]
    pub oracle: Oracle,
    #[command(flatten)]
    pub flags: ContractFlags,
}

fn side(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if (1..=MAX_SIDE).contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number from 1 to {MAX_SIDE}, not `{text}`")),
    }
}

/// The arguments of `GEN`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct GenArgs {
    /// The seed of java.util.Random (any integer of Java's long)
    #[arg(value_name = "SEED", value_parser = seed)]
    pub seed: i64,
    /// Ranks R per suit (2 to 100)
    #[arg(value_name = "RANKS", default_value_t = DEFAULT_RANKS, value_parser = side)]
    pub ranks: u32,
    /// Suits S, one row each (1 to 100; R*S at most 1000)
    #[arg(value_name = "SUITS", default_value_t = DEFAULT_SUITS, value_parser = side)]
    pub suits: u32,
}

/// The variant `stats` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VariantName {
    Basic,
    Common,
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
    #[arg(long, value_enum, value_name = "VARIANT", default_value_t = VariantName::Basic)]
    pub variant: VariantName,
    /// Ranks per suit of the deals
    #[arg(long, value_name = "R", default_value_t = DEFAULT_RANKS, value_parser = side)]
    pub ranks: u32,
    /// Suits of the deals
    #[arg(long, value_name = "S", default_value_t = DEFAULT_SUITS, value_parser = side)]
    pub suits: u32,
    /// Give up on a deal after N search nodes (counted as undecided)
    #[arg(long, value_name = "N", default_value_t = 200_000_000)]
    pub budget_nodes: u64,
    /// The memory each deal's set of positions may use, in MiB (a deal that fills it is
    /// still decided; its full count is then not exact, and says so)
    #[arg(long, value_name = "MB", default_value_t = 1024)]
    pub memo_mb: usize,
    /// Give up a deal's search after SECS seconds, wall clock (the deal then counts as
    /// undecided), and likewise the depth-first counts of --full and --blocks (then not
    /// exact); so a search's CPU stays within it, however busy the machine
    #[arg(long, value_name = "SECS", value_parser = crate::cli::seconds)]
    pub time_limit: Option<Duration>,
    /// Confirm every deal the search proves unwinnable with the second oracle (a breadth-first
    /// walk over every reachable position), meeting at most N positions (about 60 bytes each on
    /// a full deck)
    #[arg(long, value_name = "N")]
    pub confirm: Option<usize>,
    /// Also count every position reachable from each deal (the paper's Table 2)
    #[arg(long)]
    pub full: bool,
    /// Also run the paper's block search on each deal, against a depth-first search of every
    /// reachable position (its Table 2; the basic variant only)
    #[arg(long)]
    pub blocks: bool,
    /// Random play: success rates with at most each of these many probes (e.g. 1,10)
    #[arg(long, value_name = "P,...", value_delimiter = ',')]
    pub probes: Vec<u32>,
    /// Play randomly only: no search (its figures are then all undecided)
    #[arg(long)]
    pub no_search: bool,
    /// Threads (default: the machine's cores)
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
}

fn run_check(variant: Variant, args: &CheckArgs) -> Result<(), Failure> {
    let (layout_path, solution_path) = check_sources(&args.layout, args.solution.as_ref(), "layout")?;
    let layout = load(layout_path, parse_layout)?;
    let report = check(&layout, variant, &read_integers(&read_source(solution_path)?));
    emit_check(report.is_solution(), &report.finding, &args.flags);
    Ok(())
}

fn run_solve(variant: Variant, args: &SolveArgs) -> Result<(), Failure> {
    let layout = load(&args.layout, parse_layout)?;
    if args.oracle == Oracle::Bfs {
        let cap = args.flags.nodes.map_or(3_000_000, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let (line, reached) = match oracle::decide(&layout, variant, cap) {
            Decision::Winnable(moves) => (solution_line(&moves), None),
            Decision::Unwinnable { positions } => {
                ("0".to_string(), Some(format!("positions: {positions}, every one reachable")))
            }
            Decision::TooLarge { cap } => ("-1".to_string(), Some(format!("positions: more than {cap}"))),
        };
        let lines: Vec<String> = std::iter::once(line).chain(reached.filter(|_| args.flags.stats)).collect();
        emit(&lines);
        return Ok(());
    }
    let solution = solve(&layout, variant, &args.flags.budget());
    let first = match &solution.outcome {
        Outcome::Solved(moves) => solution_line(moves),
        Outcome::Unsolvable => "0".to_string(),
        Outcome::GaveUp => "-1".to_string(),
    };
    emit_solve(first, &solution.stats, &args.flags);
    Ok(())
}

/// Refuses, for `command`, a deck the parser would refuse as a layout's.
fn check_deck(command: &str, ranks: u32, suits: u32) -> Result<(), Failure> {
    if ranks < 2 || ranks * suits > MAX_CARDS {
        return Err(Failure::bad(format!(
            "{command}: a layout needs 2 to {MAX_SIDE} ranks and at most {MAX_CARDS} cards, not {ranks} ranks * {suits} suits"
        )));
    }
    Ok(())
}

fn run_gen(args: &GenArgs) -> Result<(), Failure> {
    check_deck("GEN", args.ranks, args.suits)?;
    emit_text(&generate(args.seed, args.ranks, args.suits));
    Ok(())
}

fn run_stats(args: &StatsArgs) -> Result<(), Failure> {
    check_deck("stats", args.ranks, args.suits)?;
    if args.blocks && args.variant == VariantName::Common {
        return Err(Failure::bad(
            "stats: --blocks is the basic variant's block search (seed 001 §4), not the common variant's",
        ));
    }
    if args.blocks && args.suits > 8 {
        return Err(Failure::bad(format!(
            "stats: --blocks takes at most 8 suits (a block's face has a position for every mix of the other gaps' lines), not {}",
            args.suits
        )));
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let request = StatsRequest {
        deals: args.deals,
        seed: args.seed,
        ranks: args.ranks,
        suits: args.suits,
        variant: match args.variant {
            VariantName::Basic => Variant::Basic,
            VariantName::Common => Variant::Common,
        },
        budget_nodes: args.budget_nodes,
        memo_bytes: args.memo_mb.saturating_mul(1 << 20),
        time: args.time_limit,
        confirm: args.confirm,
        full: args.full,
        blocks: args.blocks,
        probes: args.probes.clone(),
        no_search: args.no_search,
        threads,
    };
    emit_text(&stats_report(&request));
    Ok(())
}

/// Runs `bhref --game gaps COMMAND ...` on `args` (the program's name first), parsed by
/// `command`: this game's clap command as the registry ([`crate::games`]) completed it.
pub fn main(command: clap::Command, args: Vec<OsString>) -> ExitCode {
    let cli: GapsCli = match crate::cli::parse(command, "bhref --game gaps", args) {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    report(match &cli.command {
        GapsCommand::Check(args) => run_check(Variant::Basic, args),
        GapsCommand::CheckCommon(args) => run_check(Variant::Common, args),
        GapsCommand::Solve(args) => run_solve(Variant::Basic, args),
        GapsCommand::SolveCommon(args) => run_solve(Variant::Common, args),
        GapsCommand::Gen(args) => run_gen(args),
        GapsCommand::Stats(args) => run_stats(args),
    })
}
