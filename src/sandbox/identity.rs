//! An identity of its own for each submission being marked: a reserved range of uids (the
//! [`Policy::identities`](super::Policy::identities), as isolate reserves one per box) → an
//! [`Identities`] pool, checked unused when probed, lending one [`Identity`] per submission
//! until it is dropped.
//!
//! Why: as root, every run used to be `nobody`, so one student's run could reach another's
//! copy (both `nobody`'s) while both were marked. With a uid of its own, a submission's copy,
//! processes, keyrings and process count are its own: no other run may signal, trace or change
//! them, even through a path some other layer forgot. Only root can switch to another uid; an
//! ordinary user's runs are the marker inside a root of their own (`root.rs`).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::{procs, RunAs};

/// The uids (and gids, the same numbers) that may be lent, and those lent out.
#[derive(Debug)]
pub(crate) struct Identities {
    first: u32,
    count: u32,
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
}

impl Identity {
    pub fn ids(&self) -> RunAs {
        self.ids
    }
}

impl Drop for Identity {
    fn drop(&mut self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).out.remove(&self.ids.uid);
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
        if let Some((pid, uid)) = procs::processes_of(&range).first() {
            return Err(taken(first, last, &format!("process {pid} runs as uid {uid}")));
        }
        Ok(Identities { first, count, state: Arc::new(Mutex::new(Lent::default())) })
    }

    /// An unused identity, or `None` when every one is lent out (the caller then uses the
    /// sandbox's shared user).
    pub(crate) fn lend(&self) -> Option<Identity> {
        let mut lent = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let uid = (self.first..self.first + self.count).find(|uid| !lent.out.contains(uid))?;
        lent.out.insert(uid);
        lent.used.insert(uid);
        Some(Identity { ids: RunAs { uid, gid: uid }, state: Arc::clone(&self.state) })
    }

    /// Every identity lent so far.
    pub(crate) fn used(&self) -> Vec<RunAs> {
        let lent = self.state.lock().unwrap_or_else(|e| e.into_inner());
        lent.used.iter().map(|&uid| RunAs { uid, gid: uid }).collect()
    }

    pub(crate) fn range(&self) -> (u32, u32) {
        (self.first, self.first + self.count - 1)
    }
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
        let pool = Identities { first: 60000, count: 2, state: Arc::new(Mutex::new(Lent::default())) };
        let a = pool.lend().unwrap();
        let b = pool.lend().unwrap();
        assert_eq!((a.ids().uid, b.ids().uid), (60000, 60001));
        assert!(pool.lend().is_none(), "only two");
        drop(a);
        assert_eq!(pool.lend().unwrap().ids(), RunAs { uid: 60000, gid: 60000 });
        assert_eq!(pool.used().len(), 2);
    }

    #[test]
    fn a_range_an_account_or_a_process_holds_is_refused() {
        if !procs::is_root() {
            return crate::skip::skipped("a_range_an_account_or_a_process_holds_is_refused", "needs root");
        }
        let nobody = RunAs::nobody().uid;
        let err = Identities::probe(nobody - 1, 3).unwrap_err();
        assert!(err.contains("nobody") && err.contains("--box-uids"), "{err}");
        let own = procs::uid();
        assert!(Identities::probe(own, 1).is_err(), "root's own uid");
        assert!(Identities::probe(60000, 1000).is_ok() || procs::user_name(60000).is_some());
    }
}
