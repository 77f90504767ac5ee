//! Safe extraction: an archive file (`.zip`, `.tar`, `.tar.gz`/`.tgz`, `.tar.xz`/`.txz`,
//! `.tar.bz2`/`.tbz2`) and [`ExtractLimits`] → its regular files and folders under a fresh
//! destination folder, and an [`Extracted`] summary (or an [`ArchiveError`]).
//!
//! What a file is comes from its first bytes when they say (a `.zip` that is really a RAR
//! archive, a `.tar.gz` a browser already unpacked to a plain tar), else from its name:
//! [`Format::of_contents`], [`Format::of_name`]. Formats that students use but bhgrade cannot
//! open (RAR, 7-Zip, ...) are named as such ([`ArchiveError::Unsupported`]), so the verdict can
//! say what to ask the student for.
//!
//! The rules, for archives made by students:
//! - an entry with an absolute path or a `..` component fails the whole extraction (an archive
//!   that tries this is not one to mark);
//! - links (symbolic or hard), devices and FIFOs are never created: they are skipped and listed
//!   in [`Extracted::skipped`], so nothing extracted can point outside the destination;
//! - `__MACOSX/` folders (Finder's resource forks) are skipped;
//! - the number of entries and the bytes actually written are bounded;
//! - only the executable bit of a file's mode is kept; folders are always 0755;
//! - names are kept as bytes: a name that is not UTF-8 is created as it is, not replaced by
//!   `�` (two such names would otherwise become one file).
//!
//! ```no_run
//! use bhgrade::archive::{extract, ExtractLimits};
//! let summary = extract("abc123.zip".as_ref(), "/tmp/abc123".as_ref(), &ExtractLimits::default())?;
//! assert!(summary.skipped.is_empty());
//! # Ok::<(), bhgrade::archive::ArchiveError>(())
//! ```

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::ffi::OsStrExt;
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

/// The archive formats bhgrade opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    Zip,
    Tar,
    TarGz,
    TarXz,
    TarBz2,
}

/// What a file is, as far as marking cares: an archive bhgrade opens, or one it cannot (named
/// for the verdict, e.g. `"RAR"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Archive(ArchiveKind),
    Unsupported(&'static str),
}

/// Extensions, longest first so that `.tar.gz` wins over a shorter match.
const EXTENSIONS: &[(&str, Format)] = &[
    (".tar.gz", Format::Archive(ArchiveKind::TarGz)),
    (".tar.xz", Format::Archive(ArchiveKind::TarXz)),
    (".tar.bz2", Format::Archive(ArchiveKind::TarBz2)),
    (".tar.zst", Format::Unsupported("Zstandard")),
    (".tar.lz", Format::Unsupported("lzip")),
    (".tar.lzma", Format::Unsupported("LZMA")),
    (".tbz2", Format::Archive(ArchiveKind::TarBz2)),
    (".tgz", Format::Archive(ArchiveKind::TarGz)),
    (".txz", Format::Archive(ArchiveKind::TarXz)),
    (".tbz", Format::Archive(ArchiveKind::TarBz2)),
    (".tar", Format::Archive(ArchiveKind::Tar)),
    (".zip", Format::Archive(ArchiveKind::Zip)),
    (".rar", Format::Unsupported("RAR")),
    (".7z", Format::Unsupported("7-Zip")),
    (".zst", Format::Unsupported("Zstandard")),
    (".cab", Format::Unsupported("Cabinet")),
    (".dmg", Format::Unsupported("DMG disk image")),
    (".iso", Format::Unsupported("ISO disc image")),
];

/// Bytes of a file's start that [`Format::of_contents`] looks at (a tar's magic is at 257).
pub const HEAD_BYTES: usize = 512;

/// The xz decoder's memory bound: `xz -9` needs 65 MiB; a crafted header asking for gigabytes
/// is refused instead of allocated.
const XZ_MEMORY_KIB: u32 = 128 * 1024;

impl Format {
    /// The format an archive's name says and the name without its extension
    /// (`abc.tar.gz` → `abc`), ignoring case; `None` for other names.
    pub fn of_name(name: &str) -> Option<(Format, &str)> {
        // The extensions are ASCII, so the stem ends on a character boundary.
        suffix(name.as_bytes()).map(|(format, stem_len)| (format, &name[..stem_len]))
    }

    /// [`Format::of_name`] of a file name that need not be UTF-8 (only its ASCII extension is
    /// looked at).
    pub fn of_file_name(name: &OsStr) -> Option<(Format, &OsStr)> {
        let bytes = name.as_bytes();
        suffix(bytes).map(|(format, stem_len)| (format, OsStr::from_bytes(&bytes[..stem_len])))
    }

    /// The format a file's first bytes ([`HEAD_BYTES`] of them, or all of a shorter file) say,
    /// if they say one. A gzip, xz or bzip2 stream is taken to hold a tar.
    pub fn of_contents(head: &[u8]) -> Option<Format> {
        const MAGIC: &[(&[u8], Format)] = &[
            (b"PK\x03\x04", Format::Archive(ArchiveKind::Zip)),
            (b"PK\x05\x06", Format::Archive(ArchiveKind::Zip)),
            (b"\x1f\x8b", Format::Archive(ArchiveKind::TarGz)),
            (b"\xfd7zXZ\x00", Format::Archive(ArchiveKind::TarXz)),
            (b"BZh", Format::Archive(ArchiveKind::TarBz2)),
            (b"Rar!\x1a\x07", Format::Unsupported("RAR")),
            (b"7z\xbc\xaf\x27\x1c", Format::Unsupported("7-Zip")),
            (b"\x28\xb5\x2f\xfd", Format::Unsupported("Zstandard")),
            (b"LZIP", Format::Unsupported("lzip")),
            (b"MSCF", Format::Unsupported("Cabinet")),
        ];
        if head.get(257..262) == Some(b"ustar") {
            return Some(Format::Archive(ArchiveKind::Tar));
        }
        MAGIC.iter().find(|(magic, _)| head.starts_with(magic)).map(|&(_, format)| format)
    }
}

/// The first of [`EXTENSIONS`] that ends `name` after a non-empty stem, and the stem's length.
fn suffix(name: &[u8]) -> Option<(Format, usize)> {
    EXTENSIONS.iter().find_map(|&(ext, format)| {
        let stem_len = name.len().checked_sub(ext.len()).filter(|&n| n > 0)?;
        name[stem_len..].eq_ignore_ascii_case(ext.as_bytes()).then_some((format, stem_len))
    })
}

impl ArchiveKind {
    /// The kind of an archive bhgrade opens and the name without its extension, ignoring case;
    /// `None` for anything else (unsupported archives included).
    pub fn of_name(name: &str) -> Option<(ArchiveKind, &str)> {
        match Format::of_name(name)? {
            (Format::Archive(kind), stem) => Some((kind, stem)),
            (Format::Unsupported(_), _) => None,
        }
    }

    /// The kind a path's last component says (it need not be UTF-8).
    pub fn of_path(path: &Path) -> Option<ArchiveKind> {
        match Format::of_file_name(path.file_name()?)? {
            (Format::Archive(kind), _) => Some(kind),
            (Format::Unsupported(_), _) => None,
        }
    }
}

/// The first [`HEAD_BYTES`] of a regular file. Opening never blocks (a FIFO named `x.zip`
/// must not hang marking); anything but a regular file is an [`io::ErrorKind::InvalidInput`].
pub fn read_head(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&mut file).take(HEAD_BYTES as u64).read_to_end(&mut head)?;
    Ok(head)
}

fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok(file)
}

/// What an extraction produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub files: usize,
    pub bytes: u64,
    /// Entries read, created or not (what [`ExtractLimits::max_entries`] bounds).
    pub entries: usize,
    /// Entries not created, each as `name (why)`.
    pub skipped: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("{0}: not a .zip, .tar, .tar.gz, .tar.xz or .tar.bz2 file")]
    UnknownKind(PathBuf),
    #[error("a {0} archive, which bhgrade cannot open")]
    Unsupported(&'static str),
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

/// Extract `archive` into `dest` (created if missing; it should be empty). The format is the
/// one the contents say, else the one the name says.
pub fn extract(archive: &Path, dest: &Path, limits: &ExtractLimits) -> Result<Extracted, ArchiveError> {
    let mut file = open_regular(archive).map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    let rewound = (&mut file).take(HEAD_BYTES as u64).read_to_end(&mut head).and_then(|_| file.rewind());
    rewound.map_err(|e| ArchiveError::Corrupt(e.to_string()))?;
    let by_name = archive.file_name().and_then(Format::of_file_name).map(|(format, _)| format);
    let kind = match Format::of_contents(&head).or(by_name) {
        Some(Format::Archive(kind)) => kind,
        Some(Format::Unsupported(what)) => return Err(ArchiveError::Unsupported(what)),
        None => return Err(ArchiveError::UnknownKind(archive.to_path_buf())),
    };
    fs::create_dir_all(dest).map_err(|source| ArchiveError::Io { path: dest.to_path_buf(), source })?;
    let mut sink = Sink { dest, limits: *limits, done: Extracted::default() };
    let file = io::BufReader::new(file);
    match kind {
        ArchiveKind::Zip => extract_zip(file, &mut sink)?,
        ArchiveKind::Tar => extract_tar(file, &mut sink)?,
        ArchiveKind::TarGz => extract_tar(flate2::bufread::MultiGzDecoder::new(file), &mut sink)?,
        ArchiveKind::TarXz => extract_tar(lzma_rust2::XzReader::new_mem_limit(file, true, XZ_MEMORY_KIB), &mut sink)?,
        ArchiveKind::TarBz2 => extract_tar(bzip2::bufread::MultiBzDecoder::new(file), &mut sink)?,
    }
    Ok(sink.done)
}

/// What an entry is, whatever the format.
enum Entry {
    File { executable: bool },
    Dir,
    Skip(&'static str),
}

fn extract_zip(file: io::BufReader<File>, sink: &mut Sink<'_>) -> Result<(), ArchiveError> {
    let corrupt = |e: zip::result::ZipError| ArchiveError::Corrupt(e.to_string());
    let mut zip = zip::ZipArchive::new(file).map_err(corrupt)?;
    if zip.len() > sink.limits.max_entries {
        return Err(ArchiveError::TooManyEntries(sink.limits.max_entries));
    }
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(corrupt)?;
        // The raw bytes, not the crate's CP437 reading of names without the UTF-8 flag: a zip
        // made on Linux holds the bytes its file system had, and they are made again as such.
        // Zips made on Windows may separate folders with backslashes.
        let name: Vec<u8> = entry.name_raw().iter().map(|&b| if b == b'\\' { b'/' } else { b }).collect();
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
        let name = entry.path_bytes().into_owned();
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
}

impl Sink<'_> {
    fn entry(&mut self, raw: &[u8], kind: Entry, data: &mut impl Read) -> Result<(), ArchiveError> {
        self.done.entries += 1;
        if self.done.entries > self.limits.max_entries {
            return Err(ArchiveError::TooManyEntries(self.limits.max_entries));
        }
        // For messages only; the file is made with the raw bytes.
        let name = String::from_utf8_lossy(raw);
        let rel = safe_relative(raw)?;
        if rel.as_os_str().is_empty() || rel.components().any(|c| c.as_os_str() == "__MACOSX") {
            return Ok(());
        }
        let path = self.dest.join(&rel);
        match kind {
            Entry::Skip(why) => {
                self.done.skipped.push(format!("{name} ({why})"));
                Ok(())
            }
            Entry::Dir => fs::create_dir_all(&path).map_err(|e| write_error(&name, &path, e)),
            Entry::File { executable } => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).map_err(|e| write_error(&name, parent, e))?;
                }
                let mut out = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .mode(if executable { 0o755 } else { 0o644 })
                    .open(&path)
                    .map_err(|e| write_error(&name, &path, e))?;
                let room = self.limits.max_total_bytes.saturating_sub(self.done.bytes);
                let copied = copy_bounded(data, &mut out, room + 1, &name, &path)?;
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

/// The entry's path (raw bytes) as a relative path with only normal components.
fn safe_relative(raw: &[u8]) -> Result<PathBuf, ArchiveError> {
    let name = || String::from_utf8_lossy(raw).into_owned();
    if raw.contains(&0) {
        return Err(ArchiveError::BadEntry { name: name(), reason: "NUL in name".into() });
    }
    let mut rel = PathBuf::new();
    for component in Path::new(OsStr::from_bytes(raw)).components() {
        match component {
            Component::Normal(part) => rel.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(ArchiveError::ParentComponent(name())),
            Component::RootDir | Component::Prefix(_) => return Err(ArchiveError::AbsolutePath(name())),
        }
    }
    Ok(rel)
}

#[cfg(test)]
mod tests;
