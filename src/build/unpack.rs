//! Getting a submission's files into its private copy: a folder or archive → the copy
//! ([`copy_in`]), then archives inside the copy → extracted beside themselves until the source
//! folder appears ([`open_nested`]). One [`Budget`] bounds all of it: a zip of ten zips each
//! just under the limits is as big as one archive over them.

use std::path::{Path, PathBuf};

use super::intake::why_not_openable;
use super::{rel, skipped_note, tree, BuildError, Submission};
use crate::archive::{self, ArchiveError, ExtractLimits};

/// How many times archives inside archives are opened (a zip in a tar.gz in a folder is two).
const MAX_NESTING: usize = 3;
/// How deep below a folder archives are looked for: the folder's own files and one level down
/// (`abc1/work.zip`, `abc1/abc1/work.zip` after an archive with a top folder).
const ARCHIVE_DEPTH: usize = 2;

/// What one submission may still write, across its copy and every extraction.
pub(crate) struct Budget {
    limits: ExtractLimits,
    entries: usize,
    bytes: u64,
}

impl Budget {
    pub(crate) fn new(limits: ExtractLimits) -> Budget {
        Budget { limits, entries: 0, bytes: 0 }
    }

    fn remaining(&self) -> ExtractLimits {
        ExtractLimits {
            max_total_bytes: self.limits.max_total_bytes.saturating_sub(self.bytes),
            max_entries: self.limits.max_entries.saturating_sub(self.entries),
        }
    }

    fn spend(&mut self, entries: usize, bytes: u64) {
        self.entries += entries;
        self.bytes += bytes;
    }

    /// An extraction's error as the submission's problem (`Ok`), or the harness's (`Err`).
    /// Limits are said as the whole submission's, not what was left of them.
    fn problem(&self, what: &str, e: ArchiveError) -> Result<String, BuildError> {
        Ok(match e {
            ArchiveError::Io { path, source } => return Err(BuildError::Io { path, source }),
            ArchiveError::TooLarge(_) => {
                format!(
                    "the submission is too big: more than {} bytes once {what} is extracted",
                    self.limits.max_total_bytes
                )
            }
            ArchiveError::TooManyEntries(_) => {
                format!(
                    "the submission is too big: more than {} files and folders once {what} is extracted",
                    self.limits.max_entries
                )
            }
            other => format!("could not extract {what}: {other}"),
        })
    }
}

/// Copy a folder or extract an archive into `root`, and so each of the submission's other
/// entries (an LMS's one file per file handed in). `Ok(Err(..))` is the submission's problem,
/// described for the report (a file that is no archive bhgrade opens says what it is).
pub(crate) fn copy_in(
    sub: &Submission,
    root: &Path,
    budget: &mut Budget,
    notes: &mut Vec<String>,
) -> Result<Result<(), String>, BuildError> {
    for path in std::iter::once(&sub.path).chain(&sub.extra) {
        if let Err(problem) = copy_entry(path, sub.lms.is_some(), root, budget, notes)? {
            return Ok(Err(problem));
        }
    }
    Ok(Ok(()))
}

/// The student's own name of a file an LMS renamed (`p1.zip` of `smithjane_1_2_p1.zip`).
fn own_file_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let own = super::lms::parse(name, false).and_then(|identity| identity.files.into_iter().next())?;
    // Never a name that leads out of the copy.
    (own != "." && own != "..").then_some(own)
}

/// One entry into `root`: a folder's contents copied, an archive extracted, and, of an LMS's
/// submission, any other file copied under the student's own name (a `build.sh` handed in
/// beside an archive). Anything else is the submission's problem.
fn copy_entry(
    path: &Path,
    from_lms: bool,
    root: &Path,
    budget: &mut Budget,
    notes: &mut Vec<String>,
) -> Result<Result<(), String>, BuildError> {
    if path.is_dir() {
        return match tree::copy_tree(path, root, &budget.remaining()) {
            Ok(copied) => {
                budget.spend(copied.entries, copied.bytes);
                notes.extend(skipped_note(&copied.skipped));
                Ok(Ok(()))
            }
            Err(tree::CopyError::TooBig(why)) => Ok(Err(format!("the submission is too big: {why}"))),
            Err(tree::CopyError::Io { path, source }) => Err(BuildError::Io { path, source }),
        };
    }
    if let Some(why) = why_not_openable(path) {
        // Only a regular file itself, never through a link: what the student handed in, nothing else.
        let regular = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_file());
        return match own_file_name(path).filter(|_| from_lms && regular) {
            Some(own) => copy_own_file(path, &root.join(own), budget),
            None => Ok(Err(why)),
        };
    }
    match archive::extract(path, root, &budget.remaining()) {
        Ok(done) => {
            budget.spend(done.entries, done.bytes);
            notes.extend(skipped_note(&done.skipped));
            Ok(Ok(()))
        }
        Err(ArchiveError::Io { path, source }) => Err(BuildError::Io { path, source }),
        Err(e @ (ArchiveError::TooLarge(_) | ArchiveError::TooManyEntries(_))) => {
            Ok(Err(budget.problem("the archive", e)?))
        }
        Err(e) => Ok(Err(format!("could not extract: {e}"))),
    }
}

/// A plain file an LMS delivered, copied to `target` within the submission's limits.
fn copy_own_file(path: &Path, target: &Path, budget: &mut Budget) -> Result<Result<(), String>, BuildError> {
    let size = std::fs::metadata(path).map_err(|e| BuildError::Io { path: path.to_path_buf(), source: e })?.len();
    let left = budget.remaining();
    if size > left.max_total_bytes || left.max_entries == 0 {
        return Ok(Err(format!("the submission is too big: {} is {size} bytes", path.display())));
    }
    std::fs::create_dir_all(target.parent().unwrap_or(target))
        .and_then(|()| std::fs::copy(path, target))
        .map_err(|e| BuildError::Io { path: target.to_path_buf(), source: e })?;
    budget.spend(1, size);
    Ok(Ok(()))
}

/// Open archives found in the copy (see the module documentation) until a folder named
/// `srcdir` exists; returns the candidates then found (maybe none). An archive that cannot be
/// opened is noted and the others still tried; it is the verdict (`Ok(Err(..))`) only when no
/// source folder came of the rest. Archives that break the limits or try to write outside
/// the copy end the search: such a submission is not marked.
pub(crate) fn open_nested(
    root: &Path,
    srcdir: &str,
    budget: &mut Budget,
    notes: &mut Vec<String>,
) -> Result<Result<Vec<PathBuf>, String>, BuildError> {
    let search =
        || tree::folders_named(root, srcdir).map_err(|source| BuildError::Io { path: root.to_path_buf(), source });
    let mut candidates = search()?;
    let mut frontier = vec![root.to_path_buf()];
    let mut failures: Vec<String> = Vec::new();
    for _ in 0..MAX_NESTING {
        if !candidates.is_empty() {
            break;
        }
        let archives: Vec<PathBuf> = frontier.iter().flat_map(|dir| tree::archives_in(dir, ARCHIVE_DEPTH)).collect();
        if archives.is_empty() {
            break;
        }
        frontier.clear();
        for path in archives {
            let what = rel(root, &path);
            let dest = beside(&path);
            match archive::extract(&path, &dest, &budget.remaining()) {
                Ok(done) => {
                    budget.spend(done.entries, done.bytes);
                    notes.push(format!("extracted {what}"));
                    notes.extend(skipped_note(&done.skipped));
                    frontier.push(dest);
                }
                Err(
                    e @ (ArchiveError::Io { .. }
                    | ArchiveError::TooLarge(_)
                    | ArchiveError::TooManyEntries(_)
                    | ArchiveError::AbsolutePath(_)
                    | ArchiveError::ParentComponent(_)),
                ) => return Ok(Err(budget.problem(&what, e)?)),
                Err(e) => failures.push(budget.problem(&what, e)?),
            }
        }
        candidates = search()?;
    }
    if candidates.is_empty() {
        if let Some(first) = failures.first() {
            let mut detail = first.clone();
            if failures.len() > 1 {
                detail.push_str(&format!(" (and {} more archive(s) could not be extracted)", failures.len() - 1));
            }
            return Ok(Err(detail));
        }
    }
    notes.extend(failures);
    Ok(Ok(candidates))
}

/// A fresh folder next to an archive, named by its stem (`work.zip` → `work/`, or
/// `work.extracted/`, `work.extracted-2/`, ... when that name is taken).
fn beside(archive_path: &Path) -> PathBuf {
    let name = archive_path.file_name().unwrap_or_default();
    let stem = archive::Format::of_file_name(name).map_or(name, |(_, stem)| stem);
    let parent = archive_path.parent().unwrap_or(Path::new("."));
    let plain = parent.join(stem);
    if !plain.exists() {
        return plain;
    }
    let mut k = 1;
    loop {
        let mut name = stem.to_os_string();
        name.push(if k == 1 { ".extracted".to_string() } else { format!(".extracted-{k}") });
        let path = parent.join(name);
        if !path.exists() {
            return path;
        }
        k += 1;
    }
}
