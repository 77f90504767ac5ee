//! An identity of its own for each submission being marked: a reserved range of uids (the
//! [`Policy::identities`](super::policy::Policy::identities), as isolate reserves one per box) → an
//! [`Identities`] pool, checked unused when probed, lending one [`Identity`] per submission
//! until it is dropped.
//!
//! Why: as root, every run used to be `nobody`, so one student's run could reach another's
//! copy (both `nobody`'s) while both were marked. With a uid of its own, a submission's copy,
//! processes, keyrings and process count are its own: no other run may signal, trace or change
//! them, even through a path some other layer forgot. Only root can switch to another uid; an
//! ordinary user lends from its subordinate ids instead (`subids.rs`: the ids lent are numbers
//! inside each run's user namespace), else its runs are the marker inside a root of their own
//! (`root.rs`).

use std::collections::BTreeSet;
use std::fs::File;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::marker_ns;
use super::policy::RunAs;
use super::procs;
use super::subids::SubIds;

/// Where a lock file per lent uid lives, machine-wide (root's own): every bhgrade marking on the
/// machine takes the uid's lock before it lends it, so two markings at once never lend the same
/// one, and a process of a uid whose lock a live bhgrade holds is that bhgrade's, not a stranger.
const LOCK_DIR: &str = "/run/bhgrade-uids";

/// The uids (and gids, the same numbers) that may be lent, and those lent out.
#[derive(Debug)]
pub(crate) struct Identities {
    first: u32,
    count: u32,
    /// The first uid's number on the machine: `first` as root; a subordinate id's otherwise.
    host_first: u32,
    /// The first gid's number on the machine.
    host_gid_first: u32,
    /// Where each lent id's lock is (by its number on the machine).
    lock_dir: PathBuf,
    state: Arc<Mutex<Lent>>,
}

#[derive(Debug, Default)]
struct Lent {
    /// Uids lent out now.
    out: BTreeSet<u32>,
    /// Every uid ever lent (whose keyrings may need clearing at the end).
    used: BTreeSet<u32>,
}

/// One submission's identity: returned to the pool when dropped.
#[derive(Debug)]
pub struct Identity {
    ids: RunAs,
    state: Arc<Mutex<Lent>>,
    /// The uid's machine-wide lock, held while it is lent.
    lock: File,
}

impl Identity {
    pub fn ids(&self) -> RunAs {
        self.ids
    }
}

impl Drop for Identity {
    fn drop(&mut self) {
        let mut lent = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // Unlocked for good before the uid is free here: a copy of the descriptor in a child
        // forked meanwhile would otherwise keep it locked, and a one-uid range would lend none.
        crate::fsutil::unlock(&self.lock);
        lent.out.remove(&self.ids.uid);
    }
}

/// The pool each submission's identity is lent from (`wanted`: [`Policy::identities`]), with
/// the subordinate ids that map it: as root, the machine's uids (when programs run as another
/// user at all); as an ordinary user, its subordinate ids, proven here, where each run has a
/// root and pristine runs of its own (`boxed`: its home is then in the run's tmpfs, not in a
/// folder only the marker may write). `Err`s say why there are none.
///
/// [`Policy::identities`]: super::policy::Policy::identities
pub(crate) fn probe_pool(
    run_as: &Result<Option<RunAs>, String>,
    wanted: Option<(u32, u32)>,
    boxed: bool,
) -> (Result<Identities, String>, Result<Arc<SubIds>, String>) {
    let Some((first, count)) = wanted else {
        let why = "not asked for (Policy::identities)".to_string();
        return (Err(why.clone()), Err(why));
    };
    if procs::is_root() {
        let pool = match run_as {
            Ok(Some(_)) => Identities::probe(first, count),
            Ok(None) | Err(_) => Err("programs run as the harness's own user".to_string()),
        };
        return (pool, Err("not used by root".to_string()));
    }
    if !boxed {
        let why = "no root and pristine runs of the run's own".to_string();
        return (Err(format!("no subordinate ids: {why}")), Err(why));
    }
    match marker_ns::subids(first, count).and_then(|ids| ids.prove().map(|()| ids)) {
        Ok(ids) => {
            let (first, host, count) = ids.lent_range();
            match Identities::subordinate(first, host, count) {
                Ok(pool) => (Ok(pool), Ok(Arc::new(ids))),
                Err(why) => (Err(why), Err("no identities lent from them".to_string())),
            }
        }
        Err(why) => (Err(format!("no subordinate ids: {why}")), Err(why)),
    }
}

impl Identities {
    /// The pool of `count` uids from `first`, each checked unused: no account or group of the
    /// machine has it and no process runs as it. `Err` names the first taken and why.
    pub(crate) fn probe(first: u32, count: u32) -> Result<Identities, String> {
        if !procs::is_root() {
            return Err("only root may run programs as another user".into());
        }
        let last = first.checked_add(count.saturating_sub(1)).filter(|_| count > 0 && first > 0);
        let Some(last) = last else {
            return Err(format!("the range of {count} uids from {first} is empty or holds root"));
        };
        let accounts = |file: &str| -> Vec<(String, u32)> {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            text.lines()
                .filter_map(|line| {
                    let mut fields = line.split(':');
                    let name = fields.next()?.to_string();
                    Some((name, fields.nth(1)?.parse().ok()?))
                })
                .collect()
        };
        let range = first..=last;
        for (file, kind) in [("/etc/passwd", "user"), ("/etc/group", "group")] {
            if let Some((name, id)) = accounts(file).into_iter().find(|(_, id)| range.contains(id)) {
                return Err(taken(first, last, &format!("{id} is the {kind} `{name}` in {file}")));
            }
        }
        std::fs::create_dir_all(LOCK_DIR).map_err(|e| format!("cannot make {LOCK_DIR} for the uids' locks: {e}"))?;
        let pool = Identities {
            first,
            count,
            host_first: first,
            host_gid_first: first,
            lock_dir: LOCK_DIR.into(),
            state: Arc::new(Mutex::new(Lent::default())),
        };
        pool.strangers().map_err(|why| taken(first, last, &why))?;
        Ok(pool)
    }

    /// The pool of an ordinary user's `count` subordinate ids from `host_first` on the machine,
    /// lent as `first` on inside each run's namespace; locked in a folder of the marker's own.
    pub(crate) fn subordinate(first: u32, host: (u32, u32), count: u32) -> Result<Identities, String> {
        let lock_dir = own_lock_dir()?;
        let (host_first, host_gid_first) = host;
        let state = Arc::new(Mutex::new(Lent::default()));
        let pool = Identities { first, count, host_first, host_gid_first, lock_dir, state };
        pool.strangers().map_err(|why| format!("the subordinate ids from {host_first} are in use: {why}"))?;
        Ok(pool)
    }

    /// A process of an id no live bhgrade holds is a stranger's (another bhgrade's are not).
    fn strangers(&self) -> Result<(), String> {
        let range = self.host_first..=self.host_first + (self.count - 1);
        match procs::processes_of(&range).iter().find(|(_, uid)| self.lock(*uid).is_some()) {
            Some((pid, uid)) => Err(format!("process {pid} runs as uid {uid}")),
            None => Ok(()),
        }
    }

    /// An unused identity, or `None` when every one is lent out (the caller then uses the
    /// sandbox's shared user).
    pub(crate) fn lend(&self) -> Option<Identity> {
        let mut lent = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (uid, lock) =
            (self.first..self.first + self.count).filter(|uid| !lent.out.contains(uid)).find_map(|uid| {
                // Held by another marking on this machine (or another sandbox of this one): skip it.
                self.lock(self.on_machine(RunAs { uid, gid: uid }).uid).map(|lock| (uid, lock))
            })?;
        lent.out.insert(uid);
        lent.used.insert(uid);
        Some(Identity { ids: RunAs { uid, gid: uid }, state: Arc::clone(&self.state), lock })
    }

    /// Every identity lent so far.
    pub(crate) fn used(&self) -> Vec<RunAs> {
        let lent = self.state.lock().unwrap_or_else(|e| e.into_inner());
        lent.used.iter().map(|&uid| RunAs { uid, gid: uid }).collect()
    }

    pub(crate) fn range(&self) -> (u32, u32) {
        (self.first, self.first + self.count - 1)
    }

    /// The first and last lent uids on the machine.
    pub(crate) fn host_range(&self) -> (u32, u32) {
        (self.host_first, self.host_first + self.count - 1)
    }

    /// `ids` by the machine's numbers, if they are one of this pool's; else as they are.
    pub(crate) fn on_machine(&self, ids: RunAs) -> RunAs {
        if !(self.first..self.first + self.count).contains(&ids.uid) {
            return ids;
        }
        let offset = ids.uid - self.first;
        RunAs { uid: self.host_first + offset, gid: self.host_gid_first + offset }
    }

    /// The machine-wide lock of `host_uid`, if no one holds it: an exclusive `flock` on its
    /// file, which the kernel drops when the holder ends, however it ends.
    fn lock(&self, host_uid: u32) -> Option<File> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(self.lock_dir.join(host_uid.to_string()))
            .ok()?;
        crate::fsutil::try_lock(&file).ok().map(|()| file)
    }
}

/// An ordinary user's folder for its subordinate ids' locks: one per uid in `/tmp`, which every
/// marking of that user on this machine sees, whatever its `HOME`, and which outlives a login
/// (a runtime folder in `/run/user` is removed with the last session, under a marking left
/// running). It must be the marker's own and private: another user could have made it first.
fn own_lock_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let dir = PathBuf::from(format!("/tmp/bhgrade-ids-{}", procs::uid()));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot make {} for the ids' locks: {e}", dir.display())),
    }
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !meta.is_dir() || meta.uid() != procs::uid() || meta.mode() & 0o077 != 0 {
        return Err(format!("{} (for the ids' locks) is not a private folder of the marker's", dir.display()));
    }
    Ok(dir)
}

fn taken(first: u32, last: u32, why: &str) -> String {
    format!(
        "the uids {first}-{last} reserved for submissions are not free ({why}): give bhgrade a free range with \
         --box-uids FIRST-LAST"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_lent_once_and_come_back() {
        if !procs::is_root() {
            return crate::skip::skipped("identities_are_lent_once_and_come_back", "needs root (the uids' locks)");
        }
        // A range of its own, far from the one the other tests lend from at the same time.
        let pool = Identities::probe(61100, 2).unwrap();
        let a = pool.lend().unwrap();
        let b = pool.lend().unwrap();
        assert_eq!((a.ids().uid, b.ids().uid), (61100, 61101));
        assert!(pool.lend().is_none(), "only two");
        // A second pool (another marking on the machine) lends none of those held.
        let other = Identities::probe(61100, 2).unwrap();
        assert!(other.lend().is_none(), "another marking lent a held uid");
        drop(a);
        // Even where another test's thread forked while `a`'s lock was open (its child holds a
        // copy of the descriptor for a moment), the uid given back is lent again at once.
        let back = pool.lend();
        assert_eq!(back.expect("the uid given back is lent again").ids(), RunAs { uid: 61100, gid: 61100 });
        assert_eq!(pool.used().len(), 2);
    }

    /// A child forked while a uid was lent holds a copy of its lock's descriptor until it
    /// closes its descriptors or execs; the uid given back meanwhile is free at once all the same
    /// (a one-uid range would otherwise lend none, and its submission run as the shared user).
    #[test]
    fn a_uid_given_back_is_free_while_a_forked_child_holds_its_lock() {
        if !procs::is_root() {
            return crate::skip::skipped("a_uid_given_back_is_free_while_a_forked_child_holds_its_lock", "needs root");
        }
        let pool = Identities::probe(61150, 1).unwrap();
        let lent = pool.lend().unwrap();
        let mut ends = [0 as libc::c_int; 2];
        // SAFETY: a pipe into a live array; the child makes one read and exits.
        let child = unsafe {
            assert_eq!(libc::pipe(ends.as_mut_ptr()), 0);
            let pid = procs::clone_process().unwrap();
            if pid == 0 {
                let mut byte = 0u8;
                libc::read(ends[0], (&mut byte as *mut u8).cast(), 1);
                libc::_exit(0);
            }
            pid
        };
        drop(lent);
        let again = pool.lend();
        // SAFETY: release and reap the child.
        unsafe {
            libc::write(ends[1], b"x".as_ptr().cast(), 1);
            libc::close(ends[0]);
            libc::close(ends[1]);
        }
        procs::reap(child).unwrap();
        assert!(again.is_some(), "the uid given back was still locked by the forked child's copy");
    }

    #[test]
    fn a_range_an_account_or_a_process_holds_is_refused() {
        use std::os::unix::process::CommandExt;
        if !procs::is_root() {
            return crate::skip::skipped("a_range_an_account_or_a_process_holds_is_refused", "needs root");
        }
        let nobody = RunAs::nobody().uid;
        let err = Identities::probe(nobody - 1, 3).unwrap_err();
        assert!(err.contains("nobody") && err.contains("--box-uids"), "{err}");
        let own = procs::uid();
        assert!(Identities::probe(own, 1).is_err(), "root's own uid");
        // A process of a uid no bhgrade holds: a stranger's.
        let mut stranger = std::process::Command::new("/bin/sh")
            .args(["-c", "read line"])
            .stdin(std::process::Stdio::piped())
            .uid(61200)
            .spawn()
            .unwrap();
        let err = Identities::probe(61190, 20).unwrap_err();
        drop(stranger.stdin.take());
        stranger.wait().unwrap();
        assert!(err.contains("runs as uid 61200"), "{err}");
    }
}
