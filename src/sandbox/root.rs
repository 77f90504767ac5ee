//! A run's root, planned: the run's [`Access`] list (what it may read and write) and the files
//! the box shows in place of the machine's → the steps its init follows (`root_inside.rs`) to
//! build a root that holds those and nothing else.
//!
//! The same list gives the Landlock ruleset (`landlock.rs`), so the two layers never disagree:
//! what the box does not hold, no rule grants, and the other way round. Every path stays where
//! it is on the machine (a copy, the JDK, a puzzle), so commands, reports and the programs'
//! own paths read the same inside the box and out.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::landlock::Access;
use super::root_inside::{
    DEVICE, LINK, OVERLAY, PROC, READ_DIR, READ_FILE, RUN_DIR, TMPFS_HOME, TMPFS_TMP, UPPER, WRITE_DIR,
};

/// The folder of the scratch root that holds the box's own accounts ([`accounts_for`]).
pub(super) const ACCOUNTS_FOLDER: &str = "box-etc";

/// Links every box has in `/dev`, as a system's `/dev` has them (`bash`'s `<(...)` uses `/dev/fd`).
const DEV_LINKS: &[(&str, &str)] = &[
    ("/dev/fd", "/proc/self/fd"),
    ("/dev/stdin", "/proc/self/fd/0"),
    ("/dev/stdout", "/proc/self/fd/1"),
    ("/dev/stderr", "/proc/self/fd/2"),
];

/// One step of the plan: what to put at `target` inside the root, from `source`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    kind: u8,
    target: PathBuf,
    /// The machine's path to bind, or a link's text.
    source: PathBuf,
}

/// The run's own tmpfs, outside the root in the run's mount namespace and gone with it: what the
/// run writes anywhere but a copy it keeps (its `HOME`, its `/tmp`, and a pristine run's overlay
/// of its copy) lands there, so one bound in bytes and files covers all of it.
#[derive(Debug, Clone)]
pub(crate) struct RunTmpfs {
    /// An empty folder of the run's, outside the root, where the tmpfs is mounted.
    pub at: PathBuf,
    /// The tmpfs's size and files.
    pub bytes: u64,
    pub files: u64,
    /// Who owns its `home/` and `tmp/`: the user the program runs as.
    pub owner: (u32, u32),
    /// The run's `HOME` (one of [`Access::write_dirs`]), shown as the tmpfs's `home/`.
    pub home: PathBuf,
    /// A writable folder (one of [`Access::write_dirs`]) shown as an overlay whose writes land
    /// in the tmpfs, the folder itself never changing.
    pub pristine: Option<PathBuf>,
    /// Mounted inside an ordinary user's user namespace (an overlay's metadata in `user.`
    /// attributes).
    pub unprivileged: bool,
}

/// Where the box shows the run tmpfs's `tmp/`.
pub(crate) const PRIVATE_TMP: &str = "/tmp";

/// The root's steps for `access` (see the module documentation), with `shown_as`: files of
/// the harness's shown at another path in the box (its own `/etc/passwd`), and `tmpfs`: the
/// run's own tmpfs, holding its `HOME`, a private `/tmp` and the overlay of a pristine run.
/// `/sys` is never shown; `/proc` is the run's own.
pub(crate) fn plan(
    access: &Access,
    shown_as: &[(PathBuf, PathBuf)],
    tmpfs: Option<&RunTmpfs>,
) -> Vec<(u8, PathBuf, PathBuf)> {
    let mut steps = Vec::new();
    for dir in &access.read_dirs {
        if dir == Path::new("/sys") {
            continue;
        }
        if dir == Path::new("/proc") {
            steps.push(Step { kind: PROC, target: dir.clone(), source: PathBuf::new() });
            continue;
        }
        steps.extend(shown(dir, READ_DIR));
    }
    for file in access.read_files.iter().filter(|f| !f.starts_with("/sys")) {
        steps.extend(shown(file, READ_FILE));
    }
    for program in &access.programs {
        // The file itself at the path the command names, even where that path is a link.
        if let Ok(real) = program.canonicalize() {
            steps.push(Step { kind: READ_FILE, target: program.clone(), source: real });
        }
    }
    for (source, target) in shown_as {
        steps.push(Step { kind: READ_FILE, target: target.clone(), source: source.clone() });
    }
    for dir in &access.write_dirs {
        let step = match tmpfs {
            Some(t) if t.pristine.as_ref() == Some(dir) => {
                Step { kind: OVERLAY, target: dir.clone(), source: overlay_options(t, dir).into() }
            }
            Some(t) if t.home == *dir => Step { kind: RUN_DIR, target: dir.clone(), source: TMPFS_HOME.into() },
            Some(_) | None => match shown(dir, WRITE_DIR) {
                Some(step) => step,
                None => continue,
            },
        };
        steps.push(step);
    }
    if tmpfs.is_some() {
        steps.push(Step { kind: RUN_DIR, target: PRIVATE_TMP.into(), source: TMPFS_TMP.into() });
    }
    for device in &access.devices {
        steps.extend(shown(device, DEVICE));
    }
    for (link, text) in DEV_LINKS {
        steps.push(Step { kind: LINK, target: PathBuf::from(link), source: PathBuf::from(text) });
    }
    // The tmpfs first: it is mounted outside the root, where order does not matter.
    let upper = tmpfs.map(|t| Step {
        kind: UPPER,
        target: t.at.clone(),
        source: format!("size={},nr_inodes={},mode=0755,uid={},gid={}", t.bytes, t.files, t.owner.0, t.owner.1).into(),
    });
    upper.into_iter().chain(ordered(steps)).map(|s| (s.kind, s.target, s.source)).collect()
}

/// The overlay's mount options: `folder` below, the run's tmpfs above (`u/`, with `w/` for the
/// overlay's own work), each path escaped as the overlay's option parser expects.
fn overlay_options(t: &RunTmpfs, folder: &Path) -> std::ffi::OsString {
    let escaped = |path: &Path| {
        let mut out = Vec::new();
        for &b in path.as_os_str().as_bytes() {
            if matches!(b, b',' | b':' | b'\\') {
                out.push(b'\\');
            }
            out.push(b);
        }
        out
    };
    let mut options = [&b"lowerdir="[..], &escaped(folder), b",upperdir=", &escaped(&t.at.join("u"))].concat();
    options.extend_from_slice(b",workdir=");
    options.extend_from_slice(&escaped(&t.at.join("w")));
    if t.unprivileged {
        options.extend_from_slice(b",userxattr");
    }
    std::os::unix::ffi::OsStringExt::from_vec(options)
}

/// The step that shows the machine's `path` as `kind`: a link as the same link, a folder or a
/// file as a bind of itself; nothing for a path that does not exist.
fn shown(path: &Path, kind: u8) -> Option<Step> {
    let meta = fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        let text = fs::read_link(path).ok()?;
        return Some(Step { kind: LINK, target: path.to_path_buf(), source: text });
    }
    let kind = match kind {
        READ_DIR | READ_FILE if meta.is_dir() => READ_DIR,
        READ_DIR | READ_FILE => READ_FILE,
        other => other,
    };
    Some(Step { kind, target: path.to_path_buf(), source: path.to_path_buf() })
}

/// Parents before what lies beneath them; and nothing beneath a link (the init would make its
/// folders through the link, on the machine) or read-only beneath a folder already shown, or
/// `/proc` (it shows there already, and its folders cannot be made in a read-only mount).
fn ordered(mut steps: Vec<Step>) -> Vec<Step> {
    steps.sort_by(|a, b| a.target.cmp(&b.target));
    let mut kept: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps {
        let beneath = |kinds: &[u8]| {
            kept.iter()
                .any(|k| kinds.contains(&k.kind) && step.target.starts_with(&k.target) && step.target != k.target)
        };
        let read_only = matches!(step.kind, READ_DIR | READ_FILE | LINK);
        if beneath(&[LINK]) || (read_only && beneath(&[READ_DIR, WRITE_DIR, OVERLAY, PROC])) {
            continue;
        }
        if kept.iter().any(|k| k.target == step.target) {
            // The later of two for one path is the one asked for in its place (a file shown
            // as another): it replaces the first.
            kept.retain(|k| k.target != step.target);
        }
        kept.push(step);
    }
    kept
}

/// The steps as the init reads them: target (its kind first) and source, for each.
pub(crate) fn encode(steps: &[(u8, PathBuf, PathBuf)]) -> io::Result<Vec<CString>> {
    let c = |bytes: Vec<u8>| CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput));
    let mut out = Vec::with_capacity(steps.len() * 2);
    for (kind, target, source) in steps {
        out.push(c([&[*kind][..], target.as_os_str().as_bytes()].concat())?);
        out.push(c(source.as_os_str().as_bytes().to_vec())?);
    }
    Ok(out)
}

/// The harness's own `/etc/passwd` and `/etc/group` for a box whose programs run as `ids`
/// (uid, gid): root, `nobody` and that user (named `student`), none of the machine's other
/// accounts. Written once per user into `dir/UID-GID/` (each file whole, by a rename, so a run
/// never binds a half-written one) and shared by every run as that user.
pub(crate) fn accounts_for(dir: &Path, ids: (u32, u32)) -> io::Result<Vec<(PathBuf, PathBuf)>> {
    use std::os::unix::fs::PermissionsExt;
    let (uid, gid) = ids;
    let folder = dir.join(format!("{uid}-{gid}"));
    let shown = |name: &str| (folder.join(name), Path::new("/etc").join(name));
    if folder.join("group").is_file() {
        return Ok(vec![shown("passwd"), shown("group")]);
    }
    for made in [dir, &folder] {
        fs::create_dir_all(made)?;
        fs::set_permissions(made, fs::Permissions::from_mode(0o755))?;
    }
    let nobody = "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
    let mut passwd = format!("root:x:0:0:root:/root:/bin/sh\n{nobody}");
    let mut group = String::from("root:x:0:\nnogroup:x:65534:\n");
    if uid != 0 && uid != 65534 {
        passwd.push_str(&format!("student:x:{uid}:{gid}:student:/nonexistent:/bin/sh\n"));
    }
    if gid != 0 && gid != 65534 {
        group.push_str(&format!("student:x:{gid}:\n"));
    }
    // `group` last: its presence says both are whole.
    for (name, text) in [("passwd", passwd), ("group", group)] {
        let mut file = tempfile::NamedTempFile::new_in(&folder)?;
        io::Write::write_all(&mut file, text.as_bytes())?;
        fs::set_permissions(file.path(), fs::Permissions::from_mode(0o644))?;
        file.persist(folder.join(name)).map_err(|e| e.error)?;
    }
    Ok(vec![shown("passwd"), shown("group")])
}

/// Whether a run's writes land in a tmpfs of its own here: a root whose copy is an overlay, where
/// a file of the copy is changed and another made, and a file made in its `HOME` and in `/tmp`;
/// none of them ever in the copy, the run folder or the machine's `/tmp`.
pub(crate) fn probe_run_tmpfs(scratch: &Path, files: u64) -> Result<(), String> {
    let folder = tempfile::Builder::new()
        .prefix("probe-pristine-")
        .tempdir_in(scratch)
        .map_err(|e| format!("a folder for the probe: {e}"))?;
    let (lower, upper, home) = (folder.path().join("copy"), folder.path().join("upper"), folder.path().join("home"));
    for dir in [&lower, &upper, &home] {
        fs::create_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let kept = lower.join("kept.txt");
    fs::write(&kept, "built\n").map_err(|e| format!("{}: {e}", kept.display()))?;
    let access =
        Access { read_dirs: vec!["/usr".into()], write_dirs: vec![lower.clone(), home.clone()], ..Access::default() };
    let tmpfs = RunTmpfs {
        at: upper,
        bytes: 1 << 20,
        files,
        owner: (super::procs::uid(), super::procs::gid()),
        home: home.clone(),
        pristine: Some(lower.clone()),
        unprivileged: !super::procs::is_root(),
    };
    let steps = encode(&plan(&access, &[], Some(&tmpfs))).map_err(|e| format!("planning the probe: {e}"))?;
    let tmp_made = Path::new(PRIVATE_TMP).join(format!("bhgrade-probe-{}", std::process::id()));
    let made = [lower.join("made.txt"), home.join("made.txt"), tmp_made.clone()];
    let (kept_c, made_c) = (c_path(&kept)?, made.iter().map(|m| c_path(m)).collect::<Result<Vec<_>, _>>()?);
    // SAFETY: system calls only, on strings made before the fork.
    super::root_inside::probe_steps(folder.path(), &steps, || unsafe {
        let append = libc::open(kept_c.as_ptr(), libc::O_WRONLY | libc::O_APPEND | libc::O_CLOEXEC);
        if append < 0 || libc::write(append, b"run\n".as_ptr().cast(), 4) != 4 {
            return 107;
        }
        for path in &made_c {
            if libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC, 0o644) < 0 {
                return 108;
            }
        }
        0
    })?;
    let untouched = fs::read_to_string(&kept).is_ok_and(|text| text == "built\n");
    if !untouched || made.iter().any(|m| m.exists()) {
        let _ = fs::remove_file(&tmp_made);
        return Err("a run's writes reached the machine's folders, not a tmpfs of its own".into());
    }
    Ok(())
}

fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| format!("a NUL byte in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: u8, target: &str) -> Step {
        Step { kind, target: PathBuf::from(target), source: PathBuf::from(target) }
    }

    #[test]
    fn parents_come_first_and_nothing_read_only_lands_in_a_shown_folder() {
        let steps = vec![
            step(WRITE_DIR, "/tmp/b/run/home"),
            step(READ_FILE, "/usr/share/a.txt"),
            step(READ_DIR, "/usr"),
            step(LINK, "/lib"),
            step(READ_DIR, "/lib/x"),
            step(WRITE_DIR, "/srv/tree/copy"),
            step(READ_DIR, "/srv/tree"),
        ];
        let targets: Vec<_> = ordered(steps).into_iter().map(|s| (s.kind, s.target)).collect();
        let want = [
            (LINK, "/lib"),
            (READ_DIR, "/srv/tree"),
            (WRITE_DIR, "/srv/tree/copy"),
            (WRITE_DIR, "/tmp/b/run/home"),
            (READ_DIR, "/usr"),
        ];
        let want: Vec<_> = want.iter().map(|(k, t)| (*k, PathBuf::from(t))).collect();
        assert_eq!(targets, want);
    }

    #[test]
    fn a_file_shown_as_another_replaces_it() {
        let passwd = Step { kind: READ_FILE, target: "/etc/passwd".into(), source: "/tmp/x/passwd".into() };
        let kept = ordered(vec![step(READ_FILE, "/etc/passwd"), passwd.clone()]);
        assert_eq!(kept, [passwd]);
    }
}
