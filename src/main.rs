//! The `bhgrade` command line: parses arguments, runs the library, and is the only place that
//! turns errors into messages and exit statuses (documented in the README).

// One module style: `name.rs` beside its folder `name/`, never `name/mod.rs`.
#![deny(clippy::mod_module_files)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(exit) => exit.into(),
        Err(error) => {
            // Errors quote paths and text a student chose.
            eprintln!("bhgrade: {}", bhgrade::results::text::terminal(&error.to_string()));
            error.exit().into()
        }
    }
}
