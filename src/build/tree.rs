//! File-tree work of the build stage: a student's folder → a bounded private copy
//! ([`copy_tree`]), a copy → its content hash ([`content_hash`]), the candidate source folders
//! ([`find_dirs_named`]), nested archives ([`archives_in`]) and stale classes
//! ([`delete_classes`]).

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use walkdir::WalkDir;

use crate::archive::{ArchiveKind, ExtractLimits};

/// Finder's resource-fork folder: never part of the work.
pub(crate) const MACOSX: &str = "__MACOSX";
/// A repository's history: not built, can be huge, and would make equal work hash unequal.
const GIT: &str = ".git";

/// Why a copy stopped: the submission is too big (its fault), or the machine failed (ours).
#[derive(Debug)]
pub(crate) enum CopyError {
    TooBig(String),
    Io { path: PathBuf, source: io::Error },
}

/// What a copy skipped.
#[derive(Debug, Default)]
pub(crate) struct Copied {
    pub(crate) skipped: Vec<String>,
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CopyError + '_ {
    move |source| CopyError::Io { path: path.to_path_buf(), source }
}

/// Copy `from` to `to` (which must not exist): folders and regular files only, modes reduced
/// to 0644/0755, symbolic links and special files skipped (a link could lead out of the
/// tree), `__MACOSX` and `.git` skipped, bounded like an archive (entries and bytes).
pub(crate) fn copy_tree(from: &Path, to: &Path, limits: &ExtractLimits) -> Result<Copied, CopyError> {
    let mut copied = Copied::default();
    let (mut entries, mut bytes) = (0usize, 0u64);
    let walk = WalkDir::new(from)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != MACOSX && !(e.file_name() == GIT && e.file_type().is_dir()));
    for entry in walk {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(from).to_path_buf();
            CopyError::Io { path, source: e.into() }
        })?;
        let rel = entry.path().strip_prefix(from).unwrap_or(Path::new(""));
        let target = to.join(rel);
        let kind = entry.file_type();
        entries += 1;
        if entries > limits.max_entries {
            return Err(CopyError::TooBig(format!("more than {} files and folders", limits.max_entries)));
        }
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(io_err(&target))?;
            fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).map_err(io_err(&target))?;
        } else if kind.is_file() {
            let meta =
                entry.metadata().map_err(|e| CopyError::Io { path: entry.path().to_path_buf(), source: e.into() })?;
            bytes += meta.len();
            if bytes > limits.max_total_bytes {
                return Err(CopyError::TooBig(format!("more than {} bytes", limits.max_total_bytes)));
            }
            fs::copy(entry.path(), &target).map_err(io_err(entry.path()))?;
            let mode = if meta.permissions().mode() & 0o111 != 0 { 0o755 } else { 0o644 };
            fs::set_permissions(&target, fs::Permissions::from_mode(mode)).map_err(io_err(&target))?;
        } else {
            let why = if kind.is_symlink() { "link" } else { "special file" };
            copied.skipped.push(format!("{} ({why})", rel.display()));
        }
    }
    Ok(copied)
}

/// SHA-256 over every regular file's relative path and contents, in path order, so equal
/// trees hash equal wherever they are.
pub(crate) fn content_hash(root: &Path) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    for entry in WalkDir::new(root).follow_links(false).sort_by_file_name() {
        let entry = entry?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let name = rel.as_os_str().as_encoded_bytes();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name);
        let mut file = fs::File::open(entry.path())?;
        hasher.update(file.metadata()?.len().to_le_bytes());
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Every folder called `name` at or below `root` (root included), shallowest first.
pub(crate) fn find_dirs_named(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut found: Vec<(usize, PathBuf)> = WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != MACOSX)
        .flatten()
        .filter(|e| e.file_type().is_dir() && e.file_name() == name)
        .map(|e| (e.depth(), e.into_path()))
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Archives at most `max_depth` levels below `root`: a student's folder often holds the work
/// as a `.zip` or `.tar.gz`.
pub(crate) fn archives_in(root: &Path, max_depth: usize) -> Vec<PathBuf> {
    WalkDir::new(root)
        .max_depth(max_depth)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != MACOSX)
        .flatten()
        .filter(|e| e.file_type().is_file() && ArchiveKind::of_path(e.path()).is_some())
        .map(|e| e.into_path())
        .collect()
}

/// Delete every `*.class` below `dir`; returns how many.
pub(crate) fn delete_classes(dir: &Path) -> io::Result<usize> {
    let mut count = 0;
    for entry in WalkDir::new(dir).follow_links(false) {
        let entry = entry?;
        let is_class = entry.path().extension().is_some_and(|e| e == "class");
        if entry.file_type().is_file() && is_class {
            fs::remove_file(entry.path())?;
            count += 1;
        }
    }
    Ok(count)
}

/// Hand a tree to the user programs run as (builds write into it).
pub(crate) fn chown_tree(root: &Path, uid: u32, gid: u32) -> io::Result<()> {
    for entry in WalkDir::new(root).follow_links(false) {
        let entry = entry?;
        std::os::unix::fs::lchown(entry.path(), Some(uid), Some(gid))?;
    }
    Ok(())
}
