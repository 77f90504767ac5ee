//! `bhgrade release-assets DIR` (hidden): the man pages and shell completions of `bhgrade` and
//! `bhref`, made from their clap definitions, for the release archive (`.ci/release`).

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use super::args::Cli;
use super::CliError;

/// Writes `DIR/man/*.1` (each command and subcommand) and `DIR/completions/` (bash, zsh, fish).
pub fn write(dir: &Path) -> Result<super::exit::Exit, CliError> {
    let failed = |what: &str, error: std::io::Error| CliError::Harness(format!("{}: {what}: {error}", dir.display()));
    let (man, completions) = (dir.join("man"), dir.join("completions"));
    for folder in [&man, &completions] {
        std::fs::create_dir_all(folder).map_err(|e| failed("cannot make a folder", e))?;
    }
    let commands = [Cli::command(), bhref::games::command()];
    for command in commands {
        let name = command.get_name().to_string();
        clap_mangen::generate_to(command.clone(), &man).map_err(|e| failed("cannot write the man pages", e))?;
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            clap_complete::generate_to(shell, &mut command.clone(), &name, &completions)
                .map_err(|e| failed("cannot write the completions", e))?;
        }
    }
    Ok(super::exit::Exit::Success)
}
