//! The pipes of one run: our ends of the program's stdin, stdout and stderr plus an [`ExitWatch`] (an fd
//! that becomes readable when the main process exits) → a [`Pump`] that moves bytes with
//! non-blocking I/O in one `poll` loop and reports [`Events`].
//!
//! One loop on the caller's thread instead of a thread per pipe: nothing ever blocks, so a
//! program that never reads its input, or a leftover that keeps a pipe open, cannot hold the
//! run past its limits, and no thread is left behind.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::procs;

const CHUNK: usize = 64 * 1024;

/// One output pipe and what came out of it.
pub(crate) struct Stream {
    fd: Option<OwnedFd>,
    pub(crate) buf: Vec<u8>,
    cap: usize,
    pub(crate) truncated: bool,
}

impl Stream {
    fn new(fd: Option<OwnedFd>, cap: usize) -> Stream {
        Stream { fd, buf: Vec::new(), cap, truncated: false }
    }

    /// Read all that is there now. Returns true when the cap was just passed.
    fn read_ready(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; CHUNK];
        while let Some(fd) = &self.fd {
            // SAFETY: reading into a live buffer of the given length.
            let n = unsafe { libc::read(fd.as_raw_fd(), chunk.as_mut_ptr().cast(), CHUNK) };
            if n > 0 {
                self.buf.extend_from_slice(&chunk[..n as usize]);
                if self.buf.len() > self.cap {
                    self.buf.truncate(self.cap);
                    self.truncated = true;
                    self.fd = None;
                    return Ok(true);
                }
                continue;
            }
            if n == 0 {
                self.fd = None;
                break;
            }
            let err = io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EAGAIN) => break,
                Some(libc::EINTR) => continue,
                _ => return Err(err),
            }
        }
        Ok(false)
    }
}

/// What one [`Pump::step`] saw.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Events {
    pub(crate) exited: bool,
    pub(crate) cap_hit: bool,
}

pub(crate) struct Pump<'a> {
    stdin: Option<OwnedFd>,
    data: &'a [u8],
    written: usize,
    pub(crate) out: Stream,
    pub(crate) err: Stream,
}

impl<'a> Pump<'a> {
    /// Our ends of the run's pipes: to its stdin, from its stdout and stderr (all made
    /// non-blocking here).
    pub(crate) fn new(pipes: [OwnedFd; 3], data: &'a [u8], cap: usize) -> io::Result<Pump<'a>> {
        for fd in &pipes {
            set_nonblocking(fd.as_raw_fd())?;
        }
        let [stdin, stdout, stderr] = pipes.map(Some);
        let mut pump = Pump { stdin, data, written: 0, out: Stream::new(stdout, cap), err: Stream::new(stderr, cap) };
        if data.is_empty() {
            pump.close_stdin();
        }
        Ok(pump)
    }

    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub(crate) fn unwritten(&self) -> usize {
        self.data.len() - self.written
    }

    /// Wait up to `timeout` for any pipe (or the exit watch) and serve what is ready.
    pub(crate) fn step(&mut self, exit: Option<BorrowedFd<'_>>, timeout: Duration) -> io::Result<Events> {
        let mut events = Events::default();
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(4);
        let watch = |fd: RawFd, events: libc::c_short| libc::pollfd { fd, events, revents: 0 };
        let slot_in = self.stdin.as_ref().map(|fd| {
            fds.push(watch(fd.as_raw_fd(), libc::POLLOUT));
            fds.len() - 1
        });
        let slot_out = self.out.fd.as_ref().map(|fd| {
            fds.push(watch(fd.as_raw_fd(), libc::POLLIN));
            fds.len() - 1
        });
        let slot_err = self.err.fd.as_ref().map(|fd| {
            fds.push(watch(fd.as_raw_fd(), libc::POLLIN));
            fds.len() - 1
        });
        let slot_exit = exit.map(|fd| {
            fds.push(watch(fd.as_raw_fd(), libc::POLLIN));
            fds.len() - 1
        });
        if fds.is_empty() {
            std::thread::sleep(timeout);
            return Ok(events);
        }
        let ms = timeout.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a live array of the given length.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if n < 0 {
            let err = io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EINTR) {
                return Ok(events);
            }
            return Err(err);
        }
        let ready = |slot: Option<usize>| slot.is_some_and(|i| fds[i].revents != 0);
        if ready(slot_in) {
            self.write_ready();
        }
        if ready(slot_out) {
            events.cap_hit |= self.out.read_ready()?;
        }
        if ready(slot_err) {
            events.cap_hit |= self.err.read_ready()?;
        }
        events.exited = ready(slot_exit);
        Ok(events)
    }

    /// Write what the pipe takes now. Any error (EPIPE: the program closed its input or
    /// exited) ends the input: what it did not read is its own business.
    fn write_ready(&mut self) {
        while let Some(fd) = &self.stdin {
            let rest = &self.data[self.written..];
            if rest.is_empty() {
                self.close_stdin();
                return;
            }
            let len = rest.len().min(CHUNK);
            // SAFETY: writing from a live buffer of the given length.
            let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), len) };
            if n >= 0 {
                self.written += n as usize;
                continue;
            }
            match io::Error::last_os_error().raw_os_error() {
                Some(libc::EAGAIN) => return,
                Some(libc::EINTR) => continue,
                _ => self.close_stdin(),
            }
        }
    }

    /// After everything of the run was killed: read what is left until both pipes close,
    /// giving up at `deadline` (only an escaped process can keep a pipe open that long).
    /// Returns whether a pipe was still held open at the deadline (it stays open then).
    pub(crate) fn drain(&mut self, deadline: Instant) -> io::Result<bool> {
        self.close_stdin();
        while self.out.fd.is_some() || self.err.fd.is_some() {
            let now = Instant::now();
            if now >= deadline {
                return Ok(true);
            }
            self.step(None, deadline - now)?;
        }
        Ok(false)
    }

    /// Inode numbers of the output pipes still open (a pipe's two ends share one inode).
    pub(crate) fn open_inodes(&self) -> Vec<u64> {
        [&self.out.fd, &self.err.fd]
            .into_iter()
            .flatten()
            .filter_map(|fd| {
                // SAFETY: zeroed stat is a valid out-parameter; fstat on an fd we own.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                (unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0).then_some(st.st_ino)
            })
            .collect()
    }

    /// Stop reading: whoever still writes gets EPIPE.
    pub(crate) fn close_all(&mut self) {
        self.close_stdin();
        self.out.fd = None;
        self.err.fd = None;
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// An fd that becomes readable when the main process exits, without reaping it (the zombie
/// keeps its process-group id reserved until we have killed the rest of the group).
pub(crate) struct ExitWatch {
    fd: OwnedFd,
}

impl ExitWatch {
    /// A pidfd when available; else a thread blocked in `waitid(WNOWAIT)` that writes to a
    /// pipe (it ends when the process exits, which every run makes sure of).
    pub(crate) fn new(pid: i32, use_pidfd: bool) -> io::Result<ExitWatch> {
        if use_pidfd {
            if let Ok(fd) = procs::pidfd_open(pid) {
                return Ok(ExitWatch { fd });
            }
        }
        let mut ends = [0 as RawFd; 2];
        // SAFETY: pointer to a live array of two fds. O_CLOEXEC keeps the pipe out of
        // programs spawned concurrently by other runs.
        if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both fds were just created and are owned by nobody else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        std::thread::Builder::new().name(format!("bhgrade-wait-{pid}")).spawn(move || {
            // SAFETY: zeroed siginfo is a valid out-parameter.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            loop {
                // SAFETY: pointer to a live local.
                let r =
                    unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
                if r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    break;
                }
            }
            // SAFETY: writing one byte from a static buffer to an fd we own.
            unsafe { libc::write(write.as_raw_fd(), b"x".as_ptr().cast(), 1) };
        })?;
        Ok(ExitWatch { fd: read })
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
