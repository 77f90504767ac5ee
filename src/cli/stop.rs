//! Stopping cleanly: SIGINT (Ctrl-C) and SIGTERM (what `timeout`, Slurm and systemd send) →
//! a flag the pipeline watches, and the exit status that says which signal stopped marking.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The exit status after a clean stop: 128 + the signal, as shells report a death by it (130 for
/// Ctrl-C's SIGINT, 143 for SIGTERM), so a script or a scheduler can tell which ended marking.
pub fn interrupted_status() -> u8 {
    match STOPPED_BY.load(Ordering::SeqCst) {
        0 => 128 + libc::SIGINT as u8,
        signal => 128 + signal as u8,
    }
}

/// Set by the first SIGINT or SIGTERM; a second one of either ends bhgrade at once.
static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that set [`STOP`], for the exit status (0 until one arrives).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(signal: libc::c_int) {
    // Only the first signal names the stop: a SIGTERM after a Ctrl-C is the second signal, not
    // a different reason.
    let _ = STOPPED_BY.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
    // SAFETY: signal(2) is async-signal-safe; the default action lets an impatient second
    // Ctrl-C, or a scheduler's SIGTERM after a Ctrl-C, end bhgrade at once.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
}

/// Makes Ctrl-C (SIGINT) and SIGTERM (what `timeout`, Slurm and systemd send) stop marking
/// cleanly: no new work starts, runs in progress end (their processes killed by their limits
/// at the latest), finished results are kept.
pub fn stop_on_interrupt() -> &'static AtomicBool {
    // SAFETY: the handler only stores to atomics and calls signal(2), all async-signal-safe.
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
