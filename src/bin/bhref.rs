//! The `bhref` binary: the reference speaking exactly the students' command-line contract,
//! `bhref [--game blackhole|latebinding] COMMAND ...` (`bhref --help`).
//!
//! Input: the command line, a puzzle file (or `-` for standard input) and, for the check
//! commands, a candidate solution from a file or standard input. Output: the contract's first
//! line (`true`/`false`; `1 p c ...`/`0`/`-1`, or Late Binding's `n c1 d1 ...`/`-1`), optional
//! extra lines asked for by flags, or a generated puzzle; `bhref: message` on standard error and
//! exit status 2 for a bad puzzle or bad usage (3 for an undecided Late Binding solve).
//!
//! The parsing and the commands live in the reference's library: [`bhref::games`] picks the
//! game, whose command line ([`bhref::blackhole::cli`], the default, or
//! [`bhref::latebinding::cli`]) is built on what both share ([`bhref::cli`]). The binary is built
//! from the harness's package, so `cargo install --path .` installs it beside `bhgrade`.

use std::process::ExitCode;

fn main() -> ExitCode {
    bhref::games::command_line(std::env::args_os())
}
