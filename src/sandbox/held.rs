//! Memory a run holds where the resident counters do not see it, for runs without a memory
//! cgroup (an ordinary user's, on a machine that delegates none): the process ids of the run →
//! the bytes of the memory files (`memfd_create`) its processes hold open and do not map.
//!
//! A memfd's pages are memory, whoever maps them: written with `write()` and never mapped, they
//! are in no process's `RssShmem`, so a run could hold gigabytes under a limit of hundreds of
//! megabytes (issue 47: 1536 MiB under 768 MiB measured as 39 MiB). Those mapped are counted by
//! the resident counters already, so a memfd a process maps is left to them; each file counts
//! once, however many processes hold it.

use std::collections::{HashMap, HashSet};

/// The bytes allocated to memfds that `pids` hold open and none of them maps. Read at every
/// look of the memory watcher, so the processes' maps are read only when some memfd is open.
pub(crate) fn unmapped_memfd_bytes(pids: &[i32]) -> u64 {
    use std::os::unix::fs::MetadataExt;
    // Each file once, however many descriptors hold it: (device, inode) → bytes allocated.
    let mut held: HashMap<(u64, u64), u64> = HashMap::new();
    for &pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            let is_memfd = std::fs::read_link(fd.path()).is_ok_and(|t| t.to_string_lossy().starts_with("/memfd:"));
            // The file itself, through the descriptor's link.
            if let Some(meta) = is_memfd.then(|| std::fs::metadata(fd.path()).ok()).flatten() {
                held.insert((meta.dev(), meta.ino()), meta.blocks() * 512);
            }
        }
    }
    if held.is_empty() {
        return 0;
    }
    let mapped: HashSet<u64> = pids.iter().flat_map(|&pid| mapped_memfds(pid)).collect();
    held.iter().filter(|((_, ino), _)| !mapped.contains(ino)).map(|(_, bytes)| bytes).sum()
}

/// The inodes of the memfds process `pid` maps (`/proc/PID/maps`: the fifth field).
fn mapped_memfds(pid: i32) -> Vec<u64> {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else { return Vec::new() };
    maps.lines()
        .filter(|line| line.contains("/memfd:"))
        .filter_map(|line| line.split_whitespace().nth(4)?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memfd written and not mapped is counted, once; mapped, it is left to the resident
    /// counters.
    #[test]
    fn memory_files_held_open_are_counted_until_mapped() {
        let me = std::process::id() as i32;
        let before = unmapped_memfd_bytes(&[me]);
        // SAFETY: a NUL-terminated name; the descriptor is owned by the File below.
        let fd = unsafe { libc::memfd_create(c"held".as_ptr(), 0) };
        assert!(fd >= 0, "memfd_create: {}", std::io::Error::last_os_error());
        use std::io::Write as _;
        use std::os::fd::FromRawFd as _;
        // SAFETY: `fd` is a fresh descriptor no one else owns.
        let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
        file.write_all(&vec![7u8; 8 << 20]).unwrap();
        let held = unmapped_memfd_bytes(&[me, me]) - before;
        assert!((8 << 20..(8 << 20) + (1 << 20)).contains(&held), "{held} bytes counted");
        // SAFETY: a shared read mapping of the whole file, unmapped below.
        let map = unsafe { libc::mmap(std::ptr::null_mut(), 8 << 20, libc::PROT_READ, libc::MAP_SHARED, fd, 0) };
        assert_ne!(map, libc::MAP_FAILED);
        assert_eq!(unmapped_memfd_bytes(&[me]), before, "a mapped memfd is the resident counters'");
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(map, 8 << 20) };
        drop(file);
        assert_eq!(unmapped_memfd_bytes(&[me]), before);
    }
}
