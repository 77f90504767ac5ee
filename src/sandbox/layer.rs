//! A sandbox's isolation mechanisms by name ([`LayerName`]) → what each is on this machine
//! ([`Layer`]): the words the probes (`cgroup/`) and the description (`layers.rs`) share.

use serde::{Deserialize, Serialize};

/// The isolation layers, in the order `Sandbox::layers` lists them; each shown (in reports,
/// `doctor` and JSON) by its name in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LayerName {
    #[serde(rename = "process group")]
    ProcessGroup,
    #[serde(rename = "supervisor")]
    Supervisor,
    #[serde(rename = "cgroup memory")]
    CgroupMemory,
    #[serde(rename = "cgroup pids")]
    CgroupPids,
    #[serde(rename = "cpu pinning")]
    CpuPinning,
    #[serde(rename = "rlimits")]
    Rlimits,
    #[serde(rename = "pidfd")]
    Pidfd,
    #[serde(rename = "network namespace")]
    NetworkNamespace,
    #[serde(rename = "ipc namespace")]
    IpcNamespace,
    #[serde(rename = "own root")]
    OwnRoot,
    #[serde(rename = "pristine runs")]
    PristineRuns,
    #[serde(rename = "terminal")]
    Terminal,
    #[serde(rename = "keyring")]
    Keyring,
    #[serde(rename = "seccomp")]
    Seccomp,
    #[serde(rename = "disk quota")]
    DiskQuota,
    #[serde(rename = "filesystem (landlock)")]
    Landlock,
    #[serde(rename = "unprivileged user")]
    UnprivilegedUser,
    #[serde(rename = "own identity")]
    OwnIdentity,
}

impl LayerName {
    /// The layer's name in words, as reports show it.
    pub const fn as_str(self) -> &'static str {
        match self {
            LayerName::ProcessGroup => "process group",
            LayerName::Supervisor => "supervisor",
            LayerName::CgroupMemory => "cgroup memory",
            LayerName::CgroupPids => "cgroup pids",
            LayerName::CpuPinning => "cpu pinning",
            LayerName::Rlimits => "rlimits",
            LayerName::Pidfd => "pidfd",
            LayerName::NetworkNamespace => "network namespace",
            LayerName::IpcNamespace => "ipc namespace",
            LayerName::OwnRoot => "own root",
            LayerName::PristineRuns => "pristine runs",
            LayerName::Keyring => "keyring",
            LayerName::Seccomp => "seccomp",
            LayerName::DiskQuota => "disk quota",
            LayerName::Landlock => "filesystem (landlock)",
            LayerName::UnprivilegedUser => "unprivileged user",
            LayerName::OwnIdentity => "own identity",
            LayerName::Terminal => "terminal",
        }
    }

    /// A layer that a run cgroup provides (what `doctor`'s cgroup advice is about).
    pub const fn is_cgroup(self) -> bool {
        matches!(self, LayerName::CgroupMemory | LayerName::CgroupPids)
    }
}

impl std::fmt::Display for LayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One isolation mechanism, for reports and the `doctor` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layer {
    pub name: LayerName,
    pub active: bool,
    /// Part of full isolation: `strict` refuses to mark without it, `auto` warns.
    pub required: bool,
    /// What it does here, or why it is not active (with the OS error).
    pub detail: String,
    /// Inactive because the cgroup above the harness does not pass the layer's controller
    /// down: only whoever manages that cgroup can change it.
    pub held_above: bool,
}

pub(crate) fn layer(name: LayerName, active: bool, required: bool, detail: String) -> Layer {
    Layer { name, active, required, detail, held_above: false }
}
