//! The rejudge preview: the verdicts an earlier marking into the same folder gave, read when
//! marking starts, and each student's new ones as they finish → a line on standard error per
//! verdict that changed (after a suite fix or a rebuilt reference).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::{Event, ReportError, Reporter, STUDENTS_DIR};
use crate::results::model::StudentReport;
use crate::results::text;
use crate::verdict::Verdict;

/// Tells which verdicts changed since the last marking into `dir`. It reads the earlier reports
/// when marking starts, so it may go before or after [`super::Files`] in the list of reporters.
pub struct Rejudge {
    pub dir: PathBuf,
    /// Each earlier student's verdicts by test, as found when marking started.
    earlier: HashMap<String, BTreeMap<String, Verdict>>,
}

impl Rejudge {
    /// A preview against the reports in `dir`.
    pub fn new(dir: PathBuf) -> Rejudge {
        Rejudge { dir, earlier: HashMap::new() }
    }

    /// Every student's verdicts in the reports `dir` holds now (each [`super::StudentOutput::Data`]; a
    /// report that cannot be read is no earlier marking's).
    fn read_earlier(&mut self) {
        let Ok(entries) = std::fs::read_dir(self.dir.join(STUDENTS_DIR)) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let Ok(old) = serde_json::from_slice::<StudentReport>(&bytes) else { continue };
            self.earlier.insert(old.student.clone(), verdicts(&old).collect());
        }
    }
}

/// A report's verdicts, test by test.
fn verdicts(report: &StudentReport) -> impl Iterator<Item = (String, Verdict)> + '_ {
    report.parts.iter().flat_map(|p| &p.tests).map(|t| (t.id.clone(), t.verdict))
}

impl Reporter for Rejudge {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } => self.read_earlier(),
            Event::RunDone { .. } | Event::Finished(_) => {}
            Event::StudentDone { report, .. } => {
                let Some(before) = self.earlier.remove(&report.student) else { return Ok(()) };
                let student = text::terminal(&report.student);
                for (test, now) in verdicts(report) {
                    match before.get(&test) {
                        Some(was) if *was != now => {
                            crate::say!("rejudge: {student}: {test}: {} -> {}", was.name(), now.name())
                        }
                        Some(_) => {}
                        None => crate::say!("rejudge: {student}: {test}: new test, {}", now.name()),
                    }
                }
            }
        }
        Ok(())
    }
}
