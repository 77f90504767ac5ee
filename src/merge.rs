//! Merging shards: the output folders of `bhgrade mark --shard K/N` runs → one [`ClassReport`]
//! (from which the reporters write the summary and gradebook).

use std::path::{Path, PathBuf};

use crate::report::model::{ClassHeader, ClassReport, StudentReport};
use crate::store::STORE_DIR;

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("cannot read {path}: {error}")]
    Read { path: PathBuf, error: std::io::Error },
    #[error("{path}: not a bhgrade student report: {error}")]
    Parse { path: PathBuf, error: serde_json::Error },
    #[error("{path}: marked with suite `{found}`, but other shards used `{expected}`")]
    SuiteDiffers { path: PathBuf, expected: String, found: String },
    #[error("{path}: marked by bhgrade {found}, but other shards by {expected}")]
    VersionDiffers { path: PathBuf, expected: String, found: String },
    #[error("student {student} is in more than one shard ({path})")]
    Duplicate { student: String, path: PathBuf },
    #[error("no student reports in {0:?}")]
    Empty(Vec<PathBuf>),
}

/// Reads every student report in `dirs` and combines them.
pub fn merge(dirs: &[PathBuf]) -> Result<ClassReport, MergeError> {
    let mut students: Vec<StudentReport> = Vec::new();
    for dir in dirs {
        for path in student_reports(dir)? {
            let bytes = std::fs::read(&path).map_err(|error| MergeError::Read { path: path.clone(), error })?;
            let report: StudentReport =
                serde_json::from_slice(&bytes).map_err(|error| MergeError::Parse { path: path.clone(), error })?;
            if let Some(first) = students.first() {
                if first.suite != report.suite {
                    return Err(MergeError::SuiteDiffers { path, expected: first.suite.clone(), found: report.suite });
                }
                let (expected, found) = (&first.environment.bhgrade_version, &report.environment.bhgrade_version);
                if expected != found {
                    return Err(MergeError::VersionDiffers { path, expected: expected.clone(), found: found.clone() });
                }
            }
            if students.iter().any(|s| s.student == report.student) {
                return Err(MergeError::Duplicate { student: report.student, path });
            }
            students.push(report);
        }
    }
    students.sort_by(|a, b| a.student.cmp(&b.student));
    let Some(first) = students.first() else { return Err(MergeError::Empty(dirs.to_vec())) };
    let header = ClassHeader {
        suite: first.suite.clone(),
        suite_title: first.suite_title.clone(),
        part_ids: first.parts.iter().map(|p| p.id.clone()).collect(),
        max_score: first.max_score,
    };
    let environment = first.environment.clone();
    Ok(ClassReport::new(header, students, environment, Vec::new(), Vec::new()))
}

/// The `*.json` student reports directly in `dir`, in name order.
fn student_reports(dir: &Path) -> Result<Vec<PathBuf>, MergeError> {
    let entries = std::fs::read_dir(dir).map_err(|error| MergeError::Read { path: dir.to_path_buf(), error })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json") && path.is_file())
        .filter(|path| !path.starts_with(dir.join(STORE_DIR)))
        .collect();
    paths.sort();
    Ok(paths)
}
