//! The seccomp layer: a fixed list of system calls that no student program needs → a compiled
//! [`Filter`] (two BPF programs), built once in the harness before any supervisor is forked and
//! installed in the program's own process just before exec ([`install`]).
//!
//! Defence in depth, never the only wall: every attack these calls open is closed by a layer of
//! its own (a new session without a terminal, `/dev` narrowed by Landlock, a fresh session
//! keyring, an IPC namespace, the unprivileged user), so a kernel without seccomp is still safe;
//! with it, one missed layer is not an escape.
//!
//! What fails with `EPERM`: the keyring (`keyctl`, `add_key`, `request_key`); the terminal
//! ioctls that type into, or take over, a terminal (`TIOCSTI`, `TIOCLINUX`, `TIOCSCTTY`,
//! `TIOCCONS`, `TIOCSETD`); looking into other processes (`ptrace`, `process_vm_readv` and
//! `_writev`, `perf_event_open`, `kcmp`); the kernel's own attack surface (`bpf`, `userfaultfd`,
//! `kexec_*`, modules, `open_by_handle_at`, `iopl`/`ioperm`, `syslog`, `acct`, `quotactl`,
//! swap and `reboot`); and every way to change the mount table or join or make namespaces
//! (`mount` and the new mount API, `umount2`, `pivot_root`, `chroot`, `setns`, `unshare`, and
//! `clone` with a namespace flag); SysV shared memory (`shmget`: memory outside every counter
//! but a memory cgroup's); and making a unix-domain socket (`socket(AF_UNIX, ...)`; a
//! connected pair from `socketpair` is still allowed). `clone3`, whose flags live in memory a filter cannot read,
//! fails with `ENOSYS`, so the C library falls back to `clone` (as Docker's default profile does).
//! On x86_64 every x32 system call fails with `EPERM` too (their numbers would slip past the
//! list), and a call of another architecture kills the process.

use std::collections::BTreeMap;
use std::io;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// The programs of the filter, in the order they are installed.
pub(crate) struct Filter {
    /// The list above → `EPERM`.
    denied: BpfProgram,
    /// `clone3` → `ENOSYS`.
    no_clone3: BpfProgram,
    /// On x86_64, every x32 system call → `EPERM`: their numbers carry bit 30, so none of the
    /// rules above would match them on a kernel that has the x32 ABI. (A call of another
    /// architecture, i386's `int 0x80`, kills the process: seccompiler checks the architecture.)
    no_x32: BpfProgram,
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Filter({} + {} + {} instructions)", self.denied.len(), self.no_clone3.len(), self.no_x32.len())
    }
}

/// Terminal ioctls that inject input or take a terminal over.
const TERMINAL_IOCTLS: &[libc::Ioctl] =
    &[libc::TIOCSTI, libc::TIOCLINUX, libc::TIOCSCTTY, libc::TIOCCONS, libc::TIOCSETD];

/// An ioctl request as the filter compares it (the request type is not `u64` on every C library).
#[allow(clippy::unnecessary_cast)]
fn request(ioctl: libc::Ioctl) -> u64 {
    ioctl as u64
}

/// `clone` flags that make a namespace.
const NAMESPACE_FLAGS: &[u64] = &[
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
];

/// System calls denied whatever their arguments.
fn always_denied() -> Vec<libc::c_long> {
    let mut calls = vec![
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_perf_event_open,
        libc::SYS_kcmp,
        libc::SYS_bpf,
        libc::SYS_userfaultfd,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_syslog,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_reboot,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_setns,
        libc::SYS_unshare,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_mount_setattr,
        // SysV shared memory: a segment no process maps is memory no counter of the run's
        // processes shows, and without a memory cgroup nothing would count it; refused for every
        // run alike, so that a grade never depends on the machine's cgroups.
        libc::SYS_shmget,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([libc::SYS_iopl, libc::SYS_ioperm]);
    calls
}

fn condition(arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, String> {
    let condition = SeccompCondition::new(arg, len, op, value).map_err(|e| e.to_string())?;
    SeccompRule::new(vec![condition]).map_err(|e| e.to_string())
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32, arch: TargetArch) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch)
        .map_err(|e| e.to_string())?;
    filter.try_into().map_err(|e: seccompiler::BackendError| e.to_string())
}

fn build() -> Result<Filter, String> {
    let arch: TargetArch = std::env::consts::ARCH.try_into().map_err(|e: seccompiler::BackendError| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = always_denied().into_iter().map(|c| (c, Vec::new())).collect();
    // The kernel reads an ioctl's request as a 32-bit number: compare those bits only, so that
    // high bits set by the caller cannot slip past.
    let ioctls = TERMINAL_IOCTLS
        .iter()
        .map(|&ioctl| condition(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request(ioctl)))
        .collect::<Result<Vec<_>, String>>()?;
    rules.insert(libc::SYS_ioctl, ioctls);
    let clones = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| condition(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag))
        .collect::<Result<Vec<_>, String>>()?;
    rules.insert(libc::SYS_clone, clones);
    // A unix-domain socket reaches a daemon by its path (or by an abstract name): a run makes
    // none, but may still make a connected pair of its own (`socketpair`, another call).
    let unix = condition(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, libc::AF_UNIX as u64)?;
    rules.insert(libc::SYS_socket, vec![unix]);
    let denied = compile(rules, libc::EPERM, arch)?;
    let no_clone3 = compile([(libc::SYS_clone3, Vec::new())].into_iter().collect(), libc::ENOSYS, arch)?;
    Ok(Filter { denied, no_clone3, no_x32: no_x32() })
}

/// x86_64: a system call numbered past `__X32_SYSCALL_BIT` fails with `EPERM`.
#[cfg(target_arch = "x86_64")]
fn no_x32() -> BpfProgram {
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;
    // Offsets in struct seccomp_data: the number, then the architecture.
    let (nr, arch) = (0, 4);
    let statement = |code: u32, k: u32| seccompiler::sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jump = |code: u32, k: u32, jt: u8, jf: u8| seccompiler::sock_filter { code: code as u16, jt, jf, k };
    vec![
        statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, arch),
        jump(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, AUDIT_ARCH_X86_64, 0, 2),
        statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, nr),
        jump(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, X32_SYSCALL_BIT, 1, 0),
        statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW),
        statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
    ]
}

#[cfg(not(target_arch = "x86_64"))]
fn no_x32() -> BpfProgram {
    Vec::new()
}

/// The filter, compiled at the first call (in the harness, before any fork), or why it cannot be.
pub(crate) fn filter() -> Result<&'static Filter, String> {
    static FILTER: OnceLock<Result<Filter, String>> = OnceLock::new();
    FILTER.get_or_init(build).as_ref().map_err(Clone::clone)
}

/// Install `filter` in the calling process (and everything it will start). Needs
/// `no_new_privs` (or CAP_SYS_ADMIN). Async-signal-safe: two system calls on memory prepared
/// before the fork.
///
/// # Safety
/// Between fork and exec only, or in a process that may lose these system calls for good.
pub(crate) unsafe fn install(filter: &Filter) -> io::Result<()> {
    for program in [&filter.denied[..], &filter.no_clone3[..], &filter.no_x32[..]] {
        if program.is_empty() {
            continue;
        }
        let prog = libc::sock_fprog { len: program.len() as u16, filter: program.as_ptr() as *mut libc::sock_filter };
        let r = libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0u32, &prog as *const libc::sock_fprog);
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether this kernel takes the filter: it is installed in a throwaway child, which then tries
/// a denied call (`keyctl`) and a harmless one, and reports both.
pub(crate) fn probe() -> Result<&'static Filter, String> {
    let filter = filter()?;
    // SAFETY: system calls only, on the filter compiled above.
    let ended = unsafe {
        super::procs::in_child(|| {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
                return 3;
            }
            if install(filter).is_err() {
                return 4;
            }
            let denied = libc::syscall(libc::SYS_keyctl, 0 as libc::c_long, -3 as libc::c_long, 0 as libc::c_long);
            if denied != -1 || io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
                return 5;
            }
            // A call the filter lets through still works.
            if libc::getppid() <= 0 {
                6
            } else {
                0
            }
        })
    };
    match ended.map_err(|e| format!("the probe: {e}"))? {
        super::outcome::Exit::Code(0) => Ok(filter),
        super::outcome::Exit::Code(4) => {
            Err("the kernel refused the filter (built without CONFIG_SECCOMP_FILTER?)".into())
        }
        super::outcome::Exit::Code(5) => Err("the filter was installed but keyctl was not denied".into()),
        other => Err(format!("the probe ended with {other:?}")),
    }
}
