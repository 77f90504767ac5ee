//! `bhref [--game blackhole] COMMAND ...`: the reference speaking the 2021 students' contract
//! for Black Hole and Worm Hole, and `bhref stats`.
//!
//! Input: the command line ([`BlackHoleCli`]), a puzzle file (or `-` for standard input) and,
//! for the check commands, a candidate solution from a file or standard input. Output: the
//! contract's first line (`true`/`false`, or `1 p c ...`/`0`/`-1`), extra lines asked for by
//! flags, or a generated puzzle; `bhref: message` on standard error and exit status 2 for a bad
//! puzzle or bad usage.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::blackhole::check::check;
use crate::blackhole::model::{solution_line, Game, Puzzle};
use crate::blackhole::parse::{parse_puzzle, read_integers, MAX_CARDS, MAX_PILES};
use crate::blackhole::sat;
use crate::blackhole::solve::{solve, Outcome};
use crate::blackhole::stats::StatsArgs;
use crate::cli::{
    bounded_count, check_deck, check_sources, count, emit_check, emit_solve, emit_text, load, read_source, seed,
    ContractFlags, Failure, GameArg,
};

const AFTER_HELP: &str = "\
Commands in full:
  bhref CHECK PUZZLE [SOLUTION] [--explain]
  bhref CHECKWORM PUZZLE [SOLUTION] [--explain]
  bhref SOLVE PUZZLE [--oracle search|sat] [--stats] [--nodes N] [--time-limit SECS]
  bhref SOLVEWORM PUZZLE [--oracle search|sat] [--stats] [--nodes N] [--time-limit SECS]
  bhref GEN seed [cards=51] [ranks=13] [suits=4] [piles=17]
  bhref stats [--deals N] [--seed S] [--game blackhole|wormhole|both] [--budget-nodes N] [--sat-seconds T]
  bhref --game latebinding COMMAND ...    Late Binding Solitaire: `bhref --game latebinding --help`
  bhref COMMAND --help                    a command's arguments and output in full

PUZZLE may be `-` for standard input; the check commands then read the solution from the file
SOLUTION, which otherwise defaults to standard input. The first line of output is exactly what a
student's program must print: `true`/`false` for checks; `1` and the moves `p c p c ...`, `0`
(unsolvable) or `-1` (budget exhausted) for solves.

Exit status: 0 when the answer was printed; 2 for a bad puzzle (its file, line and column are
named) or bad usage.";

const CHECK_ABOUT: &str = "\
Prints `true` or `false` on one line, exactly what a student's program must print.

A solution is integers `p c p c ...`: each pair plays the top card c of pile p (piles numbered
from 0, as the puzzle lists them) onto the black hole. Reading stops at the first token that is
not an integer (so a comment may follow); line breaks do not matter. A solution that wins and
then goes on is still `true` (`--explain` says so).";

const WORM_MOVES: &str = "

In Worm Hole a move may also be `p -c`, moving the top card c of pile p into the empty worm
hole, or `-1 c`, playing card c from the worm hole onto the black hole; the worm hole must be
empty at the end.";

const CHECK_AFTER: &str = "\
Output: `true` or `false`; with --explain a second line, the checker's finding, e.g.
  false
  move 2 (pile 2, card 4): card 4 is not adjacent in rank to 2, the card in the black hole

Exit status: 0 when `true` or `false` was printed; 2 for a bad puzzle (its file, line and
column are named), an unreadable file, or bad usage.";

const SOLVE_ABOUT: &str = "\
Prints the answer on one line, exactly what a student's program must print:
  1 p c p c ...  a solution (pairs as CHECK reads them; just `1` when no card is left to play)
  0              no solution exists
  -1             the search gave up: --nodes or --time-limit ran out first

Every solution printed has been replayed through the checker. `--oracle sat` decides with the
SAT model instead (the paper's section 6: a cards x positions matrix and order ladders, solved
by CaDiCaL), which shares only the parser and the checker with the search: a second opinion on
a `0`.";

const SOLVE_AFTER: &str = "\
Output: the answer; with --stats three more lines, e.g.
  nodes: 20480
  time: 0.012 s
  peak memo: 1024 entries, 65536 bytes
or, with --oracle sat, `variables: V`, `clauses: C` and `time: T s`.

Exit status: 0 when an answer (including `-1`) was printed; 2 for a bad puzzle (its file, line
and column are named), an unreadable file, bad usage, or a puzzle too large for the SAT model
(more than 500 cards in piles); 3 when the SAT solver's solution failed the checker (a fault of
the oracle, never of the puzzle).";

const GEN_ABOUT: &str = "\
Prints the puzzle the course starter's `java BHMain GEN seed cards ranks suits piles` prints,
byte for byte: `R S P`, the hole card (1), then each pile bottom first, ended by `-1`, one line
each. The pack of R*S cards but the hole is shuffled with java.util.Random(seed) and the first
`cards` of it are dealt, card k onto pile k mod P.

Counts the parser would refuse are refused here too rather than allocated: at most 1000000
piles, and a deck of at most 1000000 cards (R*S).";

const GEN_AFTER: &str = "\
Exit status: 0 when the puzzle was printed; 2 for bad usage.";

const STATS_ABOUT: &str = "\
Prints the paper's table on random standard deals (`GEN seed 51 13 4 17`, seeds S to S+N-1)
solved one after another on one thread: per game, the solvable fraction with its 95% confidence
interval, the trivially unsolvable fraction, unsolvable and gave-up counts, wall-clock and CPU
time and node percentiles, the peak memo, then the process's peak resident memory. With
--sat-seconds T, the SAT oracle then confirms the deals' verdicts in seed order for T seconds
per game: how many per minute, the slowest, and any disagreement (exit status 1).";

/// `bhref [--game blackhole] COMMAND ...`.
#[derive(Debug, Parser)]
#[command(
    name = "bhref",
    version,
    about = "The reference for Black Hole and Worm Hole patience, speaking the students' command-line contract",
    override_usage = "bhref [--game GAME] COMMAND [ARGS]",
    after_help = AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct BlackHoleCli {
    #[command(flatten)]
    pub game: GameArg,
    #[command(subcommand)]
    pub command: BlackHoleCommand,
}

/// Black Hole's commands.
#[derive(Debug, Subcommand)]
pub enum BlackHoleCommand {
    /// Does SOLUTION solve the Black Hole puzzle PUZZLE? Prints true or false
    #[command(name = "CHECK", long_about = CHECK_ABOUT, after_help = CHECK_AFTER)]
    Check(CheckArgs),
    /// Does SOLUTION solve PUZZLE in Worm Hole? Prints true or false
    #[command(name = "CHECKWORM", long_about = const_format(CHECK_ABOUT, WORM_MOVES), after_help = CHECK_AFTER)]
    CheckWorm(CheckArgs),
    /// Solve a Black Hole puzzle: prints `1 p c ...`, `0` (no solution) or `-1` (gave up)
    #[command(name = "SOLVE", long_about = SOLVE_ABOUT, after_help = SOLVE_AFTER)]
    Solve(SolveArgs),
    /// Solve a Worm Hole puzzle: prints `1 p c ...`, `0` (no solution) or `-1` (gave up)
    #[command(name = "SOLVEWORM", long_about = const_format(SOLVE_ABOUT, WORM_MOVES), after_help = SOLVE_AFTER)]
    SolveWorm(SolveArgs),
    /// Print the course starter's random puzzle for a seed, byte for byte
    #[command(name = "GEN", long_about = GEN_ABOUT, after_help = GEN_AFTER)]
    Gen(GenArgs),
    /// Print the paper's table: how many random standard deals are solvable, and at what cost
    #[command(name = "stats", long_about = STATS_ABOUT)]
    Stats(StatsCommand),
}

/// Joins two help texts (clap takes a `String` as well as a `&'static str`).
fn const_format(first: &str, second: &str) -> String {
    format!("{first}{second}")
}

/// The arguments of `CHECK` and `CHECKWORM`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The puzzle file, or `-` for standard input (then SOLUTION must be a file)
    #[arg(value_name = "PUZZLE")]
    pub puzzle: PathBuf,
    /// The file holding the solution `p c p c ...`; standard input when not given
    #[arg(value_name = "SOLUTION")]
    pub solution: Option<PathBuf>,
    #[command(flatten)]
    pub flags: ContractFlags,
}

/// The arguments of `SOLVE` and `SOLVEWORM`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The puzzle file, or `-` for standard input
    #[arg(value_name = "PUZZLE")]
    pub puzzle: PathBuf,
    /// Which oracle decides: the search solver, or the SAT model (the paper's section 6), which
    /// shares no search code with it; `--nodes` is the search's alone, `--time-limit` both's
    #[arg(long, value_enum, value_name = "ORACLE", default_value_t = Oracle::Search)]
    pub oracle: Oracle,
    #[command(flatten)]
    pub flags: ContractFlags,
}

/// The two independent deciders of a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Oracle {
    /// The depth-first search with its memo and pruning
    Search,
    /// A SAT solver (CaDiCaL) on the cards x positions model
    Sat,
}

/// The arguments of `GEN`, in the starter's order.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct GenArgs {
    /// The seed of java.util.Random (any integer of Java's long)
    #[arg(value_name = "SEED", value_parser = seed)]
    pub seed: i64,
    /// How many cards to deal (at most the R*S - 1 cards there are get dealt)
    #[arg(value_name = "CARDS", default_value_t = 51, value_parser = count)]
    pub cards: u32,
    /// Ranks R per suit (1 or more)
    #[arg(value_name = "RANKS", default_value_t = 13, value_parser = |text: &str| bounded_count(text, MAX_CARDS, DECK))]
    pub ranks: u32,
    /// Suits S (1 or more; R*S at most 1000000)
    #[arg(value_name = "SUITS", default_value_t = 4, value_parser = |text: &str| bounded_count(text, MAX_CARDS, DECK))]
    pub suits: u32,
    /// Piles P (1 to 1000000)
    #[arg(value_name = "PILES", default_value_t = 17, value_parser = |text: &str| bounded_count(text, MAX_PILES, PILES))]
    pub piles: u32,
}

const DECK: &str = "a puzzle's deck has at most 1000000 cards";
const PILES: &str = "a puzzle has at most 1000000 piles";

/// The games `bhref stats --game` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsGame {
    Blackhole,
    Wormhole,
    Both,
}

/// The flags of `bhref stats` ([`StatsArgs`]'s defaults are clap's).
#[derive(Debug, Args)]
pub struct StatsCommand {
    /// How many deals (seeds S to S+N-1)
    #[arg(long, value_name = "N", default_value_t = StatsArgs::default().deals, allow_negative_numbers = true)]
    pub deals: u64,
    /// The first seed
    #[arg(long, value_name = "S", default_value_t = StatsArgs::default().seed, allow_negative_numbers = true)]
    pub seed: i64,
    /// Which game's table to print
    #[arg(long, value_enum, value_name = "GAME", default_value_t = StatsGame::Both)]
    pub game: StatsGame,
    /// Give up on a deal after N search nodes (counted as gave up)
    #[arg(long, value_name = "N", default_value_t = StatsArgs::default().budget_nodes, allow_negative_numbers = true)]
    pub budget_nodes: u64,
    /// Then give the SAT oracle T seconds per game to confirm the deals' verdicts, in seed order,
    /// and print how many it confirmed per minute (0: skip it)
    #[arg(long, value_name = "T", default_value_t = 0)]
    pub sat_seconds: u64,
}

impl StatsCommand {
    /// The same request in the flags [`crate::blackhole::stats::main`] reads.
    fn flags(&self) -> Vec<String> {
        let game = match self.game {
            StatsGame::Blackhole => "blackhole",
            StatsGame::Wormhole => "wormhole",
            StatsGame::Both => "both",
        };
        [
            "--deals".to_string(),
            self.deals.to_string(),
            "--seed".to_string(),
            self.seed.to_string(),
            "--game".to_string(),
            game.to_string(),
            "--budget-nodes".to_string(),
            self.budget_nodes.to_string(),
            "--sat-seconds".to_string(),
            self.sat_seconds.to_string(),
        ]
        .into()
    }
}

fn run_check(game: Game, args: &CheckArgs) -> Result<(), Failure> {
    let (puzzle_path, solution_path) = check_sources(&args.puzzle, args.solution.as_ref(), "puzzle")?;
    let puzzle = load(puzzle_path, parse_puzzle)?;
    let report = check(&puzzle, game, &read_integers(&read_source(solution_path)?));
    emit_check(report.is_solution(), &report.finding, &args.flags);
    Ok(())
}

fn run_solve(game: Game, args: &SolveArgs) -> Result<(), Failure> {
    let puzzle = load(&args.puzzle, parse_puzzle)?;
    if args.oracle == Oracle::Sat {
        return run_sat(&puzzle, game, &args.flags);
    }
    let solution = solve(&puzzle, game, &args.flags.budget());
    let first = match &solution.outcome {
        Outcome::Solved(moves) => solution_line(moves),
        Outcome::Unsolvable => "0".to_string(),
        Outcome::GaveUp => "-1".to_string(),
    };
    emit_solve(first, &solution.stats, &args.flags);
    Ok(())
}

fn run_sat(puzzle: &Puzzle, game: Game, flags: &ContractFlags) -> Result<(), Failure> {
    if flags.nodes.is_some() {
        return Err(Failure::bad("--nodes limits the search; the SAT oracle takes --time-limit"));
    }
    let answer = sat::decide(puzzle, game, flags.time_limit).map_err(|error| {
        let status = match error {
            sat::OracleError::TooLarge { .. } => 2,
            sat::OracleError::BadModel(_) => 3,
        };
        Failure { message: error.to_string(), status }
    })?;
    let mut lines = vec![match &answer.verdict {
        sat::Verdict::Solvable(moves) => solution_line(moves),
        sat::Verdict::Unsolvable => "0".to_string(),
        sat::Verdict::GaveUp => "-1".to_string(),
    }];
    if flags.stats {
        lines.push(format!("variables: {}", answer.variables));
        lines.push(format!("clauses: {}", answer.clauses));
        lines.push(format!("time: {:.3} s", answer.elapsed.as_secs_f64()));
    }
    crate::cli::emit(&lines);
    Ok(())
}

fn run_gen(args: &GenArgs) -> Result<(), Failure> {
    check_deck(args.ranks, args.suits, MAX_CARDS, "puzzle")?;
    emit_text(&crate::blackhole::generate::generate(args.seed, args.cards, args.ranks, args.suits, args.piles));
    Ok(())
}

/// Runs `bhref [--game blackhole] COMMAND ...` on `args` (the program's name first), parsed by `command`:
/// this game's clap command as the registry ([`crate::games`]) completed it.
pub fn main(command: clap::Command, args: Vec<OsString>) -> ExitCode {
    let cli: BlackHoleCli = match crate::cli::parse(command, "bhref", args) {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    crate::cli::report(match &cli.command {
        BlackHoleCommand::Check(args) => run_check(Game::BlackHole, args),
        BlackHoleCommand::CheckWorm(args) => run_check(Game::WormHole, args),
        BlackHoleCommand::Solve(args) => run_solve(Game::BlackHole, args),
        BlackHoleCommand::SolveWorm(args) => run_solve(Game::WormHole, args),
        BlackHoleCommand::Gen(args) => run_gen(args),
        BlackHoleCommand::Stats(stats) => {
            let status = crate::blackhole::stats::main(&stats.flags());
            return ExitCode::from(u8::try_from(status).unwrap_or(2));
        }
    })
}
