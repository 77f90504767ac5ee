//! `bhref --game latebinding COMMAND ...`: the reference speaking the 2022 students' contract.
//!
//! Input: the command line ([`LateBindingCli`], parsed by the layer both games share,
//! [`crate::cli`]), a layout file (or standard input) and, for the check commands, a candidate
//! solution from a file or standard input. Output: the contract's first line (`true`/`false`;
//! a solution `n c1 d1 ...` or `-1`), extra lines asked for by flags, or a generated layout;
//! `bhref: message` on standard error and exit status 2 for a bad layout or bad usage, 3 when a
//! solve is undecided within its budget (the contract's `-1` means "unsolvable", so the
//! reference never prints it as a shrug).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use super::check::check;
use super::generate::{generate, DEFAULT_PILES, DEFAULT_RANKS, DEFAULT_SUITS};
use super::model::{format_solution, Variant};
use super::parse::{parse_layout, read_integers, MAX_CARDS};
use super::solve::{solve, Outcome};
use crate::cli::{
    bounded_count, check_deck, check_sources, count, emit_check, emit_solve, emit_text, load, read_source, report,
    seed, ContractFlags, Failure, GameArg,
};

const AFTER_HELP: &str = "\
Commands in full:
  bhref --game latebinding CHECK LAYOUT [SOLUTION] [--explain]
  bhref --game latebinding GRACECHECK LAYOUT [SOLUTION] [--explain]
  bhref --game latebinding SOLVE [LAYOUT] [--stats] [--nodes N] [--time-limit SECS]
  bhref --game latebinding GRACESOLVE [LAYOUT] [--stats] [--nodes N] [--time-limit SECS]
  bhref --game latebinding GEN seed [piles=17] [ranks=13] [suits=4]
  bhref --game latebinding COMMAND --help    a command's arguments and output in full

The check commands read the solution `n c1 d1 ... cn dn` from the file SOLUTION, or from
standard input when it is not given; LAYOUT may then be `-` (standard input) only if SOLUTION
is a file. The solve commands read the layout from standard input when LAYOUT is omitted or `-`.
The first line of output is exactly what a student's program must print: `true`/`false` for
checks; a solution or `-1` (no solution exists) for solves. A solve that runs out of its
budget prints nothing and exits with status 3.

Exit status: 0 when the answer was printed; 2 for a bad layout (its file, line and column are
named) or bad usage; 3 when a solve ran out of its budget undecided.";

const CHECK_ABOUT: &str = "\
Prints `true` or `false` on one line, exactly what a student's program must print.

A solution is integers `n c1 d1 ... cn dn`: the number of moves n, then per move the card c to
move (found by its value in the row) and the position d (from 0, counted in the row as it is
then) of the pile it goes onto. Reading stops at the first token that is not an integer;
line breaks do not matter.";

const GRACE: &str = "

With grace, one move per game may put any card onto pile 0, whatever it matches and however
far away it is.";

const CHECK_AFTER: &str = "\
Output: `true` or `false`; with --explain a second line, the checker's finding, e.g.
  false
  move 2 (card 2 onto 0): card 2 (at position 1) and card 4 share neither rank nor suit

Exit status: 0 when `true` or `false` was printed; 2 for a bad layout (its file, line and
column are named), an unreadable file, or bad usage.";

const SOLVE_ABOUT: &str = "\
Prints the answer on one line, exactly what a student's program must print:
  n c1 d1 ... cn dn  a solution (as CHECK reads it; `0` when one pile is already all there is)
  -1                 no solution exists

A solve that runs out of --nodes or --time-limit before it knows prints nothing and exits with
status 3: `-1` would claim there is no solution. Every solution printed has been replayed
through the checker.";

const SOLVE_AFTER: &str = "\
Output: the answer; with --stats three more lines, e.g.
  nodes: 20480
  time: 0.012 s
  peak memo: 1024 entries, 65536 bytes

Exit status: 0 when an answer was printed; 2 for a bad layout (its file, line and column are
named), an unreadable file, or bad usage; 3 when the budget ran out undecided.";

const GEN_ABOUT: &str = "\
Prints the layout the 2022 starter's `java LBSMain GEN seed piles ranks suits` prints, byte for
byte (piles first, unlike Black Hole's GEN): `R S P`, then the first P cards of the deck of R*S
shuffled with java.util.Random(seed), each followed by a space. The header shows P as given,
even when P > R*S and only R*S cards follow.

A deck the parser would refuse is refused here too rather than allocated: at most 1000000
cards (R*S).";

const GEN_AFTER: &str = "\
Exit status: 0 when the layout was printed; 2 for bad usage.";

/// `bhref --game latebinding COMMAND ...`.
#[derive(Debug, Parser)]
#[command(
    name = "bhref",
    version,
    about = "The reference for Late Binding Solitaire, speaking the 2022 students' command-line contract",
    override_usage = "bhref --game latebinding COMMAND [ARGS]",
    after_help = AFTER_HELP,
    subcommand_required = true
)]
pub struct LateBindingCli {
    #[command(flatten)]
    pub game: GameArg,
    #[command(subcommand)]
    pub command: LateBindingCommand,
}

/// Late Binding's commands.
#[derive(Debug, Subcommand)]
pub enum LateBindingCommand {
    /// Does SOLUTION solve LAYOUT? Prints true or false
    #[command(name = "CHECK", long_about = CHECK_ABOUT, after_help = CHECK_AFTER)]
    Check(CheckArgs),
    /// Does SOLUTION solve LAYOUT with grace? Prints true or false
    #[command(
        name = "GRACECHECK",
        visible_alias = "CHECKGRACE",
        long_about = format!("{CHECK_ABOUT}{GRACE}"),
        after_help = CHECK_AFTER
    )]
    GraceCheck(CheckArgs),
    /// Solve a layout: prints `n c1 d1 ...` or `-1` (no solution)
    #[command(name = "SOLVE", long_about = SOLVE_ABOUT, after_help = SOLVE_AFTER)]
    Solve(SolveArgs),
    /// Solve a layout with grace: prints `n c1 d1 ...` or `-1` (no solution)
    #[command(
        name = "GRACESOLVE",
        visible_alias = "SOLVEGRACE",
        long_about = format!("{SOLVE_ABOUT}{GRACE}"),
        after_help = SOLVE_AFTER
    )]
    GraceSolve(SolveArgs),
    /// Print the 2022 starter's random layout for a seed, byte for byte
    #[command(name = "GEN", long_about = GEN_ABOUT, after_help = GEN_AFTER)]
    Gen(GenArgs),
}

/// The arguments of `CHECK` and `GRACECHECK`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The layout file, or `-` for standard input (then SOLUTION must be a file)
    #[arg(value_name = "LAYOUT")]
    pub layout: PathBuf,
    /// The file holding the solution `n c1 d1 ...`; standard input when not given
    #[arg(value_name = "SOLUTION")]
    pub solution: Option<PathBuf>,
    #[command(flatten)]
    pub flags: ContractFlags,
}

/// The arguments of `SOLVE` and `GRACESOLVE`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The layout file; standard input when not given or `-`
    #[arg(value_name = "LAYOUT", default_value = "-", hide_default_value = true)]
    pub layout: PathBuf,
    #[command(flatten)]
    pub flags: ContractFlags,
}

/// The arguments of `GEN`, in the starter's order.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct GenArgs {
    /// The seed of java.util.Random (any integer of Java's long)
    #[arg(value_name = "SEED", value_parser = seed)]
    pub seed: i64,
    /// Piles P: the row holds the first P cards of the shuffled deck
    #[arg(value_name = "PILES", default_value_t = DEFAULT_PILES, value_parser = count)]
    pub piles: u32,
    /// Ranks R per suit (1 or more)
    #[arg(value_name = "RANKS", default_value_t = DEFAULT_RANKS, value_parser = |text: &str| bounded_count(text, MAX_CARDS, DECK))]
    pub ranks: u32,
    /// Suits S (1 or more; R*S at most 1000000)
    #[arg(value_name = "SUITS", default_value_t = DEFAULT_SUITS, value_parser = |text: &str| bounded_count(text, MAX_CARDS, DECK))]
    pub suits: u32,
}

const DECK: &str = "a layout's deck has at most 1000000 cards";

fn run_check(variant: Variant, args: &CheckArgs) -> Result<(), Failure> {
    let (layout_path, solution_path) = check_sources(&args.layout, args.solution.as_ref(), "layout")?;
    let layout = load(layout_path, parse_layout)?;
    let report = check(&layout, variant, &read_integers(&read_source(solution_path)?));
    emit_check(report.is_solution(), &report.finding, &args.flags);
    Ok(())
}

fn run_solve(variant: Variant, args: &SolveArgs) -> Result<(), Failure> {
    let layout = load(&args.layout, parse_layout)?;
    let solution = solve(&layout, variant, &args.flags.budget());
    let stats = &solution.stats;
    let first = match &solution.outcome {
        Outcome::Solved(moves) => format_solution(moves),
        Outcome::Unsolvable => "-1".to_string(),
        Outcome::GaveUp => {
            return Err(Failure {
                message: format!(
                    "undecided: the budget ran out after {} nodes ({:.3} s); no answer is printed, as `-1` would claim there is no solution",
                    stats.nodes,
                    stats.elapsed.as_secs_f64()
                ),
                status: 3,
            });
        }
    };
    emit_solve(first, stats, &args.flags);
    Ok(())
}

fn run_gen(args: &GenArgs) -> Result<(), Failure> {
    check_deck(args.ranks, args.suits, MAX_CARDS, "layout")?;
    emit_text(&generate(args.seed, args.piles, args.ranks, args.suits));
    Ok(())
}

/// Runs `bhref --game latebinding COMMAND ...` on `args` (the program's name first), parsed by `command`:
/// this game's clap command as the registry ([`crate::games`]) completed it.
pub fn main(command: clap::Command, args: Vec<OsString>) -> ExitCode {
    let cli: LateBindingCli = match crate::cli::parse(command, "bhref --game latebinding", args) {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    report(match &cli.command {
        LateBindingCommand::Check(args) => run_check(Variant::Plain, args),
        LateBindingCommand::GraceCheck(args) => run_check(Variant::Grace, args),
        LateBindingCommand::Solve(args) => run_solve(Variant::Plain, args),
        LateBindingCommand::GraceSolve(args) => run_solve(Variant::Grace, args),
        LateBindingCommand::Gen(args) => run_gen(args),
    })
}
