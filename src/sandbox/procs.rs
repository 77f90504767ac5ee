//! Process helpers: a process id → the live members of its process group (from /proc), the
//! signals sent to a run, the reaping of the main process (status + rusage), the probes
//! for a pidfd and a network namespace, and a new user namespace's own ids mapped.

use std::ffi::CStr;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::time::Duration;

use super::outcome::Exit;

pub(crate) fn is_root() -> bool {
    uid() == 0
}

pub(crate) fn uid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// Every process id in /proc.
fn all_pids() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries.flatten().filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok()).collect()
}

/// State letter, parent and process group of a process, from /proc/PID/stat.
struct Stat {
    zombie: bool,
    ppid: i32,
    pgrp: i32,
}

fn stat(pid: i32) -> Option<Stat> {
    let raw = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let close = raw.iter().rposition(|&b| b == b')')?;
    let rest = String::from_utf8_lossy(&raw[close + 1..]);
    let mut fields = rest.split_whitespace();
    let zombie = fields.next()? == "Z";
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(Stat { zombie, ppid, pgrp })
}

/// Exited but not yet reaped by its parent (or gone altogether).
pub(crate) fn is_zombie(pid: i32) -> bool {
    stat(pid).is_none_or(|s| s.zombie)
}

/// Live (non-zombie) processes whose process group is `pgid`, except `except`.
pub(crate) fn group_members(pgid: i32, except: i32) -> Vec<i32> {
    all_pids()
        .into_iter()
        .filter(|&pid| pid != except)
        .filter(|&pid| stat(pid).is_some_and(|s| !s.zombie && s.pgrp == pgid))
        .collect()
}

/// Processes holding an end of one of these pipes, other than the harness and its direct
/// children (those are other runs' programs, which may hold a copy of every fd of the
/// harness between fork and exec): the only trace of a `setsid` escaper without a cgroup.
pub(crate) fn pipe_holders(inodes: &[u64]) -> Vec<i32> {
    let wanted: Vec<String> = inodes.iter().map(|i| format!("pipe:[{i}]")).collect();
    let me = std::process::id() as i32;
    all_pids()
        .into_iter()
        .filter(|&pid| pid != me && stat(pid).is_some_and(|s| s.ppid != me))
        .filter(|pid| {
            let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
                return false;
            };
            fds.flatten().any(|fd| {
                std::fs::read_link(fd.path())
                    .is_ok_and(|target| wanted.iter().any(|w| target.as_os_str() == w.as_str()))
            })
        })
        .collect()
}

pub(crate) fn signal_group(pgid: i32, sig: i32) {
    // A group id of 0 would name the harness's own group (and 1, every process it may signal).
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) has no memory-safety preconditions; a negative pid names the group.
    unsafe { libc::kill(-pgid, sig) };
}

/// What reaping the main process tells.
pub(crate) struct Reaped {
    pub exit: Exit,
    pub cpu: Duration,
    pub max_rss_kb: u64,
}

/// Reap `pid` (already exited, or about to be killed), with its rusage, which covers the
/// process and every descendant it waited for.
pub(crate) fn reap(pid: i32) -> io::Result<Reaped> {
    let mut status: libc::c_int = 0;
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pointers to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINTR) {
            return Err(err);
        }
    }
    let exit = exit_of(status);
    let tv =
        |t: libc::timeval| Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64);
    Ok(Reaped { exit, cpu: tv(usage.ru_utime) + tv(usage.ru_stime), max_rss_kb: usage.ru_maxrss.max(0) as u64 })
}

/// A raw wait status as an [`Exit`].
pub(crate) fn exit_of(status: libc::c_int) -> Exit {
    if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(libc::WEXITSTATUS(status))
    }
}

/// A pidfd for `pid`: readable once the process has exited (before it is reaped).
pub(crate) fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just gave us this fd and nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

pub(crate) fn probe_pidfd() -> Result<(), String> {
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() };
    pidfd_open(me).map(drop).map_err(|e| format!("pidfd_open: {e}"))
}

/// The `unshare` flags that give a run the namespaces in `wanted`: as root, just those; as
/// another user, inside a new user namespace (which lets an unprivileged process make them).
pub(crate) fn unshare_flags(wanted: libc::c_int) -> libc::c_int {
    if wanted == 0 || is_root() {
        wanted
    } else {
        wanted | libc::CLONE_NEWUSER
    }
}

/// A new process sharing nothing (a fork without the C library's fork handlers).
pub(crate) unsafe fn clone_process() -> io::Result<libc::pid_t> {
    let pid = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_ulong, 0usize, 0usize, 0usize, 0usize);
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid as libc::pid_t)
}

/// Whether this kernel has keyrings (`keyctl` on the session keyring answers).
pub(crate) fn probe_keyring() -> Result<(), String> {
    // KEYCTL_GET_KEYRING_ID of KEY_SPEC_SESSION_KEYRING, without creating one.
    // SAFETY: keyctl with integer arguments only.
    let r = unsafe { libc::syscall(libc::SYS_keyctl, 0 as libc::c_long, -3 as libc::c_long, 0 as libc::c_long) };
    if r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
        return Err("this kernel has no keyrings (nothing to inherit)".into());
    }
    Ok(())
}

/// Run `body` in a throwaway child (a clone without the C library's fork handlers), which exits
/// with what it returns, and reap it: how it ended.
///
/// # Safety
/// `body` runs in a copy of a multi-threaded process: plain system calls only (no allocation,
/// no lock), on values prepared before.
pub(crate) unsafe fn in_child(body: impl FnOnce() -> libc::c_int) -> io::Result<Exit> {
    let pid = clone_process()?;
    if pid == 0 {
        libc::_exit(body());
    }
    reap(pid).map(|reaped| reaped.exit)
}

/// The errno of the last failed call, as an exit code (for [`in_child`] bodies).
pub(crate) fn errno_code() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO) & 0xff
}

/// Empty the user and user-session keyrings of the user `uid` (group `gid`): where no seccomp filter denied it, a run
/// as that user may have left keys there, which would outlive the marking. In a throwaway child
/// that becomes the user (root only); best effort, as there is nobody to tell.
pub(crate) fn clear_keyrings_of(uid: u32, gid: u32) {
    // SAFETY: system calls only; KEYCTL_CLEAR (7) of KEY_SPEC_USER_KEYRING (-4) and
    // KEY_SPEC_USER_SESSION_KEYRING (-5).
    let _ = unsafe {
        in_child(|| {
            if libc::syscall(libc::SYS_setgid, gid) == 0 && libc::syscall(libc::SYS_setuid, uid) == 0 {
                for ring in [-4 as libc::c_long, -5] {
                    libc::syscall(libc::SYS_keyctl, 7 as libc::c_long, ring);
                }
            }
            0
        })
    };
}

/// Whether a child may unshare the namespace `flag` (`CLONE_NEWNET`, `CLONE_NEWPID`), tried
/// in a throw-away child. The error names the call and the OS error.
pub(crate) fn probe_unshare(flag: libc::c_int) -> Result<(), String> {
    let flags = unshare_flags(flag);
    let name = match flag {
        libc::CLONE_NEWNET => "CLONE_NEWNET",
        libc::CLONE_NEWPID => "CLONE_NEWPID",
        libc::CLONE_NEWIPC => "CLONE_NEWIPC",
        _ => "namespace",
    };
    let call = if flags & libc::CLONE_NEWUSER != 0 {
        format!("unshare(CLONE_NEWUSER | {name})")
    } else {
        format!("unshare({name})")
    };
    // SAFETY: unshare only.
    let ended = unsafe { in_child(|| if libc::unshare(flags) == 0 { 0 } else { errno_code() }) };
    match ended.map_err(|e| format!("{call} probe: {e}"))? {
        Exit::Code(0) => Ok(()),
        Exit::Code(errno) => Err(format!("{call}: {}", io::Error::from_raw_os_error(errno))),
        Exit::Signal(_) => Err(format!("{call} probe died")),
    }
}

pub(crate) fn gid() -> u32 {
    // SAFETY: getegid cannot fail.
    unsafe { libc::getegid() }
}

/// Uid and gid of a user from `/etc/passwd`, read directly rather than through NSS: a statically
/// linked bhgrade cannot load NSS modules, and the run user (`nobody`) is always a local one.
pub(crate) fn user_ids(name: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd_entry(&passwd, name)
}

/// The name of the local user `uid` (from `/etc/passwd`, as [`user_ids`]).
pub(crate) fn user_name(uid: u32) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.get(2)?.parse::<u32>().ok()? == uid).then(|| fields[0].to_string())
    })
}

/// Processes whose real or effective uid lies in `uids`: (pid, uid) for each.
pub(crate) fn processes_of(uids: &std::ops::RangeInclusive<u32>) -> Vec<(i32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let Some(line) = status.lines().find(|l| l.starts_with("Uid:")) else { continue };
        let ids: Vec<u32> = line.split_whitespace().skip(1).take(2).filter_map(|f| f.parse().ok()).collect();
        if let Some(&uid) = ids.iter().find(|uid| uids.contains(uid)) {
            found.push((pid, uid));
        }
    }
    found
}

/// The uid and gid of `name` in the text of a passwd file.
fn passwd_entry(passwd: &str, name: &str) -> Option<(u32, u32)> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        let (_password, uid, gid) = (fields.next()?, fields.next()?, fields.next()?);
        Some((uid.parse().ok()?, gid.parse().ok()?))
    })
}

#[cfg(test)]
#[test]
fn passwd_lines_are_read_by_name() {
    let passwd = "root:x:0:0:root:/root:/bin/bash\n# a comment\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\nbad:x:y:1::/:\n";
    assert_eq!(passwd_entry(passwd, "nobody"), Some((65534, 65534)));
    assert_eq!(passwd_entry(passwd, "root"), Some((0, 0)));
    assert_eq!(passwd_entry(passwd, "bad"), None);
    assert_eq!(passwd_entry(passwd, "nob"), None);
}

/// The CPUs this process may run on (its affinity).
pub(crate) fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: zeroed cpu_set_t is a valid out-parameter of the given size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: see above.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: CPU_ISSET reads the set within its size.
    Ok((0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect())
}

/// CPU time (user + system, own and of reaped children) of `root` and every live descendant,
/// from /proc, at the kernel's tick granularity: the run's CPU time without a cgroup. A
/// process's reaped children are in its own figure, and only there, so nothing is counted
/// twice; only a process that left the tree (reaped by init, outside the run) is missed.
pub(crate) fn tree_cpu(root: i32) -> Duration {
    // (pid, ppid, ticks) of every process.
    let table: Vec<(i32, i32, u64)> = all_pids()
        .into_iter()
        .filter_map(|pid| {
            let raw = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
            let close = raw.iter().rposition(|&b| b == b')')?;
            let rest = String::from_utf8_lossy(&raw[close + 1..]).into_owned();
            // After the name: state ppid ... utime(14) stime(15) cutime(16) cstime(17).
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let ppid = fields.get(1)?.parse().ok()?;
            let ticks = fields.get(11..15)?.iter().filter_map(|f| f.parse::<u64>().ok()).sum();
            Some((pid, ppid, ticks))
        })
        .collect();
    let mut tree = vec![root];
    let mut ticks = 0;
    let mut next = 0;
    while next < tree.len() {
        let parent = tree[next];
        next += 1;
        for &(pid, ppid, t) in &table {
            if pid == parent {
                ticks += t;
            }
            if ppid == parent && !tree.contains(&pid) {
                tree.push(pid);
            }
        }
    }
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_micros(ticks * 1_000_000 / hz)
}

/// CPUs as the kernel writes a list (`0-2,5`), for a cpuset.
pub(crate) fn cpu_list(cpus: &[usize]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// The children of `pid` (from /proc; none if the kernel does not list them).
pub(crate) fn children(pid: i32) -> Vec<i32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    text.split_whitespace().filter_map(|p| p.parse().ok()).collect()
}

/// `root` and every live descendant: from the kernel's lists of each thread's children
/// (`/proc/PID/task/TID/children`), which cost a read per thread of the tree rather than a
/// walk of every process of the machine; from a walk of /proc when the kernel has no such
/// lists. Orphans of the run are re-parented to its init or subreaper, so they stay in the tree.
pub(crate) fn tree(root: i32) -> Vec<i32> {
    let mut tree = vec![root];
    let mut next = 0;
    let mut listed = false;
    while next < tree.len() {
        let pid = tree[next];
        next += 1;
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(text) = std::fs::read_to_string(task.path().join("children")) else { continue };
            listed = true;
            for child in text.split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
                if !tree.contains(&child) {
                    tree.push(child);
                }
            }
        }
    }
    if listed {
        return tree;
    }
    // No children lists (a kernel without CONFIG_PROC_CHILDREN): parents from every stat.
    let table: Vec<(i32, i32)> = all_pids().into_iter().filter_map(|pid| Some((pid, stat(pid)?.ppid))).collect();
    let mut tree = vec![root];
    let mut next = 0;
    while next < tree.len() {
        let parent = tree[next];
        next += 1;
        for &(pid, ppid) in &table {
            if ppid == parent && !tree.contains(&pid) {
                tree.push(pid);
            }
        }
    }
    tree
}

/// Sum of the `kB` values of the named fields of a /proc file (`Name:   123 kB` lines), in
/// bytes; `None` if the file cannot be read or holds none of them.
fn kb_fields(path: &str, names: &[&str]) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut found = false;
    let mut kb = 0u64;
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else { continue };
        if names.contains(&name) {
            if let Some(v) = value.split_whitespace().next().and_then(|v| v.parse::<u64>().ok()) {
                kb += v;
                found = true;
            }
        }
    }
    found.then_some(kb * 1024)
}

/// The memory a process holds that a memory cgroup would charge to its run: its resident
/// anonymous and shared-memory pages (`RssAnon` + `RssShmem` of /proc/PID/status, counters
/// the kernel keeps, cheap to read), not the file pages of the binaries and libraries it maps
/// (shared with every other process on the machine, and reclaimable), and never its virtual
/// size (a JVM reserves gigabytes it never touches). Pages shared with another process of the
/// run (after a fork) count once per process here: see [`proportional_bytes`].
pub(crate) fn resident_bytes(pid: i32) -> Option<u64> {
    kb_fields(&format!("/proc/{pid}/status"), &["RssAnon", "RssShmem"])
}

/// The same with pages shared between processes split among them (`Pss_Anon` + `Pss_Shmem` of
/// /proc/PID/smaps_rollup, which walks the process's page tables, so it is read only to
/// confirm a sum of [`resident_bytes`] over the limit); `None` where the kernel does not say.
pub(crate) fn proportional_bytes(pid: i32) -> Option<u64> {
    kb_fields(&format!("/proc/{pid}/smaps_rollup"), &["Pss_Anon", "Pss_Shmem"])
}

/// Resident memory of a set of processes (see [`resident_bytes`]); with `proportional`, the
/// proportional figure where the kernel gives it. Processes gone meanwhile count nothing.
pub(crate) fn memory_of(pids: &[i32], proportional: bool) -> u64 {
    pids.iter()
        .filter_map(|&pid| {
            if proportional {
                proportional_bytes(pid).or_else(|| resident_bytes(pid))
            } else {
                resident_bytes(pid)
            }
        })
        .sum()
}

/// The bytes in use on the tmpfs at `at` (absolute) in the root of process `pid`, if that is a
/// tmpfs.
pub(crate) fn tmpfs_bytes(pid: i32, at: &str) -> Option<u64> {
    tmpfs_used(Path::new(&format!("/proc/{pid}/root{at}")))
}

/// The bytes in use on the tmpfs holding `path` (`None` if it is on another kind of file system).
pub(crate) fn tmpfs_used(path: &Path) -> Option<u64> {
    const TMPFS_MAGIC: u64 = 0x0102_1994;
    let path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: zeroed statfs is a valid out-parameter; the path is NUL-terminated.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: see above.
    if unsafe { libc::statfs(path.as_ptr(), &mut st) } != 0 || st.f_type as u64 != TMPFS_MAGIC {
        return None;
    }
    Some((st.f_blocks as u64).saturating_sub(st.f_bfree as u64) * st.f_bsize as u64)
}

/// The kernel's version (major, minor), from uname.
pub(crate) fn kernel_version() -> Option<(u32, u32)> {
    // SAFETY: zeroed utsname is a valid out-parameter.
    let mut name: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: see above.
    if unsafe { libc::uname(&mut name) } != 0 {
        return None;
    }
    // SAFETY: uname NUL-terminates the release.
    let release = unsafe { std::ffi::CStr::from_ptr(name.release.as_ptr()) }.to_string_lossy().into_owned();
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// In a user namespace just made: map `uid` and `gid` (the harness's own) to themselves, so
/// that files the process makes have an owner (no supplementary groups can be set).
///
/// # Safety
/// In a child that has just unshared `CLONE_NEWUSER`; plain system calls only.
pub(crate) unsafe fn map_own_ids(uid: u32, gid: u32) -> io::Result<()> {
    write_file(c"/proc/self/setgroups", b"deny")?;
    write_map(c"/proc/self/uid_map", uid)?;
    write_map(c"/proc/self/gid_map", gid)
}

/// Write "`inside` `outside` 1" to a map file of /proc/self.
unsafe fn write_map(path: &CStr, id: u32) -> io::Result<()> {
    let mut line = [0u8; 32];
    let mut len = 0;
    for _ in 0..2 {
        len += format_u32(id, &mut line[len..]);
        line[len] = b' ';
        len += 1;
    }
    line[len] = b'1';
    len += 1;
    write_file(path, &line[..len])
}

unsafe fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    let err = io::Error::last_os_error();
    libc::close(fd);
    if n != bytes.len() as isize {
        return Err(err);
    }
    Ok(())
}

/// Decimal digits of `n` into `out`; returns how many (no allocation).
fn format_u32(mut n: u32, out: &mut [u8]) -> usize {
    let mut digits = [0u8; 10];
    let mut count = 0;
    loop {
        digits[count] = b'0' + (n % 10) as u8;
        count += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..count {
        out[i] = digits[count - 1 - i];
    }
    count
}

#[cfg(test)]
mod id_map_tests {
    use super::*;

    #[test]
    fn decimal_without_allocation() {
        let mut out = [0u8; 10];
        let n = format_u32(65534, &mut out);
        assert_eq!(&out[..n], b"65534");
        let n = format_u32(0, &mut out);
        assert_eq!(&out[..n], b"0");
    }
}
