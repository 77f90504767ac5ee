//! A run's supervisor made ahead of its run: a [`supervisor::SplitSpec`] and a fresh
//! [`RunCgroup`] → a [`Parked`] process (forked from the harness, in its own process group,
//! already in the cgroup and the namespaces, every signal blocked), which waits on a socket;
//! [`Parked::go`] then sends it an [`Exec`] and the run's fds (stdin, stdout, stderr, the
//! report pipe, an exec-error pipe, a Landlock ruleset) → the pid of the run's supervisor, once
//! the program has exec'd (or the errno of what failed on the way).
//!
//! Why ahead: moving a process into a cgroup takes the kernel's cgroup threadgroup lock for
//! writing, which waits for an RCU grace period, 5 to 30 ms here, on every run; a process
//! forked inside a cgroup is born there for free. Parking moves that wait (and the cgroup's
//! and the network namespace's creation) off the run's path: the pool (`pool.rs`) parks the
//! next supervisor while a run goes on.
//!
//! The parked process is a fork of a multi-threaded harness: until it execs it makes only
//! plain system calls, on buffers allocated before the fork.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::cgroup::RunCgroup;
use super::child::{self, Exec, Rlimit, AFFINITY_WORDS};
use super::policy::RunAs;
use super::subids::{self, Inside, SubIds};
use super::supervisor;

/// Room for the strings of one run (working folder, paths, argv, environment) in a parked
/// process; a run that needs more gets a process parked with room for it.
pub(crate) const DEFAULT_CAPACITY: usize = 64 * 1024;
const MAX_RLIMITS: usize = 8;
/// stdin, stdout, stderr, report, exec error, and maybe a Landlock ruleset.
const MAX_FDS: usize = 6;

#[repr(C)]
#[derive(Clone, Copy)]
struct Header {
    total: u64,
    n_candidates: u32,
    n_args: u32,
    n_env: u32,
    n_rlimits: u32,
    /// Strings of the run's root: its folder, then a target and a source per step; 0 for none.
    n_root: u32,
    has_landlock: u32,
    has_run_as: u32,
    uid: u32,
    gid: u32,
    has_affinity: u32,
    rlimits: [[u64; 3]; MAX_RLIMITS],
    affinity: [u64; AFFINITY_WORDS],
}

const HEADER: usize = std::mem::size_of::<Header>();

/// The run's fds, as the parked process must receive them.
pub(crate) struct Fds {
    pub stdin: RawFd,
    pub stdout: RawFd,
    pub stderr: RawFd,
    pub report: RawFd,
    pub exec_error: RawFd,
    pub landlock: Option<RawFd>,
}

/// A supervisor waiting for its run. Dropping it unused ends it and removes its cgroup.
#[derive(Debug)]
pub(crate) struct Parked {
    pid: i32,
    sock: Option<OwnedFd>,
    capacity: usize,
    cgroup: Option<RunCgroup>,
}

/// Park a supervisor for `plan` in `cgroup`, with room for `capacity` bytes of strings; with
/// `subids` (the plan's [`supervisor::IdMap::ByHarness`]), its user namespace mapped by them.
pub(crate) fn park(
    plan: supervisor::SplitSpec,
    cgroup: Option<RunCgroup>,
    capacity: usize,
    subids: Option<&SubIds>,
) -> io::Result<Parked> {
    let mut ends = [0 as RawFd; 2];
    // SAFETY: pointer to a live array of two fds.
    if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0, ends.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    let join: Vec<RawFd> = cgroup.as_ref().map(RunCgroup::join_fds).unwrap_or_default();
    let mut keep: Vec<RawFd> = join.iter().copied().chain([theirs.as_raw_fd()]).collect();
    keep.sort_unstable();
    // Every buffer the child will use, allocated before the fork.
    let mut buf: Vec<u8> = vec![0; HEADER + capacity];
    let mut ptrs: Vec<*const libc::c_char> = vec![std::ptr::null(); capacity + 8];
    let mut rlimits: Vec<Rlimit> = Vec::with_capacity(MAX_RLIMITS);
    // SAFETY: a plain fork; the child runs `Child::run` only, which never returns.
    let pid = unsafe { super::procs::clone_process()? };
    if pid == 0 {
        let child = Child {
            plan,
            sock: theirs.as_raw_fd(),
            join: &join,
            keep: &keep,
            buf: &mut buf,
            ptrs: &mut ptrs,
            rlimits: &mut rlimits,
        };
        // SAFETY: in the freshly forked child.
        unsafe { child.run() }
    }
    drop(theirs);
    let mut cgroup = cgroup;
    if let Some(cg) = &mut cgroup {
        cg.joined();
    }
    let parked = Parked { pid, sock: Some(ours), capacity, cgroup };
    if let (supervisor::IdMap::ByHarness, Some(subids), Some(sock)) = (plan.map_ids, subids, &parked.sock) {
        // A child that failed before its namespace says so (or ends): its run then fails to
        // start with the errno it keeps, as any parked process's early failure does.
        let fd = sock.as_raw_fd();
        let _ = subids::answer_map(fd, fd, || subids.map(pid, Inside::Marker));
    }
    Ok(parked)
}

impl Parked {
    pub(crate) fn cgroup_mut(&mut self) -> Option<&mut RunCgroup> {
        self.cgroup.as_mut()
    }

    /// Whether an [`Exec`] fits in this process's buffers.
    pub(crate) fn fits(&self, exec: &Exec) -> bool {
        let strings = encode_strings(exec).len();
        strings < self.capacity && pointers_needed(exec) <= self.capacity + 8
    }

    /// Send the run. The process becomes the run's supervisor: from here on the caller owns
    /// its pid (and must reap it) and its cgroup.
    pub(crate) fn go(mut self, exec: &Exec, fds: &Fds) -> (i32, Option<RunCgroup>, io::Result<()>) {
        let sock = self.sock.take().expect("a parked process is sent once");
        let sent = send(&sock, exec, fds);
        let (pid, cgroup) = (self.pid, self.cgroup.take());
        self.pid = 0;
        (pid, cgroup, sent)
    }

    /// Room needed for an [`Exec`] that does not fit the default.
    pub(crate) fn capacity_for(exec: &Exec) -> usize {
        (encode_strings(exec).len() + 1).max(pointers_needed(exec)).max(DEFAULT_CAPACITY)
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        if self.pid > 0 {
            // Closing the socket ends it; SIGKILL in case it is still joining its cgroup.
            self.sock = None;
            // SAFETY: kill and waitpid on our own child.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                let mut status = 0;
                while libc::waitpid(self.pid, &mut status, 0) < 0
                    && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
                {}
            }
        }
    }
}

fn pointers_needed(exec: &Exec) -> usize {
    exec.candidates.len() + 2 * exec.argv.len() + exec.envp.len() + exec.root.len() + 4
}

fn encode_strings(exec: &Exec) -> Vec<u8> {
    let mut out = Vec::new();
    let lists = exec.candidates.iter().chain(&exec.argv).chain(&exec.envp).chain(&exec.root);
    for s in std::iter::once(&exec.cwd).chain(lists) {
        out.extend_from_slice(s.as_bytes_with_nul());
    }
    out
}

fn send(sock: &OwnedFd, exec: &Exec, fds: &Fds) -> io::Result<()> {
    if exec.rlimits.len() > MAX_RLIMITS {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "too many rlimits"));
    }
    let strings = encode_strings(exec);
    let mut header = Header {
        total: (HEADER + strings.len()) as u64,
        n_candidates: exec.candidates.len() as u32,
        n_args: exec.argv.len() as u32,
        n_env: exec.envp.len() as u32,
        n_rlimits: exec.rlimits.len() as u32,
        n_root: exec.root.len() as u32,
        has_landlock: u32::from(fds.landlock.is_some()),
        has_run_as: u32::from(exec.run_as.is_some()),
        uid: exec.run_as.map_or(0, |r| r.uid),
        gid: exec.run_as.map_or(0, |r| r.gid),
        has_affinity: u32::from(exec.affinity.is_some()),
        rlimits: [[0; 3]; MAX_RLIMITS],
        affinity: exec.affinity.unwrap_or([0; AFFINITY_WORDS]),
    };
    for (slot, r) in header.rlimits.iter_mut().zip(&exec.rlimits) {
        #[allow(clippy::unnecessary_cast)]
        {
            *slot = [r.resource as u64, r.soft as u64, r.hard as u64];
        }
    }
    let mut message = Vec::with_capacity(HEADER + strings.len());
    // SAFETY: Header is plain old data without padding holes that matter (all fields set).
    message.extend_from_slice(unsafe { std::slice::from_raw_parts((&header as *const Header).cast::<u8>(), HEADER) });
    message.extend_from_slice(&strings);
    let mut list = vec![fds.stdin, fds.stdout, fds.stderr, fds.report, fds.exec_error];
    list.extend(fds.landlock);
    // SAFETY: CMSG_SPACE is a pure computation.
    let space = unsafe { libc::CMSG_SPACE((list.len() * std::mem::size_of::<RawFd>()) as u32) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec { iov_base: message.as_ptr() as *mut libc::c_void, iov_len: message.len() };
    // SAFETY: zeroed msghdr is valid; every pointer below is to a live local buffer.
    let sent = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN((list.len() * std::mem::size_of::<RawFd>()) as u32) as _;
        std::ptr::copy_nonoverlapping(list.as_ptr(), libc::CMSG_DATA(cmsg).cast::<RawFd>(), list.len());
        loop {
            let n = libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL);
            if n >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break n;
            }
        }
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut done = sent as usize;
    while done < message.len() {
        let rest = &message[done..];
        // SAFETY: sending from a live buffer of the given length.
        let n = unsafe { libc::send(sock.as_raw_fd(), rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL) };
        if n < 0 {
            let err = io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Err(err);
        }
        done += n as usize;
    }
    Ok(())
}

/// What the forked child works with: all of it allocated before the fork.
struct Child<'a> {
    plan: supervisor::SplitSpec,
    sock: RawFd,
    join: &'a [RawFd],
    keep: &'a [RawFd],
    buf: &'a mut [u8],
    ptrs: &'a mut [*const libc::c_char],
    rlimits: &'a mut Vec<Rlimit>,
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

/// Report `errno` to the harness as the spawn's error, and end.
unsafe fn fail(exec_error: RawFd, errno: i32) -> ! {
    libc::write(exec_error, (&errno as *const i32).cast(), 4);
    libc::_exit(127)
}

/// Pins this process to the run's CPUs, if it has any, before anything is forked, so that the
/// whole run inherits them.
unsafe fn pin(header: &Header) -> Result<(), i32> {
    if header.has_affinity == 0 {
        return Ok(());
    }
    let mut set: libc::cpu_set_t = std::mem::zeroed();
    for cpu in 0..AFFINITY_WORDS * 64 {
        if header.affinity[cpu / 64] & (1 << (cpu % 64)) != 0 {
            libc::CPU_SET(cpu, &mut set);
        }
    }
    if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Where each list of C strings starts in [`Child::ptrs`]: candidates | argv NULL | envp NULL |
/// sh argv (sh, script, argv[1..]) NULL | root (folder, steps).
struct Offsets {
    candidates: usize,
    argv: usize,
    env: usize,
    sh: usize,
    root: usize,
}

impl Child<'_> {
    /// Join, prepare, wait for the run, split, exec. Errors before the run arrives are kept
    /// and reported then, through the exec-error pipe, as errors of the spawn.
    unsafe fn run(mut self) -> ! {
        let settled = self.settle();
        let Some(fds) = self.receive() else { libc::_exit(0) };
        let exec_error = fds[4];
        let fail = |e: i32| -> ! { fail(exec_error, e) };
        let before = match settled {
            Ok(mask) => mask,
            Err(e) => fail(e),
        };
        let header: Header = std::ptr::read_unaligned(self.buf.as_ptr().cast());
        for (i, &fd) in fds[..3].iter().enumerate() {
            if libc::dup2(fd, i as RawFd) < 0 {
                fail(errno());
            }
        }
        let Some((cwd, at)) = self.lay_out_strings(&header) else { fail(libc::EINVAL) };
        if let Err(e) = pin(&header) {
            fail(e);
        }
        for i in 0..header.n_rlimits as usize {
            let [resource, soft, hard] = header.rlimits[i];
            self.rlimits.push(Rlimit {
                resource: resource as child::Resource,
                soft: soft as libc::rlim_t,
                hard: hard as libc::rlim_t,
            });
        }
        let plan = supervisor::SplitSpec { report_fd: fds[3], ..self.plan };
        let n_root = header.n_root as usize;
        let root_strings = &*std::ptr::slice_from_raw_parts(self.ptrs.as_ptr().add(at.root), n_root);
        let root = root_strings.split_first().map(|(folder, steps)| supervisor::RootRecipe {
            folder: CStr::from_ptr(*folder),
            steps,
            error_fd: exec_error,
        });
        if let Err(e) = supervisor::split(&plan, &before, root.as_ref()) {
            fail(e.raw_os_error().unwrap_or(libc::EIO));
        }
        // The program's process from here.
        let run_as = (header.has_run_as != 0).then_some(RunAs { uid: header.uid, gid: header.gid });
        let landlock = (header.has_landlock != 0).then_some(fds[5]);
        let (n_cand, n_args, n_env) = (header.n_candidates as usize, header.n_args as usize, header.n_env as usize);
        let ptrs = self.ptrs.as_mut_ptr();
        let raw = child::Raw {
            cwd,
            candidates: &*std::ptr::slice_from_raw_parts(ptrs.add(at.candidates), n_cand),
            argv: &*std::ptr::slice_from_raw_parts(ptrs.add(at.argv), n_args + 1),
            envp: &*std::ptr::slice_from_raw_parts(ptrs.add(at.env), n_env + 1),
            sh_argv: ptrs.add(at.sh),
            rlimits: &self.rlimits[..],
            run_as,
        };
        fail(child::become_program(&raw, landlock, self.plan.seccomp, root.as_ref()))
    }

    /// Before the run arrives: only the fds it needs, a session of its own, the run's cgroups
    /// joined, signals prepared. The signal mask to restore, or the first errno.
    unsafe fn settle(&mut self) -> Result<libc::sigset_t, i32> {
        supervisor::close_all_but(self.keep);
        // Received fds must not land on 0-2, where dup2 could not clear their close-on-exec.
        loop {
            let fd = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
            if fd > 2 {
                libc::close(fd);
            }
            if !(0..=2).contains(&fd) {
                break;
            }
        }
        let mut failure = 0;
        // A session of its own, which also makes it the leader of the run's process group: no
        // process of the run has a controlling terminal, so none can reach the marker's
        // through `/dev/tty`, and none is stopped by it (SIGTTIN, SIGTTOU) or sent its Ctrl-C.
        if libc::setsid() < 0 {
            failure = errno();
        }
        // Joining before anything else is forked means every process of the run is in the
        // cgroup. Every fd is closed, even after a failure.
        for &fd in self.join {
            if failure == 0 && libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                failure = errno();
            }
            libc::close(fd);
        }
        if failure != 0 {
            if self.plan.map_ids == supervisor::IdMap::ByHarness {
                // The harness waits for word of the user namespace: none is coming.
                libc::write(self.sock, b"x".as_ptr().cast(), 1);
            }
            return Err(failure);
        }
        supervisor::prepare(&self.plan, self.sock).map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
    }

    /// Points [`Child::ptrs`] at the strings of the run's message: the working folder (returned)
    /// and then each list, NULL-terminated, where [`Offsets`] says. `None` when the counts
    /// overrun the strings.
    unsafe fn lay_out_strings(&mut self, header: &Header) -> Option<(*const libc::c_char, Offsets)> {
        let strings = self.buf.as_ptr().add(HEADER).cast::<libc::c_char>();
        let strings_len = header.total as usize - HEADER;
        let mut pos = 0;
        let next = |pos: &mut usize| {
            let s = strings.add(*pos);
            *pos += CStr::from_ptr(s).to_bytes_with_nul().len();
            s
        };
        let cwd = next(&mut pos);
        let (n_cand, n_args, n_env) = (header.n_candidates as usize, header.n_args as usize, header.n_env as usize);
        let sh = n_cand + n_args + n_env + 2;
        let at = Offsets { candidates: 0, argv: n_cand, env: n_cand + n_args + 1, sh, root: sh + n_args.max(1) + 2 };
        for i in 0..n_cand {
            self.ptrs[at.candidates + i] = next(&mut pos);
        }
        for i in 0..n_args {
            self.ptrs[at.argv + i] = next(&mut pos);
        }
        self.ptrs[at.argv + n_args] = std::ptr::null();
        for i in 0..n_env {
            self.ptrs[at.env + i] = next(&mut pos);
        }
        self.ptrs[at.env + n_env] = std::ptr::null();
        for i in 0..header.n_root as usize {
            self.ptrs[at.root + i] = next(&mut pos);
        }
        if pos > strings_len {
            return None;
        }
        self.ptrs[at.sh] = c"/bin/sh".as_ptr();
        for i in 1..n_args {
            self.ptrs[at.sh + 1 + i] = self.ptrs[at.argv + i];
        }
        self.ptrs[at.sh + n_args.max(1) + 1] = std::ptr::null();
        Some((cwd, at))
    }

    /// The run: its message in `buf` and its fds (close-on-exec), or `None` when the harness
    /// closed the socket instead.
    unsafe fn receive(&mut self) -> Option<[RawFd; MAX_FDS]> {
        let mut fds = [-1 as RawFd; MAX_FDS];
        let mut control = [0u64; 16];
        let mut iov = libc::iovec { iov_base: self.buf.as_mut_ptr().cast(), iov_len: self.buf.len() };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let mut got = loop {
            let n = libc::recvmsg(self.sock, &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n > 0 {
                break n as usize;
            }
            if n == 0 || errno() != libc::EINTR {
                return None;
            }
        };
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return None;
        }
        let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<RawFd>();
        std::ptr::copy_nonoverlapping(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fds.as_mut_ptr(), count.min(MAX_FDS));
        loop {
            let total = if got >= HEADER {
                std::ptr::read_unaligned(self.buf.as_ptr().cast::<Header>()).total as usize
            } else {
                HEADER
            };
            // The harness checks that a run fits; the last byte stays NUL all the same.
            if total >= self.buf.len() {
                return None;
            }
            if got >= total {
                break;
            }
            let n = libc::read(self.sock, self.buf.as_mut_ptr().add(got).cast(), self.buf.len() - got);
            if n > 0 {
                got += n as usize;
            } else if n == 0 || errno() != libc::EINTR {
                return None;
            }
        }
        libc::close(self.sock);
        Some(fds)
    }
}
