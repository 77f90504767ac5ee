//! Every exit status bhgrade ends with, named once: commands return an [`Exit`] (or a
//! [`CliError`](super::CliError), which carries one), each command's `--help` is written from
//! [`help`], and a test holds the README's table of exit statuses to [`Exit::ALL`].

/// How a `bhgrade` command ended, as its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did what was asked (a marking marked everyone, whatever their marks).
    Success,
    /// 1: a check the command exists to make did not pass (a test, a step, an up-to-date suite).
    NotPassed,
    /// 2: the input was wrong: a suite, the submissions, a roster, the arguments.
    BadInput,
    /// 3: the harness itself failed: never the student's fault.
    HarnessFailed,
    /// 130 (128 + SIGINT): stopped cleanly by Ctrl-C.
    Interrupted,
    /// 143 (128 + SIGTERM): stopped cleanly by SIGTERM (`timeout`, Slurm, systemd).
    Terminated,
}

impl Exit {
    /// Every status, in the order of the README's table.
    pub const ALL: [Exit; 6] =
        [Exit::Success, Exit::NotPassed, Exit::BadInput, Exit::HarnessFailed, Exit::Interrupted, Exit::Terminated];

    /// The number the process exits with: 128 + the signal for a stop, as shells report a
    /// death by it, so a script or a scheduler can tell which ended marking.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::NotPassed => 1,
            Exit::BadInput => 2,
            Exit::HarnessFailed => 3,
            Exit::Interrupted => 128 + libc::SIGINT as u8,
            Exit::Terminated => 128 + libc::SIGTERM as u8,
        }
    }

    /// What the status means for every command that can end with it (0 and 1 are each
    /// command's own, given to [`help`]).
    fn shared_meaning(self) -> &'static str {
        match self {
            Exit::Success | Exit::NotPassed => "",
            Exit::BadInput => "bad input (the suite, the submissions, an --out among them, a roster, the arguments)",
            Exit::HarnessFailed => "the harness itself failed (named in the summary)",
            Exit::Interrupted => "stopped by Ctrl-C (SIGINT)",
            Exit::Terminated => {
                "stopped by SIGTERM: finished results are kept and what was not marked is blank in the gradebooks; \
                 run the same command again to finish"
            }
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        exit.code().into()
    }
}

/// The "Exit status:" paragraph of a command's `--help`: its own meaning of 0 and, for a command
/// that checks something, of 1; bad input and the harness's failure; and, for a command that
/// marks, the two clean stops.
pub fn help(success: &str, not_passed: Option<&str>, stoppable: bool) -> String {
    let own = [(Exit::Success, Some(success)), (Exit::NotPassed, not_passed)];
    let own = own.into_iter().filter_map(|(exit, meaning)| Some(format!("{} {}", exit.code(), meaning?)));
    let stops = [Exit::Interrupted, Exit::Terminated].into_iter().filter(|_| stoppable);
    let shared = [Exit::BadInput, Exit::HarnessFailed]
        .into_iter()
        .chain(stops)
        .map(|exit| format!("{} {}", exit.code(), exit.shared_meaning()));
    let statuses: Vec<String> = own.chain(shared).collect();
    format!("{HEADING}{}.", statuses.join("; "))
}

/// How the paragraph [`help`] writes begins.
const HEADING: &str = "Exit status: ";

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of exit statuses: its first column, in order.
    fn readme_statuses() -> Vec<u8> {
        let readme = include_str!("../../README.md");
        let table = readme.split("### Exit statuses").nth(1).expect("the README has a section `### Exit statuses`");
        table
            .lines()
            .skip_while(|line| !line.starts_with("| status"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|line| line.trim_matches('|').split('|').next().unwrap().trim())
            .map(|cell| cell.parse().unwrap_or_else(|_| panic!("README exit status `{cell}` is not a number")))
            .collect()
    }

    #[test]
    fn the_readme_lists_exactly_the_exit_statuses_there_are() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|exit| exit.code()).collect();
        assert_eq!(readme_statuses(), codes);
    }

    /// The statuses a `--help` paragraph written by [`help`] names, in order.
    fn statuses_in(help_text: &str) -> Vec<u8> {
        let Some((_, paragraph)) = help_text.split_once(HEADING) else { return Vec::new() };
        paragraph.split("; ").filter_map(|status| status.split(' ').next()?.parse().ok()).collect()
    }

    /// Every command a user can run (a command with subcommands stands for them), with its name.
    fn leaves(command: &clap::Command, name: String) -> Vec<(String, clap::Command)> {
        match command.has_subcommands() {
            false => vec![(name, command.clone())],
            true => command
                .get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .flat_map(|sub| leaves(sub, format!("{name} {}", sub.get_name())))
                .collect(),
        }
    }

    #[test]
    fn every_commands_help_lists_its_exit_statuses() {
        use clap::CommandFactory;
        let checking = [
            "bhgrade test",
            "bhgrade stacscheck",
            "bhgrade regen",
            "bhgrade merge",
            "bhgrade suite floor",
            "bhgrade suite leaks",
        ];
        let marking = ["bhgrade mark", "bhgrade test", "bhgrade stacscheck"];
        let cli = super::super::Cli::command();
        let all: Vec<u8> = Exit::ALL.into_iter().map(Exit::code).collect();
        let overview = cli.get_after_help().map(ToString::to_string).unwrap_or_default();
        assert_eq!(statuses_in(&overview), all, "`bhgrade --help`:\n{overview}");
        for (name, command) in leaves(&cli, "bhgrade".into()) {
            let text = command.get_after_help().map(ToString::to_string).unwrap_or_default();
            let wanted: Vec<u8> = Exit::ALL
                .into_iter()
                .filter(|exit| match exit {
                    Exit::Success | Exit::BadInput | Exit::HarnessFailed => true,
                    Exit::NotPassed => checking.contains(&name.as_str()),
                    Exit::Interrupted | Exit::Terminated => marking.contains(&name.as_str()),
                })
                .map(Exit::code)
                .collect();
            assert_eq!(statuses_in(&text), wanted, "`{name} --help`:\n{text}");
        }
    }
}
