//! What every game's command line shares: the `--game` option ([`GameArg`]), the contract's
//! flags ([`ContractFlags`]), reading a puzzle from a file or standard input, writing the
//! answer, the GEN limits, the help layout and how a clap error becomes `bhref: message` and
//! exit status 2 (help and version go to standard output with status 0).
//!
//! Input: a game's clap command and arguments, files and flags. Output: the parsed arguments,
//! the contract's lines on standard output, a [`Failure`]'s message and exit status.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgMatches, Args, Command, FromArgMatches};

use crate::budget::{Budget, Stats};

/// `--game`, which every game's parser takes so that each one's help shows it and checks it.
/// Its possible values and default are the registry's ([`crate::games::GAMES`]), set on the
/// command by [`crate::games`] before it is parsed.
#[derive(Debug, Args)]
pub struct GameArg {
    /// The game whose contract to speak; each has its own commands and help
    /// (`bhref --game latebinding --help`)
    #[arg(long, value_name = "GAME")]
    pub game: Option<String>,
}

/// The flags of the check and solve commands. Every one is accepted by all of them, as it
/// always was (`SOLVE p --explain` prints what `SOLVE p` does), but each command's help shows
/// only the ones that change what it prints ([`shared_settings`] hides the others).
#[derive(Debug, Args)]
pub struct ContractFlags {
    /// Print the checker's finding on a second line: why the answer is false, or that the
    /// moves solve it
    #[arg(long)]
    pub explain: bool,
    /// Print three more lines after the answer: `nodes: N`, `time: T s` and
    /// `peak memo: E entries, B bytes`
    #[arg(long)]
    pub stats: bool,
    /// Give up after N search nodes
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole_number)]
    pub nodes: Option<u64>,
    /// Give up after SECS seconds of search (decimals allowed)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true, value_parser = seconds)]
    pub time_limit: Option<Duration>,
}

impl ContractFlags {
    /// The solver's budget: the default one, with the limits given.
    pub fn budget(&self) -> Budget {
        let mut budget = Budget::default();
        if let Some(nodes) = self.nodes {
            budget.max_nodes = nodes;
        }
        budget.time = self.time_limit;
        budget
    }
}

fn whole_number(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| format!("expected a whole number, not `{text}`"))
}

pub fn seconds(text: &str) -> Result<Duration, String> {
    let seconds = text.parse::<f64>().ok().and_then(|s| Duration::try_from_secs_f64(s).ok());
    seconds.ok_or_else(|| format!("expected a number of seconds (0 or more, decimals allowed), not `{text}`"))
}

/// A GEN seed: any integer of Java's `long`, as the starters take it.
pub fn seed(text: &str) -> Result<i64, String> {
    text.parse().map_err(|_| format!("the seed must be an integer (a Java long), not `{text}`"))
}

/// A GEN count that allocates nothing (the cards to deal: only the deck's are dealt).
pub fn count(text: &str) -> Result<u32, String> {
    text.parse().map_err(|_| format!("expected a whole number from 0 to {}, not `{text}`", u32::MAX))
}

/// A GEN count that must lie in `1..=max` because the layout is allocated from it, and a
/// layout with more would be refused by the parser anyway (`what` says what `max` limits).
pub fn bounded_count(text: &str, max: u64, what: &str) -> Result<u32, String> {
    match text.parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n as u32),
        Ok(0) => Err("expected at least 1".to_string()),
        Ok(_) => Err(format!("expected at most {max}, as {what} (the parser refuses more)")),
        Err(_) => Err(format!("expected a whole number from 1 to {max}, not `{text}`")),
    }
}

/// A GEN deck of `ranks * suits` cards, refused (with the product in the message) when it is
/// larger than the deck of a `thing` ("puzzle" or "layout") may be.
pub fn check_deck(ranks: u32, suits: u32, max_cards: u64, thing: &str) -> Result<(), Failure> {
    let size = u64::from(ranks) * u64::from(suits);
    if size > max_cards {
        return Err(Failure::bad(format!(
            "GEN: a deck of {ranks} ranks * {suits} suits = {size} cards is too large: a {thing}'s deck has at \
             most {max_cards} cards (the parser refuses more)"
        )));
    }
    Ok(())
}

/// A failure that ends the program with `bhref: message` on standard error and `status`.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub status: u8,
}

impl Failure {
    /// Bad input or bad usage: exit status 2.
    pub fn bad(message: impl Into<String>) -> Self {
        Failure { message: message.into(), status: 2 }
    }
}

/// Reads a whole file, or standard input for `-`. Text that is not UTF-8 is read lossily: the
/// replacement character then forms a token that is not an integer, which the readers treat
/// as text.
pub fn read_source(path: &Path) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    let result = if is_stdin(path) {
        io::stdin().read_to_end(&mut bytes).map(drop)
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    result.map_err(|e| Failure::bad(format!("cannot read {}: {e}", path.display())))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `-`, the name of standard input.
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

/// The puzzle and solution sources of a check command: the solution defaults to standard
/// input, which can then not also hold the puzzle (`thing` names the puzzle: "puzzle" or
/// "layout").
pub fn check_sources<'a>(
    puzzle: &'a Path,
    solution: Option<&'a PathBuf>,
    thing: &str,
) -> Result<(&'a Path, &'a Path), Failure> {
    let solution = solution.map_or(Path::new("-"), PathBuf::as_path);
    if is_stdin(puzzle) && is_stdin(solution) {
        return Err(Failure::bad(format!("the {thing} is read from standard input, so give the solution as a file")));
    }
    Ok((puzzle, solution))
}

/// Reads the puzzle or layout at `path` (`-`: standard input) and parses it with the game's
/// `parse`, whose error names the file, line and column: an invalid file is bad input.
pub fn load<T, E: std::fmt::Display>(
    path: &Path,
    parse: impl FnOnce(&str, &str) -> Result<T, E>,
) -> Result<T, Failure> {
    let text = read_source(path)?;
    parse(&path.to_string_lossy(), &text).map_err(|e| Failure::bad(e.to_string()))
}

/// Prints a check's answer, `true` or `false`, and with `--explain` the finding after it.
pub fn emit_check(solved: bool, finding: &impl std::fmt::Display, flags: &ContractFlags) {
    let mut lines = vec![solved.to_string()];
    if flags.explain {
        lines.push(finding.to_string());
    }
    emit(&lines);
}

/// Prints a solve's answer line, and with `--stats` the search's figures after it.
pub fn emit_solve(answer: String, stats: &Stats, flags: &ContractFlags) {
    let mut lines = vec![answer];
    if flags.stats {
        lines.extend(stats_lines(stats));
    }
    emit(&lines);
}

/// The `--stats` lines of a solve.
pub fn stats_lines(stats: &Stats) -> [String; 3] {
    [
        format!("nodes: {}", stats.nodes),
        format!("time: {:.3} s", stats.elapsed.as_secs_f64()),
        format!("peak memo: {} entries, {} bytes", stats.peak_memo_entries, stats.peak_memo_bytes),
    ]
}

/// Writes lines to standard output; a closed pipe is not an error worth a panic.
pub fn emit(lines: &[String]) {
    let mut out = io::stdout().lock();
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
    let _ = out.flush();
}

/// Writes generated text to standard output as it is.
pub fn emit_text(text: &str) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Every command's help starts with its usage (`usage: bhref CHECK ...`), then says what it
/// does, its arguments and options, and what it prints.
const HELP_TEMPLATE: &str = "usage: {usage}\n\n{about-with-newline}\n{all-args}{after-help}";

/// What every command of both games shares: the help layout, `--version`, flags that may be
/// given twice (the last wins, as before clap), and the contract flags a command ignores
/// hidden from its help.
pub fn shared_settings(command: Command, bin_name: &'static str) -> Command {
    let command = command
        .bin_name(bin_name)
        .help_template(HELP_TEMPLATE)
        .propagate_version(true)
        .args_override_self(true)
        .max_term_width(100);
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    names.into_iter().fold(command, |command, name| {
        command.mut_subcommand(&name, |sub| {
            let sub = sub.help_template(HELP_TEMPLATE).args_override_self(true).display_name("bhref");
            let ids: Vec<String> = sub.get_arguments().map(|a| a.get_id().to_string()).collect();
            let hidden: &[&str] = if name.contains("CHECK") {
                &["stats", "nodes", "time_limit"]
            } else if name.contains("SOLVE") {
                &["explain"]
            } else {
                &[]
            };
            hidden
                .iter()
                .filter(|id| ids.iter().any(|known| known == *id))
                .fold(sub, |sub, id| sub.mut_arg(*id, |arg| arg.hide(true)))
        })
    })
}

/// Parses `args` (the program's name first) with `command`, the game's clap command, whose
/// commands' usage lines start with `bin_name`: the parsed arguments, or the exit status after
/// clap's help, version or error was printed.
pub fn parse<T: FromArgMatches>(command: Command, bin_name: &'static str, args: Vec<OsString>) -> Result<T, ExitCode> {
    let command = shared_settings(command, bin_name);
    let matches: ArgMatches =
        command.clone().try_get_matches_from(args).map_err(|error| report_clap(error, &command))?;
    T::from_arg_matches(&matches).map_err(|error| report_clap(error, &command))
}

/// The upper-case command a lower-case (or mixed-case) word that `command` does not know
/// stands for, if any: the contract's commands are upper-case words.
fn upper_case_tip(error: &clap::Error, command: &Command) -> Option<String> {
    let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidSubcommand) else { return None };
    let upper = word.to_uppercase();
    let known =
        command.get_subcommands().any(|sub| sub.get_name() == upper || sub.get_all_aliases().any(|a| a == upper));
    known.then(|| format!("  tip: the commands are upper-case words: '{upper}'\n"))
}

/// Help and version on standard output with status 0; a bare `bhref` prints its help on
/// standard error with status 2, as it always did; any other error is `bhref: ` and clap's
/// message (which ends with a usage line and a pointer to `--help`), status 2.
fn report_clap(error: clap::Error, command: &Command) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            ExitCode::from(2)
        }
        _ => {
            let mut text = error.render().to_string();
            if let (Some(tip), Some(at)) = (upper_case_tip(&error, command), text.find("\nUsage:")) {
                text.insert_str(at, &format!("\n{tip}"));
            }
            eprint!("bhref: {}", text.strip_prefix("error: ").unwrap_or(&text));
            ExitCode::from(2)
        }
    }
}

/// Prints a failure and gives its status.
pub fn report(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, status }) => {
            eprintln!("bhref: {}", message.trim_end());
            ExitCode::from(status)
        }
    }
}
