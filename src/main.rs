//! The `bhgrade` command line: parses arguments, runs the library, and is the only place that
//! turns errors into messages and exit statuses (documented in the README).

// One module style: `name.rs` beside its folder `name/`, never `name/mod.rs`.
#![deny(clippy::mod_module_files)]
// Standard output and error through `say!` and `tell!` (report::console), which drop what a
// closed or full stream cannot take; `println!` and `eprintln!` panic there.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(exit) => exit.into(),
        Err(error) => {
            // Errors quote paths and text a student chose.
            bhgrade::say!("bhgrade: {}", bhgrade::results::text::terminal(&error.to_string()));
            error.exit().into()
        }
    }
}
