//! The probed [`Sandbox`] → its isolation [`Layer`]s, in a fixed order, for `doctor`, for every
//! report, and for `--isolation strict` (which refuses to mark while a required one is missing).

use serde::{Deserialize, Serialize};

use super::{procs, Sandbox};

/// One isolation mechanism, for reports and the `doctor` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layer {
    pub name: String,
    pub active: bool,
    /// Part of full isolation: `strict` refuses to mark without it, `auto` warns.
    pub required: bool,
    /// What it does here, or why it is not active (with the OS error).
    pub detail: String,
}

pub(crate) fn layer(name: &str, active: bool, required: bool, detail: String) -> Layer {
    Layer { name: name.to_string(), active, required, detail }
}

impl Sandbox {
    /// What is active, in a fixed order, with the reason for everything that is not.
    pub fn layers(&self) -> Vec<Layer> {
        // Without root, the namespaces are made inside a user namespace of the harness's user.
        let userns = if procs::is_root() { "" } else { " (inside a user namespace)" };
        let mut layers = vec![layer(
            "process group",
            true,
            true,
            "own process group; SIGTERM, grace, SIGKILL; leftovers killed after the program exits".into(),
        )];
        layers.push(match &self.pidns {
            Ok(()) => layer(
                "supervisor",
                true,
                true,
                format!(
                    "per-run supervisor with its own PID namespace{userns}: every process of the run dies with \
                     the program (setsid cannot escape)"
                ),
            ),
            Err(why) => layer(
                "supervisor",
                true,
                true,
                format!("per-run supervisor as child subreaper: orphans (setsid too) are killed when the program exits; no PID namespace: {why}"),
            ),
        });
        layers.extend(self.cgroup_layers.iter().cloned());
        layers.push(match &self.cpuset {
            Ok(what) => layer(
                "cpu pinning",
                true,
                false,
                format!("{what}: a run asked for CPUs gets them as its cpuset.cpus, which its programs cannot widen"),
            ),
            Err(why) => layer(
                "cpu pinning",
                true,
                false,
                format!(
                    "no cpuset ({why}): the supervisor pins itself before it forks, so the whole run inherits \
                     the CPUs, but a program could widen its own with sched_setaffinity"
                ),
            ),
        });
        let memory_fallback = !self.memory_cgroup_active();
        layers.push(layer(
            "rlimits",
            true,
            true,
            format!(
                "CPU limit on the whole run, from {}; RLIMIT_CPU = cpu limit + 1 s (per-process backstop), \
                 RLIMIT_FSIZE = {} MiB, RLIMIT_CORE = 0{}",
                if self.cgroups.as_ref().is_some_and(|c| c.measures_cpu()) {
                    "its cgroup every 25 ms"
                } else {
                    "/proc every 100 ms"
                },
                self.policy.file_size_bytes >> 20,
                if memory_fallback { ", RLIMIT_DATA = memory limit (no memory cgroup)" } else { "" }
            ),
        ));
        layers.push(match &self.pidfd {
            Ok(()) => layer("pidfd", true, false, "exit noticed through a pidfd".into()),
            Err(why) => layer("pidfd", false, false, format!("{why}; a waiter thread per run instead")),
        });
        layers.push(match &self.netns {
            Ok(()) => layer("network namespace", true, true, format!("no network (empty namespace{userns})")),
            Err(why) => layer("network namespace", false, true, why.clone()),
        });
        layers.push(match &self.landlock {
            Ok(abi) => layer("filesystem (landlock)", true, true, landlock_detail(*abi)),
            Err(why) => layer("filesystem (landlock)", false, true, format!("{why}; bubblewrap is not supported")),
        });
        layers.push(match &self.run_as {
            Ok(Some(ids)) => layer(
                "unprivileged user",
                true,
                true,
                format!("programs run as uid {} gid {}; copies handed to it", ids.uid, ids.gid),
            ),
            Ok(None) if procs::is_root() => {
                layer("unprivileged user", false, true, "programs run as root (Policy::run_as not set)".into())
            }
            Ok(None) => layer(
                "unprivileged user",
                true,
                true,
                format!("programs run as the harness's own user (uid {})", procs::uid()),
            ),
            Err(why) => layer("unprivileged user", false, true, why.clone()),
        });
        layers
    }

    /// The required layers that are not active (what `auto` warns about and `strict` refuses).
    pub fn missing_layers(&self) -> Vec<Layer> {
        self.layers().into_iter().filter(|l| l.required && !l.active).collect()
    }
}

fn landlock_detail(abi: u32) -> String {
    let mut what = format!(
        "Landlock ABI {abi}: read-only system folders; writes only in the scratch copy and the run's home; \
         puzzles readable one by one; expected answers and other students' work out of reach"
    );
    if abi >= 4 {
        what.push_str("; TCP bind and connect denied");
    }
    if abi >= 6 {
        what.push_str("; signals and abstract sockets confined to the run");
    }
    what
}
