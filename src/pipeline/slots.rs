//! CPU slots: the CPUs this process may use (its affinity mask, capped by any cgroup CPU
//! quota) and `--cores-per-run` → one fixed set of cores per worker ([`Slots`]).
//!
//! Each worker pins everything it runs, builds included, to its own slot for the run's whole
//! process tree, so that runs of other students never compete for a core, and a program gets
//! the same core whatever else bhgrade is doing. Time is judged on CPU time, which a busy
//! machine changes far less than wall time.

/// The cores each worker runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    slots: Vec<Vec<usize>>,
}

impl Slots {
    /// `jobs` slots of `cores_per_run` cores each, taken in turn from `cpus` (slots share
    /// cores only when more were asked for than there are).
    pub fn new(cpus: &[usize], jobs: usize, cores_per_run: usize) -> Slots {
        let per_run = cores_per_run.clamp(1, cpus.len().max(1));
        let slots = (0..jobs.max(1))
            .map(|slot| {
                if cpus.is_empty() {
                    return Vec::new();
                }
                let mut cores: Vec<usize> = (0..per_run).map(|k| cpus[(slot * per_run + k) % cpus.len()]).collect();
                cores.sort_unstable();
                cores.dedup();
                cores
            })
            .collect();
        Slots { slots }
    }

    /// The slots of this machine: `jobs` of them (default: as many as fit in the usable CPUs).
    pub fn for_machine(jobs: Option<usize>, cores_per_run: usize) -> Slots {
        let cpus = usable_cpus();
        let jobs = jobs.unwrap_or_else(|| default_jobs(cpus.len(), cores_per_run));
        Slots::new(&cpus, jobs, cores_per_run)
    }

    /// How many workers.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The cores of worker `index`.
    pub fn cores(&self, index: usize) -> &[usize] {
        &self.slots[index % self.slots.len()]
    }

    /// Cores per slot (for reports).
    pub fn cores_per_run(&self) -> usize {
        self.slots.first().map_or(0, Vec::len)
    }
}

/// Workers that fit: one per `cores_per_run` usable cores, at least one.
pub fn default_jobs(usable: usize, cores_per_run: usize) -> usize {
    (usable / cores_per_run.max(1)).max(1)
}

/// The CPUs this process may run on: its affinity mask, cut to the cgroup CPU quota (a
/// container given 2 CPUs' worth of time on a 64-core host has 2 usable cores, not 64).
pub fn usable_cpus() -> Vec<usize> {
    let mut cpus = affinity();
    if let Some(quota) = cgroup_quota_cores() {
        cpus.truncate(quota.max(1));
    }
    cpus
}

fn affinity() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the kernel fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pointer to a live cpu_set_t of the size given.
    let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } == 0;
    if !ok {
        let count = std::thread::available_parallelism().map_or(1, usize::from);
        return (0..count).collect();
    }
    // SAFETY: CPU_ISSET reads a bit of a valid set.
    (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect()
}

/// Whole cores of CPU time per period that this process's cgroup allows, if it is limited.
fn cgroup_quota_cores() -> Option<usize> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let path = path.trim_start_matches('/');
        let quota = if controllers.is_empty() {
            let text = std::fs::read_to_string(format!("/sys/fs/cgroup/{path}/cpu.max")).ok();
            text.and_then(|text| {
                let mut words = text.split_whitespace();
                let (quota, period) = (words.next()?, words.next()?);
                Some((quota.parse::<f64>().ok()?, period.parse::<f64>().ok()?))
            })
        } else if controllers.split(',').any(|c| c == "cpu") {
            let read = |file: &str| {
                std::fs::read_to_string(format!("/sys/fs/cgroup/{controllers}/{path}/{file}")).ok()?.trim().parse().ok()
            };
            read("cpu.cfs_quota_us").zip(read("cpu.cfs_period_us"))
        } else {
            None
        };
        if let Some((quota, period)) = quota {
            if quota > 0.0 && period > 0.0 {
                return Some((quota / period).ceil() as usize);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_take_cores_in_turn() {
        let slots = Slots::new(&[0, 1, 2, 3], 2, 2);
        assert_eq!((slots.cores(0), slots.cores(1)), (&[0, 1][..], &[2, 3][..]));
        let shared = Slots::new(&[0, 1], 3, 1);
        assert_eq!([shared.cores(0), shared.cores(1), shared.cores(2)], [&[0][..], &[1][..], &[0][..]]);
        assert_eq!(Slots::new(&[4, 7], 1, 5).cores(0), &[4, 7][..], "no more cores than there are");
    }

    #[test]
    fn default_jobs_fill_the_usable_cores() {
        assert_eq!(default_jobs(8, 1), 8);
        assert_eq!(default_jobs(8, 3), 2);
        assert_eq!(default_jobs(1, 2), 1);
    }

    #[test]
    fn this_process_has_usable_cores() {
        let cpus = usable_cpus();
        assert!(!cpus.is_empty());
        assert!(cpus.len() <= std::thread::available_parallelism().map_or(usize::MAX, usize::from).max(cpus.len()));
    }
}
