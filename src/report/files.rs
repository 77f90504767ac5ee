//! The output folder: events → each student's files as the student finishes, then the class
//! files (summary, gradebooks, JUnit, class page) and last the roster that says the marking
//! finished; every file written atomically.

use std::path::PathBuf;

use super::{export, feedback, html, markdown, roster};
use super::{Event, ReportError, Reporter, StudentOutput, ROSTER_FILE};
use crate::fsutil::write_atomically;
use crate::results::model::{self, ClassReport, StudentReport};
use crate::results::text;
use crate::suite::LeftOut;

/// Files in the output folder: each student's [`StudentOutput`]s as the student finishes;
/// `summary.md`, `grades.csv`, `canvas.csv`, `junit.xml`, the class page `index.html` and the
/// roster `class.json` at the end (the roster last: it says the marking finished). Every file
/// is written atomically.
pub struct Files {
    pub dir: PathBuf,
    /// What the marking left out (`bhgrade test` without `--all`), said in every report.
    pub left_out: Option<LeftOut>,
    /// The class roster (`mark --roster`): `canvas.csv` has its rows, the summary says who on
    /// it handed nothing in and which submissions are no one's on it.
    pub roster: Option<roster::Roster>,
}

impl Files {
    /// Files in `dir`, of a marking that left nothing out, with no roster.
    pub fn new(dir: PathBuf) -> Files {
        Files { dir, left_out: None, roster: None }
    }

    /// What `output` holds for `report`; `None` when it has nothing to say (a Gradescope file of
    /// a submission the harness could not judge).
    fn render(&self, output: StudentOutput, report: &StudentReport) -> Result<Option<String>, ReportError> {
        let left_out = self.left_out.as_ref();
        Ok(match output {
            StudentOutput::Report => Some(markdown::student(report, left_out)?),
            StudentOutput::Data => Some(serde_json::to_string_pretty(report).expect("reports serialise")),
            StudentOutput::Feedback => Some(feedback::student(report, left_out)?),
            StudentOutput::Gradescope => export::gradescope::to_json(report),
            StudentOutput::PrairieLearn => Some(export::prairielearn::to_json(report)),
        })
    }

    /// Removes `name` (a path relative to the output folder) if it is there.
    fn remove(&self, name: &str) -> Result<(), ReportError> {
        let path = self.dir.join(name);
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(ReportError::Write { path, error }),
            Ok(()) | Err(_) => Ok(()),
        }
    }

    /// Writes `name` (a path relative to the output folder) atomically, making its folder.
    fn write(&self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        let path = self.dir.join(name);
        let parent = path.parent().unwrap_or(&self.dir).to_path_buf();
        std::fs::create_dir_all(&parent)
            .and_then(|()| write_atomically(&path, bytes))
            .map_err(|error| ReportError::Write { path, error })
    }
}

impl Files {
    /// Moves the reports of students an earlier marking into this folder listed and this one
    /// did not (a reused `--out`) into `stale/`, and says so, so that no one mistakes them for
    /// this class's.
    fn set_aside_stale_reports(&self, class: &ClassReport) -> Result<(), ReportError> {
        let roster_path = self.dir.join(ROSTER_FILE);
        let Ok(bytes) = std::fs::read(&roster_path) else { return Ok(()) };
        let Ok(old) = serde_json::from_slice::<model::ClassRoster>(&bytes) else { return Ok(()) };
        let current: std::collections::HashSet<&str> =
            class.students.iter().map(|s| s.student.as_str()).chain(class.incomplete_names()).collect();
        let stale_dir = self.dir.join("stale");
        for name in old.students.iter().filter(|name| !current.contains(name.as_str())) {
            for file in StudentOutput::ALL.map(|output| output.file(name)) {
                let from = self.dir.join(&file);
                if !from.is_file() {
                    continue;
                }
                let to = stale_dir.join(&file);
                to.parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::rename(&from, &to))
                    .map_err(|error| ReportError::Write { path: to.clone(), error })?;
            }
            crate::say!(
                "note: {} was marked into {} before but is not in this marking; its reports were moved to {}",
                text::terminal(name),
                self.dir.display(),
                stale_dir.display()
            );
        }
        Ok(())
    }
}

impl Reporter for Files {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::RunDone { .. } => Ok(()),
            Event::StudentDone { report, .. } => {
                for output in StudentOutput::ALL {
                    let file = output.file(&report.student);
                    match self.render(output, report)? {
                        Some(text) => self.write(&file, text.as_bytes())?,
                        // Not judged: no score at all, and none left from an earlier marking.
                        None => self.remove(&file)?,
                    }
                }
                Ok(())
            }
            Event::Finished(class) => {
                let notes = super::roster::LmsNotes::of(class, self.roster.as_ref());
                let mut summary = markdown::summary(class)?;
                summary.push_str(&markdown::lms_sections(&notes));
                self.write("summary.md", summary.as_bytes())?;
                self.write("grades.csv", markdown::grades_csv(class).as_bytes())?;
                self.write("canvas.csv", export::canvas::gradebook(class, self.roster.as_ref()).as_bytes())?;
                self.write("junit.xml", export::junit::xml(class).as_bytes())?;
                self.write("index.html", html::class_page(class, &notes)?.as_bytes())?;
                self.set_aside_stale_reports(class)?;
                let roster = serde_json::to_string_pretty(&class.roster()).expect("rosters serialise");
                self.write(ROSTER_FILE, roster.as_bytes())
            }
        }
    }
}
