//! The probed [`Sandbox`] → its isolation [`Layer`]s, in a fixed order, for `doctor`, for every
//! report, and for `--isolation strict` (which refuses to mark while a required one is missing).

use super::layer::{layer, Layer, LayerName};
use super::probed::Sandbox;
use super::{cgroup, marker_ns, policy, procs, watch};

impl Sandbox {
    /// What is active, in a fixed order, with the reason for everything that is not.
    pub fn layers(&self) -> Vec<Layer> {
        // Without root, the namespaces are made inside a user namespace of the harness's user.
        let userns = if procs::is_root() { "" } else { " (inside a user namespace)" };
        let mut layers = self.process_layers(userns);
        layers.extend(self.namespace_layers(userns));
        layers.extend(self.file_and_user_layers());
        layers
    }

    /// The run's processes: their group and supervisor, cgroups, CPUs, rlimits, exit notice.
    fn process_layers(&self, userns: &str) -> Vec<Layer> {
        let mut layers = vec![layer(
            LayerName::ProcessGroup,
            true,
            true,
            "own process group; SIGTERM, grace, SIGKILL; leftovers killed after the program exits".into(),
        )];
        layers.push(match &self.pidns {
            Ok(()) => layer(
                LayerName::Supervisor,
                true,
                true,
                format!(
                    "per-run supervisor with its own PID namespace{userns}: every process of the run dies with \
                     the program (setsid cannot escape)"
                ),
            ),
            Err(why) => layer(
                LayerName::Supervisor,
                true,
                true,
                format!(
                    "per-run supervisor as child subreaper: orphans (setsid too) are killed when the program exits; \
                     no PID namespace: {why}{}",
                    namespace_hint()
                ),
            ),
        });
        layers.extend(self.cgroup_layers.iter().cloned().map(|mut l| {
            if !l.active {
                l.detail.push_str(&self.without_cgroup(l.name));
            }
            l
        }));
        layers.push(match &self.cpuset {
            Ok(what) => layer(
                LayerName::CpuPinning,
                true,
                false,
                format!("{what}: a run asked for CPUs gets them as its cpuset.cpus, which its programs cannot widen"),
            ),
            Err(why) => layer(
                LayerName::CpuPinning,
                true,
                false,
                format!(
                    "no cpuset ({why}): the supervisor pins itself before it forks, so the whole run inherits \
                     the CPUs, but a program could widen its own with sched_setaffinity"
                ),
            ),
        });
        let nproc = match (self.nproc_scope(), self.pids_cgroup_active()) {
            (Ok(scope), _) => {
                format!(", RLIMIT_NPROC = {} (counts {scope})", self.nproc_backstop().unwrap_or_default())
            }
            (Err(_), true) => String::new(),
            (Err(why), false) => format!(", no RLIMIT_NPROC ({why})"),
        };
        layers.push(layer(
            LayerName::Rlimits,
            true,
            true,
            format!(
                "CPU limit on the whole run, from {}; RLIMIT_CPU = cpu limit + 1 s (per-process backstop), \
                 RLIMIT_FSIZE = {} MiB, RLIMIT_CORE = 0{nproc}; never RLIMIT_AS or RLIMIT_DATA",
                if self.cgroups.as_ref().is_some_and(|c| c.measures_cpu()) {
                    "its cgroup every 25 ms"
                } else {
                    "/proc every 100 ms"
                },
                self.policy.file_size_bytes >> 20,
            ),
        ));
        layers.push(match &self.pidfd {
            Ok(()) => layer(LayerName::Pidfd, true, false, "exit noticed through a pidfd".into()),
            Err(why) => layer(LayerName::Pidfd, false, false, format!("{why}; a waiter thread per run instead")),
        });
        layers
    }

    /// What a run can see and reach of the machine: network, IPC, /proc, the terminal, keyrings,
    /// system calls.
    fn namespace_layers(&self, userns: &str) -> Vec<Layer> {
        vec![
            match &self.netns {
                Ok(()) => {
                    layer(LayerName::NetworkNamespace, true, true, format!("no network (empty namespace{userns})"))
                }
                Err(why) => layer(LayerName::NetworkNamespace, false, true, format!("{why}{}", namespace_hint())),
            },
            match &self.ipcns {
                Ok(()) => layer(
                    LayerName::IpcNamespace,
                    true,
                    true,
                    format!(
                        "a namespace of the run's own{userns}: its SysV shared memory, semaphores and message queues \
                     and its POSIX message queues reach no other run and die with it"
                    ),
                ),
                Err(why) => layer(LayerName::IpcNamespace, false, true, format!("{why}{}", namespace_hint())),
            },
            match (&self.own_root, &self.pidns) {
                (Ok(()), Ok(())) => layer(
                    LayerName::OwnRoot,
                    true,
                    true,
                    format!(
                        "a root built up from nothing for every run{userns}, proven here: read-only the system \
                         folders, the JDKs, an allow-list of /etc ({} names and every java*, with accounts of its \
                         own) and the inputs named; writable its copy and home; {} devices; a /proc of its own PID \
                         namespace listing its processes only; no /sys, /run, /home or /tmp of the machine's, \
                         nothing to connect to, chmod, watch or stat outside it; its PID 1 shows no command line",
                        policy::ETC_ENTRIES.len(),
                        policy::DEVICES.len()
                    ),
                ),
                (Err(why), _) | (Ok(()), Err(why)) => layer(
                    LayerName::OwnRoot,
                    false,
                    true,
                    format!(
                        "{why}: a run sees the machine's file system, where Landlock alone keeps files out of reach \
                         (not unix sockets named by path before Landlock ABI 9, nor chmod, utime or stat), and its \
                         /proc lists every process of the machine{}",
                        namespace_hint()
                    ),
                ),
            },
            match &self.pristine {
                Ok(()) => layer(
                    LayerName::PristineRuns,
                    true,
                    false,
                    format!(
                        "every run writes into a tmpfs of its own ({} MiB, {} files), gone with the run, proven \
                         here: its HOME, a private /tmp, and an overlay of its copy, so a program starts from its \
                         copy as built and nothing one run leaves reaches the next (a confirmation run included) or \
                         the machine's disk; only a build keeps what it writes in its copy",
                        self.policy.disk_bytes >> 20,
                        self.policy.disk_files
                    ),
                ),
                Err(why) => layer(
                    LayerName::PristineRuns,
                    false,
                    false,
                    format!(
                        "{why}: the runs of a submission share its copy, and one may leave work for the next; a \
                         run's HOME is on the scratch disk, bounded per file only"
                    ),
                ),
            },
            self.terminal_layer(),
            match &self.keyring {
                Ok(()) => layer(
                    LayerName::Keyring,
                    true,
                    false,
                    "every program starts in a new, empty session keyring of its own: the marker's keys (Kerberos \
                 caches, tokens) are out of reach"
                        .into(),
                ),
                Err(why) => layer(LayerName::Keyring, true, false, why.clone()),
            },
            match &self.seccomp {
                Ok(filter) => layer(
                    LayerName::Seccomp,
                    true,
                    false,
                    format!(
                    "{filter:?} installed before exec and proven here: keyrings, terminal injection ioctls, ptrace, \
                     bpf, perf, mounts and namespaces fail with EPERM (each is also closed by its own layer), and \
                     SysV shared memory (shmget), which only a memory cgroup would count"
                ),
                ),
                Err(why) => {
                    layer(LayerName::Seccomp, false, false, format!("{why}; every other layer holds without it"))
                }
            },
        ]
    }

    /// The disk a run may fill, the files it may touch, and the user it runs as.
    fn file_and_user_layers(&self) -> Vec<Layer> {
        vec![
            match &self.quota {
                Ok(()) => layer(
                    LayerName::DiskQuota,
                    true,
                    false,
                    format!(
                        "each submission's copy, build and scratch on a tmpfs of {} MiB and {} files of its own{}: \
                         one that fills it fails alone, with \"No space left on device\"",
                        self.policy.disk_bytes >> 20,
                        self.policy.disk_files,
                        if procs::is_root() { "" } else { " (mounted in bhgrade's own user and mount namespace)" }
                    ),
                ),
                Err(why) => layer(
                    LayerName::DiskQuota,
                    false,
                    false,
                    format!(
                    "{why}; instead, RLIMIT_FSIZE bounds each file, and a build or run that fails while the scratch \
                     file system is full is a harness problem, never stored, done again by the next marking"
                ),
                ),
            },
            match &self.landlock {
                Ok(abi) => layer(LayerName::Landlock, true, true, landlock_detail(*abi)),
                Err(why) => layer(
                    LayerName::Landlock,
                    false,
                    true,
                    format!(
                    "{why}; bubblewrap is not supported; Landlock needs no privilege, only a kernel (5.13 on) that \
                     enables it: add `landlock` to its `lsm=` boot parameter"
                ),
                ),
            },
            match &self.run_as {
                Ok(Some(ids)) => layer(
                    LayerName::UnprivilegedUser,
                    true,
                    true,
                    format!("programs run as uid {} gid {}; copies handed to it", ids.uid, ids.gid),
                ),
                Ok(None) if procs::is_root() => layer(
                    LayerName::UnprivilegedUser,
                    false,
                    true,
                    "programs run as root (Policy::run_as not set)".into(),
                ),
                Ok(None) => layer(
                    LayerName::UnprivilegedUser,
                    true,
                    true,
                    format!("programs run as the harness's own user (uid {})", procs::uid()),
                ),
                Err(why) => layer(LayerName::UnprivilegedUser, false, true, why.clone()),
            },
            self.identity_layer(),
        ]
    }

    /// Whether each submission runs as a user of its own.
    fn identity_layer(&self) -> Layer {
        match &self.identities {
            Ok(pool) if self.subids.is_ok() => {
                let ((first, last), (host_first, host_last)) = (pool.range(), pool.host_range());
                let how = match marker_ns::entered().is_some_and(|ns| ns.lent.is_some()) {
                    true => format!(
                        "mapped by newuidmap and newgidmap into bhgrade's own user namespace as {first}-{last}, \
                         and from there into each run's"
                    ),
                    false => format!(
                        "ids {host_first}-{host_last}, mapped into each run's user namespace by newuidmap and \
                         newgidmap as {first}-{last}"
                    ),
                };
                layer(
                    LayerName::OwnIdentity,
                    true,
                    false,
                    format!(
                        "each submission marked at once runs as an id of its own, lent from the marker's \
                         subordinate ids (/etc/subuid and /etc/subgid, {how}; proven here: a child mapped so \
                         became one), each locked while lent, and owns its copy: no run can signal, trace or \
                         change another submission's processes or files, nor the marker's"
                    ),
                )
            }
            Ok(pool) => {
                let (first, last) = pool.range();
                layer(
                    LayerName::OwnIdentity,
                    true,
                    false,
                    format!(
                        "each submission marked at once runs as a uid and gid of its own, lent from {first}-{last} \
                         (checked unused here: no account or group has one, no process but another marking's \
                         runs as one; each locked machine-wide while lent, so two markings never share one) and \
                         owns its copy: no run can signal, trace or change another submission's processes or files"
                    ),
                )
            }
            Err(why) if procs::is_root() => layer(
                LayerName::OwnIdentity,
                false,
                false,
                format!("{why}; every submission runs as the same user, whose files each of them could change"),
            ),
            Err(why) => {
                let user = procs::user_name(procs::uid()).unwrap_or_else(|| procs::uid().to_string());
                layer(
                    LayerName::OwnIdentity,
                    false,
                    false,
                    format!(
                        "programs run as the marker's own user ({why}): each run's root holds nothing of the \
                         marker's or of another submission's to reach; for an id of its own per submission, give \
                         the marker subordinate ids (`sudo usermod --add-subuids 100000-165535 --add-subgids \
                         100000-165535 {user}`, with newuidmap and newgidmap installed: the `uidmap` package) or \
                         mark as root (`sudo bhgrade mark ...`)"
                    ),
                )
            }
        }
    }

    /// No run reaches the marker's terminal: a session of its own, no controlling terminal,
    /// standard input a pipe; and no terminal device it could open instead.
    fn terminal_layer(&self) -> Layer {
        let session = "every build and run in a session of its own, without a controlling terminal, standard \
                       input a pipe";
        let devices = policy::DEVICES.join(", ");
        match (&self.landlock, self.run_as()) {
            (Ok(abi), _) => layer(
                LayerName::Terminal,
                true,
                true,
                format!("{session}; of /dev only {devices}{}", if *abi >= 5 { ", and no ioctl on them" } else { "" }),
            ),
            (Err(_), Some(ids)) => layer(
                LayerName::Terminal,
                true,
                true,
                format!("{session}; programs run as uid {}, who may not open the marker's terminal", ids.uid),
            ),
            (Err(why), None) => layer(
                LayerName::Terminal,
                false,
                true,
                format!(
                    "{session}, but without Landlock ({why}) a program running as the marker could open the \
                     marker's terminal device by its path"
                ),
            ),
        }
    }

    /// What stands in for a missing cgroup layer, and how an ordinary user gets the cgroup.
    fn without_cgroup(&self, name: LayerName) -> String {
        let instead = match name {
            LayerName::CgroupMemory => format!(
                "; instead, the resident memory of every process of the run (anonymous and shared pages, not its \
                 virtual size) and what it wrote into its own tmpfs are read every {} ms ({} ms near the limit) \
                 and the run is killed once past the limit (a JVM's reservations cost it nothing)",
                watch::MEMORY_CHECK.as_millis(),
                watch::MEMORY_CHECK_NEAR.as_millis()
            ),
            LayerName::CgroupPids => match self.nproc_scope() {
                Ok(scope) => {
                    format!("; instead, RLIMIT_NPROC = {} (counts {scope})", self.nproc_backstop().unwrap_or_default())
                }
                Err(why) => format!("; no RLIMIT_NPROC either ({why}): a fork bomb is bounded only by the CPU limit"),
            },
            // Not a cgroup layer: nothing stands in for it here.
            LayerName::ProcessGroup
            | LayerName::Supervisor
            | LayerName::CpuPinning
            | LayerName::Rlimits
            | LayerName::Pidfd
            | LayerName::NetworkNamespace
            | LayerName::IpcNamespace
            | LayerName::OwnRoot
            | LayerName::PristineRuns
            | LayerName::Keyring
            | LayerName::Seccomp
            | LayerName::DiskQuota
            | LayerName::Landlock
            | LayerName::UnprivilegedUser
            | LayerName::OwnIdentity
            | LayerName::Terminal => String::new(),
        };
        // The way to get cgroups is said once: on the memory layer, or on the pids layer alone.
        let hint =
            if name == LayerName::CgroupMemory || self.memory_cgroup_active() { cgroup_hint() } else { String::new() };
        format!("{instead}{hint}")
    }

    /// The required layers that are not active (what `auto` warns about and `strict` refuses).
    pub fn missing_layers(&self) -> Vec<Layer> {
        self.layers().into_iter().filter(|l| l.required && !l.active).collect()
    }
}

fn landlock_detail(abi: u32) -> String {
    let mut what = format!(
        "Landlock ABI {abi}: read-only system folders; writes only in the scratch copy, the run's home and /tmp; \
         puzzles readable one by one; expected answers and other students' work out of reach"
    );
    if abi >= 4 {
        what.push_str("; TCP bind and connect denied");
    }
    if abi >= 6 {
        what.push_str("; signals and abstract sockets confined to the run");
    }
    if abi >= 9 {
        what.push_str("; unix sockets named by path reachable only when the run made them");
    } else {
        what.push_str(&format!(
            "; unix sockets named by path not governed before ABI 9 (this kernel has {abi}): the run's own root              keeps them out of reach"
        ));
    }
    what
}

/// How an ordinary user gets cgroups for the runs (empty for root, whose cgroups failed for
/// another reason).
fn cgroup_hint() -> String {
    if procs::is_root() {
        return String::new();
    }
    match (cgroup::is_cgroup_v2(), cgroup::under_systemd()) {
        (true, true) => "; bhgrade asks the user's systemd manager for a delegated scope by itself, which needs a \
                         running user manager (see `bhgrade doctor`)"
            .into(),
        (true, false) => {
            "; to get one as an ordinary user, have a cgroup v2 subtree delegated to you (chown'd to your \
                          user by root) and run bhgrade in it"
                .into()
        }
        (false, _) => "; this machine mounts the cgroup v1 hierarchies, which are never delegated to an ordinary \
                       user: run bhgrade as root (programs then run as `nobody`), or boot with \
                       `systemd.unified_cgroup_hierarchy=1`"
            .into(),
    }
}

/// How an ordinary user gets PID and network namespaces (through a user namespace).
fn namespace_hint() -> String {
    if procs::is_root() {
        return String::new();
    }
    let read = |path: &str| std::fs::read_to_string(path).ok().map(|s| s.trim().to_string());
    let mut hints = Vec::new();
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        hints.push("`sysctl kernel.unprivileged_userns_clone=1`");
    }
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        hints.push("`sysctl user.max_user_namespaces=15000`");
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        hints.push("`sysctl kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile allowing userns for bhgrade)");
    }
    if hints.is_empty() {
        "; an ordinary user gets them inside an unprivileged user namespace where the kernel allows one".into()
    } else {
        format!(
            "; an ordinary user gets them inside an unprivileged user namespace, which root can allow with {}",
            hints.join(" and ")
        )
    }
}
