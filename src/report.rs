//! Reports: the pipeline's [`Event`]s → output. The pipeline never prints; each [`Reporter`]
//! turns events into one kind of output (progress on the terminal, files in the output folder,
//! a report on standard output), one file each, so a new format touches only its reporter; no
//! reporter depends on another's place in the list. Here: the events, the trait, and the names
//! of the output folder's files ([`StudentOutput`], [`ROSTER_FILE`]).

pub mod console;
pub mod export;
mod exports;
pub mod feedback;
mod files;
mod html;
pub mod markdown;
mod progress;
mod rejudge;
pub mod roster;
mod terminal;

pub use exports::Exports;
pub use files::Files;
pub use progress::{human_duration, Progress};
pub use rejudge::Rejudge;
pub use terminal::Terminal;

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::results::model::{ClassReport, StudentReport};
use crate::results::text;

/// What the pipeline tells the reporters, in order.
#[derive(Clone, Debug)]
pub enum Event {
    /// Marking starts: how many submissions, and how many tests each.
    Started { submissions: usize, tests: usize },
    /// A run of `student`'s program ended, answering `tests` tests (for progress by test).
    RunDone { student: String, tests: usize },
    /// One submission is fully marked; `reused_runs` of its runs came from an earlier marking.
    StudentDone { report: Box<StudentReport>, reused_runs: usize },
    /// Every submission is marked.
    Finished(Box<ClassReport>),
}

/// A consumer of events that produces one kind of output.
pub trait Reporter {
    fn event(&mut self, event: &Event) -> Result<(), ReportError>;
}

/// Why a reporter could not write.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {error}")]
    Write { path: PathBuf, error: std::io::Error },
    #[error("cannot render a report: {0}")]
    Render(#[from] minijinja::Error),
}

/// Whether output may be coloured: `--color auto|always|never`; `auto` colours a terminal
/// unless `NO_COLOR` is set to anything (<https://no-color.org>).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour what goes to standard error.
    pub fn for_stderr(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// The roster every marking writes into its output folder (read back by [`crate::merge`]).
pub const ROSTER_FILE: &str = "class.json";

/// The folder of the per-student files, so that no student's name (`summary`, `index`,
/// `grades`) can be a class file's.
pub const STUDENTS_DIR: &str = "students";

/// A student's report file (`extension` "md" or "json") relative to the output folder.
pub fn student_file(student: &str, extension: &str) -> String {
    format!("{STUDENTS_DIR}/{student}.{extension}")
}

/// The files written for each student as the student finishes, listed once: [`Files`] writes
/// them, and sets them aside when a reused output folder holds a student this marking has not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StudentOutput {
    /// `students/STUDENT.md`: the marker's report.
    Report,
    /// `students/STUDENT.json`: the same, as data (read back by [`crate::merge`]).
    Data,
    /// `feedback/STUDENT.md`: the report to hand the student.
    Feedback,
    /// `gradescope/STUDENT.json`: Gradescope's results file (none for a submission not judged).
    Gradescope,
    /// `prairielearn/STUDENT.json`: PrairieLearn's results file.
    PrairieLearn,
}

impl StudentOutput {
    pub const ALL: [StudentOutput; 5] = [
        StudentOutput::Report,
        StudentOutput::Data,
        StudentOutput::Feedback,
        StudentOutput::Gradescope,
        StudentOutput::PrairieLearn,
    ];

    /// This output's file for `student`, relative to the output folder.
    pub fn file(self, student: &str) -> String {
        match self {
            StudentOutput::Report => student_file(student, "md"),
            StudentOutput::Data => student_file(student, "json"),
            StudentOutput::Feedback => format!("feedback/{student}.md"),
            StudentOutput::Gradescope => format!("gradescope/{student}.json"),
            StudentOutput::PrairieLearn => format!("prairielearn/{student}.json"),
        }
    }
}

/// The link from a class page in the output folder (`summary.md`, `index.html`) to a student's
/// markdown report, the name encoded whole.
pub fn student_link(student: &str) -> String {
    format!("{STUDENTS_DIR}/{}.md", text::percent_encode(student, b""))
}
