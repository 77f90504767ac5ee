//! Stage two of reading a suite: [`RawSuite`] → [`SuiteDefinition`], with every path resolved
//! against the suite folder and read, every limit defaulted, every name checked (the game's
//! against [`bhref::games`], the kinds and derive rules against its referee). Also [`outline`]:
//! the suite's game and puzzle files before any of them is read, for `bhgrade regen` to generate
//! the ones named after the generator.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bhref::referee::Referee;
use sha2::{Digest, Sha256};

use crate::score::{GroupScoring, QualityCurve};

use super::derive::{self, DeriveRule};
use super::launch::{self, Launch};
use super::raw::{
    self, At, Pos, RawLaunch, RawLaunchSection, RawLimits, RawPart, RawQuality, RawSuite, RawTest, RawWithheld,
};
use super::{
    BuildSpec, Derivation, PartDefinition, PuzzleVia, SuiteDefinition, SuiteError, TestDefinition, Withheld, SUITE_FILE,
};
use crate::sandbox::Limits;

/// Defaults for a test run: generous for a JVM, small enough that a class finishes. The time
/// verdict is CPU time; wall-clock time is only a backstop for programs that sleep or block.
const TEST_DEFAULTS: Limits = limits_for_cpu(Duration::from_secs(10));

/// What a program that never reads its input may earn unless a suite says otherwise: 5% of
/// its marks (issue 44: before groups, such programs earned 55%).
pub const DEFAULT_TRIVIAL_CEILING: f64 = 0.05;

/// A test run's limits where only its CPU time is given (a suite's default, a stacscheck
/// tree's `timeout`): the wall-clock backstop of that, and the default memory and output.
pub const fn limits_for_cpu(cpu: Duration) -> Limits {
    Limits { wall: wall_backstop(cpu), cpu, memory_bytes: 1024 << 20, output_bytes: 1 << 20 }
}

/// Defaults for `build.sh`: `javac` takes one or two seconds, a slow machine more.
pub(super) const BUILD_DEFAULTS: Limits = Limits {
    wall: Duration::from_secs(120),
    cpu: Duration::from_secs(240),
    memory_bytes: 2048 << 20,
    output_bytes: 1 << 20,
};

/// The wall-clock limit of a run whose suite gives only a CPU limit: a few times the CPU limit
/// plus a little, so that a program that computes is always stopped by its CPU limit (even on
/// a machine busy enough to give it a third of a core), and one that sleeps is still stopped.
pub const fn wall_backstop(cpu: Duration) -> Duration {
    Duration::from_secs(cpu.as_secs() * 3 + 5).saturating_add(Duration::from_nanos(cpu.subsec_nanos() as u64 * 3))
}

/// Reads `DIR/suite.yaml` and everything it names.
pub fn load_definition(dir: &Path) -> Result<SuiteDefinition, SuiteError> {
    let (dir, path, raw) = read_raw(dir)?;
    Resolver { dir: &dir, path: &path }.resolve(raw)
}

/// A suite's game and the puzzle files its tests name (relative, in suite order, each once).
#[derive(Clone)]
pub struct Outline {
    /// The suite folder, absolute.
    pub dir: PathBuf,
    pub game: String,
    /// The game's reference; `None` for a game bhgrade does not know (loading the suite says so,
    /// with its position).
    pub referee: Option<Arc<dyn Referee>>,
    pub puzzles: Vec<String>,
}

/// Reads `DIR/suite.yaml` without reading the files it names.
pub fn outline(dir: &Path) -> Result<Outline, SuiteError> {
    let (dir, _, raw) = read_raw(dir)?;
    let mut puzzles: Vec<String> = Vec::new();
    for test in raw.parts.iter().flat_map(|part| &part.tests) {
        if !puzzles.contains(&test.puzzle.value) {
            puzzles.push(test.puzzle.value.clone());
        }
    }
    let referee = bhref::games::referee(&raw.game.value).map(Arc::from);
    Ok(Outline { dir, game: raw.game.value, referee, puzzles })
}

fn read_raw(dir: &Path) -> Result<(PathBuf, PathBuf, RawSuite), SuiteError> {
    let dir = dir.canonicalize().map_err(|error| SuiteError::Read { path: dir.to_path_buf(), error })?;
    let path = dir.join(SUITE_FILE);
    let text = std::fs::read_to_string(&path).map_err(|error| SuiteError::Read { path: path.clone(), error })?;
    let raw = raw::parse(&text).map_err(|e| SuiteError::Yaml { path: path.clone(), pos: e.pos, message: e.message })?;
    Ok((dir, path, raw))
}

struct Resolver<'a> {
    dir: &'a Path,
    path: &'a Path,
}

impl Resolver<'_> {
    fn invalid(&self, pos: Pos, message: impl Into<String>) -> SuiteError {
        SuiteError::Invalid { path: self.path.to_path_buf(), pos, message: message.into() }
    }

    fn resolve(&self, raw: RawSuite) -> Result<SuiteDefinition, SuiteError> {
        let referee = bhref::games::referee(&raw.game.value).ok_or_else(|| {
            let known = bhref::games::names().join(", ");
            self.invalid(raw.game.pos, format!("unknown game `{}`; expected one of: {known}", raw.game.value))
        })?;
        let launch = self.launch(raw.launch)?;
        let gave_up_credit = match raw.gave_up_credit {
            Some(At { value, pos }) if !(0.0..=1.0).contains(&value) => {
                return Err(self.invalid(pos, format!("`gave_up_credit` must be between 0 and 1, not {value}")));
            }
            Some(At { value, .. }) => value,
            None => 0.0,
        };
        let trivial_ceiling = match raw.trivial_ceiling {
            Some(At { value, pos }) if !(0.0..=1.0).contains(&value) => {
                return Err(self.invalid(
                    pos,
                    format!("`trivial_ceiling` must be a fraction of the suite's marks, between 0 and 1, not {value}"),
                ));
            }
            Some(At { value, .. }) => value,
            None => DEFAULT_TRIVIAL_CEILING,
        };
        let build = BuildSpec {
            command: raw.build.command.unwrap_or_else(|| vec!["bash".into(), "build.sh".into()]),
            script: raw.build.script.unwrap_or_else(|| "build.sh".into()),
            limits: self.limits(&raw.build.limits, BUILD_DEFAULTS)?,
        };
        let mut seen = HashSet::new();
        let mut parts: Vec<PartDefinition<TestDefinition>> = Vec::with_capacity(raw.parts.len());
        for part in raw.parts {
            // A part's id heads its column in the gradebook and names its tests: one per suite.
            if parts.iter().any(|earlier| earlier.id == part.id.value) {
                return Err(self.invalid(part.id.pos, format!("duplicate part id `{}`", part.id.value)));
            }
            parts.push(self.part(referee.as_ref(), part, &raw.limits, &mut seen)?);
        }
        Ok(SuiteDefinition {
            dir: self.dir.to_path_buf(),
            title: raw.title.unwrap_or_else(|| raw.name.clone()),
            name: raw.name,
            game: raw.game.value,
            referee: referee.into(),
            srcdir: raw.srcdir.unwrap_or_else(|| "src".into()),
            build,
            launch,
            gave_up_credit,
            trivial_ceiling,
            parts,
        })
    }

    /// One part and its tests; `seen` holds the test ids met so far in the suite.
    fn part(
        &self,
        referee: &dyn Referee,
        part: RawPart,
        suite_limits: &RawLimits,
        seen: &mut HashSet<String>,
    ) -> Result<PartDefinition<TestDefinition>, SuiteError> {
        self.check_name(&part.id)?;
        if part.weight.value < 0.0 || !part.weight.value.is_finite() {
            return Err(self.invalid(part.weight.pos, "a part's `weight` must be a number of marks, 0 or more"));
        }
        let part_visible = part.visible.unwrap_or(true);
        let group_scoring = match &part.group_scoring {
            None => GroupScoring::default(),
            Some(At { value, pos }) => GroupScoring::parse(value).ok_or_else(|| {
                let known = GroupScoring::NAMES.map(|name| format!("`{name}`")).join(", ");
                self.invalid(*pos, format!("unknown `group_scoring` `{value}`; expected one of: {known}"))
            })?,
        };
        let part_limits = part.limits.over(suite_limits);
        let mut tests = Vec::with_capacity(part.tests.len());
        for test in part.tests {
            self.check_name(&test.id)?;
            let id = format!("{}/{}", part.id.value, test.id.value);
            if !seen.insert(id.clone()) {
                return Err(self.invalid(test.id.pos, format!("duplicate test id `{id}`")));
            }
            let task = referee.task(&test.kind.value).ok_or_else(|| {
                let known = referee.kinds().join(", ");
                self.invalid(
                    test.kind.pos,
                    format!("unknown test kind `{}`; expected one of: {known}", test.kind.value),
                )
            })?;
            let (puzzle, puzzle_text) = self.read(&test.puzzle)?;
            let (input, derive) = self.input(referee, &part.id.value, &test, task.reads_input)?;
            let puzzle_via = self.puzzle_via(&test, task.reads_input)?;
            let weight = match test.weight {
                Some(At { value, pos }) if value < 0.0 || !value.is_finite() => {
                    return Err(self.invalid(pos, "a test's `weight` must be 0 or more"));
                }
                Some(At { value, .. }) => value,
                None => 1.0,
            };
            if let Some(group) = &test.group {
                self.check_name(group)?;
            }
            let quality = match test.quality.as_ref().or(part.quality.as_ref()) {
                Some(raw) => Some(self.quality(raw, task.reads_input, &test.kind.value)?),
                None => None,
            };
            let input_digest = digest(&puzzle_text, input.as_deref());
            tests.push(TestDefinition {
                id,
                kind: test.kind.value,
                task,
                puzzle,
                puzzle_via,
                puzzle_text,
                input,
                derive,
                weight,
                group: test.group.map(|group| group.value),
                quality,
                visible: test.visible.unwrap_or(part_visible),
                limits: self.limits(&test.limits.over(&part_limits), TEST_DEFAULTS)?,
                note: test.note,
                public_name: test.public_name,
                input_digest,
            });
        }
        let withheld = part.withheld.map(|withheld| self.withheld(withheld, part.weight.value, &tests)).transpose()?;
        Ok(PartDefinition {
            title: part.title.unwrap_or_else(|| part.id.value.clone()),
            id: part.id.value,
            weight: part.weight.value,
            group_scoring,
            tests,
            withheld,
        })
    }

    /// A `quality:` block: a floor between 0 and 1 reached at a multiple of the best above 1,
    /// for a kind whose answers are solutions (a check's `true` or `false` has no quality).
    fn quality(&self, at: &At<RawQuality>, reads_input: bool, kind: &str) -> Result<QualityCurve, SuiteError> {
        let At { value, pos } = at;
        if reads_input {
            return Err(
                self.invalid(*pos, format!("a `{kind}` test's answer is true or false: it has no quality to credit"))
            );
        }
        if !(0.0..=1.0).contains(&value.floor) {
            return Err(self.invalid(*pos, format!("`quality.floor` must be between 0 and 1, not {}", value.floor)));
        }
        if !(value.floor_at > 1.0 && value.floor_at.is_finite()) {
            return Err(self.invalid(
                *pos,
                format!("`quality.floor_at` must be a multiple of the best above 1, not {}", value.floor_at),
            ));
        }
        Ok(QualityCurve { floor: value.floor, floor_at: value.floor_at })
    }

    /// A student's copy's `withheld` block, checked against the part it belongs to: every test
    /// kept is visible, and the tests' marks and the withheld marks add up to the part's.
    fn withheld(&self, at: At<RawWithheld>, weight: f64, tests: &[TestDefinition]) -> Result<Withheld, SuiteError> {
        use crate::score::to_units;
        let At { value, pos } = at;
        if value.marks < 0.0 || !value.marks.is_finite() {
            return Err(self.invalid(pos, "`withheld.marks` must be a number of marks, 0 or more"));
        }
        if let Some(hidden) = tests.iter().find(|test| !test.visible) {
            return Err(
                self.invalid(pos, format!("a part with `withheld` tests holds only visible ones, not `{}`", hidden.id))
            );
        }
        let kept: i64 = tests.iter().map(|test| to_units(test.weight)).sum();
        if kept + to_units(value.marks) != to_units(weight) {
            return Err(self.invalid(
                pos,
                format!(
                    "the tests' weights ({}) and `withheld.marks` ({}) do not add up to the part's weight ({weight})",
                    crate::score::from_units(kept),
                    value.marks
                ),
            ));
        }
        Ok(Withheld { tests: value.tests as usize, marks: value.marks })
    }

    /// A test's candidate input: a `solution` file, or a derived solution (`derive: RULE`, by
    /// default the game's first rule, `reference`, for a check test naming no file) read if
    /// `bhgrade regen` wrote it.
    fn input(
        &self,
        referee: &dyn Referee,
        part: &str,
        test: &RawTest,
        reads_input: bool,
    ) -> Result<(Option<String>, Option<Derivation>), SuiteError> {
        let kind = &test.kind.value;
        match (&test.solution, &test.derive, reads_input) {
            (Some(_), Some(derive), _) => {
                Err(self.invalid(derive.pos, "give a test either a `solution` file or a `derive` rule, not both"))
            }
            (Some(solution), None, false) => {
                Err(self.invalid(solution.pos, format!("a `{kind}` test takes no `solution`")))
            }
            (None, Some(derive), false) => Err(self.invalid(derive.pos, format!("a `{kind}` test takes no `derive`"))),
            (None, None, false) => Ok((None, None)),
            (Some(solution), None, true) => Ok((Some(self.read(solution)?.1), None)),
            (None, derive, true) => {
                let rule = match derive {
                    Some(At { value, pos }) => DeriveRule::parse(referee, value).ok_or_else(|| {
                        self.invalid(
                            *pos,
                            format!("unknown derive rule `{value}`; expected one of: {}", derive::rule_names(referee)),
                        )
                    })?,
                    None => DeriveRule::default_for(referee).ok_or_else(|| {
                        let message = format!("a `{kind}` test needs a `solution` file: its game derives none");
                        self.invalid(test.kind.pos, message)
                    })?,
                };
                let file = derive::derived_file(part, &test.id.value);
                let path = self.dir.join(&file);
                let input = match read_inside(self.dir, &path) {
                    Ok(text) => Some(text),
                    Err(FileRefusal::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => None,
                    Err(error) => return Err(SuiteError::Read { path, error: std::io::Error::other(error) }),
                };
                Ok((input, Some(Derivation { rule, file, path })))
            }
        }
    }

    /// How the test gives its program the puzzle; standard input can carry only one thing.
    fn puzzle_via(&self, test: &RawTest, reads_input: bool) -> Result<PuzzleVia, SuiteError> {
        let Some(At { value, pos }) = &test.puzzle_via else { return Ok(PuzzleVia::File) };
        let via = PuzzleVia::parse(value).ok_or_else(|| {
            let known = PuzzleVia::NAMES.map(|name| format!("`{name}`")).join(", ");
            self.invalid(*pos, format!("unknown `puzzle_via` `{value}`; expected one of: {known}"))
        })?;
        if via != PuzzleVia::File && reads_input {
            let kind = &test.kind.value;
            let message = format!(
                "a `{kind}` test reads its candidate solution on standard input, so its puzzle must come \
                 from a file (`puzzle_via: file`)"
            );
            return Err(self.invalid(*pos, message));
        }
        Ok(via)
    }

    /// Ids become file and column names: keep them to letters, digits, `-`, `_` and `.`.
    fn check_name(&self, name: &At<String>) -> Result<(), SuiteError> {
        let ok = !name.value.is_empty()
            && name.value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if ok {
            Ok(())
        } else {
            Err(self.invalid(
                name.pos,
                format!("`{}` is not a valid id: use letters, digits, `-`, `_` and `.`", name.value),
            ))
        }
    }

    /// Reads a file named relative to the suite folder; it must stay inside the folder (also
    /// through symlinks) and be a regular file of at most [`MAX_SUITE_FILE`] bytes.
    fn read(&self, name: &At<String>) -> Result<(PathBuf, String), SuiteError> {
        let relative = Path::new(&name.value);
        if relative.is_absolute() || relative.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Err(self.invalid(name.pos, format!("`{}` must be a path inside the suite folder", name.value)));
        }
        let path = self.dir.join(relative);
        match read_inside(self.dir, &path) {
            Ok(text) => Ok((path, text)),
            Err(error) => Err(self.invalid(name.pos, format!("cannot read `{}`: {error}", name.value))),
        }
    }

    fn limits(&self, raw: &RawLimits, defaults: Limits) -> Result<Limits, SuiteError> {
        let seconds = |value: &Option<At<f64>>, default: Duration| match value {
            Some(At { value, pos }) if !(*value > 0.0 && *value <= 86_400.0) => {
                Err(self.invalid(*pos, format!("a time limit must be between 0 and 86400 seconds, not {value}")))
            }
            Some(At { value, .. }) => Ok(Duration::from_secs_f64(*value)),
            None => Ok(default),
        };
        // A suite that gives only a wall-clock limit (as older suites did) means it for both.
        let cpu_default = match &raw.wall_seconds {
            Some(_) => seconds(&raw.wall_seconds, defaults.wall)?,
            None => defaults.cpu,
        };
        let cpu = seconds(&raw.cpu_seconds, cpu_default)?;
        let wall_default = if raw.cpu_seconds.is_some() { wall_backstop(cpu) } else { defaults.wall };
        let wall = seconds(&raw.wall_seconds, wall_default)?;
        if let (Some(At { pos, .. }), true) = (&raw.wall_seconds, wall < cpu) {
            return Err(self.invalid(
                *pos,
                format!(
                    "`wall_seconds` ({} s) is below `cpu_seconds` ({} s): the CPU limit could never bite",
                    wall.as_secs_f64(),
                    cpu.as_secs_f64()
                ),
            ));
        }
        let positive = |value: &Option<At<u64>>, unit: u64, default: u64| match value {
            Some(At { value: 0, pos }) => Err(self.invalid(*pos, "a size limit must be more than 0")),
            Some(At { value, .. }) => Ok(value.saturating_mul(unit)),
            None => Ok(default),
        };
        Ok(Limits {
            wall,
            cpu,
            memory_bytes: positive(&raw.memory_mb, 1 << 20, defaults.memory_bytes)?,
            output_bytes: usize::try_from(positive(&raw.output_kb, 1 << 10, defaults.output_bytes as u64)?)
                .unwrap_or(usize::MAX),
        })
    }

    /// The `launch` list or section: a program to run, variables with known placeholders only.
    fn launch(&self, raw: At<RawLaunch>) -> Result<Launch, SuiteError> {
        let section = match raw.value {
            RawLaunch::Command(command) => {
                RawLaunchSection { command, env: Vec::new(), memory_overhead_mb: None, stderr_noise: Vec::new() }
            }
            RawLaunch::Section(section) => section,
        };
        if section.command.is_empty() {
            return Err(self.invalid(raw.pos, "`launch` must name a program, e.g. [java, BHMain]"));
        }
        let mut env = Vec::with_capacity(section.env.len());
        for variable in section.env {
            let name = variable.name.value;
            let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(
                    self.invalid(variable.name.pos, format!("`{name}` is not a valid environment variable name"))
                );
            }
            if let Some(unknown) = launch::unknown_placeholder(&variable.value.value) {
                let known = launch::PLACEHOLDERS.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join(", ");
                return Err(self.invalid(
                    variable.value.pos,
                    format!("unknown placeholder `{{{unknown}}}` in `{name}`; expected one of: {known}"),
                ));
            }
            env.push((name, variable.value.value));
        }
        let memory_overhead_bytes = section.memory_overhead_mb.map_or(0, |mb| mb.value.saturating_mul(1 << 20));
        Ok(Launch { command: section.command, env, memory_overhead_bytes, stderr_noise: section.stderr_noise })
    }
}

/// The largest file a suite may name (instance, solution, derived solution): far more than any
/// puzzle of the course (a few hundred bytes; the reference's own limits allow a million cards
/// in about 7 MiB), small enough that a runaway file cannot exhaust memory.
pub const MAX_SUITE_FILE: u64 = 16 << 20;

/// Why a suite file was refused, as its message says.
#[derive(Debug)]
pub enum FileRefusal {
    Io(std::io::Error),
    /// Leaves the suite folder (through a symlink).
    Outside(PathBuf),
    /// A FIFO, device, socket or folder: reading it could block forever or never end.
    NotRegular(&'static str),
    TooLarge(u64),
    NotUtf8,
}

impl std::fmt::Display for FileRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileRefusal::Io(error) => write!(f, "{error}"),
            FileRefusal::Outside(target) => {
                write!(f, "it leads outside the suite folder (to {}) through a symlink", target.display())
            }
            FileRefusal::NotRegular(what) => write!(f, "it is {what}, not a regular file"),
            FileRefusal::TooLarge(size) => {
                write!(f, "it holds more than {} MiB ({size} bytes or more)", MAX_SUITE_FILE >> 20)
            }
            FileRefusal::NotUtf8 => write!(f, "stream did not contain valid UTF-8"),
        }
    }
}

impl std::error::Error for FileRefusal {}

/// Reads `path`, a file of the suite folder `dir` (canonical), as text; refused when it resolves (through symlinks) outside `dir`, is not a regular file
/// (a FIFO would block the read forever, `/dev/zero` would never end), or holds more than
/// [`MAX_SUITE_FILE`] bytes.
///
/// The file is opened without blocking (a FIFO with no writer would block `open` itself) and
/// checked again once open, so a file swapped between the checks is still caught; at most
/// [`MAX_SUITE_FILE`] + 1 bytes are ever read.
pub fn read_inside(dir: &Path, path: &Path) -> Result<String, FileRefusal> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let real = path.canonicalize().map_err(FileRefusal::Io)?;
    if !real.starts_with(dir) {
        return Err(FileRefusal::Outside(real));
    }
    let kind = |file_type: std::fs::FileType| -> Option<&'static str> {
        if file_type.is_file() {
            None
        } else if file_type.is_fifo() {
            Some("a FIFO (named pipe)")
        } else if file_type.is_char_device() || file_type.is_block_device() {
            Some("a device")
        } else if file_type.is_socket() {
            Some("a socket")
        } else if file_type.is_dir() {
            Some("a folder")
        } else {
            Some("a special file")
        }
    };
    let metadata = std::fs::metadata(&real).map_err(FileRefusal::Io)?;
    if let Some(what) = kind(metadata.file_type()) {
        return Err(FileRefusal::NotRegular(what));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(&real)
        .map_err(FileRefusal::Io)?;
    let metadata = file.metadata().map_err(FileRefusal::Io)?;
    if let Some(what) = kind(metadata.file_type()) {
        return Err(FileRefusal::NotRegular(what));
    }
    if metadata.len() > MAX_SUITE_FILE {
        return Err(FileRefusal::TooLarge(metadata.len()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SUITE_FILE + 1).read_to_end(&mut bytes).map_err(FileRefusal::Io)?;
    if bytes.len() as u64 > MAX_SUITE_FILE {
        return Err(FileRefusal::TooLarge(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| FileRefusal::NotUtf8)
}

/// A digest of what determines a test's expected answer, modulo line endings (see
/// [`unix_line_endings`]): a suite checked out with Windows line endings (git's `autocrlf`) has
/// the same digests, as its puzzles and solutions are the same to every reader.
pub fn digest(puzzle_text: &str, input: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(unix_line_endings(puzzle_text).as_bytes());
    if let Some(input) = input {
        hasher.update([0u8]);
        hasher.update(unix_line_endings(input).as_bytes());
    }
    format!("{:x}", hasher.finalize())
}

/// `text` with every `\r\n` made `\n` (borrowed when it has none, so a digest of a file with
/// Unix line endings is what it always was). Every game's parsers read `\r` as white space,
/// as the students' `Scanner` does, so the two texts are the same puzzle or solution.
pub fn unix_line_endings(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains("\r\n") {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Whether two texts are equal once every `\r\n` is read as `\n` (see [`unix_line_endings`]).
pub fn same_modulo_line_endings(a: &str, b: &str) -> bool {
    a == b || unix_line_endings(a) == unix_line_endings(b)
}
