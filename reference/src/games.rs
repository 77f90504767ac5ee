//! The registry of games: a suite's `game:` name → its reference [`Referee`], and `bhref`'s
//! command line → the game whose parser reads it.
//!
//! Input: a name such as `blackhole`, or the process's arguments. Output: the game's referee
//! (`None` for a name no game has), or the exit status after the game's command has printed
//! the students' contract ([`crate::blackhole::cli`], [`crate::latebinding::cli`]). The one
//! place above the games, so that the harness names none: a new game adds a module beside
//! [`crate::blackhole`], a line in [`referee`] and an arm in [`command_line`] (with its
//! [`GameName`]).
//!
//! A leading `--game NAME` picks the game, and with it the parser: each game's clap command
//! has its own words (`CHECKWORM` is Black Hole's, `GRACESOLVE` Late Binding's), arguments and
//! help, and both take `--game`, `--help` and `--version`; what they share is [`crate::cli`].

use std::ffi::OsString;
use std::process::ExitCode;

use clap::ValueEnum;

use crate::blackhole::referee::BlackHoleReferee;
use crate::cli::GameName;
use crate::latebinding::referee::LateBindingReferee;
use crate::referee::Referee;

/// The names a suite may give as its `game:`, oldest practical first.
pub fn names() -> &'static [&'static str] {
    &["blackhole", "latebinding"]
}

/// The reference of the game called `name`, with its default solver budget.
pub fn referee(name: &str) -> Option<Box<dyn Referee>> {
    match name {
        "blackhole" => Some(Box::new(BlackHoleReferee::default())),
        "latebinding" => Some(Box::new(LateBindingReferee::default())),
        _ => None,
    }
}

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
pub fn command_line(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    match chosen_game(&args) {
        GameName::Blackhole => crate::blackhole::cli::main(args),
        GameName::Latebinding => crate::latebinding::cli::main(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_referee_and_no_other_does() {
        for name in names() {
            assert!(referee(name).is_some(), "{name}");
        }
        assert!(referee("chess").is_none());
        assert_eq!(referee("latebinding").unwrap().name(), "Late Binding Solitaire");
    }
}
