//! The README's Slurm job-array recipe on a real single-node Slurm (munged, slurmctld and
//! slurmd from Debian's packages, configured in a scratch folder): two array tasks mark one
//! shard each, and their merge equals one unsharded run.
//!
//! Needs root and the binaries (`.ci/run` installs them); elsewhere the test says why on
//! standard error and passes without running, since a machine without Slurm is no fault of
//! bhgrade's.
//!
//! The daemons run in their own PID namespace (`unshare --pid --fork --kill-child`), because
//! slurmd starts slurmstepd detached from itself, and the array's tasks under it: killing the
//! namespace is the one way to be sure that no daemon, step or bhgrade outlives the test,
//! whether it passes or panics.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::scale::{assert_same_marks, class, mark};
use crate::support::{bhgrade, repo};

/// How often a poll of the cluster's answer is repeated.
const POLL: Duration = Duration::from_millis(100);

/// Says why the test did not run ([`crate::skip::skipped`]: a failure under `BHGRADE_NO_SKIP`).
fn skip(why: &str) {
    crate::skip::skipped("slurm::a_job_array_of_shards_merges_to_the_unsharded_gradebook", why);
}

/// `name` on the PATH or in the sbin folders (root's PATH may lack them).
fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it.
    unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    let name = String::from_utf8_lossy(&buf[..buf.iter().position(|&b| b == 0).unwrap_or(0)]).into_owned();
    // slurmd finds its node by the short name.
    name.split('.').next().unwrap_or_default().to_string()
}

/// Two consecutive free TCP ports, from a start that depends on our pid, so that two test runs
/// at once (or a real Slurm on 6817/6818) do not collide.
fn free_ports() -> Option<(u16, u16)> {
    let free = |port: u16| std::net::TcpListener::bind(("0.0.0.0", port)).is_ok();
    let start = 20000 + (std::process::id() % 5000) as u16 * 2;
    (0..500).map(|i| start + 2 * i).find(|&p| free(p) && free(p + 1)).map(|p| (p, p + 1))
}

/// The PID namespace of `pid`'s children, or of `pid` (`ns` is `pid` or `pid_for_children`).
fn pid_namespace(pid: u32, ns: &str) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/ns/{ns}")).ok()
}

/// The processes still running in the PID namespace `ns`. None once its init has died, which
/// the kernel lets happen only after every other process in it, or in a namespace nested in it
/// (bhgrade's runs), has ended.
fn members(ns: &Path) -> Vec<String> {
    // The init, dead and orphaned, waits as a zombie for this machine's init to reap it: not live.
    crate::support::Process::live()
        .into_iter()
        .filter(|process| process.pid_namespace().is_some_and(|link| link == ns))
        .map(|process| format!("{} ({})", process.pid, process.name()))
        .collect()
}

/// A running single-node Slurm, killed (every process of it) when dropped.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    /// `unshare`, whose death kills the namespace's init (`--kill-child`), and so the namespace.
    holder: Child,
    namespace: Option<PathBuf>,
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd in `dir`, or says why it cannot.
    fn start(dir: &Path) -> Result<Cluster, String> {
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err("needs root (the daemons run as root here, and slurmd starts jobs as their user)".into());
        }
        let need = |name: &str| {
            find(name).ok_or(format!("`{name}` not found (packages munge, slurmctld, slurmd, slurm-client)"))
        };
        for client in ["sbatch", "scontrol", "sinfo"] {
            need(client)?;
        }
        let (munged, slurmctld, slurmd, unshare) =
            (need("munged")?, need("slurmctld")?, need("slurmd")?, need("unshare")?);
        let (ctld_port, d_port) = free_ports().ok_or("no free pair of TCP ports")?;
        let host = hostname();

        // munged refuses a socket whose folders are not searchable by all, and a key readable by
        // anyone but its owner.
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["munge", "state", "spool", "log"] {
            std::fs::create_dir(dir.join(sub)).unwrap();
        }
        let key = dir.join("munge/munge.key");
        let mut bytes = vec![0u8; 1024];
        std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").unwrap(), &mut bytes).unwrap();
        std::fs::write(&key, bytes).unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o400)).unwrap();

        let d = dir.display();
        let socket = format!("{d}/munge/munge.sock");
        let conf = dir.join("slurm.conf");
        let text = format!(
            "ClusterName=bhgradetest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={socket}
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/log/slurmctld.pid
SlurmdPidFile={d}/log/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"
        );
        std::fs::write(&conf, text).unwrap();
        // The namespace's init. munged without --foreground returns once its socket is ready;
        // the slurm daemons stay in the foreground as children the init waits for.
        let init = format!(
            "'{munged}' --key-file='{d}/munge/munge.key' --socket='{socket}' --pid-file='{d}/log/munged.pid' \
             --log-file='{d}/log/munged.log' --seed-file='{d}/munge/munged.seed' || exit 1
'{slurmctld}' -D -f '{conf}' &
'{slurmd}' -D -f '{conf}' &
wait
",
            munged = munged.display(),
            slurmctld = slurmctld.display(),
            slurmd = slurmd.display(),
            conf = conf.display(),
        );
        std::fs::write(dir.join("init.sh"), init).unwrap();
        let daemons_out = std::fs::File::create(dir.join("log/daemons.out")).unwrap();
        let mut command = Command::new(unshare);
        // /proc of the namespace, for proctrack/linuxproc, which finds a job's processes there.
        command.args(["--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL", "sh"]).arg(dir.join("init.sh"));
        command.env("SLURM_CONF", &conf).stdin(Stdio::null());
        command.stdout(daemons_out.try_clone().unwrap()).stderr(daemons_out);
        // SAFETY: prctl is async-signal-safe. Should this test process be killed outright (so no
        // Drop runs), unshare dies with it, and so does the namespace.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            })
        };
        let holder = command.spawn().map_err(|e| format!("cannot start unshare: {e}"))?;
        let mut cluster = Cluster { dir: dir.to_path_buf(), conf, holder, namespace: None };

        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if cluster.namespace.is_none() {
                let own = pid_namespace(std::process::id(), "pid");
                let theirs = pid_namespace(cluster.holder.id(), "pid_for_children");
                cluster.namespace = theirs.filter(|ns| Some(ns) != own.as_ref());
            }
            if let Ok(Some(status)) = cluster.holder.try_wait() {
                return Err(format!("the daemons ended ({status}):\n{}", cluster.logs()));
            }
            let state = cluster.command("sinfo").args(["-h", "-o", "%T"]).output().unwrap();
            if String::from_utf8_lossy(&state.stdout).trim() == "idle" && cluster.namespace.is_some() {
                return Ok(cluster);
            }
            if Instant::now() > deadline {
                return Err(format!("the node is not idle after 60 s:\n{}", cluster.logs()));
            }
            std::thread::sleep(POLL);
        }
    }

    /// A Slurm client command talking to this cluster.
    fn command(&self, name: &str) -> Command {
        let mut command = Command::new(find(name).expect("found at start"));
        command.env("SLURM_CONF", &self.conf);
        command
    }

    /// The daemons' and tasks' logs, for a failure message.
    fn logs(&self) -> String {
        let mut text = String::new();
        for dir in [self.dir.join("log"), self.dir.clone()] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "log" || x == "out")) {
                let body = std::fs::read_to_string(entry.path()).unwrap_or_default();
                let tail: Vec<&str> = body.lines().rev().take(40).collect();
                text.push_str(&format!("--- {}\n", entry.path().display()));
                tail.iter().rev().for_each(|l| text.push_str(&format!("{l}\n")));
            }
        }
        text
    }

    /// Waits for every task of array job `job` to end; its records from `scontrol -o show job`.
    fn wait_for(&self, job: &str, tasks: usize, timeout: Duration) -> Vec<String> {
        let finished =
            ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE"];
        let deadline = Instant::now() + timeout;
        loop {
            let out = self.command("scontrol").args(["-o", "show", "job", job]).output().expect("run scontrol");
            let records: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
            let done = records.len() == tasks
                && records.iter().all(|r| finished.iter().any(|s| r.contains(&format!("JobState={s} "))));
            if done {
                return records;
            }
            assert!(Instant::now() < deadline, "job {job} unfinished after {timeout:?}: {records:#?}\n{}", self.logs());
            std::thread::sleep(POLL);
        }
    }

    /// Kills every process of the cluster; `Err` names any that outlived the kill.
    fn stop(&mut self) -> Result<(), String> {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
        let Some(ns) = &self.namespace else { return Ok(()) };
        // The kernel kills the rest of a namespace when its init dies, asynchronously.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = members(ns);
            if left.is_empty() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("still running after the cluster was killed: {left:?}"));
            }
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Err(leftovers) = self.stop() {
            let _ = writeln!(std::io::stderr(), "slurm test: {leftovers}");
        }
    }
}

#[test]
fn a_job_array_of_shards_merges_to_the_unsharded_gradebook() {
    let scratch = tempfile::tempdir().unwrap();
    let mut cluster = match Cluster::start(scratch.path()) {
        Ok(cluster) => cluster,
        Err(why) => return skip(&why),
    };
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let whole = dir.path().join("whole");
    mark(&class, &whole, &[]);

    let out = dir.path().join("out");
    // The README's recipe, with this build's binary and the test's paths.
    let script = format!(
        "#!/bin/bash
#SBATCH --array=1-2 --cpus-per-task=1
exec '{bhgrade}' mark '{class}' --suite '{suite}' --jobs 1 \\
  --out '{out}'/shard$SLURM_ARRAY_TASK_ID --shard $SLURM_ARRAY_TASK_ID/2
",
        bhgrade = assert_cmd::cargo::cargo_bin("bhgrade").display(),
        class = class.display(),
        suite = repo().join("fixtures/suites/tiny").display(),
        out = out.display(),
    );
    let script_path = scratch.path().join("shards.sh");
    std::fs::write(&script_path, script).unwrap();
    let submitted = cluster
        .command("sbatch")
        .arg("--parsable")
        .arg("--chdir")
        .arg(scratch.path())
        .arg("--output")
        .arg(scratch.path().join("task-%a.log"))
        .arg(&script_path)
        .output()
        .unwrap();
    assert!(submitted.status.success(), "sbatch: {}", String::from_utf8_lossy(&submitted.stderr));
    let stdout = String::from_utf8_lossy(&submitted.stdout);
    let job = stdout.trim().split(';').next().unwrap().to_string();

    let records = cluster.wait_for(&job, 2, Duration::from_secs(180));
    for record in &records {
        assert!(
            record.contains("JobState=COMPLETED ") && record.contains("ExitCode=0:0 "),
            "{record}\n{}",
            cluster.logs()
        );
    }

    let all = out.join("all");
    let merged =
        bhgrade().arg("merge").arg(out.join("shard1")).arg(out.join("shard2")).arg("--out").arg(&all).output().unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert_same_marks(&all, &whole);

    cluster.stop().unwrap();
}
