//! Stopping cleanly: SIGINT (Ctrl-C) and SIGTERM (what `timeout`, Slurm and systemd send) →
//! a flag the pipeline watches, and the exit status that says which signal stopped marking.
//!
//! One request to stop often arrives as several signals at once: GNU `timeout` signals
//! bhgrade and then its whole process group, `kill -- -PGID` and a terminal's Ctrl-C reach
//! every process of the group, and a busy machine delivers them milliseconds apart. So every
//! signal until bhgrade has acknowledged the first (said on standard error that it is
//! stopping), and any within [`SAME_REQUEST`] of the first, is the same request. Only a later
//! one, a person asking again, stops bhgrade at once (by the signal's default action, leaving
//! its scratch folder for the next run to sweep).

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, Ordering};
use std::time::Duration;

use super::exit::Exit;

/// How long after the first signal another is still taken as part of the same request.
const SAME_REQUEST: Duration = Duration::from_secs(1);

/// The exit status after a clean stop: 128 + the signal, as shells report a death by it (130 for
/// Ctrl-C's SIGINT, 143 for SIGTERM), so a script or a scheduler can tell which ended marking.
pub fn interrupted_status() -> Exit {
    match STOPPED_BY.load(Ordering::SeqCst) {
        libc::SIGTERM => Exit::Terminated,
        _ => Exit::Interrupted,
    }
}

/// The closing line of a marking a second request stops at once (written from the handler).
const STOPPED_AT_ONCE: &[u8] = b"stopped at once: the results stored so far are kept, the class files (summary, \
gradebooks) were not written; run the same command again to finish\n";

/// Set by the first SIGINT or SIGTERM.
static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that set [`STOP`], for the exit status (0 until one arrives).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);
/// When the first signal came, in milliseconds of `CLOCK_MONOTONIC`.
static FIRST_AT_MS: AtomicI64 = AtomicI64::new(0);
/// Set once bhgrade has said it is stopping: from then on a signal is a new request.
static ACKNOWLEDGED: AtomicBool = AtomicBool::new(false);
/// The pipe's end the handler writes to, to wake the thread that acknowledges (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// `CLOCK_MONOTONIC` in milliseconds (clock_gettime(2) is async-signal-safe).
fn monotonic_ms() -> i64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to write; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}

extern "C" fn on_stop_signal(signal: libc::c_int) {
    let now = monotonic_ms();
    if !STOP.swap(true, Ordering::SeqCst) {
        STOPPED_BY.store(signal, Ordering::SeqCst);
        FIRST_AT_MS.store(now, Ordering::SeqCst);
        let wake = WAKE.load(Ordering::SeqCst);
        if wake >= 0 {
            // SAFETY: write(2) is async-signal-safe; the fd stays open for the process's life.
            unsafe { libc::write(wake, b"!".as_ptr().cast(), 1) };
        }
        return;
    }
    let again = ACKNOWLEDGED.load(Ordering::SeqCst)
        && now - FIRST_AT_MS.load(Ordering::SeqCst) >= SAME_REQUEST.as_millis() as i64;
    if again {
        // SAFETY: write(2), signal(2) and raise(3) are async-signal-safe. The signal is blocked
        // while its handler runs, so it is delivered, with its default action, as the handler
        // returns: the closing line is the last bhgrade says.
        unsafe {
            libc::write(libc::STDERR_FILENO, STOPPED_AT_ONCE.as_ptr().cast(), STOPPED_AT_ONCE.len());
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// Makes Ctrl-C (SIGINT) and SIGTERM stop marking cleanly: no new work starts, runs in
/// progress end (their processes killed by their limits at the latest), finished results are
/// kept. The first signal is acknowledged on standard error unless `quiet`.
pub fn stop_on_interrupt(quiet: bool) -> &'static AtomicBool {
    if WAKE.load(Ordering::SeqCst) < 0 {
        acknowledger(quiet);
    }
    // SAFETY: the handler only uses atomics and async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_stop_signal as *const () as libc::sighandler_t;
        // Both blocked while the handler runs, so two signals at once cannot interleave in it.
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaddset(&mut action.sa_mask, libc::SIGINT);
        libc::sigaddset(&mut action.sa_mask, libc::SIGTERM);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
    &STOP
}

/// A thread that waits for the first signal, says bhgrade is stopping, and from then on lets a
/// signal count as a new request. Without the pipe (no file descriptors left) signals are
/// never acknowledged: every one is then part of the first request.
fn acknowledger(quiet: bool) {
    let mut fds = [-1; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    // SAFETY: the read end is ours alone from here on.
    let mut wake = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fds[0]) });
    WAKE.store(fds[1], Ordering::SeqCst);
    let spawned = std::thread::Builder::new().name("stop-acknowledger".into()).spawn(move || {
        let mut byte = [0u8; 1];
        if wake.read_exact(&mut byte).is_ok() {
            if !quiet {
                bhgrade::say!(
                    "stopping: no new work starts and the runs in progress finish; results so far are kept \
                     (signal again to stop at once)"
                );
            }
            ACKNOWLEDGED.store(true, Ordering::SeqCst);
        }
    });
    if spawned.is_err() {
        WAKE.store(-1, Ordering::SeqCst);
    }
}
