//! Subordinate ids for an ordinary user: the marker's ranges in `/etc/subuid` and `/etc/subgid`
//! and the setuid helpers `newuidmap` and `newgidmap` (as rootless podman uses them) → a
//! [`SubIds`] that maps those ids into a user namespace a child of the harness has just made.
//!
//! Why: only root may switch to another uid, so an ordinary user's runs were the marker's own
//! uid (in a root holding nothing of the marker's). With subordinate ids, each submission runs
//! as an id of its own there too, as it does under root (`identity.rs`): no run can signal,
//! trace or change another submission's processes or files, nor anything the marker owns.
//!
//! Two maps, both with the lent ids at [`Policy::identities`](super::policy::Policy::identities)'s
//! numbers inside (so the box's accounts name them `student` as under root):
//! - a run's ([`Inside::Marker`]): the marker's own uid and gid as themselves, so its
//!   supervisor (which never execs) and a program with no identity lent keep the marker's
//!   number, and lose every capability at exec as they did before;
//! - a helper's ([`Inside::Root`]): the marker as root, so a program exec'd there (`chown`)
//!   keeps the capabilities over every mapped id: to hand a copy to a lent id and take it back.

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Where the setuid helpers are looked for (never `PATH`: a student's or marker's shim there
/// would be handed the harness's namespaces).
const HELPER_DIRS: &[&str] = &["/usr/bin", "/bin", "/usr/sbin", "/sbin"];

/// The marker's subordinate ranges, and the helpers that map them.
#[derive(Debug, Clone)]
pub(crate) struct SubIds {
    /// The first subordinate uid and gid lent (host numbers), and how many of each may be.
    host_uid: u32,
    host_gid: u32,
    count: u32,
    /// The first lent id's number inside every namespace.
    inside_first: u32,
    writer: Writer,
    uid: u32,
    gid: u32,
}

/// Who writes a child's maps.
#[derive(Debug, Clone)]
enum Writer {
    /// The setuid helpers, from the machine's namespace.
    Helpers { newuidmap: PathBuf, newgidmap: PathBuf },
    /// The harness itself, from its own namespace, where it may map every id it holds
    /// (`marker_ns.rs`).
    Direct,
}

/// Who the harness's own uid and gid are inside a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inside {
    /// Themselves (a run's namespace).
    Marker,
    /// Root (a helper's namespace).
    Root,
}

impl Inside {
    /// The number inside of the marker's id `own`.
    fn number(self, own: u32) -> u32 {
        match self {
            Inside::Marker => own,
            Inside::Root => 0,
        }
    }
}

impl SubIds {
    /// The last `wanted` ids of the marker's ranges (by name or uid; fewer if they are shorter),
    /// lent from `inside_first` inside; `Err` says what is missing. Not yet proven: see
    /// [`SubIds::prove`].
    pub(crate) fn find(inside_first: u32, wanted: u32) -> Result<SubIds, String> {
        let (uid, gid) = (super::procs::uid(), super::procs::gid());
        let name = super::procs::user_name(uid);
        let range = |file: &str| -> Result<(u32, u32), String> {
            let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
            ranges_of(&text, name.as_deref(), uid)
                .ok_or_else(|| format!("{file} gives {} no range", name.clone().unwrap_or_else(|| uid.to_string())))
        };
        let (uid_start, uids) = range("/etc/subuid")?;
        let (gid_start, gids) = range("/etc/subgid")?;
        let count = wanted.min(uids).min(gids);
        // The top of the range: the marker's rootless containers map theirs from its start
        // (their root and first users), and a process of theirs would make the ids unusable.
        let (host_uid, host_gid) = (uid_start + (uids - count), gid_start + (gids - count));
        let inside = inside_first..inside_first.saturating_add(count);
        // Root inside is the marker in a helper's namespace, and the marker's own ids in a run's.
        if count == 0 || inside.contains(&0) || inside.contains(&uid) || inside.contains(&gid) {
            return Err(format!("the ids {inside_first}-{} inside would hold root or the marker's own", inside.end));
        }
        let helper = |name: &str| {
            HELPER_DIRS.iter().map(|dir| Path::new(dir).join(name)).find(|p| is_setuid_root(p)).ok_or_else(|| {
                format!("no setuid-root {name} in {} (Debian, Ubuntu: the `uidmap` package)", HELPER_DIRS.join(", "))
            })
        };
        let writer = Writer::Helpers { newuidmap: helper("newuidmap")?, newgidmap: helper("newgidmap")? };
        Ok(SubIds { host_uid, host_gid, count, inside_first, writer, uid, gid })
    }

    /// The `count` ids from `first` of the harness's own namespace, where they are already the
    /// marker's subordinate ids (`marker_ns.rs`), by the same numbers as inside a run's.
    pub(crate) fn within(first: u32, count: u32) -> SubIds {
        let (uid, gid) = (super::procs::uid(), super::procs::gid());
        SubIds { host_uid: first, host_gid: first, count, inside_first: first, writer: Writer::Direct, uid, gid }
    }

    /// How many ids may be lent, from which number inside, and the first uid and gid on the
    /// machine.
    pub(crate) fn lent_range(&self) -> (u32, (u32, u32), u32) {
        (self.inside_first, (self.host_uid, self.host_gid), self.count)
    }

    /// Write the maps of `pid`, a child that has just unshared its user namespace.
    pub(crate) fn map(&self, pid: i32, own: Inside) -> io::Result<()> {
        let (newuidmap, newgidmap) = match &self.writer {
            Writer::Helpers { newuidmap, newgidmap } => (newuidmap, newgidmap),
            Writer::Direct => return self.write_maps(pid, own),
        };
        for (helper, own_id, host) in [(newuidmap, self.uid, self.host_uid), (newgidmap, self.gid, self.host_gid)] {
            let args: Vec<String> = [pid as u32, own.number(own_id), own_id, 1, self.inside_first, host, self.count]
                .iter()
                .map(u32::to_string)
                .collect();
            let out = std::process::Command::new(helper)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()?;
            if !out.status.success() {
                let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
                return Err(io::Error::other(format!("{} {}: {why}", helper.display(), args.join(" "))));
            }
        }
        Ok(())
    }

    /// Write `pid`'s maps as the helpers would, from the harness's own namespace, where its
    /// capabilities over the ids it maps let it.
    fn write_maps(&self, pid: i32, own: Inside) -> io::Result<()> {
        for (file, own_id, host) in [("uid_map", self.uid, self.host_uid), ("gid_map", self.gid, self.host_gid)] {
            let map = format!("{} {own_id} 1\n{} {host} {}\n", own.number(own_id), self.inside_first, self.count);
            std::fs::write(format!("/proc/{pid}/{file}"), map)
                .map_err(|e| io::Error::new(e.kind(), format!("writing /proc/{pid}/{file}: {e}")))?;
        }
        Ok(())
    }

    /// Run `argv` (an absolute program first) as root of a user namespace with the helper's map:
    /// `Ok` when it exits 0, else what it said.
    pub(crate) fn run_as_root_inside(&self, argv: &[OsString]) -> io::Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let strings: Vec<CString> = argv
            .iter()
            .map(|a| CString::new(a.as_bytes()))
            .collect::<Result<_, _>>()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in an argument"))?;
        let mut pointers: Vec<*const libc::c_char> = strings.iter().map(|s| s.as_ptr()).collect();
        pointers.push(std::ptr::null());
        let env: [*const libc::c_char; 2] = [c"PATH=/usr/bin:/bin".as_ptr(), std::ptr::null()];
        // SAFETY: exec on buffers made before the clone.
        let ended = self.in_mapped_child(Inside::Root, || unsafe {
            libc::execve(pointers[0], pointers.as_ptr(), env.as_ptr());
            127
        })?;
        match ended {
            super::outcome::Exit::Code(0) => Ok(()),
            other => Err(io::Error::other(format!("{} ended with {other:?}", argv[0].to_string_lossy()))),
        }
    }

    /// Run `body` in a throwaway child in a user namespace of its own, mapped (`own` says as
    /// whom the marker is inside) before `body` starts; how it ended.
    ///
    /// `body` runs in a copy of a multi-threaded process: plain system calls only, on values
    /// prepared before.
    fn in_mapped_child(&self, own: Inside, body: impl FnOnce() -> libc::c_int) -> io::Result<super::outcome::Exit> {
        let ((ask_read, ask_write), (answer_read, answer_write)) = (pipe()?, pipe()?);
        let (ask, answer) =
            ((ask_read.as_raw_fd(), ask_write.as_raw_fd()), (answer_read.as_raw_fd(), answer_write.as_raw_fd()));
        // SAFETY: the child makes system calls only (`body`'s contract).
        let pid = unsafe { super::procs::clone_process()? };
        if pid == 0 {
            // SAFETY: in the fresh child; plain system calls.
            unsafe {
                libc::close(ask.0);
                libc::close(answer.1);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
                if await_map(ask.1, answer.0).is_err() {
                    libc::_exit(126);
                }
                libc::_exit(body());
            }
        }
        // Our copies of the child's ends go, so that a child that dies unmapped is seen (EOF).
        drop((ask_write, answer_read));
        let mapped = answer_map(ask.0, answer.1, || self.map(pid, own));
        drop((ask_read, answer_write));
        let ended = super::procs::reap(pid)?.exit;
        mapped.map(|()| ended)
    }

    /// Hand the tree at `path` to `ids` (inside numbers), or back to the marker (`None`); with
    /// `keep_top`, `path` itself stays the marker's.
    pub(crate) fn chown_tree(&self, path: &Path, ids: Option<super::policy::RunAs>, keep_top: bool) -> io::Result<()> {
        let owner = ids.map_or_else(|| "0:0".to_string(), |ids| format!("{}:{}", ids.uid, ids.gid));
        let script = if keep_top {
            r#"chown -R -h "$1" -- "$2" && chown -h 0:0 -- "$2""#
        } else {
            r#"chown -R -h "$1" -- "$2""#
        };
        let argv: Vec<OsString> =
            vec!["/bin/sh".into(), "-c".into(), script.into(), "sh".into(), owner.into(), path.as_os_str().to_owned()];
        self.run_as_root_inside(&argv)
    }

    /// Prove the maps on this machine: a child mapped as a run's is, become the first lent id,
    /// finds itself that id (as `getuid` sees it inside).
    pub(crate) fn prove(&self) -> Result<(), String> {
        let id = self.inside_first;
        // SAFETY: system calls only.
        let ended = self.in_mapped_child(Inside::Marker, || unsafe {
            if libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) != 0 {
                120
            } else if libc::syscall(libc::SYS_setgid, id) != 0 || libc::syscall(libc::SYS_setuid, id) != 0 {
                121
            } else if libc::getuid() != id || libc::getgid() != id {
                122
            } else {
                0
            }
        });
        match ended.map_err(|e| format!("mapping a child's ids: {e}"))? {
            super::outcome::Exit::Code(0) => Ok(()),
            super::outcome::Exit::Code(120) => Err("a mapped child may not drop its groups (setgroups denied)".into()),
            other => Err(format!("a child mapped with subordinate ids could not become uid {id} ({other:?})")),
        }
    }
}

/// The first range of `name` (or of `uid` by number) in a `/etc/subuid`-style text.
fn ranges_of(text: &str, name: Option<&str>, uid: u32) -> Option<(u32, u32)> {
    text.lines().find_map(|line| {
        let mut fields = line.trim().split(':');
        let who = fields.next()?;
        let (start, count) = (fields.next()?.parse().ok()?, fields.next()?.parse().ok()?);
        let mine = Some(who) == name || who.parse() == Ok(uid);
        (mine && count > 0).then_some((start, count))
    })
}

fn is_setuid_root(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.uid() == 0 && m.mode() & 0o4000 != 0)
}

/// A pipe's read and write ends, closed on exec and when dropped.
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0 as RawFd; 2];
    // SAFETY: pointer to a live array of two fds.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds were just made and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

/// In a child: unshare a user namespace, say so on `ask`, and wait on `answer` for its maps.
///
/// # Safety
/// Plain system calls only (a child of a multi-threaded process).
pub(crate) unsafe fn await_map(ask: RawFd, answer: RawFd) -> Result<(), ()> {
    if libc::unshare(libc::CLONE_NEWUSER) != 0 {
        libc::write(ask, b"x".as_ptr().cast(), 1);
        return Err(());
    }
    if libc::write(ask, b"u".as_ptr().cast(), 1) != 1 {
        return Err(());
    }
    let mut reply = 0u8;
    loop {
        let n = libc::read(answer, (&mut reply as *mut u8).cast(), 1);
        if n == 1 && reply == b'm' {
            return Ok(());
        }
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return Err(());
    }
}

/// In the harness: wait for a child's word on `ask`; once it has unshared, `map` it and answer
/// on `answer` (`m` when mapped). `Err` when the child could not unshare or the maps failed.
pub(crate) fn answer_map(ask: RawFd, answer: RawFd, map: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
    let mut word = 0u8;
    let n = loop {
        // SAFETY: reading one byte into a live local.
        let n = unsafe { libc::read(ask, (&mut word as *mut u8).cast(), 1) };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        break n;
    };
    if n != 1 || word != b'u' {
        return Err(io::Error::other("the child could not make a user namespace"));
    }
    let mapped = map();
    let reply = if mapped.is_ok() { b"m" } else { b"f" };
    // SAFETY: writing one byte from a static.
    unsafe { libc::write(answer, reply.as_ptr().cast(), 1) };
    mapped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_users_range_is_found_by_name_or_uid() {
        let text = "alice:100000:65536\n# no\n1001:200000:10\nbob:300000:0\nbob:400000:5\n";
        assert_eq!(ranges_of(text, Some("alice"), 1000), Some((100000, 65536)));
        assert_eq!(ranges_of(text, Some("carol"), 1001), Some((200000, 10)));
        // An empty range is no range.
        assert_eq!(ranges_of(text, Some("bob"), 1002), Some((400000, 5)));
        assert_eq!(ranges_of(text, None, 7), None);
        assert_eq!(ranges_of("alice:x:5\n", Some("alice"), 1), None);
    }
}
