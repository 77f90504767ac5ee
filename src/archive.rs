//! Safe extraction: an archive file (`.zip`, `.tar`, `.tar.gz`, `.tgz`) and [`ExtractLimits`]
//! → its regular files and folders under a fresh destination folder, and an [`Extracted`]
//! summary (or an [`ArchiveError`]).
//!
//! The rules, for archives made by students:
//! - an entry with an absolute path or a `..` component fails the whole extraction (an archive
//!   that tries this is not one to mark);
//! - links (symbolic or hard), devices and FIFOs are never created: they are skipped and listed
//!   in [`Extracted::skipped`], so nothing extracted can point outside the destination;
//! - `__MACOSX/` folders (Finder's resource forks) are skipped;
//! - the number of entries and the bytes actually written are bounded;
//! - only the executable bit of a file's mode is kept; folders are always 0755.
//!
//! ```no_run
//! use bhgrade::archive::{extract, ExtractLimits};
//! let summary = extract("abc123.zip".as_ref(), "/tmp/abc123".as_ref(), &ExtractLimits::default())?;
//! assert!(summary.skipped.is_empty());
//! # Ok::<(), bhgrade::archive::ArchiveError>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// Bounds on what one archive may produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// Bytes written, summed over all files.
    pub max_total_bytes: u64,
    /// Entries (files and folders).
    pub max_entries: usize,
}

impl Default for ExtractLimits {
    fn default() -> ExtractLimits {
        ExtractLimits { max_total_bytes: 256 << 20, max_entries: 20_000 }
    }
}

/// The archive formats understood, told by file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    Zip,
    Tar,
    TarGz,
}

impl ArchiveKind {
    /// The kind of an archive and the name without its extension (`abc.tar.gz` → `abc`),
    /// ignoring case; `None` for anything else.
    pub fn of_name(name: &str) -> Option<(ArchiveKind, &str)> {
        let lower = name.to_ascii_lowercase();
        let kinds = [
            (".tar.gz", ArchiveKind::TarGz),
            (".tgz", ArchiveKind::TarGz),
            (".tar", ArchiveKind::Tar),
            (".zip", ArchiveKind::Zip),
        ];
        kinds.into_iter().find_map(|(ext, kind)| {
            // The extension is ASCII, so the stem ends on a character boundary.
            let stem_len = name.len().checked_sub(ext.len()).filter(|&n| n > 0)?;
            lower.ends_with(ext).then(|| (kind, &name[..stem_len]))
        })
    }

    pub fn of_path(path: &Path) -> Option<ArchiveKind> {
        let name = path.file_name()?.to_str()?;
        ArchiveKind::of_name(name).map(|(kind, _)| kind)
    }
}

/// What an extraction produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub files: usize,
    pub bytes: u64,
    /// Entries not created, each as `name (why)`.
    pub skipped: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("{0}: not a .zip, .tar, .tar.gz or .tgz file")]
    UnknownKind(PathBuf),
    #[error("unreadable archive: {0}")]
    Corrupt(String),
    #[error("entry {0:?} has an absolute path")]
    AbsolutePath(String),
    #[error("entry {0:?} goes up out of the folder (..)")]
    ParentComponent(String),
    #[error("entry {name:?} cannot be created: {reason}")]
    BadEntry { name: String, reason: String },
    #[error("more than {0} entries")]
    TooManyEntries(usize),
    #[error("more than {0} bytes once extracted")]
    TooLarge(u64),
    /// Writing into the destination failed for a reason of the machine (disk full,
    /// permissions): the harness's problem, unlike every other variant.
    #[error("writing {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl ArchiveError {
    /// True when the harness (not the archive) is to blame.
    pub fn is_harness_failure(&self) -> bool {
        match self {
            ArchiveError::Io { .. } => true,
            ArchiveError::UnknownKind(_)
            | ArchiveError::Corrupt(_)
            | ArchiveError::AbsolutePath(_)
            | ArchiveError::ParentComponent(_)
            | ArchiveError::BadEntry { .. }
            | ArchiveError::TooManyEntries(_)
            | ArchiveError::TooLarge(_) => false,
        }
    }
}

/// Extract `archive` into `dest` (created if missing; it should be empty).
pub fn extract(archive: &Path, dest: &Path, limits: &ExtractLimits) -> Result<Extracted, ArchiveError> {
    let kind = ArchiveKind::of_path(archive).ok_or_else(|| ArchiveError::UnknownKind(archive.to_path_buf()))?;
    fs::create_dir_all(dest).map_err(|source| ArchiveError::Io { path: dest.to_path_buf(), source })?;
    let file = File::open(archive).map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    let mut sink = Sink { dest, limits: *limits, done: Extracted::default(), entries: 0 };
    match kind {
        ArchiveKind::Zip => extract_zip(file, &mut sink)?,
        ArchiveKind::Tar => extract_tar(file, &mut sink)?,
        ArchiveKind::TarGz => extract_tar(flate2::read::GzDecoder::new(file), &mut sink)?,
    }
    Ok(sink.done)
}

/// What an entry is, whatever the format.
enum Entry {
    File { executable: bool },
    Dir,
    Skip(&'static str),
}

fn extract_zip(file: File, sink: &mut Sink<'_>) -> Result<(), ArchiveError> {
    let corrupt = |e: zip::result::ZipError| ArchiveError::Corrupt(e.to_string());
    let mut zip = zip::ZipArchive::new(io::BufReader::new(file)).map_err(corrupt)?;
    if zip.len() > sink.limits.max_entries {
        return Err(ArchiveError::TooManyEntries(sink.limits.max_entries));
    }
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(corrupt)?;
        // Zips made on Windows may separate folders with backslashes.
        let name = entry.name().map_err(corrupt)?.replace('\\', "/");
        let mode = entry.unix_mode();
        let kind = if entry.is_symlink() {
            Entry::Skip("link")
        } else if entry.is_dir() {
            Entry::Dir
        } else if mode.is_some_and(|m| m & 0o170000 != 0 && m & 0o170000 != 0o100000) {
            Entry::Skip("special file")
        } else {
            Entry::File { executable: mode.is_some_and(|m| m & 0o111 != 0) }
        };
        sink.entry(&name, kind, &mut entry)?;
    }
    Ok(())
}

fn extract_tar(reader: impl Read, sink: &mut Sink<'_>) -> Result<(), ArchiveError> {
    use tar::EntryType;
    let corrupt = |e: io::Error| ArchiveError::Corrupt(e.to_string());
    let mut tar = tar::Archive::new(reader);
    for entry in tar.entries().map_err(corrupt)? {
        let mut entry = entry.map_err(corrupt)?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let header = entry.header();
        let kind = match header.entry_type() {
            EntryType::Regular | EntryType::Continuous => {
                Entry::File { executable: header.mode().is_ok_and(|m| m & 0o111 != 0) }
            }
            EntryType::Directory => Entry::Dir,
            EntryType::Symlink | EntryType::Link => Entry::Skip("link"),
            EntryType::Char | EntryType::Block | EntryType::Fifo => Entry::Skip("special file"),
            // Metadata entries (pax, GNU long names) are consumed by the tar crate; anything
            // else is not a file we know how to make.
            _ => Entry::Skip("unsupported entry type"),
        };
        sink.entry(&name, kind, &mut entry)?;
    }
    Ok(())
}

/// The destination and the running totals.
struct Sink<'a> {
    dest: &'a Path,
    limits: ExtractLimits,
    done: Extracted,
    entries: usize,
}

impl Sink<'_> {
    fn entry(&mut self, name: &str, kind: Entry, data: &mut impl Read) -> Result<(), ArchiveError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(ArchiveError::TooManyEntries(self.limits.max_entries));
        }
        let rel = safe_relative(name)?;
        if rel.as_os_str().is_empty() {
            return Ok(());
        }
        if rel.components().any(|c| c.as_os_str() == "__MACOSX") {
            return Ok(());
        }
        let path = self.dest.join(&rel);
        match kind {
            Entry::Skip(why) => {
                self.done.skipped.push(format!("{name} ({why})"));
                Ok(())
            }
            Entry::Dir => fs::create_dir_all(&path).map_err(|e| write_error(name, &path, e)),
            Entry::File { executable } => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).map_err(|e| write_error(name, parent, e))?;
                }
                let mut out = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .mode(if executable { 0o755 } else { 0o644 })
                    .open(&path)
                    .map_err(|e| write_error(name, &path, e))?;
                let room = self.limits.max_total_bytes - self.done.bytes;
                let copied = copy_bounded(data, &mut out, room + 1, name, &path)?;
                if copied > room {
                    return Err(ArchiveError::TooLarge(self.limits.max_total_bytes));
                }
                self.done.bytes += copied;
                self.done.files += 1;
                Ok(())
            }
        }
    }
}

/// Copy at most `max` bytes; read errors are the archive's fault, write errors ours.
fn copy_bounded(data: &mut impl Read, out: &mut File, max: u64, name: &str, path: &Path) -> Result<u64, ArchiveError> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    while total < max {
        let want = buf.len().min((max - total) as usize);
        let n = match data.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ArchiveError::Corrupt(format!("{name}: {e}"))),
        };
        out.write_all(&buf[..n]).map_err(|e| write_error(name, path, e))?;
        total += n as u64;
    }
    Ok(total)
}

/// A failure to write an entry: the archive's fault when its own entries clash (a file where
/// a folder is, a name too long), the machine's otherwise.
fn write_error(name: &str, path: &Path, e: io::Error) -> ArchiveError {
    let clash = [libc::ENOTDIR, libc::EISDIR, libc::EEXIST, libc::ENAMETOOLONG, libc::ELOOP];
    match e.raw_os_error() {
        Some(code) if clash.contains(&code) => ArchiveError::BadEntry { name: name.to_string(), reason: e.to_string() },
        _ => ArchiveError::Io { path: path.to_path_buf(), source: e },
    }
}

/// The entry's path as a relative path with only normal components.
fn safe_relative(name: &str) -> Result<PathBuf, ArchiveError> {
    if name.contains('\0') {
        return Err(ArchiveError::BadEntry { name: name.to_string(), reason: "NUL in name".into() });
    }
    let mut rel = PathBuf::new();
    for component in Path::new(name).components() {
        match component {
            Component::Normal(part) => rel.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(ArchiveError::ParentComponent(name.to_string())),
            Component::RootDir | Component::Prefix(_) => return Err(ArchiveError::AbsolutePath(name.to_string())),
        }
    }
    Ok(rel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn zip_with(dir: &Path, name: &str, build: impl FnOnce(&mut zip::ZipWriter<File>)) -> PathBuf {
        let path = dir.join(name);
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        build(&mut zip);
        zip.finish().unwrap();
        path
    }

    fn add(zip: &mut zip::ZipWriter<File>, name: &str, body: &[u8]) {
        zip.start_file(name, SimpleFileOptions::default()).unwrap();
        zip.write_all(body).unwrap();
    }

    /// A tar.gz whose headers are written by hand, so names the tar crate refuses to write
    /// (`..`, absolute) can be tested.
    fn tgz_with(dir: &Path, name: &str, entries: &[(&str, tar::EntryType, &[u8], &str)]) -> PathBuf {
        let path = dir.join(name);
        let gz = flate2::write::GzEncoder::new(File::create(&path).unwrap(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        for (entry_name, kind, body, link) in entries {
            let mut header = tar::Header::new_gnu();
            let raw = &mut header.as_old_mut().name;
            raw[..entry_name.len()].copy_from_slice(entry_name.as_bytes());
            header.set_entry_type(*kind);
            header.set_size(body.len() as u64);
            header.set_mode(0o755);
            if !link.is_empty() {
                header.set_link_name(link).unwrap();
            }
            header.set_cksum();
            tar.append(&header, *body).unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap();
        path
    }

    #[test]
    fn names_and_kinds() {
        assert_eq!(ArchiveKind::of_name("abc.tar.gz"), Some((ArchiveKind::TarGz, "abc")));
        assert_eq!(ArchiveKind::of_name("ABC.ZIP"), Some((ArchiveKind::Zip, "ABC")));
        assert_eq!(ArchiveKind::of_name("x.tgz"), Some((ArchiveKind::TarGz, "x")));
        assert_eq!(ArchiveKind::of_name("x.tar"), Some((ArchiveKind::Tar, "x")));
        assert_eq!(ArchiveKind::of_name(".zip"), None);
        assert_eq!(ArchiveKind::of_name("notes.txt"), None);
    }

    #[test]
    fn zip_round_trip_keeps_exec_bit_and_skips_macosx_and_links() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let archive = zip_with(tmp.path(), "s.zip", |zip| {
            zip.add_directory("abc/src/", SimpleFileOptions::default()).unwrap();
            add(zip, "abc/src/Main.java", b"class Main {}");
            zip.start_file("abc/src/build.sh", SimpleFileOptions::default().unix_permissions(0o755)).unwrap();
            zip.write_all(b"javac *.java").unwrap();
            add(zip, "abc\\src\\Win.java", b"win");
            add(zip, "__MACOSX/abc/._Main.java", b"junk");
            zip.add_symlink("abc/src/evil", "/etc/passwd", SimpleFileOptions::default()).unwrap();
        });
        let dest = tmp.path().join("out");
        let done = extract(&archive, &dest, &ExtractLimits::default()).unwrap();
        assert_eq!(fs::read(dest.join("abc/src/Main.java")).unwrap(), b"class Main {}");
        assert_eq!(fs::read(dest.join("abc/src/Win.java")).unwrap(), b"win");
        let mode = fs::metadata(dest.join("abc/src/build.sh")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        assert!(!dest.join("__MACOSX").exists());
        assert!(fs::symlink_metadata(dest.join("abc/src/evil")).is_err());
        assert_eq!(done.skipped, vec!["abc/src/evil (link)".to_string()]);
        assert_eq!(done.files, 3);
    }

    #[test]
    fn zip_with_parent_component_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = zip_with(tmp.path(), "s.zip", |zip| add(zip, "a/../../evil.txt", b"x"));
        let err = extract(&archive, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
        assert!(matches!(err, ArchiveError::ParentComponent(_)), "{err}");
        assert!(!tmp.path().join("evil.txt").exists());
        assert!(!err.is_harness_failure());
    }

    #[test]
    fn zip_with_absolute_path_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = zip_with(tmp.path(), "s.zip", |zip| add(zip, "/tmp/evil.txt", b"x"));
        let err = extract(&archive, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
        assert!(matches!(err, ArchiveError::AbsolutePath(_)), "{err}");
    }

    #[test]
    fn zip_bomb_is_bounded_by_bytes_written() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = zip_with(tmp.path(), "s.zip", |zip| {
            let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
            zip.start_file("big", opts).unwrap();
            zip.write_all(&vec![0u8; 4 << 20]).unwrap();
        });
        let limits = ExtractLimits { max_total_bytes: 1 << 20, max_entries: 10 };
        let err = extract(&archive, &tmp.path().join("out"), &limits).unwrap_err();
        assert!(matches!(err, ArchiveError::TooLarge(_)), "{err}");
        let written = fs::metadata(tmp.path().join("out/big")).unwrap().len();
        assert!(written <= (1 << 20) + 1, "{written}");
    }

    #[test]
    fn too_many_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = zip_with(tmp.path(), "s.zip", |zip| {
            for i in 0..20 {
                add(zip, &format!("f{i}"), b"");
            }
        });
        let limits = ExtractLimits { max_total_bytes: 1 << 20, max_entries: 10 };
        let err = extract(&archive, &tmp.path().join("out"), &limits).unwrap_err();
        assert!(matches!(err, ArchiveError::TooManyEntries(10)), "{err}");
    }

    #[test]
    fn garbage_is_corrupt_not_a_harness_failure() {
        let tmp = tempfile::tempdir().unwrap();
        for name in ["bad.zip", "bad.tar.gz", "bad.tar"] {
            let path = tmp.path().join(name);
            fs::write(&path, b"this is not an archive at all, just text of some length......").unwrap();
            let err = extract(&path, &tmp.path().join("out"), &ExtractLimits::default());
            // A plain tar of text reads as an empty or broken archive: never a harness failure.
            if let Err(err) = err {
                assert!(!err.is_harness_failure(), "{name}: {err}");
            }
        }
        let err = extract(&tmp.path().join("bad.zip"), &tmp.path().join("o"), &ExtractLimits::default());
        assert!(matches!(err, Err(ArchiveError::Corrupt(_))));
    }

    #[test]
    fn tgz_with_parent_component_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = tgz_with(tmp.path(), "s.tgz", &[("../evil", tar::EntryType::Regular, b"x", "")]);
        let err = extract(&archive, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
        assert!(matches!(err, ArchiveError::ParentComponent(_)), "{err}");
        assert!(!tmp.path().join("evil").exists());
    }

    #[test]
    fn tgz_with_absolute_path_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = tgz_with(tmp.path(), "s.tar.gz", &[("/tmp/x", tar::EntryType::Regular, b"x", "")]);
        let err = extract(&archive, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
        assert!(matches!(err, ArchiveError::AbsolutePath(_)), "{err}");
    }

    #[test]
    fn tgz_links_and_devices_are_never_created() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = tgz_with(
            tmp.path(),
            "s.tgz",
            &[
                ("src/", tar::EntryType::Directory, b"", ""),
                ("src/up", tar::EntryType::Symlink, b"", "../../../../etc"),
                ("src/hard", tar::EntryType::Link, b"", "/etc/passwd"),
                ("src/dev", tar::EntryType::Char, b"", ""),
                ("src/fifo", tar::EntryType::Fifo, b"", ""),
                ("src/up/passwd", tar::EntryType::Regular, b"owned", ""),
                ("src/A.java", tar::EntryType::Regular, b"class A {}", ""),
            ],
        );
        let dest = tmp.path().join("out");
        let done = extract(&archive, &dest, &ExtractLimits::default()).unwrap();
        assert_eq!(done.skipped.len(), 4, "{:?}", done.skipped);
        for name in ["hard", "dev", "fifo"] {
            assert!(fs::symlink_metadata(dest.join("src").join(name)).is_err(), "{name}");
        }
        // The symlink was never made, so the file behind it landed inside the destination.
        assert!(fs::symlink_metadata(dest.join("src/up")).unwrap().is_dir());
        assert_eq!(fs::read(dest.join("src/up/passwd")).unwrap(), b"owned");
        assert_eq!(fs::read(dest.join("src/A.java")).unwrap(), b"class A {}");
    }

    #[test]
    fn plain_tar_works() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.tar");
        let mut tar = tar::Builder::new(File::create(&path).unwrap());
        let mut header = tar::Header::new_gnu();
        header.set_size(2);
        header.set_mode(0o644);
        tar.append_data(&mut header, "src/x.txt", &b"hi"[..]).unwrap();
        tar.into_inner().unwrap();
        let dest = tmp.path().join("out");
        extract(&path, &dest, &ExtractLimits::default()).unwrap();
        assert_eq!(fs::read(dest.join("src/x.txt")).unwrap(), b"hi");
    }

    #[test]
    fn clashing_entries_are_the_archives_fault() {
        let tmp = tempfile::tempdir().unwrap();
        let archive = zip_with(tmp.path(), "s.zip", |zip| {
            add(zip, "a", b"file");
            add(zip, "a/b", b"under a file");
        });
        let err = extract(&archive, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
        assert!(matches!(err, ArchiveError::BadEntry { .. }), "{err}");
        assert!(!err.is_harness_failure());
    }
}
