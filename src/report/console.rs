//! Standard output and standard error as bhgrade writes to them: text → the stream, or nowhere
//! once the stream is gone.
//!
//! A marker pipes a marking into `head`, `less` or `tee`, a CI log collector goes away, a log
//! file's disk fills. Rust's `println!` and `eprintln!` panic when their stream fails (bhgrade,
//! like every Rust program, ignores SIGPIPE, so a write to a pipe whose reader left fails with
//! `EPIPE`), and a panic in the thread that gathers results left the workers waiting for work
//! forever. What bhgrade says on these streams is a view of the marking, never the marking
//! itself (that is the output folder), so a failed write is dropped: the stream is marked gone,
//! nothing more is written to it, and the work goes on to write every file.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to standard output failed.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
/// Set once a write to standard error failed.
static STDERR_GONE: AtomicBool = AtomicBool::new(false);

/// Writes `text` to standard output (whole, then flushed), unless it has failed before.
pub fn stdout_text(text: &str) {
    write_to(std::io::stdout().lock(), &STDOUT_GONE, text.as_bytes());
}

/// Writes `text` and a newline to standard error, unless it has failed before.
pub fn stderr_line(text: fmt::Arguments<'_>) {
    write_to(std::io::stderr().lock(), &STDERR_GONE, format!("{text}\n").as_bytes());
}

/// Writes `text` and a newline to standard output, unless it has failed before.
pub fn stdout_line(text: fmt::Arguments<'_>) {
    stdout_text(&format!("{text}\n"));
}

/// Whether a write to standard output or standard error has failed (their reader left, or
/// their disk filled), so what bhgrade said there was not all seen.
pub fn a_stream_failed() -> bool {
    STDOUT_GONE.load(Ordering::SeqCst) || STDERR_GONE.load(Ordering::SeqCst)
}

fn write_to(mut stream: impl Write, gone: &AtomicBool, bytes: &[u8]) {
    if gone.load(Ordering::SeqCst) {
        return;
    }
    if stream.write_all(bytes).and_then(|()| stream.flush()).is_err() {
        gone.store(true, Ordering::SeqCst);
    }
}

/// `eprintln!` that never panics: a line on standard error, dropped once the stream is gone.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::report::console::stderr_line(format_args!($($arg)*))
    };
}

/// `println!` that never panics: a line on standard output, dropped once the stream is gone.
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::report::console::stdout_line(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader has left.
    struct Closed {
        attempts: usize,
    }

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            self.attempts += 1;
            Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_is_dropped_and_the_stream_is_not_tried_again() {
        let gone = AtomicBool::new(false);
        let mut closed = Closed { attempts: 0 };
        write_to(&mut closed, &gone, b"first\n");
        assert!(gone.load(Ordering::SeqCst));
        write_to(&mut closed, &gone, b"second\n");
        assert_eq!(closed.attempts, 1, "a gone stream is not written to again");
    }

    #[test]
    fn a_working_stream_gets_every_byte() {
        let gone = AtomicBool::new(false);
        let mut out = Vec::new();
        write_to(&mut out, &gone, b"one\n");
        write_to(&mut out, &gone, b"two\n");
        assert_eq!(out, b"one\ntwo\n");
        assert!(!gone.load(Ordering::SeqCst));
    }
}
