//! The work queue the pipeline's workers share: builds and runs → handed out runs first, so a
//! submission that has built finishes (and its report appears) before new ones start; but once
//! no more builds are waiting than there are workers, builds first, so the last submissions
//! build side by side and their runs fill every worker to the end, rather than one worker
//! building the last submission while the others wait.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};

use crate::sandbox::{Command, Limits};

/// What a worker is asked to do.
pub(super) enum Job {
    Build(usize),
    Run(Box<RunJob>),
}

/// One run of a built submission's program.
pub(super) struct RunJob {
    pub student: usize,
    pub run: usize,
    pub command: Command,
    pub limits: Limits,
    /// The run's own folder, made before and removed after it.
    pub scratch: Option<PathBuf>,
}

#[derive(Default)]
struct Queue {
    builds: VecDeque<Job>,
    runs: VecDeque<Job>,
    closed: bool,
}

/// The work queue shared by the workers.
pub(super) struct SharedQueue {
    queue: Mutex<Queue>,
    ready: Condvar,
    /// How many workers take jobs from it.
    workers: usize,
}

impl SharedQueue {
    /// A queue for `workers` workers, empty and open.
    pub(super) fn new(workers: usize) -> SharedQueue {
        SharedQueue { queue: Mutex::default(), ready: Condvar::new(), workers }
    }

    /// Queues a job, unless marking is stopping.
    pub(super) fn push(&self, job: Job) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        if queue.closed {
            return;
        }
        match job {
            Job::Build(_) => queue.builds.push_back(job),
            Job::Run(_) => queue.runs.push_back(job),
        }
        self.ready.notify_one();
    }

    /// Stops handing out work; jobs not yet started are dropped.
    pub(super) fn close(&self) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.closed = true;
        queue.builds.clear();
        queue.runs.clear();
        self.ready.notify_all();
    }

    /// A guard that closes the queue when dropped: the thread that gathers results holds it, so
    /// that however it leaves (an error, or a panic in a reporter) no worker waits for work
    /// forever and the marking's threads can be joined.
    pub(super) fn closed_on_drop(&self) -> CloseOnDrop<'_> {
        CloseOnDrop(self)
    }

    pub(super) fn pop(&self) -> Option<Job> {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let job = match queue.builds.len() <= self.workers {
                true => queue.builds.pop_front().or_else(|| queue.runs.pop_front()),
                false => queue.runs.pop_front().or_else(|| queue.builds.pop_front()),
            };
            if let Some(job) = job {
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self.ready.wait(queue).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Closes its queue when dropped ([`SharedQueue::closed_on_drop`]).
pub(super) struct CloseOnDrop<'a>(&'a SharedQueue);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}
