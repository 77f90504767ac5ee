//! `bhgrade test`'s export files: the finished class → the Gradescope, PrairieLearn and JUnit
//! files asked for, at the paths given.

use std::path::PathBuf;

use super::{export, Event, ReportError, Reporter};
use crate::fsutil::write_atomically;

/// The export files `bhgrade test` was asked for (`--gradescope`, `--junit`, `--prairielearn`),
/// written once the submission is marked.
#[derive(Default)]
pub struct Exports {
    pub gradescope: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub prairielearn: Option<PathBuf>,
}

impl Exports {
    fn write(path: &std::path::Path, text: &str) -> Result<(), ReportError> {
        write_atomically(path, text.as_bytes()).map_err(|error| ReportError::Write { path: path.to_path_buf(), error })
    }
}

impl Reporter for Exports {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::RunDone { .. } | Event::StudentDone { .. } => Ok(()),
            Event::Finished(class) => {
                // One submission: its results are the files (nothing, if marking was stopped).
                if let (Some(path), Some(student)) = (&self.gradescope, class.students.first()) {
                    // A submission the harness could not judge gets no file (and bhgrade exits 3).
                    if let Some(gradescope) = export::gradescope::to_json(student) {
                        Self::write(path, &gradescope)?;
                    }
                }
                if let (Some(path), Some(student)) = (&self.prairielearn, class.students.first()) {
                    Self::write(path, &export::prairielearn::to_json(student))?;
                }
                if let Some(path) = &self.junit {
                    Self::write(path, &export::junit::xml(class))?;
                }
                Ok(())
            }
        }
    }
}
