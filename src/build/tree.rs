//! File-tree work of the build stage: a student's folder → a bounded private copy
//! ([`copy_tree`]), a copy → its content hash ([`content_hash`]), the candidate source folders
//! ([`folders_named`], skipping what [`is_junk`] names), nested archives ([`archives_in`],
//! [`unopenable_archives`]), stale classes ([`delete_classes`]) and a build script's line
//! endings ([`has_crlf`]).

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use walkdir::WalkDir;

use crate::archive::{ArchiveKind, ExtractLimits, Format};

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

/// What a copy made and skipped.
#[derive(Debug, Default)]
pub(crate) struct Copied {
    pub(crate) skipped: Vec<String>,
    /// Files and folders seen, and bytes copied: counted against the submission's limits.
    pub(crate) entries: usize,
    pub(crate) bytes: u64,
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CopyError + '_ {
    move |source| CopyError::Io { path: path.to_path_buf(), source }
}

/// Copy `from` to `to` (which must not exist): folders and regular files only, modes reduced
/// to 0644/0755, symbolic links and special files skipped (a link could lead out of the
/// tree), `__MACOSX` and `.git` skipped, bounded like an archive (entries and bytes).
pub(crate) fn copy_tree(from: &Path, to: &Path, limits: &ExtractLimits) -> Result<Copied, CopyError> {
    let mut copied = Copied::default();
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
        copied.entries += 1;
        if copied.entries > limits.max_entries {
            return Err(CopyError::TooBig(format!("more than {} files and folders", limits.max_entries)));
        }
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(io_err(&target))?;
            fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).map_err(io_err(&target))?;
        } else if kind.is_file() {
            let meta =
                entry.metadata().map_err(|e| CopyError::Io { path: entry.path().to_path_buf(), source: e.into() })?;
            copied.bytes += meta.len();
            if copied.bytes > limits.max_total_bytes {
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
        let entry = match entry {
            Ok(entry) => entry,
            // Folders nested past PATH_MAX: the copy refuses them as the student's doing; the
            // hash only has to tell this tree from others.
            Err(e) if e.io_error().is_some_and(|io| io.kind() == io::ErrorKind::InvalidFilename) => {
                hasher.update(b"\0a path too long\0");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
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

/// Whether a folder met while searching a submission is never the work: hidden folders
/// (`.idea/src` is an IDE's copy, `.git` a history) and `__MACOSX` (Finder's copy of every
/// folder of a zip made on a Mac). The one rule for the build's search and stacscheck's.
pub fn is_junk(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".") || name == MACOSX
}

/// Every folder called `name` at or below `root` (root included, whatever its own name: it
/// may be a hidden temporary folder), shallowest first, then by path. Folders that
/// [`is_junk`] are not entered and links are not followed.
///
/// The source-folder search of both the build and stacscheck: the build picks among several
/// leniently, stacscheck refuses several.
pub fn folders_named(root: &Path, name: &str) -> io::Result<Vec<PathBuf>> {
    let mut found: Vec<(usize, PathBuf)> = Vec::new();
    let walk = WalkDir::new(root).follow_links(false).sort_by_file_name().into_iter();
    for entry in walk.filter_entry(|e| e.depth() == 0 || !is_junk(e.file_name())) {
        let entry = entry.map_err(walk_error(root))?;
        if entry.file_type().is_dir() && entry.file_name() == name {
            found.push((entry.depth(), entry.into_path()));
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

/// Folders called `name` that [`folders_named`] does not use (inside junk folders), for the
/// report of a submission where it found none.
pub(crate) fn junk_folders_named(root: &Path, name: &str) -> Vec<PathBuf> {
    let used = folders_named(root, name).unwrap_or_default();
    WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_dir() && e.file_name() == name && !used.iter().any(|u| u == e.path()))
        .map(|e| e.into_path())
        .collect()
}

fn walk_error(root: &Path) -> impl Fn(walkdir::Error) -> io::Error + '_ {
    move |e| {
        let path = e.path().unwrap_or(root).display().to_string();
        let source = e.into_io_error().unwrap_or_else(|| io::Error::other("file system loop"));
        io::Error::new(source.kind(), format!("{path}: {source}"))
    }
}

/// Archives bhgrade opens, at most `max_depth` levels below `root` (by name; junk folders not
/// entered): a student's folder often holds the work as a `.zip` or `.tar.gz`.
pub(crate) fn archives_in(root: &Path, max_depth: usize) -> Vec<PathBuf> {
    files_in(root, max_depth).filter(|p| ArchiveKind::of_path(p).is_some()).collect()
}

/// Archives bhgrade cannot open (`.rar`, `.7z`, ...) at most `max_depth` levels below `root`,
/// each with its format's name: said in the verdict when no source folder is found.
pub(crate) fn unopenable_archives(root: &Path, max_depth: usize) -> Vec<(PathBuf, &'static str)> {
    files_in(root, max_depth)
        .filter_map(|p| match Format::of_file_name(p.file_name()?) {
            Some((Format::Unsupported(what), _)) => Some((p, what)),
            _ => None,
        })
        .collect()
}

fn files_in(root: &Path, max_depth: usize) -> impl Iterator<Item = PathBuf> {
    WalkDir::new(root)
        .max_depth(max_depth)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_junk(e.file_name()))
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
}

/// Whether a script has Windows line endings (a CR before a line feed) in its first 64 KiB.
pub(crate) fn has_crlf(script: &Path) -> bool {
    let mut head = Vec::new();
    let read = fs::File::open(script).and_then(|f| f.take(64 << 10).read_to_end(&mut head));
    read.is_ok() && head.windows(2).any(|w| w == b"\r\n")
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
