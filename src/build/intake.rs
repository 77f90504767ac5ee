//! The submissions folder → one [`Submission`] per student ([`intake`]), every entry accounted
//! for: each folder, archive and stray file is a submission (one that cannot be marked fails
//! its build, saying why: [`why_not_openable`]); only entries that are never a student's (junk,
//! notes, the folder's own scripts, what its [`IGNORE_FILE`] names) are left out, and listed
//! ([`Ignored`]).
//!
//! A student's name is the entry's name, without an archive's extension (`abc1.tar.gz` →
//! `abc1`) or a stray file's (`frank.pdf` → `frank`), made printable: bytes that are not UTF-8
//! and control characters become `%XX`. Names are unique, ignoring case (two reports must not
//! land in one file on a case-insensitive disk): entries that would share a name are each
//! named by their whole file name (`abc1` and `abc1.zip`), and any still alike get `~2`,
//! `~3`, ... in file-name order. Each renaming is listed ([`Renamed`]) and said in that
//! student's build detail ([`explain`]).
//!
//! Entries named by an LMS ([`super::lms`]: Canvas's `lastfirst_12345_67890_p1.zip`, Moodle's
//! `Full Name_4021_assignsubmission_file_`) are one student per LMS user, however many files
//! they handed in, named as the LMS names them; the identity goes with the submission.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::lms::{self, LmsIdentity};
use super::{io_err, BuildError, Submission};
use crate::archive::{self, Format};

/// An entry of the submissions folder that is not a student's, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    pub path: PathBuf,
    pub why: &'static str,
}

/// A student named otherwise than by their entry's plain name, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    pub name: String,
    pub path: PathBuf,
    pub why: String,
}

/// What [`intake`] found: the submissions sorted by name, what it left out, what it renamed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intake {
    pub submissions: Vec<Submission>,
    pub ignored: Vec<Ignored>,
    pub renamed: Vec<Renamed>,
}

/// The file in a submissions folder that names, one a line, the folder's own entries that are
/// not students' (a course's data, a marker's notes); `#` starts a comment.
pub const IGNORE_FILE: &str = ".bhgradeignore";

/// The extensions of scripts: a folder's own tooling, never what an LMS delivers as a student's
/// whole submission (a student's scripts are inside their folder or archive).
const SCRIPT_EXTENSIONS: [&str; 5] = ["py", "sh", "bash", "pl", "rb"];

/// Why an entry is never a student's: hidden entries (`.DS_Store`, `.git`), what operating
/// systems leave (`__MACOSX`, `Thumbs.db`, `desktop.ini`), a `README` file (the folder's own
/// notes, as in the fixtures), and what the folder's [`IGNORE_FILE`] names. A script beside the
/// submissions is left out too, unless an LMS named it ([`is_tooling`]). Everything else is
/// someone's submission.
fn ignore_reason(name: &OsStr, is_dir: bool, listed: &BTreeSet<Vec<u8>>) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if bytes.starts_with(b".") {
        return Some("hidden");
    }
    if listed.contains(bytes) {
        return Some("named in the folder's .bhgradeignore");
    }
    let os_junk = ["__MACOSX", "Thumbs.db", "desktop.ini"];
    if os_junk.iter().any(|j| bytes.eq_ignore_ascii_case(j.as_bytes())) {
        return Some("made by the operating system");
    }
    let readme = bytes.get(..6).is_some_and(|b| b.eq_ignore_ascii_case(b"README"));
    if readme && !is_dir && matches!(bytes.get(6), None | Some(b'.')) {
        return Some("the folder's own notes");
    }
    None
}

/// Whether an entry no LMS named is a script beside the submissions: the folder's own tooling
/// (a file an LMS named, `abc_101_9001_build.sh`, is one of a student's files).
fn is_tooling(name: &OsStr, is_dir: bool) -> bool {
    let bytes = name.as_bytes();
    let extension = bytes.iter().rposition(|&b| b == b'.').map(|dot| &bytes[dot + 1..]);
    !is_dir && extension.is_some_and(|ext| SCRIPT_EXTENSIONS.iter().any(|s| ext.eq_ignore_ascii_case(s.as_bytes())))
}

/// The entries `dir`'s [`IGNORE_FILE`] names (none when it has none).
fn listed_as_not_students(dir: &Path) -> Result<BTreeSet<Vec<u8>>, BuildError> {
    let path = dir.join(IGNORE_FILE);
    let text = match fs::read(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(error) => return Err(io_err(&path)(error)),
    };
    let names = text.split(|&b| b == b'\n').map(|line| line.trim_ascii()).filter(|line| !line.is_empty());
    Ok(names
        .filter(|line| !line.starts_with(b"#"))
        .map(|line| line.strip_suffix(b"/").unwrap_or(line).to_vec())
        .collect())
}

/// `raw` as printable text: invalid UTF-8 bytes and control characters (a line break in a
/// name would break every table) as `%XX`.
pub fn printable_name(raw: &OsStr) -> String {
    let mut out = String::new();
    for chunk in raw.as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                let mut buf = [0u8; 4];
                c.encode_utf8(&mut buf).bytes().for_each(|b| out.push_str(&format!("%{b:02X}")));
            } else {
                out.push(c);
            }
        }
        chunk.invalid().iter().for_each(|b| out.push_str(&format!("%{b:02X}")));
    }
    out
}

/// The name an entry gives its student when no other entry claims it: a folder's whole name,
/// an archive's without its extension (unsupported archives too), a stray file's without its
/// last extension.
pub(crate) fn natural_name(file_name: &OsStr, is_dir: bool) -> String {
    if is_dir {
        return printable_name(file_name);
    }
    if let Some((_, stem)) = Format::of_file_name(file_name) {
        return printable_name(stem);
    }
    let bytes = file_name.as_bytes();
    match bytes.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 && dot + 1 < bytes.len() => printable_name(OsStr::from_bytes(&bytes[..dot])),
        _ => printable_name(file_name),
    }
}

/// One student per entry of `dir` (see the module documentation). Only failing to list `dir`
/// is an error: an entry that cannot be read (a dangling link, a FIFO) is a submission whose
/// build will say so.
pub fn intake(dir: &Path) -> Result<Intake, BuildError> {
    let mut found = Intake::default();
    // (plain name, whole file name, path)
    let mut entries: Vec<(String, String, PathBuf)> = Vec::new();
    let mut lms_named: Vec<(LmsIdentity, PathBuf)> = Vec::new();
    let listed = listed_as_not_students(dir)?;
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let (path, file_name) = (entry.path(), entry.file_name());
        // Follows links: a marker may link students' folders into one place.
        let is_dir = fs::metadata(&path).is_ok_and(|m| m.is_dir());
        if let Some(why) = ignore_reason(&file_name, is_dir, &listed) {
            found.ignored.push(Ignored { path, why });
            continue;
        }
        match file_name.to_str().and_then(|name| lms::parse(name, is_dir)) {
            Some(identity) => lms_named.push((identity, path)),
            None if is_tooling(&file_name, is_dir) => {
                found.ignored.push(Ignored { path, why: "a script: the folder's own tooling" })
            }
            None => entries.push((natural_name(&file_name, is_dir), printable_name(&file_name), path)),
        }
    }
    // One student per LMS user, named as the LMS names them; their other entries go with them.
    let mut extras: BTreeMap<PathBuf, (Vec<PathBuf>, LmsIdentity)> = BTreeMap::new();
    for (first, rest, identity) in one_per_user(lms_named) {
        let whole = printable_name(first.file_name().unwrap_or_default());
        entries.push((printable_name(OsStr::new(&identity.name)), whole, first.clone()));
        extras.insert(first, (rest, identity));
    }
    entries.sort_by(|a, b| a.2.cmp(&b.2));
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (plain, _, _)) in entries.iter().enumerate() {
        by_name.entry(plain.to_lowercase()).or_default().push(i);
    }
    // First pass: entries that share a plain name are each named by their whole file name.
    let mut named: Vec<(String, Option<String>)> = entries.iter().map(|(plain, _, _)| (plain.clone(), None)).collect();
    for group in by_name.values().filter(|g| g.len() > 1) {
        let all: Vec<&str> = group.iter().map(|&i| entries[i].1.as_str()).collect();
        for &i in group {
            let (plain, whole, _) = &entries[i];
            // A folder's whole name is its plain name: nothing to explain yet.
            let why =
                (whole != plain).then(|| format!("{} in the submissions folder would all be {plain}", all.join(", ")));
            named[i] = (whole.clone(), why);
        }
    }
    // Second pass: names still alike (folders `Ann` and `ann`) get a number, never one that
    // another entry has as its own name.
    let mut taken: BTreeSet<String> = named.iter().map(|(n, _)| n.to_lowercase()).collect();
    let mut first_seen: BTreeSet<String> = BTreeSet::new();
    for (name, why) in &mut named {
        if first_seen.insert(name.to_lowercase()) {
            continue;
        }
        let base = name.clone();
        let mut k = 2;
        while taken.contains(&format!("{base}~{k}").to_lowercase()) {
            k += 1;
        }
        let unique = format!("{base}~{k}");
        taken.insert(unique.to_lowercase());
        let said = why.take().map_or(String::new(), |w| format!("{w}, and "));
        *why = Some(format!("{said}another entry is also named {base} (names are compared ignoring case)"));
        *name = unique;
    }
    for ((name, why), (_, _, path)) in named.into_iter().zip(entries) {
        if let Some(why) = why {
            found.renamed.push(Renamed { name: name.clone(), path: path.clone(), why });
        }
        let (extra, lms) = extras.remove(&path).map_or((Vec::new(), None), |(extra, lms)| (extra, Some(lms)));
        found.submissions.push(Submission { name, path, extra, lms });
    }
    found.submissions.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.path.cmp(&b.path)));
    Ok(found)
}

/// The entries an LMS named, one group per user (however many files they handed in): the
/// first entry by path, the others, and the identity of them all (late if any was late, every
/// file of the student's own names, sorted).
fn one_per_user(named: Vec<(LmsIdentity, PathBuf)>) -> Vec<(PathBuf, Vec<PathBuf>, LmsIdentity)> {
    let mut by_user: BTreeMap<(lms::Lms, String), (LmsIdentity, Vec<PathBuf>)> = BTreeMap::new();
    for (identity, path) in named {
        let key = (identity.lms, identity.user_id.clone());
        match by_user.get_mut(&key) {
            Some((known, paths)) => {
                known.late |= identity.late;
                known.files.extend(identity.files);
                paths.push(path);
            }
            None => {
                by_user.insert(key, (identity, vec![path]));
            }
        }
    }
    by_user
        .into_values()
        .map(|(mut identity, mut paths)| {
            paths.sort();
            identity.files.sort();
            let first = paths.remove(0);
            (first, paths, identity)
        })
        .collect()
}

/// Why `sub` is not named by its entry's plain name, when [`intake`] renamed it (for the
/// build detail); `None` otherwise. Lists the submission's folder again: cheap, and only for
/// renamed students.
pub(crate) fn explain(sub: &Submission) -> Option<String> {
    let file_name = sub.path.file_name()?;
    if natural_name(file_name, sub.path.is_dir()) == sub.name {
        return None;
    }
    let found = intake(sub.path.parent()?).ok()?;
    let renamed = found.renamed.into_iter().find(|r| r.path == sub.path && r.name == sub.name)?;
    Some(format!("marked as {}: {}", renamed.name, renamed.why))
}

/// Why the file at `path` (a submission that is not a folder) cannot be extracted, for the
/// build detail, or `None` when it is an archive bhgrade opens (by contents, else by name).
pub(crate) fn why_not_openable(path: &Path) -> Option<String> {
    let name = printable_name(path.file_name().unwrap_or(path.as_os_str()));
    let ask = "ask the student for a .zip or .tar.gz of their work";
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(_) if fs::symlink_metadata(path).is_ok() => {
            return Some(format!("{name} is a link to something that does not exist"));
        }
        Err(e) => return Some(format!("{name} cannot be read: {e}")),
    };
    if !meta.is_file() {
        return Some(format!("{name} is a special file (a FIFO, socket or device), not a folder or an archive"));
    }
    if meta.len() == 0 {
        return Some(format!("{name} is an empty file; {ask}"));
    }
    let head = match archive::read_head(path) {
        Ok(head) => head,
        Err(e) => return Some(format!("{name} cannot be read: {e}")),
    };
    let by_name = Format::of_file_name(path.file_name()?).map(|(format, _)| format);
    match Format::of_contents(&head).or(by_name) {
        Some(Format::Archive(_)) => None,
        Some(Format::Unsupported(what)) => {
            Some(format!("{name} is a {what} archive, which bhgrade cannot open; {ask}"))
        }
        None => {
            let ext = Path::new(path.file_name()?).extension().map(|e| format!(" (.{})", printable_name(e)));
            Some(format!("{name} is a file{}, not a folder or an archive; {ask}", ext.unwrap_or_default()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &Intake) -> Vec<&str> {
        found.submissions.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn every_entry_is_a_student_but_junk_notes_and_tooling() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for folder in ["zed", ".hidden", "__MACOSX"] {
            fs::create_dir(dir.join(folder)).unwrap();
        }
        let files =
            ["abc.tar.gz", "Bob.ZIP", "marks.csv", "dave.rar", "erin.7z", ".DS_Store", "README.md", "Thumbs.db"];
        // A script an LMS named is a student's file (Jane's), not the folder's.
        let tooling = ["variants.py", "verify.sh", "cases", "notes.txt", "smithjane_101_9001_build.sh"];
        for file in files.iter().chain(&tooling) {
            fs::write(dir.join(file), b"").unwrap();
        }
        fs::write(dir.join(IGNORE_FILE), b"# the course's own files\ncases/\n  notes.txt\n\n").unwrap();
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("gone.zip")).unwrap();
        let found = intake(dir).unwrap();
        assert_eq!(names(&found), ["Bob", "abc", "dave", "erin", "gone", "marks", "smithjane", "zed"]);
        let mut ignored: Vec<&str> =
            found.ignored.iter().map(|i| i.path.file_name().unwrap().to_str().unwrap()).collect();
        ignored.sort();
        let expected = [".DS_Store", ".bhgradeignore", ".hidden", "README.md", "Thumbs.db", "__MACOSX", "cases"];
        assert_eq!(ignored, [&expected[..], &["notes.txt", "variants.py", "verify.sh"]].concat());
        assert!(found.renamed.is_empty());
    }

    #[test]
    fn alike_names_are_each_named_by_their_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for folder in ["abc1", "Ann", "ann", "ann~2"] {
            fs::create_dir(dir.join(folder)).unwrap();
        }
        for file in ["abc1.zip", "cat.tar.gz", "cat.zip", "summary.zip"] {
            fs::write(dir.join(file), b"").unwrap();
        }
        let found = intake(dir).unwrap();
        assert_eq!(names(&found), ["Ann", "abc1", "abc1.zip", "ann~2", "ann~3", "cat.tar.gz", "cat.zip", "summary"]);
        let why = |name: &str| found.renamed.iter().find(|r| r.name == name).map(|r| r.why.clone());
        assert_eq!(why("abc1.zip").unwrap(), "abc1, abc1.zip in the submissions folder would all be abc1");
        assert_eq!(why("ann~3").unwrap(), "another entry is also named ann (names are compared ignoring case)");
        assert_eq!(why("ann~2"), None);
        let renamed = found.submissions.iter().find(|s| s.name == "cat.zip").unwrap();
        assert!(explain(renamed).unwrap().starts_with("marked as cat.zip: cat.tar.gz, cat.zip in"));
        let plain = found.submissions.iter().find(|s| s.name == "summary").unwrap();
        assert_eq!(explain(plain), None);
    }

    #[test]
    fn names_that_are_not_utf8_stay_apart_and_printable() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for raw in [&b"caf\xe9"[..], b"caf\xe8", b"line\nbreak"] {
            fs::create_dir(dir.join(OsStr::from_bytes(raw))).unwrap();
        }
        fs::write(dir.join(OsStr::from_bytes(b"caf%E9.zip")), b"").unwrap();
        let found = intake(dir).unwrap();
        assert_eq!(names(&found), ["caf%E8", "caf%E9", "caf%E9.zip", "line%0Abreak"]);
    }

    #[test]
    fn why_a_file_cannot_be_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |name: &str, body: &[u8]| {
            let path = tmp.path().join(name);
            fs::write(&path, body).unwrap();
            why_not_openable(&path)
        };
        assert_eq!(at("x.zip", b"PK\x03\x04rest"), None);
        assert_eq!(at("renamed", b"\x1f\x8b\x08"), None);
        let rar = at("dave.rar", b"Rar!\x1a\x07\x00").unwrap();
        assert_eq!(
            rar,
            "dave.rar is a RAR archive, which bhgrade cannot open; ask the student for a .zip or .tar.gz of their work"
        );
        assert!(at("erin.zip", b"7z\xbc\xaf\x27\x1c").unwrap().contains("a 7-Zip archive"));
        assert!(at("frank.pdf", b"%PDF-1.4")
            .unwrap()
            .starts_with("frank.pdf is a file (.pdf), not a folder or an archive"));
        assert!(at("empty.zip", b"").unwrap().contains("is an empty file"));
        std::os::unix::fs::symlink(tmp.path().join("nowhere"), tmp.path().join("gone.zip")).unwrap();
        let gone = why_not_openable(&tmp.path().join("gone.zip")).unwrap();
        assert!(gone.contains("link to something that does not exist"), "{gone}");
    }
}
