//! The suite file as the author wrote it: `suite.yaml` text → [`RawSuite`].
//!
//! This is the only place that knows the YAML crate. Strict booleans (`yes`/`on` are not
//! booleans) and unknown keys rejected, each error with its line and column.

use serde::Deserialize;
use serde_saphyr::Spanned;

/// A position in the suite file, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u64,
    pub column: u64,
}

/// A value and where it was written.
#[derive(Clone, Debug)]
pub struct At<T> {
    pub value: T,
    pub pos: Pos,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for At<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<T>::deserialize(deserializer)?;
        let pos = Pos { line: spanned.referenced.line(), column: spanned.referenced.column() };
        Ok(At { value: spanned.value, pos })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSuite {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    pub game: At<String>,
    #[serde(default)]
    pub srcdir: Option<String>,
    #[serde(default)]
    pub build: RawBuild,
    pub launch: At<RawLaunch>,
    #[serde(default)]
    pub limits: RawLimits,
    #[serde(default)]
    pub gave_up_credit: Option<At<f64>>,
    pub parts: Vec<RawPart>,
}

/// `launch: [java, BHMain]`, or a section with the command and the settings it runs with.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RawLaunch {
    Command(Vec<String>),
    Section(RawLaunchSection),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLaunchSection {
    pub command: Vec<String>,
    #[serde(default)]
    pub env: Vec<RawVariable>,
    #[serde(default)]
    pub memory_overhead_mb: Option<At<u64>>,
    #[serde(default)]
    pub stderr_noise: Vec<String>,
}

/// One variable of the launch environment; `value` may hold `{memory_mb}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    pub name: At<String>,
    pub value: At<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuild {
    #[serde(default)]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub script: Option<String>,
    #[serde(default)]
    pub limits: RawLimits,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    #[serde(default)]
    pub wall_seconds: Option<At<f64>>,
    #[serde(default)]
    pub cpu_seconds: Option<At<f64>>,
    #[serde(default)]
    pub memory_mb: Option<At<u64>>,
    #[serde(default)]
    pub output_kb: Option<At<u64>>,
}

impl RawLimits {
    /// These limits where given, else `outer`'s (a test's over its part's over the suite's).
    pub fn over(&self, outer: &RawLimits) -> RawLimits {
        RawLimits {
            wall_seconds: self.wall_seconds.clone().or_else(|| outer.wall_seconds.clone()),
            cpu_seconds: self.cpu_seconds.clone().or_else(|| outer.cpu_seconds.clone()),
            memory_mb: self.memory_mb.clone().or_else(|| outer.memory_mb.clone()),
            output_kb: self.output_kb.clone().or_else(|| outer.output_kb.clone()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPart {
    pub id: At<String>,
    #[serde(default)]
    pub title: Option<String>,
    pub weight: At<f64>,
    #[serde(default)]
    pub visible: Option<bool>,
    #[serde(default)]
    pub limits: RawLimits,
    pub tests: Vec<RawTest>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTest {
    pub id: At<String>,
    pub kind: At<String>,
    pub puzzle: At<String>,
    #[serde(default)]
    pub solution: Option<At<String>>,
    #[serde(default)]
    pub derive: Option<At<String>>,
    #[serde(default)]
    pub weight: Option<At<f64>>,
    #[serde(default)]
    pub visible: Option<bool>,
    #[serde(default)]
    pub limits: RawLimits,
    #[serde(default)]
    pub note: Option<String>,
}

/// A YAML error with its position, as the YAML crate reports it.
#[derive(Debug)]
pub struct YamlError {
    pub pos: Option<Pos>,
    pub message: String,
}

/// Parses suite text: strict booleans, unknown keys rejected.
pub fn parse(text: &str) -> Result<RawSuite, YamlError> {
    let options = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options(text, options).map_err(|error| YamlError {
        pos: error.location().map(|loc| Pos { line: loc.line(), column: loc.column() }),
        message: first_line(&error.to_string()),
    })
}

/// The YAML crate's messages may carry a source snippet after the first line; the harness
/// prints its own position, so keep only the message.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_string()
}
