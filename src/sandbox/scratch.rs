//! A run's own folder and what the run may touch: the sandbox's scratch root and a
//! [`Command`] → a [`RunFolder`] (`home/`, the program's HOME and TMPDIR, and `inputs/`), the
//! arguments to exec (inputs the unprivileged user could not reach are staged into `inputs/`),
//! and the Landlock [`Access`] list of the run.
//!
//! Why stage: as root, programs run as an unprivileged user, who cannot pass through a folder
//! the marker keeps private (`~` with mode 0750, a `0700` temporary folder) to reach a puzzle
//! named on the command line. Such a file is copied (read-only) into the run's folder and the
//! argument points there; a file the user can reach is passed unchanged.
//!
//! Also the scratch root itself: a temporary folder → a [`ScratchRoot`] (`bhgrade-XXXXXX`,
//! marked as bhgrade's and locked while its bhgrade lives), and [`sweep_stale`]: a temporary
//! folder → the scratch roots left there by a bhgrade that was killed (SIGKILL, a power cut:
//! nothing of ours ran to remove them), removed.
//!
//! Why a lock and not a pid: the owner holds an exclusive `flock(2)` on the marker file, and
//! the kernel drops it when the process ends, however it ends. A pid can be reused by an
//! unrelated process after a crash, and means another process in another pid namespace (a
//! container sharing `/tmp`); a lock has neither problem. Only folders that carry the marker,
//! whose owner is our user, and whose lock can be taken are removed: never another user's,
//! never one a live bhgrade (of any version that locks) holds, never a folder we did not make.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::command::Command;
use super::landlock::Access;
use super::outcome::SandboxError;
use super::policy::{Policy, RunAs};

/// A run's folder, removed when the run ends (even if the program locked it).
pub(crate) struct RunFolder {
    dir: Option<tempfile::TempDir>,
    pub home: PathBuf,
    pub inputs: PathBuf,
    /// Empty: where the run's root is built, when it gets one (`root.rs`).
    pub root: PathBuf,
    /// Empty: where the tmpfs of a pristine run's overlay is mounted (`root.rs`).
    pub upper: PathBuf,
}

fn scratch_err(path: &Path) -> impl FnOnce(std::io::Error) -> SandboxError + '_ {
    move |source| SandboxError::Scratch { path: path.to_path_buf(), source }
}

impl RunFolder {
    pub(crate) fn new(root: &Path, run_as: Option<RunAs>) -> Result<RunFolder, SandboxError> {
        let dir = tempfile::Builder::new().prefix("run-").tempdir_in(root).map_err(scratch_err(root))?;
        let (home, inputs) = (dir.path().join("home"), dir.path().join("inputs"));
        let (root, upper) = (dir.path().join("root"), dir.path().join("upper"));
        for sub in [&home, &inputs, &root, &upper] {
            fs::create_dir(sub).map_err(scratch_err(sub))?;
        }
        if let Some(ids) = run_as {
            // The user passes through the run folder, owns its home, and only reads its inputs.
            fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o711)).map_err(scratch_err(dir.path()))?;
            std::os::unix::fs::chown(&home, Some(ids.uid), Some(ids.gid)).map_err(scratch_err(&home))?;
            fs::set_permissions(&inputs, fs::Permissions::from_mode(0o755)).map_err(scratch_err(&inputs))?;
        }
        Ok(RunFolder { dir: Some(dir), home, inputs, root, upper })
    }

    /// The arguments to exec, and the input files read in place (to grant under Landlock).
    /// Every absolute path to a regular file is an input; one the user cannot reach is copied.
    pub(crate) fn stage_inputs(
        &self,
        args: &[OsString],
        run_as: Option<RunAs>,
    ) -> Result<(Vec<OsString>, Vec<PathBuf>), SandboxError> {
        let mut out = Vec::with_capacity(args.len());
        let mut in_place = Vec::new();
        for (index, arg) in args.iter().enumerate() {
            let path = Path::new(arg);
            let is_input = path.is_absolute() && fs::metadata(path).is_ok_and(|m| m.is_file());
            if !is_input {
                out.push(arg.clone());
                continue;
            }
            match run_as {
                Some(ids) if !reachable(path, ids) => {
                    let dir = self.inputs.join(index.to_string());
                    fs::create_dir(&dir).map_err(scratch_err(&dir))?;
                    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).map_err(scratch_err(&dir))?;
                    let copy = dir.join(path.file_name().unwrap_or(arg));
                    fs::copy(path, &copy).map_err(scratch_err(path))?;
                    fs::set_permissions(&copy, fs::Permissions::from_mode(0o444)).map_err(scratch_err(&copy))?;
                    out.push(copy.into_os_string());
                }
                Some(_) | None => {
                    in_place.push(path.to_path_buf());
                    out.push(arg.clone());
                }
            }
        }
        Ok((out, in_place))
    }

    /// Remove the folder even when the program took its own permissions away.
    pub(crate) fn remove(mut self) -> Result<(), SandboxError> {
        let Some(dir) = self.dir.take() else { return Ok(()) };
        let path = dir.path().to_path_buf();
        if dir.close().is_ok() {
            return Ok(());
        }
        crate::fsutil::make_writable(&path);
        match fs::remove_dir_all(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(SandboxError::Scratch { path, source }),
        }
    }
}

/// Whether the mode bits of `meta` give `ids` (with no supplementary groups) the permission
/// `bit` (4 read, 1 search). ACLs are not consulted: at worst a file is staged needlessly.
fn allows(meta: &fs::Metadata, ids: RunAs, bit: u32) -> bool {
    let shift = if meta.uid() == ids.uid {
        6
    } else if meta.gid() == ids.gid {
        3
    } else {
        0
    };
    meta.mode() >> shift & bit != 0
}

/// Whether `ids` may pass through every folder down to `dir`, and into it.
pub(crate) fn searchable(dir: &Path, ids: RunAs) -> bool {
    let Ok(real) = dir.canonicalize() else { return false };
    real.ancestors().all(|d| fs::metadata(d).is_ok_and(|m| allows(&m, ids, 0o1)))
}

/// Whether the run's user (`ids`, or the harness's own) may enter `dir`: a student's step that
/// took its own copy's permissions away leaves the next one unable to start there, which is the
/// student's doing, not the harness's.
pub(crate) fn enterable(dir: &Path, ids: Option<RunAs>) -> bool {
    match ids {
        Some(ids) => searchable(dir, ids),
        None => {
            use std::os::unix::ffi::OsStrExt;
            let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else { return false };
            // SAFETY: a NUL-terminated path.
            unsafe { libc::access(path.as_ptr(), libc::X_OK) == 0 }
        }
    }
}

/// Whether `ids` may search every folder on the way to `file` and read it.
fn reachable(file: &Path, ids: RunAs) -> bool {
    let Ok(real) = file.canonicalize() else { return false };
    real.parent().is_some_and(|dir| searchable(dir, ids)) && fs::metadata(&real).is_ok_and(|m| allows(&m, ids, 0o4))
}

/// Where a run's working folder is, found without following links below a copy: a student
/// owns their copy and may have made `src` a link to `/` in an earlier step, and a working
/// folder resolved through such a link must never widen what the run may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WorkingFolder {
    /// Beneath this declared copy, every folder on the way a real folder: the run may write in
    /// the copy.
    InCopy(PathBuf),
    /// In no copy at all (a library caller's own folder): the run may read it.
    Outside,
    /// In a copy, but missing or reached through a link: the student's doing; the run is not
    /// started, and this says why.
    Escapes(String),
}

impl WorkingFolder {
    /// What is granted is the copy found here, never the folder `cwd` resolves to, so a link a
    /// run of the same submission swaps in after this look (while another of its runs goes on)
    /// can at worst start the program in another folder with the same grants.
    pub(crate) fn of(cwd: &Path, copies: &[PathBuf]) -> WorkingFolder {
        for ancestor in cwd.ancestors() {
            let Ok(real) = ancestor.canonicalize() else { continue };
            let Some(copy) = copies.iter().find(|c| **c == real) else { continue };
            let below = cwd.strip_prefix(ancestor).unwrap_or(Path::new(""));
            let mut at = copy.clone();
            for part in below.components() {
                at.push(part);
                match fs::symlink_metadata(&at) {
                    Ok(meta) if meta.is_dir() => {}
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return WorkingFolder::Escapes(format!(
                            "the working folder {} is a link out of the submission's copy, made by an earlier \
                             step: the program was not started",
                            below.display()
                        ));
                    }
                    Ok(_) | Err(_) => {
                        return WorkingFolder::Escapes(format!(
                            "the working folder {} is gone (an earlier step, such as the build, removed or \
                             replaced it): the program was not started",
                            below.display()
                        ));
                    }
                }
            }
            return WorkingFolder::InCopy(copy.clone());
        }
        WorkingFolder::Outside
    }
}

/// What a run may touch (under Landlock, and in its root): read the system folders, the JDKs
/// and the folders every run may read (`shared`), read the inputs, and write only its scratch
/// copy and its folder.
pub(crate) fn access(
    policy: &Policy,
    cmd: &Command,
    folder: &RunFolder,
    place: &WorkingFolder,
    shared: Vec<PathBuf>,
    inputs: Vec<PathBuf>,
) -> Access {
    let mut read_dirs: Vec<PathBuf> = policy.readable.clone();
    read_dirs.push(folder.inputs.clone());
    read_dirs.extend(shared);
    for home in java_homes(&cmd.program, &policy.path) {
        if !read_dirs.iter().any(|d| home.starts_with(d)) {
            read_dirs.push(home);
        }
    }
    let mut write_dirs = vec![folder.home.clone()];
    match place {
        WorkingFolder::InCopy(copy) => write_dirs.push(copy.clone()),
        WorkingFolder::Outside => read_dirs.push(cmd.cwd.clone()),
        // Never started; nothing beyond the system.
        WorkingFolder::Escapes(_) => {}
    }
    let programs = launcher(&cmd.program, &policy.path)
        .filter(|p| !read_dirs.iter().chain(&write_dirs).any(|d| p.starts_with(d)))
        .into_iter()
        .collect();
    let devices = super::policy::DEVICES.iter().map(PathBuf::from).collect();
    Access { read_dirs, read_files: inputs, programs, write_dirs, devices }
}

/// The file a command's program names: itself when absolute, else the first of that name on the
/// programs' `PATH` (a relative path with a folder is the student's, in the copy).
fn launcher(program: &std::ffi::OsStr, path: &std::ffi::OsStr) -> Option<PathBuf> {
    let program = Path::new(program);
    if program.is_absolute() {
        return program.is_file().then(|| program.to_path_buf());
    }
    if program.components().count() > 1 {
        return None;
    }
    std::env::split_paths(path).filter(|dir| dir.is_absolute()).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// The JDKs a run may read: that of the program, when it is a JDK's launcher, and those of `java`
/// and `javac` on the programs' `PATH` (a build script calls them by name), each found as a JDK is
/// laid out (its `java.home`: `bin/`, a `release` file and `lib/modules`), so that a `PATH` that
/// names a folder of the marker's never grants that folder's parent.
fn java_homes(program: &std::ffi::OsStr, path: &std::ffi::OsStr) -> Vec<PathBuf> {
    let on_path = |name: &std::ffi::OsStr| std::env::split_paths(path).map(|dir| dir.join(name)).find(|p| p.is_file());
    let program = Path::new(program);
    let own = if program.components().count() > 1 { Some(program.to_path_buf()) } else { on_path(program.as_os_str()) };
    let mut homes: Vec<PathBuf> = Vec::new();
    for launcher in [own, on_path("java".as_ref()), on_path("javac".as_ref())].into_iter().flatten() {
        let Ok(real) = launcher.canonicalize() else { continue };
        let Some(home) = real.parent().filter(|bin| bin.ends_with("bin")).and_then(Path::parent) else { continue };
        let is_jdk = home.join("release").is_file() && home.join("lib/modules").is_file();
        if is_jdk && !homes.iter().any(|h| h == home) {
            homes.push(home.to_path_buf());
        }
    }
    homes
}

/// The prefix of every scratch root's name.
pub const SCRATCH_PREFIX: &str = "bhgrade-";
/// The marker file in a scratch root: its first line says it is bhgrade's, its second which
/// process made it (for a person looking); the lock on it says whether that process lives.
pub const OWNER_FILE: &str = ".bhgrade-owner";
const OWNER_MAGIC: &[u8] = b"bhgrade scratch root\n";

/// A scratch root (see the module documentation). Dropping it removes the folder, even where
/// a program took its own permissions away.
pub struct ScratchRoot {
    dir: Option<tempfile::TempDir>,
    /// Held for the life of this value: the kernel releases it when the process ends.
    _lock: File,
}

impl ScratchRoot {
    /// A fresh `bhgrade-XXXXXX` folder in `parent`, marked and locked.
    pub fn create_in(parent: &Path) -> io::Result<ScratchRoot> {
        let dir = tempfile::Builder::new().prefix(SCRATCH_PREFIX).tempdir_in(parent)?;
        // Locked before it gets its real name: a sweep never sees a marker it could lock.
        let pending = dir.path().join(format!("{OWNER_FILE}.new"));
        let mut lock = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&pending)?;
        crate::fsutil::try_lock(&lock)?;
        lock.write_all(OWNER_MAGIC)?;
        writeln!(lock, "pid {}", std::process::id())?;
        fs::rename(&pending, dir.path().join(OWNER_FILE))?;
        Ok(ScratchRoot { dir: Some(dir), _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new(""), |d| d.path())
    }

    /// Leave the folder behind, unlocked, as a killed bhgrade would.
    #[cfg(test)]
    fn abandon(mut self) -> PathBuf {
        self.dir.take().map(|d| d.keep()).unwrap_or_default()
    }
}

impl Drop for ScratchRoot {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_path_buf();
            if dir.close().is_err() {
                // Nothing to report it to: a leftover is swept by the next bhgrade.
                let _ = remove_forcibly(&path);
            }
        }
    }
}

/// What [`sweep_stale`] removed, and what it found stale but could not remove.
#[derive(Debug, Default)]
pub struct Swept {
    pub removed: Vec<PathBuf>,
    pub failed: Vec<(PathBuf, io::Error)>,
}

/// Remove the scratch roots in `parent` whose bhgrade is gone (see the module documentation).
/// Never fails: what cannot be read is not ours to remove.
pub fn sweep_stale(parent: &Path) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = fs::read_dir(parent) else { return swept };
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let path = entry.path();
        let ours = entry.file_name().as_encoded_bytes().starts_with(SCRATCH_PREFIX.as_bytes())
            && fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        // The lock is held until the folder is gone, so two sweeps never remove one folder twice
        // and a bhgrade starting now cannot be handed it.
        let Some(_lock) = ours.then(|| stale_lock(&path)).flatten() else { continue };
        // A killed bhgrade's submissions may still have their own file systems mounted there.
        super::quota::unmount_below(&path);
        match remove_forcibly(&path) {
            Ok(()) => swept.removed.push(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => swept.failed.push((path, e)),
        }
    }
    swept
}

/// The lock of a scratch root's marker, if it carries ours and no process holds it.
fn stale_lock(root: &Path) -> Option<File> {
    let mut marker = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(root.join(OWNER_FILE))
        .ok()?;
    let mut head = Vec::new();
    (&mut marker).take(OWNER_MAGIC.len() as u64).read_to_end(&mut head).ok()?;
    if head != OWNER_MAGIC || !marker.metadata().ok()?.is_file() {
        return None;
    }
    crate::fsutil::try_lock(&marker).ok().map(|()| marker)
}

/// Remove a tree even where a program made folders unwritable or unsearchable, or an ordinary
/// marker's subordinate ids own what a killed marking left (given back to it first).
fn remove_forcibly(path: &Path) -> io::Result<()> {
    if fs::remove_dir_all(path).is_ok() {
        return Ok(());
    }
    if !super::procs::is_root() {
        let (first, count) = super::policy::DEFAULT_IDENTITIES;
        if let Ok(subids) = super::marker_ns::subids(first, count) {
            let _ = subids.chown_tree(path, None, false);
        }
    }
    crate::fsutil::make_writable(path);
    fs::remove_dir_all(path)
}

#[cfg(test)]
mod java_home_tests {
    use super::*;

    #[test]
    fn only_a_folder_laid_out_as_a_jdk_is_granted() {
        let tmp = tempfile::tempdir().unwrap();
        let jdk = tmp.path().join("jdk-21");
        fs::create_dir_all(jdk.join("bin")).unwrap();
        fs::create_dir_all(jdk.join("lib")).unwrap();
        for file in ["bin/java", "bin/javac", "release", "lib/modules"] {
            fs::write(jdk.join(file), "").unwrap();
        }
        // A launcher in the marker's own folder: its parent is no JDK, and must not be granted.
        let own_bin = tmp.path().join("home/bin");
        fs::create_dir_all(&own_bin).unwrap();
        fs::write(own_bin.join("java"), "").unwrap();
        let path = std::env::join_paths([own_bin.clone(), jdk.join("bin")]).unwrap();
        // `java` is the marker's wrapper, `javac` the JDK's: only the JDK is granted.
        assert_eq!(java_homes("sh".as_ref(), &path), [jdk.canonicalize().unwrap()]);
        assert_eq!(java_homes(own_bin.join("java").as_os_str(), "/nowhere".as_ref()), Vec::<PathBuf>::new());
    }
}

#[cfg(test)]
mod scratch_root_tests {
    use super::*;
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_live_root_stays_and_an_abandoned_one_goes() {
        let tmp = tempfile::tempdir().unwrap();
        let live = ScratchRoot::create_in(tmp.path()).unwrap();
        let marker = fs::read_to_string(live.path().join(OWNER_FILE)).unwrap();
        assert_eq!(marker, format!("bhgrade scratch root\npid {}\n", std::process::id()));
        let left = ScratchRoot::create_in(tmp.path()).unwrap().abandon();
        // What a student's program may leave: a folder it can no longer be entered.
        fs::create_dir_all(left.join("build-x/src/locked")).unwrap();
        fs::write(left.join("build-x/src/locked/A.class"), b"").unwrap();
        fs::set_permissions(left.join("build-x/src/locked"), fs::Permissions::from_mode(0o000)).unwrap();
        // Not ours: no marker, a marker that says something else, a link.
        let plain = tmp.path().join("bhgrade-older");
        fs::create_dir(&plain).unwrap();
        let other = tmp.path().join("bhgrade-other");
        fs::create_dir(&other).unwrap();
        fs::write(other.join(OWNER_FILE), b"something else\n").unwrap();
        std::os::unix::fs::symlink(&left, tmp.path().join("bhgrade-link")).unwrap();

        let swept = sweep_stale(tmp.path());
        assert_eq!(swept.removed, std::slice::from_ref(&left), "{swept:?}");
        assert!(swept.failed.is_empty(), "{swept:?}");
        assert!(!left.exists());
        assert!(live.path().join(OWNER_FILE).is_file() && plain.is_dir() && other.is_dir());
        let path = live.path().to_path_buf();
        drop(live);
        assert!(!path.exists());
    }

    /// A root locked by another process, as a live bhgrade holds it, then that process killed.
    #[test]
    fn a_root_is_swept_once_its_holder_is_killed() {
        if !Path::new("/usr/bin/flock").exists() {
            return crate::skip::skipped("a_root_is_swept_once_its_holder_is_killed", "no flock(1)");
        }
        let tmp = tempfile::tempdir().unwrap();
        let root = ScratchRoot::create_in(tmp.path()).unwrap().abandon();
        // flock(1) takes the same flock(2) lock; -o keeps it from the command, so the lock
        // lives exactly as long as the flock process.
        let mut holder = std::process::Command::new("/usr/bin/flock")
            .args(["-o", "-n"])
            .arg(root.join(OWNER_FILE))
            .args(["sh", "-c", "echo locked; exec sleep 600"])
            .stdout(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        io::BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line, "locked\n");
        assert!(sweep_stale(tmp.path()).removed.is_empty());
        assert!(root.is_dir());
        // SAFETY: kill(2) of the process group we started.
        unsafe { libc::kill(-(holder.id() as i32), libc::SIGKILL) };
        holder.wait().unwrap();
        assert_eq!(sweep_stale(tmp.path()).removed, std::slice::from_ref(&root));
        assert!(!root.exists());
    }
}
