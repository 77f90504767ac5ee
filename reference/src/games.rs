//! The registry of games: one table ([`GAMES`]) of what the rest of the reference and the harness
//! need of each game — its name, a line of help, its referee and its command line.
//!
//! Input: a suite's `game:` name, or `bhref`'s arguments. Output: the game's referee (`None` for
//! a name no game has), or the exit status after the game's command has printed the students'
//! contract. The one place above the games, so that the harness names none: a new game is a
//! module beside [`crate::blackhole`] and one row of [`GAMES`].
//!
//! A leading `--game NAME` picks the game, and with it the parser: each game's clap command
//! has its own words (`CHECKWORM` is Black Hole's, `GRACESOLVE` Late Binding's), arguments and
//! help, and all take `--game` (its values and default set here from the table), `--help` and
//! `--version`; what they share is [`crate::cli`].

use std::ffi::OsString;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::CommandFactory;

use crate::referee::Referee;

/// One game, as the registry knows it.
pub struct Game {
    /// A suite's `game:` and the value of `bhref --game`.
    pub name: &'static str,
    /// One line for `--game`'s help: the game and its practical.
    pub about: &'static str,
    /// Its reference, with its default solver budget.
    pub referee: fn() -> Box<dyn Referee>,
    /// Its clap command (without `--game`'s values, which the registry adds before parsing).
    pub command: fn() -> clap::Command,
    /// Runs its command line, parsed by that command as the registry completed it.
    pub main: fn(clap::Command, Vec<OsString>) -> ExitCode,
}

/// Every game, oldest practical first; the first is `bhref`'s default.
pub const GAMES: &[Game] = &[
    Game {
        name: "blackhole",
        about: "Black Hole and Worm Hole patience (the 2021 practical)",
        referee: || Box::new(crate::blackhole::referee::BlackHoleReferee::default()),
        command: crate::blackhole::cli::BlackHoleCli::command,
        main: crate::blackhole::cli::main,
    },
    Game {
        name: "latebinding",
        about: "Late Binding Solitaire (the 2022 practical)",
        referee: || Box::new(crate::latebinding::referee::LateBindingReferee::default()),
        command: crate::latebinding::cli::LateBindingCli::command,
        main: crate::latebinding::cli::main,
    },
    Game {
        name: "gaps",
        about: "Gaps, or Montana (seed 001's game: a third practical)",
        referee: || Box::new(crate::gaps::referee::GapsReferee::default()),
        command: crate::gaps::cli::GapsCli::command,
        main: crate::gaps::cli::main,
    },
    Game {
        name: "superpuzz",
        about: "Superpuzz (seed 003's game: Gaps' common variant on 4 suits, marked by the fewest moves)",
        referee: || Box::new(crate::superpuzz::referee::SuperpuzzReferee::default()),
        command: crate::superpuzz::cli::SuperpuzzCli::command,
        main: crate::superpuzz::cli::main,
    },
];

/// The names a suite may give as its `game:`, oldest practical first.
pub fn names() -> Vec<&'static str> {
    GAMES.iter().map(|game| game.name).collect()
}

/// The reference of the game called `name`, with its default solver budget.
pub fn referee(name: &str) -> Option<Box<dyn Referee>> {
    GAMES.iter().find(|game| game.name == name).map(|game| (game.referee)())
}

/// The game a command line asks for: the value of a `--game` among the options before the
/// command word (`bhref stats` has a `--game` of its own after it). A missing or unknown
/// value picks the first game, whose parser then reports it.
fn chosen_game(args: &[OsString]) -> &'static Game {
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
        return value.and_then(|value| GAMES.iter().find(|game| game.name == value)).unwrap_or(&GAMES[0]);
    }
    &GAMES[0]
}

/// `game`'s clap command with `--game`'s possible values (each with its line of help) and
/// default taken from [`GAMES`].
fn command_for(game: &Game) -> clap::Command {
    let values: Vec<PossibleValue> = GAMES.iter().map(|game| PossibleValue::new(game.name).help(game.about)).collect();
    (game.command)()
        .mut_arg("game", |arg| arg.value_parser(PossibleValuesParser::new(values)).default_value(GAMES[0].name))
}

/// The clap command of `bhref` without `--game` (the default game's), for its man page and
/// shell completions.
pub fn command() -> clap::Command {
    command_for(&GAMES[0])
}

/// Runs `bhref` on `args` (the program's name first); returns its exit status.
pub fn command_line(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    let game = chosen_game(&args);
    (game.main)(command_for(game), args)
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

    #[test]
    fn every_game_parses_its_own_name() {
        for game in GAMES {
            let args = ["bhref", "--game", game.name, "--help"].map(OsString::from);
            assert_eq!(chosen_game(&args).name, game.name);
            command_for(game).debug_assert();
        }
    }
}
