//! Extraction tests on archives made here, including hand-written headers that ordinary
//! tools refuse to make.

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

/// A tar whose headers are written by hand, so names the tar crate refuses to write
/// (`..`, absolute, not UTF-8) can be tested; compressed by `wrap`.
fn tar_with<W: Write>(
    path: &Path,
    wrap: impl FnOnce(File) -> W,
    finish: impl FnOnce(W),
    entries: &[(&[u8], tar::EntryType, &[u8], &str)],
) {
    let mut tar = tar::Builder::new(wrap(File::create(path).unwrap()));
    for (entry_name, kind, body, link) in entries {
        let mut header = tar::Header::new_gnu();
        let raw = &mut header.as_old_mut().name;
        raw[..entry_name.len()].copy_from_slice(entry_name);
        header.set_entry_type(*kind);
        header.set_size(body.len() as u64);
        header.set_mode(0o755);
        if !link.is_empty() {
            header.set_link_name(link).unwrap();
        }
        header.set_cksum();
        tar.append(&header, *body).unwrap();
    }
    finish(tar.into_inner().unwrap());
}

fn tgz_with(dir: &Path, name: &str, entries: &[(&str, tar::EntryType, &[u8], &str)]) -> PathBuf {
    let path = dir.join(name);
    let entries: Vec<_> = entries.iter().map(|&(n, k, b, l)| (n.as_bytes(), k, b, l)).collect();
    let gz = |f| flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    tar_with(&path, gz, |w| drop(w.finish().unwrap()), &entries);
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
    assert_eq!(ArchiveKind::of_name("b.TAR.XZ"), Some((ArchiveKind::TarXz, "b")));
    assert_eq!(ArchiveKind::of_name("c.tar.bz2"), Some((ArchiveKind::TarBz2, "c")));
    assert_eq!(ArchiveKind::of_name("d.rar"), None);
    assert_eq!(Format::of_name("d.rar"), Some((Format::Unsupported("RAR"), "d")));
    assert_eq!(Format::of_name("e.7z"), Some((Format::Unsupported("7-Zip"), "e")));
    let odd = OsStr::from_bytes(b"caf\xe9.tgz");
    assert_eq!(Format::of_file_name(odd), Some((Format::Archive(ArchiveKind::TarGz), OsStr::from_bytes(b"caf\xe9"))));
    assert_eq!(ArchiveKind::of_path(Path::new(odd)), Some(ArchiveKind::TarGz));
}

#[test]
fn contents_say_what_a_file_is() {
    assert_eq!(Format::of_contents(b"Rar!\x1a\x07\x01\x00"), Some(Format::Unsupported("RAR")));
    assert_eq!(Format::of_contents(b"7z\xbc\xaf\x27\x1c\x00"), Some(Format::Unsupported("7-Zip")));
    assert_eq!(Format::of_contents(b"%PDF-1.4"), None);
    assert_eq!(Format::of_contents(b""), None);
    let tmp = tempfile::tempdir().unwrap();
    // A RAR archive named .zip is refused as what it is.
    let fake = tmp.path().join("work.zip");
    fs::write(&fake, b"Rar!\x1a\x07\x00 and the rest").unwrap();
    let err = extract(&fake, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
    assert!(matches!(err, ArchiveError::Unsupported("RAR")), "{err}");
    // A plain tar still named .tar.gz (a browser unpacked it) opens as a tar.
    let path = tmp.path().join("s.tar.gz");
    tar_with(&path, |f| f, drop, &[(b"src/A.java", tar::EntryType::Regular, b"class A {}", "")]);
    extract(&path, &tmp.path().join("plain"), &ExtractLimits::default()).unwrap();
    assert_eq!(fs::read(tmp.path().join("plain/src/A.java")).unwrap(), b"class A {}");
}

#[test]
fn xz_and_bz2_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let entries: &[(&[u8], tar::EntryType, &[u8], &str)] = &[
        (b"bob/src/build.sh", tar::EntryType::Regular, b"javac *.java", ""),
        (b"bob/src/link", tar::EntryType::Symlink, b"", "/etc/passwd"),
    ];
    let xz = tmp.path().join("bob.tar.xz");
    let xz_writer = |f| lzma_rust2::XzWriter::new(f, lzma_rust2::XzOptions::with_preset(1)).unwrap();
    tar_with(&xz, xz_writer, |w| drop(w.finish().unwrap()), entries);
    let bz2 = tmp.path().join("carol.TBZ2");
    let bz_writer = |f| bzip2::write::BzEncoder::new(f, bzip2::Compression::fast());
    tar_with(&bz2, bz_writer, |w| drop(w.finish().unwrap()), entries);
    for archive in [xz, bz2] {
        let dest = tmp.path().join(archive.file_name().unwrap()).with_extension("out");
        let done = extract(&archive, &dest, &ExtractLimits::default()).unwrap();
        assert_eq!(fs::read(dest.join("bob/src/build.sh")).unwrap(), b"javac *.java");
        assert_eq!(done.skipped, ["bob/src/link (link)"]);
        assert_eq!((done.files, done.entries), (1, 2));
        // The same limits hold whatever the compression.
        let tight = ExtractLimits { max_total_bytes: 4, max_entries: 10 };
        let err = extract(&archive, &tmp.path().join("tight"), &tight).unwrap_err();
        assert!(matches!(err, ArchiveError::TooLarge(4)), "{err}");
    }
    let broken = tmp.path().join("broken.tar.xz");
    fs::write(&broken, b"\xfd7zXZ\x00 then nothing that decodes").unwrap();
    let err = extract(&broken, &tmp.path().join("b"), &ExtractLimits::default()).unwrap_err();
    assert!(matches!(err, ArchiveError::Corrupt(_)), "{err}");
}

#[test]
fn names_that_are_not_utf8_are_kept_as_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("s.tar");
    let entries: &[(&[u8], tar::EntryType, &[u8], &str)] = &[
        (b"src/caf\xe9.txt", tar::EntryType::Regular, b"latin-1", ""),
        (b"src/caf\xe8.txt", tar::EntryType::Regular, b"other", ""),
    ];
    tar_with(&path, |f| f, drop, entries);
    let dest = tmp.path().join("out");
    assert_eq!(extract(&path, &dest, &ExtractLimits::default()).unwrap().files, 2);
    assert_eq!(fs::read(dest.join(OsStr::from_bytes(b"src/caf\xe9.txt"))).unwrap(), b"latin-1");
    assert_eq!(fs::read(dest.join(OsStr::from_bytes(b"src/caf\xe8.txt"))).unwrap(), b"other");
    let zipped = zip_with(tmp.path(), "s.zip", |zip| add(zip, "src/plain.txt", b"x"));
    let mut bytes = fs::read(&zipped).unwrap();
    // Make the name invalid UTF-8 in both headers (same length, so offsets stay right).
    for i in 0..bytes.len() - 5 {
        if &bytes[i..i + 5] == b"plain" {
            bytes[i] = 0xff;
        }
    }
    fs::write(&zipped, bytes).unwrap();
    extract(&zipped, &tmp.path().join("z"), &ExtractLimits::default()).unwrap();
    assert!(tmp.path().join("z").join(OsStr::from_bytes(b"src/\xfflain.txt")).is_file());
}

#[test]
fn a_fifo_named_like_an_archive_does_not_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("x.zip");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let err = extract(&fifo, &tmp.path().join("out"), &ExtractLimits::default()).unwrap_err();
    assert!(matches!(err, ArchiveError::Corrupt(_)), "{err}");
    assert_eq!(read_head(&fifo).unwrap_err().kind(), io::ErrorKind::InvalidInput);
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
    assert!(!matches!(err, ArchiveError::Io { .. }), "{err}");
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
            assert!(!matches!(err, ArchiveError::Io { .. }), "{name}: {err}");
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
    assert!(!matches!(err, ArchiveError::Io { .. }), "{err}");
}
