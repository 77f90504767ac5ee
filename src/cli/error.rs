//! A command's failure → its message and [`Exit`]: the library's errors converted once each,
//! so a call site says `?` and never decides again whether a failure was the input's or the
//! harness's.

use bhgrade::merge::MergeError;
use bhgrade::pipeline::PipelineError;
use bhgrade::regen::RegenError;
use bhgrade::report::roster::RosterError;
use bhgrade::report::ReportError;
use bhgrade::sandbox::SandboxError;
use bhgrade::stacscheck::StacscheckError;
use bhgrade::store::StoreError;
use bhgrade::suite::export::ExportError;
use bhgrade::suite::SelectError;

use super::exit::Exit;

/// What `main` reports for a failed command: the message, and whose fault it was.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The input was wrong (exit status 2): the message names the file or argument.
    #[error("{0}")]
    BadInput(String),
    /// The harness itself failed (exit status 3): never the student's nor the marker's doing.
    #[error("{0}")]
    Harness(String),
}

impl CliError {
    pub fn exit(&self) -> Exit {
        match self {
            CliError::BadInput(_) => Exit::BadInput,
            CliError::Harness(_) => Exit::HarnessFailed,
        }
    }
}

/// The result store is another marking's (bad input: the `--out` given) or cannot be used.
impl From<StoreError> for CliError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Locked { .. } => CliError::BadInput(error.to_string()),
            StoreError::Io { .. } => CliError::Harness(error.to_string()),
        }
    }
}

/// The suite is the organiser's input; writing it back is the harness's job.
impl From<RegenError> for CliError {
    fn from(error: RegenError) -> Self {
        match error {
            RegenError::Suite(_) | RegenError::NotGenerated { .. } => CliError::BadInput(error.to_string()),
            RegenError::Write { .. } => CliError::Harness(error.to_string()),
        }
    }
}

/// Every reason shards do not merge is in the folders given.
impl From<MergeError> for CliError {
    fn from(error: MergeError) -> Self {
        match error {
            MergeError::Read { .. }
            | MergeError::Parse { .. }
            | MergeError::NoRoster { .. }
            | MergeError::MissingReport { .. }
            | MergeError::SuiteDiffers { .. }
            | MergeError::SuiteDigestDiffers { .. }
            | MergeError::VersionDiffers { .. }
            | MergeError::Duplicate { .. }
            | MergeError::Empty(_) => CliError::BadInput(error.to_string()),
        }
    }
}

impl From<ReportError> for CliError {
    fn from(error: ReportError) -> Self {
        match error {
            ReportError::Write { .. } | ReportError::Render(_) => CliError::Harness(error.to_string()),
        }
    }
}

impl From<PipelineError> for CliError {
    fn from(error: PipelineError) -> Self {
        match error {
            PipelineError::Report(error) => error.into(),
            PipelineError::Workspace { .. } => CliError::Harness(error.to_string()),
        }
    }
}

/// A roster is the marker's file: every error names it and the line.
impl From<RosterError> for CliError {
    fn from(error: RosterError) -> Self {
        match error {
            RosterError::Read { .. } | RosterError::Format { .. } | RosterError::Column { .. } => {
                CliError::BadInput(error.to_string())
            }
        }
    }
}

/// A stacscheck tree is the marker's input; reading it is never a submission's doing.
impl From<StacscheckError> for CliError {
    fn from(error: StacscheckError) -> Self {
        match error {
            StacscheckError::Config(_)
            | StacscheckError::Io { .. }
            | StacscheckError::NotADirectory { .. }
            | StacscheckError::DuplicateStep { .. } => CliError::BadInput(error.to_string()),
        }
    }
}

/// A sandbox that cannot start is the machine's, never the input's.
impl From<SandboxError> for CliError {
    fn from(error: SandboxError) -> Self {
        CliError::Harness(format!("the sandbox cannot start: {error}"))
    }
}

/// The folder given for a copy must be new; writing it is the harness's job.
impl From<ExportError> for CliError {
    fn from(error: ExportError) -> Self {
        match error {
            ExportError::NotEmpty(_) | ExportError::AlreadyStudentCopy(_) => CliError::BadInput(error.to_string()),
            ExportError::Write { .. } | ExportError::ReadBack(_) => CliError::Harness(error.to_string()),
        }
    }
}

/// `--part` or `--only` named what the suite does not have.
impl From<SelectError> for CliError {
    fn from(error: SelectError) -> Self {
        match error {
            SelectError::NoPart { .. } | SelectError::NoTest { .. } | SelectError::Ambiguous { .. } => {
                CliError::BadInput(error.to_string())
            }
        }
    }
}
