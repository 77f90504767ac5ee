//! The `bhref` binary: the reference speaking exactly the students' command-line contract.
//!
//! Input: `bhref COMMAND ARGS [FLAGS]` (see [`USAGE`]), a puzzle file (or `-` for standard
//! input) and, for the check commands, a candidate solution from a file or standard input.
//! Output: the contract's first line (`true`/`false`, or `1 moves`/`0`/`-1`), optional extra
//! lines asked for by flags, or a generated puzzle; `bhref: message` on standard error and exit
//! status 2 for a bad puzzle or bad usage.
//!
//! A leading `--game NAME` picks the game: `blackhole` (the default, everything above) or
//! `latebinding`, whose commands live in [`bhref::latebinding::cli`].

use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use bhref::blackhole::check::check;
use bhref::blackhole::model::{format_moves, Game, Puzzle};
use bhref::blackhole::parse::{parse_puzzle, read_integers, MAX_CARDS};
use bhref::blackhole::solve::{solve, Budget, Outcome};

const USAGE: &str = "\
usage:
  bhref CHECK PUZZLE [SOLUTION] [--explain]      does the solution solve the Black Hole puzzle?
  bhref CHECKWORM PUZZLE [SOLUTION] [--explain]  the same for Worm Hole
  bhref SOLVE PUZZLE [--stats] [--nodes N] [--time-limit SECS]
  bhref SOLVEWORM PUZZLE [--stats] [--nodes N] [--time-limit SECS]
  bhref GEN seed [cards=51] [ranks=13] [suits=4] [piles=17]
  bhref stats ARGS...                            the paper's table on random deals
  bhref --game latebinding COMMAND ...           Late Binding Solitaire (`--game latebinding --help`)
  bhref --help

PUZZLE may be `-` for standard input; the check commands then read the solution from the file
SOLUTION, which otherwise defaults to standard input. The first line of output is exactly what a
student's program must print: `true`/`false` for checks; `1` and the moves, `0` (unsolvable) or
`-1` (budget exhausted) for solves.
  --explain          CHECK: print the checker's finding on the second line
  --stats            SOLVE: print nodes, time and peak memo size after the first line
  --nodes N          SOLVE: give up after N search nodes
  --time-limit SECS  SOLVE: give up after SECS seconds (decimals allowed)
";

/// A failure that ends the program with a message on standard error and exit status 2.
struct Failure(String);

/// The command-line arguments after the command word, split into positional arguments and
/// the flags that add information.
#[derive(Default)]
struct Options {
    positional: Vec<String>,
    explain: bool,
    stats: bool,
    help: bool,
    budget: Budget,
}

fn parse_options(args: &[String]) -> Result<Options, Failure> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value =
            |flag: &str| args.next().cloned().ok_or_else(|| Failure(format!("{flag} needs a value\n\n{USAGE}")));
        match arg.as_str() {
            "--help" | "-h" => options.help = true,
            "--explain" => options.explain = true,
            "--stats" => options.stats = true,
            "--nodes" => {
                let text = value("--nodes")?;
                options.budget.max_nodes =
                    text.parse().map_err(|_| Failure(format!("--nodes needs a whole number, not `{text}`")))?;
            }
            "--time-limit" => {
                let text = value("--time-limit")?;
                let seconds = text.parse::<f64>().ok().and_then(|s| Duration::try_from_secs_f64(s).ok());
                let seconds =
                    seconds.ok_or_else(|| Failure(format!("--time-limit needs a number of seconds, not `{text}`")))?;
                options.budget.time = Some(seconds);
            }
            flag if flag.starts_with("--") => return Err(Failure(format!("unknown flag `{flag}`\n\n{USAGE}"))),
            _ => options.positional.push(arg.clone()),
        }
    }
    Ok(options)
}

/// Reads a whole file, or standard input for `-`. Text that is not UTF-8 is read lossily: the
/// replacement character then forms a non-integer token, which the readers treat as text.
fn read_source(path: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    let result = if path == "-" {
        io::stdin().read_to_end(&mut bytes).map(drop)
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    result.map_err(|e| Failure(format!("cannot read {path}: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn load_puzzle(path: &str) -> Result<Puzzle, Failure> {
    let text = read_source(path)?;
    parse_puzzle(path, &text).map_err(|e| Failure(e.to_string()))
}

/// Writes lines to standard output; a closed pipe is not an error worth a panic.
fn emit(lines: &[String]) {
    let mut out = io::stdout().lock();
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
    let _ = out.flush();
}

fn run_check(game: Game, options: &Options) -> Result<(), Failure> {
    let (puzzle_path, solution_path) = match options.positional.as_slice() {
        [puzzle] => (puzzle.as_str(), "-"),
        [puzzle, solution] => (puzzle.as_str(), solution.as_str()),
        _ => return Err(Failure(format!("expected PUZZLE [SOLUTION]\n\n{USAGE}"))),
    };
    if puzzle_path == "-" && solution_path == "-" {
        return Err(Failure("the puzzle is read from standard input, so give the solution as a file".into()));
    }
    let puzzle = load_puzzle(puzzle_path)?;
    let report = check(&puzzle, game, &read_integers(&read_source(solution_path)?));
    let mut lines = vec![report.is_solution().to_string()];
    if options.explain {
        lines.push(report.finding.to_string());
    }
    emit(&lines);
    Ok(())
}

fn run_solve(game: Game, options: &Options) -> Result<(), Failure> {
    let [puzzle_path] = options.positional.as_slice() else {
        return Err(Failure(format!("expected PUZZLE\n\n{USAGE}")));
    };
    let puzzle = load_puzzle(puzzle_path)?;
    let solution = solve(&puzzle, game, &options.budget);
    let first = match &solution.outcome {
        Outcome::Solved(moves) if moves.is_empty() => "1".to_string(),
        Outcome::Solved(moves) => format!("1 {}", format_moves(moves)),
        Outcome::Unsolvable => "0".to_string(),
        Outcome::GaveUp => "-1".to_string(),
    };
    let mut lines = vec![first];
    if options.stats {
        let stats = &solution.stats;
        lines.push(format!("nodes: {}", stats.nodes));
        lines.push(format!("time: {:.3} s", stats.elapsed.as_secs_f64()));
        lines.push(format!("peak memo: {} entries, {} bytes", stats.peak_memo_entries, stats.peak_memo_bytes));
    }
    emit(&lines);
    Ok(())
}

fn run_gen(args: &[String]) -> Result<(), Failure> {
    if args.is_empty() || args.len() > 5 {
        return Err(Failure(format!("expected GEN seed [cards] [ranks] [suits] [piles]\n\n{USAGE}")));
    }
    let seed: i64 =
        args[0].parse().map_err(|_| Failure(format!("GEN: the seed must be an integer, not `{}`", args[0])))?;
    let names = ["cards", "ranks", "suits", "piles"];
    let mut values = [51u32, 13, 4, 17];
    for (i, text) in args[1..].iter().enumerate() {
        values[i] =
            text.parse().map_err(|_| Failure(format!("GEN: {} must be a whole number, not `{text}`", names[i])))?;
    }
    let [cards, ranks, suits, piles] = values;
    // The starter would divide by zero or allocate without bound on these; refuse them instead.
    if ranks == 0 || suits == 0 || piles == 0 {
        return Err(Failure("GEN: ranks, suits and piles must each be at least 1".into()));
    }
    if u64::from(ranks) * u64::from(suits) > MAX_CARDS {
        return Err(Failure(format!("GEN: a deck of more than {MAX_CARDS} cards is not supported")));
    }
    let text = bhref::blackhole::generate::generate(seed, cards, ranks, suits, piles);
    let mut out = io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

/// Splits a leading `--game NAME` (or `--game=NAME`) off `args`: the game's name, if given.
/// Only a leading one: `bhref stats` has a `--game` flag of its own.
fn take_game(args: &mut Vec<String>) -> Result<Option<String>, Failure> {
    let Some(first) = args.first() else { return Ok(None) };
    if let Some(name) = first.strip_prefix("--game=") {
        let name = name.to_string();
        args.remove(0);
        return Ok(Some(name));
    }
    if first != "--game" {
        return Ok(None);
    }
    if args.len() < 2 {
        return Err(Failure(format!("--game needs a value: blackhole or latebinding\n\n{USAGE}")));
    }
    Ok(Some(args.drain(..2).nth(1).unwrap_or_default()))
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    match take_game(&mut args) {
        Ok(None) => {}
        Ok(Some(game)) if game == "blackhole" => {}
        Ok(Some(game)) if game == "latebinding" => return bhref::latebinding::cli::main(&args),
        Ok(Some(game)) => {
            eprintln!("bhref: unknown game `{game}`; expected blackhole or latebinding");
            return ExitCode::from(2);
        }
        Err(Failure(message)) => {
            eprintln!("bhref: {}", message.trim_end());
            return ExitCode::from(2);
        }
    }
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "--help" | "-h" | "help" => {
            print!("{USAGE}");
            Ok(())
        }
        "stats" => std::process::exit(bhref::blackhole::stats::main(rest)),
        "GEN" => run_gen(rest),
        "CHECK" | "CHECKWORM" | "SOLVE" | "SOLVEWORM" => parse_options(rest).and_then(|options| {
            if options.help {
                print!("{USAGE}");
                return Ok(());
            }
            let game = if command.ends_with("WORM") { Game::WormHole } else { Game::BlackHole };
            if command.starts_with("CHECK") {
                run_check(game, &options)
            } else {
                run_solve(game, &options)
            }
        }),
        other => Err(Failure(format!("unknown command `{other}`\n\n{USAGE}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("bhref: {}", message.trim_end());
            ExitCode::from(2)
        }
    }
}
