//! The timing policy: a test's judged [`Limits`] and the suite's [`Launch`] → the limits its
//! run is given; a finished run's [`RunOutcome`] → whether its time must be confirmed by a
//! second run, and which of the two counts.
//!
//! Time is judged on CPU time. A run is killed a margin past its CPU limit, so that a program
//! that ends just past the limit (within what noise could explain) is seen to end: it is run
//! once more, on its own slot like any run, and the lower figure counts. A program still going
//! at the margin is over the limit by more than noise and is not run again, so a program that
//! never ends costs one run, never two. No run needs the whole machine.

use std::time::Duration;

use crate::sandbox::{Limits, RunOutcome};
use crate::suite::Launch;
use crate::verdict::Attempt;

/// How far past its CPU limit a run may go before it is killed; a run that ends within it is
/// confirmed by a second run.
pub const CONFIRM_MARGIN: f64 = 0.10;

/// The limits a test's run is given: the CPU limit plus the margin, the wall-clock backstop
/// (never below that), and the memory ceiling with the runtime's overhead.
pub fn run_limits(judged: &Limits, launch: &Launch) -> Limits {
    let cpu = judged.cpu.mul_f64(1.0 + CONFIRM_MARGIN);
    Limits {
        cpu,
        wall: judged.wall.max(cpu + Duration::from_secs(1)),
        memory_bytes: launch.memory_ceiling(judged),
        output_bytes: judged.output_bytes,
    }
}

/// The run finished (it was not killed) but spent more CPU time than the limit: close enough
/// that a second run may come in under it.
pub fn needs_confirmation(outcome: &RunOutcome, judged: &Limits) -> bool {
    !outcome.cpu_limit_hit && !outcome.wall_limit_hit && outcome.cpu > judged.cpu
}

/// Of a run and its confirmation, the one that counts: the lower CPU time.
pub fn counted(first: RunOutcome, second: RunOutcome) -> RunOutcome {
    if second.cpu < first.cpu {
        second
    } else {
        first
    }
}

/// The time figures of every run of a test, in order.
pub fn attempts(runs: &[&RunOutcome]) -> Vec<Attempt> {
    runs.iter().map(|run| Attempt::of(run)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Exit;

    fn outcome(cpu_ms: u64, killed: bool) -> RunOutcome {
        let exit = if killed { Exit::Signal(libc::SIGKILL) } else { Exit::Code(0) };
        RunOutcome { cpu_limit_hit: killed, ..RunOutcome::finished(exit, b"1\n", cpu_ms) }
    }

    const JUDGED: Limits = Limits {
        wall: Duration::from_secs(35),
        cpu: Duration::from_secs(10),
        memory_bytes: 1 << 30,
        output_bytes: 1 << 20,
    };

    #[test]
    fn the_run_is_given_the_margin_and_the_runtime_its_overhead() {
        let launch = Launch { memory_overhead_bytes: 256 << 20, ..Launch::command(vec!["java".into()]) };
        let limits = run_limits(&JUDGED, &launch);
        assert_eq!(limits.cpu, Duration::from_secs(11));
        assert_eq!(limits.wall, Duration::from_secs(35));
        assert_eq!(limits.memory_bytes, (1 << 30) + (256 << 20));
        let tight = Limits { wall: Duration::from_secs(10), ..JUDGED };
        assert_eq!(run_limits(&tight, &launch).wall, Duration::from_secs(12), "the backstop never bites first");
    }

    #[test]
    fn only_a_run_that_ended_just_past_the_limit_is_confirmed() {
        assert!(!needs_confirmation(&outcome(9_900, false), &JUDGED), "under the limit");
        assert!(needs_confirmation(&outcome(10_400, false), &JUDGED), "ended within the margin");
        assert!(!needs_confirmation(&outcome(11_000, true), &JUDGED), "killed at the margin");
        let counted = counted(outcome(10_400, false), outcome(9_800, false));
        assert_eq!(counted.cpu, Duration::from_millis(9_800));
    }
}
