//! A run's own folder and what the run may touch: the sandbox's scratch root and a
//! [`Command`] → a [`RunFolder`] (`home/`, the program's HOME and TMPDIR, and `inputs/`), the
//! arguments to exec (inputs the unprivileged user could not reach are staged into `inputs/`),
//! and the Landlock [`Access`] list of the run.
//!
//! Why stage: as root, programs run as an unprivileged user, who cannot pass through a folder
//! the marker keeps private (`~` with mode 0750, a `0700` temporary folder) to reach a puzzle
//! named on the command line. Such a file is copied (read-only) into the run's folder and the
//! argument points there; a file the user can reach is passed unchanged.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::landlock::Access;
use super::{Command, Policy, RunAs, SandboxError};

/// A run's folder, removed when the run ends (even if the program locked it).
pub(crate) struct RunFolder {
    dir: Option<tempfile::TempDir>,
    pub home: PathBuf,
    pub inputs: PathBuf,
}

fn scratch_err(path: &Path) -> impl FnOnce(std::io::Error) -> SandboxError + '_ {
    move |source| SandboxError::Scratch { path: path.to_path_buf(), source }
}

impl RunFolder {
    pub(crate) fn new(root: &Path, run_as: Option<RunAs>) -> Result<RunFolder, SandboxError> {
        let dir = tempfile::Builder::new().prefix("run-").tempdir_in(root).map_err(scratch_err(root))?;
        let (home, inputs) = (dir.path().join("home"), dir.path().join("inputs"));
        for sub in [&home, &inputs] {
            fs::create_dir(sub).map_err(scratch_err(sub))?;
        }
        if let Some(ids) = run_as {
            // The user passes through the run folder, owns its home, and only reads its inputs.
            fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o711)).map_err(scratch_err(dir.path()))?;
            std::os::unix::fs::chown(&home, Some(ids.uid), Some(ids.gid)).map_err(scratch_err(&home))?;
            fs::set_permissions(&inputs, fs::Permissions::from_mode(0o755)).map_err(scratch_err(&inputs))?;
        }
        Ok(RunFolder { dir: Some(dir), home, inputs })
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
        make_writable(&path);
        match fs::remove_dir_all(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(SandboxError::Scratch { path, source }),
        }
    }
}

fn make_writable(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            make_writable(&entry.path());
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

/// Whether `ids` may search every folder on the way to `file` and read it.
fn reachable(file: &Path, ids: RunAs) -> bool {
    let Ok(real) = file.canonicalize() else { return false };
    real.parent().is_some_and(|dir| searchable(dir, ids)) && fs::metadata(&real).is_ok_and(|m| allows(&m, ids, 0o4))
}

/// What a run may touch under Landlock: read the system folders and the program's own
/// installation, read the inputs, and write only its scratch copy (`writable`) and its folder.
pub(crate) fn access(
    policy: &Policy,
    cmd: &Command,
    folder: &RunFolder,
    writable: Option<PathBuf>,
    inputs: Vec<PathBuf>,
) -> Access {
    let mut read_dirs: Vec<PathBuf> = policy.readable.clone();
    read_dirs.push(folder.inputs.clone());
    if let Some(prefix) = installation(&cmd.program, &policy.path) {
        if !read_dirs.iter().any(|d| prefix.starts_with(d)) {
            read_dirs.push(prefix);
        }
    }
    let mut write_dirs = vec![folder.home.clone()];
    match writable {
        Some(copy) => write_dirs.push(copy),
        // Not in a scratch copy (a library caller's own folder): it may read where it starts.
        None => read_dirs.push(cmd.cwd.clone()),
    }
    Access { read_dirs, read_files: inputs, write_dirs, devices: vec![PathBuf::from("/dev/null")] }
}

/// The folder a program is installed in: two levels above its resolved binary
/// (`/opt/jdk-17/bin/java` → `/opt/jdk-17`), so a JDK outside the system folders still starts.
fn installation(program: &std::ffi::OsStr, path: &std::ffi::OsStr) -> Option<PathBuf> {
    let program = Path::new(program);
    let found = if program.components().count() > 1 {
        Some(program.to_path_buf())
    } else {
        std::env::split_paths(path).map(|dir| dir.join(program)).find(|p| p.is_file())
    }?;
    let real = found.canonicalize().ok()?;
    real.parent()?.parent().map(Path::to_path_buf).filter(|p| p.parent().is_some())
}
