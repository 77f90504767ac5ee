//! `bhref --game latebinding ...`: the reference speaking the 2022 students' contract.
//!
//! Input: the arguments after `--game latebinding` (see [`USAGE`]), a layout file (or standard
//! input) and, for the check commands, a candidate solution from a file or standard input.
//! Output: the contract's first line (`true`/`false`; a solution `n c1 d1 ...` or `-1`), extra
//! lines asked for by flags, or a generated layout; `bhref: message` on standard error and exit
//! status 2 for a bad layout or bad usage, 3 when a solve is undecided within its budget (the
//! contract's `-1` means "unsolvable", so the reference never prints it as a shrug).

use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use super::check::check;
use super::generate::{generate, DEFAULT_PILES, DEFAULT_RANKS, DEFAULT_SUITS};
use super::model::{format_solution, Layout, Variant};
use super::parse::{parse_layout, read_integers, MAX_CARDS};
use super::solve::{solve, Budget, Outcome};

/// The help text of `bhref --game latebinding`.
pub const USAGE: &str = "\
usage (Late Binding Solitaire):
  bhref --game latebinding CHECK LAYOUT [SOLUTION] [--explain]       does the solution solve the layout?
  bhref --game latebinding GRACECHECK LAYOUT [SOLUTION] [--explain]  the same with grace (or CHECKGRACE)
  bhref --game latebinding SOLVE [LAYOUT] [--stats] [--nodes N] [--time-limit SECS]
  bhref --game latebinding GRACESOLVE [LAYOUT] [...]                 the same with grace (or SOLVEGRACE)
  bhref --game latebinding GEN seed [piles=17] [ranks=13] [suits=4]

The check commands read the solution `n c1 d1 ... cn dn` from the file SOLUTION, or from
standard input when it is not given; LAYOUT may then be `-` (standard input) only if SOLUTION
is a file. The solve commands read the layout from standard input when LAYOUT is omitted or `-`.
The first line of output is exactly what a student's program must print: `true`/`false` for
checks; a solution or `-1` (no solution exists) for solves. A solve that runs out of its
budget prints nothing and exits with status 3.
  --explain          checks: print the checker's finding on the second line
  --stats            solves: print nodes, time and memo size after the first line
  --nodes N          solves: give up after N search nodes
  --time-limit SECS  solves: give up after SECS seconds (decimals allowed)
";

/// A failure that ends the program with a message on standard error and `status`.
struct Failure {
    message: String,
    status: u8,
}

fn usage_error(message: impl Into<String>) -> Failure {
    Failure { message: format!("{}\n\n{USAGE}", message.into()), status: 2 }
}

fn error(message: impl Into<String>) -> Failure {
    Failure { message: message.into(), status: 2 }
}

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
        let mut value = |flag: &str| args.next().cloned().ok_or_else(|| usage_error(format!("{flag} needs a value")));
        match arg.as_str() {
            "--help" | "-h" => options.help = true,
            "--explain" => options.explain = true,
            "--stats" => options.stats = true,
            "--nodes" => {
                let text = value("--nodes")?;
                options.budget.max_nodes =
                    text.parse().map_err(|_| error(format!("--nodes needs a whole number, not `{text}`")))?;
            }
            "--time-limit" => {
                let text = value("--time-limit")?;
                let time = text.parse::<f64>().ok().and_then(|s| Duration::try_from_secs_f64(s).ok());
                options.budget.time =
                    Some(time.ok_or_else(|| error(format!("--time-limit needs a number of seconds, not `{text}`")))?);
            }
            flag if flag.starts_with("--") => return Err(usage_error(format!("unknown flag `{flag}`"))),
            _ => options.positional.push(arg.clone()),
        }
    }
    Ok(options)
}

/// Reads a whole file, or standard input for `-`; text that is not UTF-8 is read lossily (the
/// replacement character then forms a token that is not an integer).
fn read_source(path: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    let result = if path == "-" {
        io::stdin().read_to_end(&mut bytes).map(drop)
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    result.map_err(|e| error(format!("cannot read {path}: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn load_layout(path: &str) -> Result<Layout, Failure> {
    parse_layout(path, &read_source(path)?).map_err(|e| error(e.to_string()))
}

/// Writes lines to standard output; a closed pipe is not worth a panic.
fn emit(lines: &[String]) {
    let mut out = io::stdout().lock();
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
    let _ = out.flush();
}

fn run_check(variant: Variant, options: &Options) -> Result<(), Failure> {
    let (layout_path, solution_path) = match options.positional.as_slice() {
        [layout] => (layout.as_str(), "-"),
        [layout, solution] => (layout.as_str(), solution.as_str()),
        _ => return Err(usage_error("expected LAYOUT [SOLUTION]")),
    };
    if layout_path == "-" && solution_path == "-" {
        return Err(error("the layout is read from standard input, so give the solution as a file"));
    }
    let layout = load_layout(layout_path)?;
    let report = check(&layout, variant, &read_integers(&read_source(solution_path)?));
    let mut lines = vec![report.is_solution().to_string()];
    if options.explain {
        lines.push(report.finding.to_string());
    }
    emit(&lines);
    Ok(())
}

fn run_solve(variant: Variant, options: &Options) -> Result<(), Failure> {
    let layout_path = match options.positional.as_slice() {
        [] => "-",
        [layout] => layout.as_str(),
        _ => return Err(usage_error("expected at most one LAYOUT")),
    };
    let layout = load_layout(layout_path)?;
    let solution = solve(&layout, variant, &options.budget);
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
    let mut lines = vec![first];
    if options.stats {
        lines.push(format!("nodes: {}", stats.nodes));
        lines.push(format!("time: {:.3} s", stats.elapsed.as_secs_f64()));
        lines.push(format!("peak memo: {} entries, {} bytes", stats.peak_memo_entries, stats.peak_memo_bytes));
    }
    emit(&lines);
    Ok(())
}

fn run_gen(args: &[String]) -> Result<(), Failure> {
    if args.is_empty() || args.len() > 4 {
        return Err(usage_error("expected GEN seed [piles] [ranks] [suits]"));
    }
    let seed: i64 =
        args[0].parse().map_err(|_| error(format!("GEN: the seed must be an integer, not `{}`", args[0])))?;
    let names = ["piles", "ranks", "suits"];
    let mut values = [DEFAULT_PILES, DEFAULT_RANKS, DEFAULT_SUITS];
    for (i, text) in args[1..].iter().enumerate() {
        values[i] =
            text.parse().map_err(|_| error(format!("GEN: {} must be a whole number, not `{text}`", names[i])))?;
    }
    let [piles, ranks, suits] = values;
    // The deck is allocated whole: refuse what the parser would refuse anyway.
    if ranks == 0 || suits == 0 {
        return Err(error("GEN: ranks and suits must each be at least 1"));
    }
    if u64::from(ranks) * u64::from(suits) > MAX_CARDS {
        return Err(error(format!("GEN: a deck of more than {MAX_CARDS} cards is not supported")));
    }
    let text = generate(seed, piles, ranks, suits);
    let mut out = io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

/// Runs one command of the Late Binding contract; `args` follow `--game latebinding`.
pub fn main(args: &[String]) -> ExitCode {
    let result = match args.split_first() {
        None => Err(usage_error("expected a command")),
        Some((command, rest)) => match command.as_str() {
            "--help" | "-h" | "help" => {
                print!("{USAGE}");
                Ok(())
            }
            "GEN" => run_gen(rest),
            "CHECK" | "GRACECHECK" | "CHECKGRACE" | "SOLVE" | "GRACESOLVE" | "SOLVEGRACE" => parse_options(rest)
                .and_then(|options| {
                    if options.help {
                        print!("{USAGE}");
                        return Ok(());
                    }
                    let variant = if command.contains("GRACE") { Variant::Grace } else { Variant::Plain };
                    if command.contains("CHECK") {
                        run_check(variant, &options)
                    } else {
                        run_solve(variant, &options)
                    }
                }),
            other => Err(usage_error(format!("unknown command `{other}` for --game latebinding"))),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, status }) => {
            eprintln!("bhref: {}", message.trim_end());
            ExitCode::from(status)
        }
    }
}
