//! `bhref`'s command line, `bhref [--game blackhole|latebinding] COMMAND ...`: which game's
//! parser (clap) reads it.
//!
//! Input: the process's arguments. Output: the exit status, after the game's command has
//! printed the students' contract (see [`crate::blackhole::cli`] and [`crate::latebinding::cli`]).
//!
//! A leading `--game NAME` picks the game, and with it the parser: each game's clap command
//! has its own words (`CHECKWORM` is Black Hole's, `GRACESOLVE` Late Binding's), arguments and
//! help, and both take `--game`, `--help` and `--version`. What they share lives in
//! [`shared`], below both; this file only dispatches. Adding a game: a variant of
//! [`GameName`] and its arm in [`main`].

pub mod shared;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::ValueEnum;

pub use shared::GameName;

/// The game a command line asks for: the value of a `--game` among the options before the
/// command word (`bhref stats` has a `--game` of its own after it). A missing or unknown
/// value picks Black Hole, whose parser then reports it.
fn chosen_game(args: &[OsString]) -> GameName {
    let mut args = args.iter().skip(1).map(|arg| arg.to_str().unwrap_or(""));
    while let Some(arg) = args.next() {
        let value = if arg == "--game" {
            args.next()
        } else if let Some(value) = arg.strip_prefix("--game=") {
            Some(value)
        } else if arg.starts_with('-') && arg != "-" {
            continue;
        } else {
            break;
        };
        return value.and_then(|value| GameName::from_str(value, false).ok()).unwrap_or_default();
    }
    GameName::Blackhole
}

/// The clap command of `bhref` without `--game` (the default game's), for its man page and
/// shell completions.
pub fn command() -> clap::Command {
    <crate::blackhole::cli::BlackHoleCli as clap::CommandFactory>::command()
}

/// Runs `bhref` on `args` (the program's name first); returns its exit status.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    match chosen_game(&args) {
        GameName::Blackhole => crate::blackhole::cli::main(args),
        GameName::Latebinding => crate::latebinding::cli::main(args),
    }
}
