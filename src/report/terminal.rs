//! `bhgrade test`'s report on standard output: each finished student → its markdown report
//! (with `quiet`, its score line), and how to run a failed test again.

use std::path::PathBuf;

use super::{markdown, Event, ReportError, Reporter};
use crate::results::model::StudentReport;
use crate::suite::LeftOut;

/// A student's markdown report on standard output (what `bhgrade test` shows); with `quiet`,
/// only its score line.
#[derive(Default)]
pub struct Terminal {
    /// What the marking left out (`bhgrade test` without `--all`), said in the report.
    pub left_out: Option<LeftOut>,
    pub quiet: bool,
    /// The variable the report's lines to run a test again start from (`SUITE`, a suite's
    /// folder; `TREE`, a stacscheck tree's), and the folder it stands for.
    pub rerun_from: Option<(&'static str, PathBuf)>,
}

impl Terminal {
    /// The line that says what `SUITE` (or `TREE`) is, when the report shows a line to run a
    /// test again.
    fn suite_line(&self, report: &StudentReport) -> String {
        let shows_a_run = report.parts.iter().flat_map(|part| &part.tests).any(|test| {
            test.visible && test.verdict != crate::verdict::Verdict::Accepted && !test.reproduce.is_empty()
        });
        match (&self.rerun_from, shows_a_run) {
            (Some((name, dir)), true) => {
                let dir = crate::sandbox::shell_quote(dir.as_os_str());
                format!("\nTo run a test above yourself, from the submission's source folder: export {name}={dir}\n")
            }
            _ => String::new(),
        }
    }
}

impl Reporter for Terminal {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::RunDone { .. } | Event::Finished(_) => Ok(()),
            Event::StudentDone { report, .. } => {
                let text = match self.quiet {
                    true => format!(
                        "{}: {} / {}\n",
                        report.student,
                        crate::score::format(report.score),
                        crate::score::format(report.max_score)
                    ),
                    false => markdown::student(report, self.left_out.as_ref())? + &self.suite_line(report),
                };
                // A reader that left (`| head`) or a full disk loses the report's text, never
                // the marking (the report is also the class's files, where there are any).
                super::console::stdout_text(&text);
                Ok(())
            }
        }
    }
}
