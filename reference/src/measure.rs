//! Measuring searches: what every game's `stats` command and bench reads and prints with.
//!
//! Input: counts, sorted samples, the calling thread and process, a measure of one deal. Output:
//! a 95% Wilson interval, nearest-rank percentiles, the thread's CPU time, the process's peak
//! memory, and every deal's measure taken on a number of threads ([`each_on_threads`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The 95% Wilson score interval for `k` successes in `n` trials (sound near 0 and 1, unlike
/// the normal approximation).
pub fn wilson_interval(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The nearest-rank `q`-quantile of sorted values (`q = 1` is the maximum).
pub fn percentile<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The CPU time the calling thread has used, to the nanosecond (`CLOCK_THREAD_CPUTIME_ID`,
/// which brings the scheduler's count up to date when read; `/proc/thread-self/schedstat` is only
/// brought up to date at scheduler ticks, 4 ms here, which put every deal's time on a tick).
pub fn thread_cpu_time() -> Option<Duration> {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid timespec for the call to write into.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if status != 0 {
        return None;
    }
    Some(Duration::new(u64::try_from(now.tv_sec).ok()?, u32::try_from(now.tv_nsec).ok()?))
}

/// `measure(i)` for every `i` in `0..count`, in that order, taken on `threads` threads that share
/// the indices out one at a time (so a slow deal holds up one thread, not a share of the rest).
/// A run longer than [`PROGRESS_EVERY`] says on standard error how far it has come, at most once
/// per that interval, so that an hour's `stats` is not silent until its end.
pub fn each_on_threads<T: Default + Clone + Send>(
    count: u64,
    threads: usize,
    measure: impl Fn(u64) -> T + Sync,
) -> Vec<T> {
    let next = AtomicU64::new(0);
    let results = Mutex::new((vec![T::default(); count as usize], Progress::new(count)));
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= count {
                    break;
                }
                let value = measure(index);
                let mut results = results.lock().unwrap_or_else(|e| e.into_inner());
                results.0[index as usize] = value;
                if let Some(line) = results.1.one_done(Instant::now()) {
                    eprintln!("{line}");
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).0
}

/// How often a long run of [`each_on_threads`] reports its progress.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// Deals measured so far, and when that was last said.
struct Progress {
    count: u64,
    done: u64,
    started: Instant,
    said: Instant,
}

impl Progress {
    fn new(count: u64) -> Progress {
        let now = Instant::now();
        Progress { count, done: 0, started: now, said: now }
    }

    /// Counts one more deal measured at `now`; the line to say, when one is due (never for the
    /// last deal: the report follows at once).
    fn one_done(&mut self, now: Instant) -> Option<String> {
        self.done += 1;
        if now.duration_since(self.said) < PROGRESS_EVERY || self.done == self.count {
            return None;
        }
        self.said = now;
        let (done, count, seconds) = (self.done, self.count, now.duration_since(self.started).as_secs());
        Some(format!("bhref stats: {done} of {count} deals measured, {} min {} s", seconds / 60, seconds % 60))
    }
}

/// `work`'s value and the CPU time the calling thread spent on it, its memory's release included.
pub fn thread_cpu_of<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let before = thread_cpu_time().unwrap_or_default();
    let value = work();
    settle_freed_memory();
    (value, thread_cpu_time().unwrap_or_default().saturating_sub(before))
}

/// Has the allocator finish freeing what has been freed. glibc's malloc keeps small freed blocks
/// in lists it merges only at a later large request: after a search that freed millions of
/// positions, the next measured work paid for the merge (a deal of 1,362 positions took 0.71 s
/// of CPU after the breadth-first oracle's 5 s deal, 0.001 s alone).
fn settle_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only reorganises the allocator's free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The process's peak resident set size in KiB (`VmHWM` in `/proc/self/status`).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long run says how far it has come at most once per interval, and never for its last
    /// deal; the clock is handed in, so nothing waits.
    #[test]
    fn progress_is_said_once_per_interval_and_not_at_the_end() {
        let mut progress = Progress::new(4);
        let start = progress.started;
        assert_eq!(progress.one_done(start + Duration::from_secs(10)), None);
        let line = progress.one_done(start + PROGRESS_EVERY + Duration::from_secs(65));
        assert_eq!(line.as_deref(), Some("bhref stats: 2 of 4 deals measured, 1 min 35 s"));
        assert_eq!(progress.one_done(start + PROGRESS_EVERY + Duration::from_secs(70)), None);
        assert_eq!(progress.one_done(start + 9 * PROGRESS_EVERY), None);
    }

    #[test]
    fn wilson_interval_matches_the_paper() {
        // The paper: 2,189 of 2,500 winnable, 95% interval [86.2%, 88.8%].
        let (low, high) = wilson_interval(2189, 2500);
        assert!((low - 0.862).abs() < 0.001 && (high - 0.888).abs() < 0.001, "{low} {high}");
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(percentile(&values, 0.5), Some(5));
        assert_eq!(percentile(&values, 0.9), Some(9));
        assert_eq!(percentile(&values, 1.0), Some(10));
        assert_eq!(percentile::<u32>(&[], 0.5), None);
    }
}
