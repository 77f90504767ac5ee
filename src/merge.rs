//! Merging shards: the output folders of `bhgrade mark --shard K/N` runs → one [`ClassReport`]
//! (from which the reporters write the summary and gradebook).
//!
//! Each folder's `class.json` ([`ClassRoster`]) says which student reports it holds, which
//! students it did not mark and its harness problems: exactly those reports are read (a stale
//! report left in a reused folder is not), a listed report that is missing is an error, and
//! the rest carries over. Shards merge only if marked with the same suite digest (tests,
//! weights, limits, expected answers) by the same bhgrade.

use std::path::{Path, PathBuf};

use crate::report::{student_file, ROSTER_FILE};
use crate::results::model::{ClassHeader, ClassReport, ClassRoster, ProblemKind, StudentReport};

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("cannot read {path}: {error}")]
    Read { path: PathBuf, error: std::io::Error },
    #[error("{path}: not a bhgrade {what}: {error}")]
    Parse { path: PathBuf, what: &'static str, error: serde_json::Error },
    #[error("{}: no {ROSTER_FILE}; is it the --out folder of a finished `bhgrade mark`?", dir.display())]
    NoRoster { dir: PathBuf },
    #[error("{}: {student} is listed in {ROSTER_FILE} but its report {student}.json is missing", dir.display())]
    MissingReport { dir: PathBuf, student: String },
    #[error("{path}: marked with suite `{found}`, but other shards used `{expected}`")]
    SuiteDiffers { path: PathBuf, expected: String, found: String },
    #[error(
        "{path}: marked with a different version of suite `{suite}` (its tests, weights, limits or expected \
         answers differ: digest {found}, other shards {expected}); mark every shard with the same suite"
    )]
    SuiteDigestDiffers { path: PathBuf, suite: String, expected: String, found: String },
    #[error("{path}: marked by bhgrade {found}, but other shards by {expected}")]
    VersionDiffers { path: PathBuf, expected: String, found: String },
    #[error("student {student} is in more than one shard ({path})")]
    Duplicate { student: String, path: PathBuf },
    #[error("no student reports in {0:?}")]
    Empty(Vec<PathBuf>),
}

/// Reads every shard's roster and the student reports it lists, and combines them.
pub fn merge(dirs: &[PathBuf]) -> Result<ClassReport, MergeError> {
    let mut students: Vec<StudentReport> = Vec::new();
    let (mut incomplete, mut problems) = (Vec::new(), Vec::new());
    for dir in dirs {
        let roster = read_roster(dir)?;
        for name in &roster.students {
            let path = dir.join(student_file(name, "json"));
            if !path.is_file() {
                return Err(MergeError::MissingReport { dir: dir.clone(), student: name.clone() });
            }
            let report: StudentReport = read_json(&path, "student report")?;
            if let Some(first) = students.first() {
                check_same_marking(first, &report, &path)?;
            }
            if students.iter().any(|s| s.student == report.student) {
                return Err(MergeError::Duplicate { student: report.student, path });
            }
            students.push(report);
        }
        incomplete.extend(roster.incomplete);
        // Tests that could not be judged are found again in the reports themselves.
        problems.extend(roster.harness_problems.into_iter().filter(|p| p.kind != ProblemKind::NotJudged));
    }
    students.sort_by(|a, b| a.student.cmp(&b.student));
    let Some(first) = students.first() else { return Err(MergeError::Empty(dirs.to_vec())) };
    let header = ClassHeader {
        suite: first.suite.clone(),
        suite_title: first.suite_title.clone(),
        suite_digest: first.suite_digest.clone(),
        part_ids: first.parts.iter().map(|p| p.id.clone()).collect(),
        max_score: first.max_score,
    };
    let environment = first.environment.clone();
    Ok(ClassReport::new(header, students, environment, problems, incomplete))
}

fn check_same_marking(first: &StudentReport, report: &StudentReport, path: &Path) -> Result<(), MergeError> {
    let path = path.to_path_buf();
    if first.suite != report.suite {
        return Err(MergeError::SuiteDiffers { path, expected: first.suite.clone(), found: report.suite.clone() });
    }
    if first.suite_digest != report.suite_digest {
        return Err(MergeError::SuiteDigestDiffers {
            path,
            suite: report.suite.clone(),
            expected: first.suite_digest.clone(),
            found: report.suite_digest.clone(),
        });
    }
    let (expected, found) = (&first.environment.bhgrade_version, &report.environment.bhgrade_version);
    if expected != found {
        return Err(MergeError::VersionDiffers { path, expected: expected.clone(), found: found.clone() });
    }
    Ok(())
}

fn read_roster(dir: &Path) -> Result<ClassRoster, MergeError> {
    let path = dir.join(ROSTER_FILE);
    if !dir.is_dir() {
        let error = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
        return Err(MergeError::Read { path: dir.to_path_buf(), error });
    }
    if !path.is_file() {
        return Err(MergeError::NoRoster { dir: dir.to_path_buf() });
    }
    read_json(&path, "class roster")
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &'static str) -> Result<T, MergeError> {
    let bytes = std::fs::read(path).map_err(|error| MergeError::Read { path: path.to_path_buf(), error })?;
    serde_json::from_slice(&bytes).map_err(|error| MergeError::Parse { path: path.to_path_buf(), what, error })
}
