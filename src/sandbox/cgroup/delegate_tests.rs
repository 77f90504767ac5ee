//! The delegation decisions on a fake cgroup v2 tree: regular files in a temporary folder, with
//! the kernel's rules simulated by [`Fake`] (these machines may have no usable cgroup v2): no
//! internal processes for domain controllers, threaded controllers turning a busy cgroup into a
//! `domain threaded` one whose children are `domain invalid` (no process may join them), and
//! systemd's delegation mark.

use std::cell::RefCell;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::*;
use crate::sandbox::cgroup::Kernel;

const WANTED: [&str; 3] = ["memory", "pids", "cpuset"];

/// A cgroup v2 tree of regular files. A cgroup is a folder with `cgroup.controllers`,
/// `cgroup.subtree_control` and `cgroup.procs`, and `cgroup.type` except the root; a read-only
/// folder or file is one this user was not delegated (the tests may run as root, whom the mode
/// bits would not stop).
struct Fake {
    tmp: tempfile::TempDir,
    removed: RefCell<Vec<PathBuf>>,
    /// Whether systemd manages the tree (then only what it delegated is the harness's).
    systemd: bool,
    /// The cgroups systemd delegated (`Delegate=yes`: the `trusted.delegate` mark).
    delegated: RefCell<Vec<PathBuf>>,
}

/// Controllers that also work in threaded mode: enabling one in a busy cgroup is allowed, and
/// makes it `domain threaded` (see cgroup-v2.rst, "Threads").
const THREADED: [&str; 4] = ["cpu", "cpuset", "perf_event", "pids"];

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

fn os_error(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

impl Fake {
    /// A root cgroup offering `controllers`, all enabled for its children.
    fn new(controllers: &str) -> Fake {
        let fake = Fake {
            tmp: tempfile::tempdir().unwrap(),
            removed: RefCell::new(Vec::new()),
            systemd: false,
            delegated: RefCell::new(Vec::new()),
        };
        let root = fake.root();
        fs::write(root.join("cgroup.controllers"), controllers).unwrap();
        fs::write(root.join("cgroup.subtree_control"), controllers).unwrap();
        fs::write(root.join("cgroup.procs"), "1\n").unwrap();
        fake
    }

    fn root(&self) -> PathBuf {
        self.tmp.path().to_path_buf()
    }

    /// A child cgroup of `parent` holding `pids`, with `enabled` in its subtree_control.
    fn cgroup(&self, parent: &Path, name: &str, pids: &[u32], enabled: &str) -> PathBuf {
        let dir = parent.join(name);
        self.mkdir(&dir).unwrap();
        let procs: String = pids.iter().map(|p| format!("{p}\n")).collect();
        fs::write(dir.join("cgroup.procs"), procs).unwrap();
        fs::write(dir.join("cgroup.subtree_control"), enabled).unwrap();
        dir
    }

    /// Not delegated: owned by root, as systemd leaves a login session's scope.
    fn lock(&self, dir: &Path) {
        for file in ["cgroup.procs", "cgroup.subtree_control"] {
            fs::set_permissions(dir.join(file), fs::Permissions::from_mode(0o444)).unwrap();
        }
        fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
    }

    fn unlock(&self, dir: &Path) {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
        for file in ["cgroup.procs", "cgroup.subtree_control"] {
            fs::set_permissions(dir.join(file), fs::Permissions::from_mode(0o644)).unwrap();
        }
    }

    fn read_words(&self, path: &Path) -> Vec<String> {
        words(&fs::read_to_string(path).unwrap_or_default())
    }

    /// Every `cgroup.procs` of the tree.
    fn all_procs(&self, dir: &Path, found: &mut Vec<PathBuf>) {
        found.push(dir.join("cgroup.procs"));
        for entry in fs::read_dir(dir).unwrap().flatten() {
            if entry.path().is_dir() {
                self.all_procs(&entry.path(), found);
            }
        }
    }

    fn is_root_cgroup(&self, dir: &Path) -> bool {
        !dir.join("cgroup.type").exists()
    }

    fn cgroup_type(&self, dir: &Path) -> String {
        fs::read_to_string(dir.join("cgroup.type")).unwrap_or_default().trim().to_string()
    }

    /// Systemd manages this tree; `delegated` are the cgroups it gave away.
    fn under_systemd(mut self, delegated: &[&Path]) -> Fake {
        self.systemd = true;
        self.delegated.borrow_mut().extend(delegated.iter().map(|p| p.to_path_buf()));
        self
    }

    /// Threaded controllers enabled in a busy cgroup: it becomes `domain threaded`, and each
    /// child `domain invalid`.
    fn make_threaded_domain(&self, dir: &Path) -> io::Result<()> {
        fs::write(dir.join("cgroup.type"), "domain threaded\n")?;
        for child in Kernel.children(dir) {
            fs::write(dir.join(child).join("cgroup.type"), "domain invalid\n")?;
        }
        Ok(())
    }
}

impl CgroupFs for Fake {
    fn read(&self, path: &Path) -> io::Result<String> {
        fs::read_to_string(path)
    }

    fn write(&self, path: &Path, value: &str) -> io::Result<()> {
        if !self.writable(path) {
            return Err(os_error(libc::EACCES));
        }
        let dir = path.parent().unwrap();
        let internal = !self.is_root_cgroup(dir);
        match path.file_name().and_then(|n| n.to_str()) {
            Some("cgroup.subtree_control") => {
                let mut enabled = self.read_words(path);
                let busy = internal && !self.read_words(&dir.join("cgroup.procs")).is_empty();
                for word in words(value) {
                    let controller = word.strip_prefix('+').expect("only enabling is simulated");
                    if !self.read_words(&dir.join("cgroup.controllers")).iter().any(|c| c == controller) {
                        return Err(os_error(libc::ENOENT));
                    }
                    // No internal processes: a non-root cgroup holding processes gives no domain
                    // controller; a threaded one it gives, turning itself into a thread domain.
                    if busy && !THREADED.contains(&controller) {
                        return Err(os_error(libc::EBUSY));
                    }
                    if busy {
                        self.make_threaded_domain(dir)?;
                    }
                    enabled.push(controller.to_string());
                }
                fs::write(path, enabled.join(" "))
            }
            Some("cgroup.procs") => {
                if self.cgroup_type(dir) == "domain invalid" {
                    return Err(os_error(libc::EOPNOTSUPP));
                }
                let domain_enabled = self
                    .read_words(&dir.join("cgroup.subtree_control"))
                    .iter()
                    .any(|c| !THREADED.contains(&c.as_str()));
                if internal && domain_enabled {
                    return Err(os_error(libc::EBUSY));
                }
                let pid = value.trim().to_string();
                let mut files = Vec::new();
                self.all_procs(&self.root(), &mut files);
                for file in files {
                    let kept: Vec<String> = self.read_words(&file).into_iter().filter(|p| *p != pid).collect();
                    fs::write(&file, kept.iter().map(|p| format!("{p}\n")).collect::<String>())?;
                }
                let mut procs = self.read_words(path);
                procs.push(pid);
                fs::write(path, procs.iter().map(|p| format!("{p}\n")).collect::<String>())
            }
            _ => fs::write(path, value),
        }
    }

    fn mkdir(&self, path: &Path) -> io::Result<()> {
        let parent = path.parent().unwrap();
        if path.exists() {
            return Err(os_error(libc::EEXIST));
        }
        if !self.writable(parent) {
            return Err(os_error(libc::EACCES));
        }
        fs::create_dir(path)?;
        fs::write(path.join("cgroup.controllers"), fs::read_to_string(parent.join("cgroup.subtree_control"))?)?;
        fs::write(path.join("cgroup.subtree_control"), "")?;
        fs::write(path.join("cgroup.procs"), "")?;
        let threaded_parent = self.cgroup_type(parent) == "domain threaded";
        fs::write(path.join("cgroup.type"), if threaded_parent { "domain invalid\n" } else { "domain\n" })
    }

    fn writable(&self, path: &Path) -> bool {
        fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
    }

    fn children(&self, dir: &Path) -> Vec<String> {
        Kernel.children(dir)
    }

    fn under_systemd(&self) -> bool {
        self.systemd
    }

    fn delegated(&self, dir: &Path) -> bool {
        self.delegated.borrow().iter().any(|d| d == dir)
    }

    fn remove_stale(&self, dir: &Path, _version: Version) {
        self.removed.borrow_mut().push(dir.to_path_buf());
        fs::remove_dir_all(dir).unwrap();
    }
}

/// A pid that no process has (one that just exited and was reaped).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn ns(me: &Harness) -> &str {
    me.tag.split('-').next().unwrap()
}

#[test]
fn a_harness_alone_in_a_delegated_scope_moves_into_its_leaf() {
    let fake = Fake::new("cpu io memory pids");
    let me = Harness::this();
    let user = fake.cgroup(&fake.root(), "user.slice", &[], "cpu memory pids");
    let scope = fake.cgroup(&user, "run-u7.scope", &[me.pid], "");

    let prepared = prepare(&fake, &scope, &me, &WANTED, Origin::Own).unwrap();

    let leaf = scope.join(format!("bhgrade-{}-harness", me.tag));
    assert_eq!(prepared.parent, scope);
    assert_eq!(prepared.leaf.as_deref(), Some(leaf.as_path()));
    assert_eq!(fake.read_words(&leaf.join("cgroup.procs")), [me.pid.to_string()]);
    assert!(fake.read_words(&scope.join("cgroup.procs")).is_empty());
    assert_eq!(fake.read_words(&scope.join("cgroup.subtree_control")), ["memory", "pids"]);
    assert_eq!(prepared.controller("memory"), Ok(()));
    assert_eq!(prepared.controller("pids"), Ok(()));
    let cpuset = prepared.controller("cpuset").unwrap_err();
    assert!(cpuset.held_above, "{cpuset}");
    assert!(
        cpuset.why.contains("cpuset controller is not available in") && cpuset.why.contains("run-u7.scope"),
        "{cpuset}"
    );

    // Probed again from inside its leaf (a second sandbox), the harness stays there and its
    // runs still go beside it.
    let again = prepare(&fake, &leaf, &me, &WANTED, Origin::Own).unwrap();
    assert_eq!(again.parent, scope);
    assert_eq!(again.leaf, None);
    assert_eq!(again.controller("memory"), Ok(()));
    assert!(leaf.exists());
    assert_eq!(Kernel.children(&leaf), Vec::<String>::new());
}

#[test]
fn a_cgroup_not_delegated_is_refused_with_its_path() {
    let fake = Fake::new("cpu io memory pids");
    let me = Harness::this();
    let user = fake.cgroup(&fake.root(), "user.slice", &[], "cpu memory pids");
    let session = fake.cgroup(&user, "session-3.scope", &[me.pid], "");
    fake.lock(&session);

    let why = prepare(&fake, &session, &me, &WANTED, Origin::Own).unwrap_err();
    fake.unlock(&session);

    assert!(why.contains(&format!("the harness's own cgroup {} is not delegated to uid", session.display())), "{why}");
    assert_eq!(fake.read_words(&session.join("cgroup.procs")), [me.pid.to_string()], "the harness did not move");
    assert_eq!(Kernel.children(&session), Vec::<String>::new());
}

#[test]
fn the_root_cgroup_is_named_as_such() {
    let fake = Fake::new("cpu io memory pids");
    let me = Harness::this();
    fs::write(fake.root().join("cgroup.subtree_control"), "").unwrap();
    fs::write(fake.root().join("cgroup.procs"), format!("1\n{}\n", me.pid)).unwrap();

    // As a user: refused, saying why.
    fake.lock(&fake.root());
    let why = prepare(&fake, &fake.root(), &me, &WANTED, Origin::Own).unwrap_err();
    fake.unlock(&fake.root());
    assert!(why.contains(&format!("the harness's own cgroup {} is the root cgroup", fake.root().display())), "{why}");

    // As root: the root cgroup may hold processes, so nothing moves.
    let prepared = prepare(&fake, &fake.root(), &me, &WANTED, Origin::Own).unwrap();
    assert_eq!(prepared.parent, fake.root());
    assert_eq!(prepared.leaf, None);
    assert_eq!(prepared.controller("memory"), Ok(()));
    assert_eq!(fake.read_words(&fake.root().join("cgroup.subtree_control")), ["memory", "pids"]);
}

#[test]
fn other_processes_in_the_scope_are_named() {
    let fake = Fake::new("cpu io memory pids");
    let me = Harness::this();
    let scope = fake.cgroup(&fake.root(), "run-u8.scope", &[4242, me.pid], "");

    let why = prepare(&fake, &scope, &me, &WANTED, Origin::Own).unwrap_err();

    assert_eq!(Kernel.children(&scope), Vec::<String>::new(), "moving would not have emptied the scope");
    assert_eq!(fake.read_words(&scope.join("cgroup.subtree_control")), Vec::<String>::new());
    assert!(why.contains("is not alone in") && why.contains("(also pids 4242)"), "{why}");
    assert!(why.contains(&scope.display().to_string()) && why.contains("a cgroup delegated to you"), "{why}");
}

#[test]
fn dead_harnesses_cgroups_go_and_live_ones_stay() {
    let fake = Fake::new("memory pids");
    let me = Harness::this();
    let scope = fake.cgroup(&fake.root(), "run-u9.scope", &[me.pid], "");
    let mut live = std::process::Command::new("sleep").arg("60").spawn().unwrap();
    let (dead, ns) = (dead_pid(), ns(&me));
    let dead_leaf = fake.cgroup(&scope, &format!("bhgrade-{ns}-{dead}-harness"), &[], "");
    let dead_run = fake.cgroup(&scope, &format!("bhgrade-{ns}-{dead}-3"), &[], "");
    let live_leaf = fake.cgroup(&scope, &format!("bhgrade-{ns}-{}-harness", live.id()), &[], "");
    let other_ns = fake.cgroup(&scope, &format!("bhgrade-1-{dead}-harness"), &[], "");
    let not_ours = fake.cgroup(&scope, "worker", &[], "");

    let prepared = prepare(&fake, &scope, &me, &WANTED, Origin::Own);
    live.kill().unwrap();
    live.wait().unwrap();

    assert!(prepared.is_ok(), "{prepared:?}");
    let mut removed = fake.removed.borrow().clone();
    removed.sort();
    assert_eq!(removed, [dead_run.clone(), dead_leaf.clone()]);
    assert!(!dead_leaf.exists() && !dead_run.exists());
    assert!(live_leaf.exists() && other_ns.exists() && not_ours.exists());
}

#[test]
fn a_harness_in_another_harness_leaf_moves_to_its_own() {
    let fake = Fake::new("memory pids");
    let me = Harness::this();
    let scope = fake.cgroup(&fake.root(), "run-u10.scope", &[], "memory pids");
    // The harness that started this one (still alive: our parent process).
    let starter = format!("bhgrade-{}-{}-harness", ns(&me), std::os::unix::process::parent_id());
    let theirs = scope.join(&starter);
    fake.mkdir(&theirs).unwrap();
    fs::write(theirs.join("cgroup.procs"), format!("{}\n", me.pid)).unwrap();

    let prepared = prepare(&fake, &theirs, &me, &WANTED, Origin::Own).unwrap();

    let ours = scope.join(format!("bhgrade-{}-harness", me.tag));
    assert_eq!(prepared.parent, scope);
    assert_eq!(prepared.leaf.as_deref(), Some(ours.as_path()));
    assert_eq!(fake.read_words(&ours.join("cgroup.procs")), [me.pid.to_string()]);
    assert!(theirs.exists());
    assert_eq!(prepared.controller("pids"), Ok(()));
}

#[test]
fn a_given_parent_without_the_harness_is_only_enabled() {
    let fake = Fake::new("memory pids");
    let me = Harness::this();
    let given = fake.cgroup(&fake.root(), "grading", &[], "");

    let prepared = prepare(&fake, &given, &me, &WANTED, Origin::Given).unwrap();

    assert_eq!((prepared.parent.as_path(), prepared.leaf.as_deref()), (given.as_path(), None));
    assert_eq!(fake.read_words(&given.join("cgroup.subtree_control")), ["memory", "pids"]);
    assert_eq!(Kernel.children(&given), Vec::<String>::new());
}

/// Every controller `prepared` claims is one a run's process can join: what the probe proves on
/// the real kernel by moving a process in.
fn assert_claims_hold(fake: &Fake, prepared: &Prepared) {
    let run = prepared.parent.join("bhgrade-claims-1");
    fake.mkdir(&run).unwrap();
    let claimed: Vec<&str> = WANTED.iter().copied().filter(|c| prepared.controller(c).is_ok()).collect();
    let joined = fake.write(&run.join("cgroup.procs"), "4343");
    assert!(claimed.is_empty() || joined.is_ok(), "claimed {claimed:?}, but a run cannot join: {joined:?}");
}

/// No controller enabled in `dir`, still a plain domain (not a thread domain), no child made.
fn assert_untouched(fake: &Fake, dir: &Path) {
    assert_eq!(fake.read_words(&dir.join("cgroup.subtree_control")), Vec::<String>::new(), "{}", dir.display());
    assert_eq!(fake.cgroup_type(dir), "domain", "{} became a thread domain", dir.display());
    assert_eq!(Kernel.children(dir), Vec::<String>::new(), "{}", dir.display());
}

/// Why `pids` is not had: the whole preparation refused, or the controller (whose every claim
/// must then hold).
fn refusal(fake: &Fake, result: &Result<Prepared, String>) -> String {
    match result {
        Ok(prepared) => {
            assert_claims_hold(fake, prepared);
            prepared.controller("pids").unwrap_err().why
        }
        Err(why) => why.clone(),
    }
}

#[test]
fn root_in_a_login_session_changes_nothing_and_says_why() {
    let me = Harness::this();
    let fake = Fake::new("cpu io memory pids");
    let user = fake.cgroup(&fake.root(), "user.slice", &[], "cpu memory pids");
    // The login's shell and `su` (or `sudo`) share systemd's session scope with bhgrade.
    let session = fake.cgroup(&user, "session-3.scope", &[4242, me.pid], "");
    let fake = fake.under_systemd(&[]);

    let result = prepare(&fake, &session, &me, &WANTED, Origin::Own);

    assert_untouched(&fake, &session);
    assert_eq!(fake.read_words(&session.join("cgroup.procs")), ["4242".to_string(), me.pid.to_string()]);
    let why = refusal(&fake, &result);
    assert!(why.contains("session-3.scope") && why.contains("not delegated"), "{why}");
}

#[test]
fn a_service_systemd_did_not_delegate_is_left_alone() {
    let me = Harness::this();
    let fake = Fake::new("cpu io memory pids");
    let system = fake.cgroup(&fake.root(), "system.slice", &[], "cpu memory pids");
    let service = fake.cgroup(&system, "marking.service", &[me.pid], "");
    let fake = fake.under_systemd(&[]);

    let why = prepare(&fake, &service, &me, &WANTED, Origin::Own).unwrap_err();

    assert!(why.contains("marking.service") && why.contains("not delegated"), "{why}");
    assert_eq!(fake.read_words(&service.join("cgroup.procs")), [me.pid.to_string()], "the harness moved");
    assert_eq!(fake.read_words(&service.join("cgroup.subtree_control")), Vec::<String>::new());
    assert_eq!(Kernel.children(&service), Vec::<String>::new());
}

#[test]
fn a_scope_systemd_delegated_is_used_once_the_harness_is_alone_in_it() {
    let me = Harness::this();
    let fake = Fake::new("cpu io memory pids");
    let user = fake.cgroup(&fake.root(), "user.slice", &[], "cpu memory pids");
    let own = fake.cgroup(&user, "bhgrade-7.scope", &[me.pid], "");
    let shared = fake.cgroup(&user, "run-u3.scope", &[4242, me.pid], "");
    let fake = fake.under_systemd(&[&own, &shared]);

    let prepared = prepare(&fake, &own, &me, &WANTED, Origin::Own).unwrap();
    assert_eq!(prepared.controller("memory"), Ok(()));
    assert_eq!(prepared.controller("pids"), Ok(()));
    assert_claims_hold(&fake, &prepared);

    // Delegated, but the shell that started bhgrade is in it too: nothing is changed.
    fs::write(shared.join("cgroup.procs"), format!("4242\n{}\n", me.pid)).unwrap();
    let result = prepare(&fake, &shared, &me, &WANTED, Origin::Own);
    assert_untouched(&fake, &shared);
    let why = refusal(&fake, &result);
    assert!(why.contains("not alone") && why.contains("4242"), "{why}");
}

#[test]
fn a_thread_domain_left_by_an_older_harness_is_refused_by_its_type() {
    let me = Harness::this();
    let fake = Fake::new("cpu io memory pids");
    let scope = fake.cgroup(&fake.root(), "run-u11.scope", &[me.pid], "pids");
    fs::write(scope.join("cgroup.type"), "domain threaded\n").unwrap();

    let result = prepare(&fake, &scope, &me, &WANTED, Origin::Own);

    let why = refusal(&fake, &result);
    assert!(why.contains("domain threaded"), "{why}");
}
