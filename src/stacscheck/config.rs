//! `practical.config` → [`Config`]: the INI file at the root of a stacscheck tree.
//!
//! The dialect is the part of Python's `configparser` that stacscheck trees use: `[section]`
//! headers, `key = value` or `key: value` lines (keys are case-insensitive, values are
//! trimmed), whole-line comments starting with `#` or `;`, and blank lines. What stacscheck
//! would reject or crash on is an error here too, with the file, line and column, and what
//! was expected instead: unknown sections and keys, duplicates, a bad `timeout` or version.
//! Two things `configparser` accepts are refused because no tree needs them and they would
//! only hide mistakes: continuation lines (a value spread over indented lines) and text after
//! a section header's `]`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The name of the configuration file that marks the root of a tree.
pub const CONFIG_FILE: &str = "practical.config";
/// How many folders above the given one are searched for [`CONFIG_FILE`] (as stacscheck).
pub const MAX_PARENTS: usize = 10;
/// The per-script time limit when `timeout` is not given (as stacscheck).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The stacscheck version whose tree format bhgrade implements; a tree that requires a newer
/// one may use something bhgrade does not know, so it is refused (as stacscheck itself would).
pub const STACSCHECK_VERSION: Version = Version { major: 3, minor: 2, patch: 0 };

const INFO_KEYS: &[&str] = &["practical", "course", "srcdir", "timeout"];
const VERSION_KEYS: &[&str] = &["required"];

/// A validated `practical.config`.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file it was read from.
    pub path: PathBuf,
    pub practical: String,
    pub course: String,
    /// The name of the folder in a submission that holds the code (found by the build stage,
    /// [`crate::build`], as stacscheck finds it).
    pub srcdir: String,
    /// Wall-clock limit of every script run.
    pub timeout: Duration,
    /// `[version] required`, when given (already checked against [`STACSCHECK_VERSION`]).
    pub required_version: Option<Version>,
}

/// A stacscheck version, `X.Y.Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A place in the file: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why a tree's configuration could not be used. Every variant found in the file names the
/// file, the place and what was expected there.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("no {CONFIG_FILE} in {} or any of its {MAX_PARENTS} parent folders", dir.display())]
    NotFound { dir: PathBuf },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{pos}: {problem}; expected {expected}", path.display())]
    Syntax { path: PathBuf, pos: Pos, problem: String, expected: &'static str },
    #[error("{}:{pos}: unknown section [{name}]; expected [info] or [version]", path.display())]
    UnknownSection { path: PathBuf, pos: Pos, name: String },
    #[error("{}:{pos}: unknown key `{key}` in [{section}]; expected one of: {}", path.display(), expected.join(", "))]
    UnknownKey { path: PathBuf, pos: Pos, section: String, key: String, expected: &'static [&'static str] },
    #[error("{}:{pos}: {what} given a second time (first at line {first_line}); expected it once", path.display())]
    Duplicate { path: PathBuf, pos: Pos, what: String, first_line: usize },
    #[error("{}:{pos}: `{key} = {value}`: expected {expected}", path.display())]
    BadValue { path: PathBuf, pos: Pos, key: String, value: String, expected: &'static str },
    #[error("{}: no [info] section; expected one with practical, course and srcdir", path.display())]
    MissingSection { path: PathBuf },
    #[error("{}:{pos}: [info] has no `{key}`; expected `{key} = ...` in it", path.display())]
    MissingKey { path: PathBuf, pos: Pos, key: &'static str },
    #[error("{}:{pos}: the tree requires stacscheck {required}; expected {supported} or older, the format bhgrade runs", path.display())]
    VersionTooNew { path: PathBuf, pos: Pos, required: Version, supported: Version },
}

/// One `key = value` as read, with where its key and value start.
struct Entry {
    key: String,
    key_pos: Pos,
    value: String,
    value_pos: Pos,
}

/// Finds [`CONFIG_FILE`] in `dir` or one of its [`MAX_PARENTS`] parents and reads it. Returns
/// the folder it was found in (the tree's root) and the configuration.
pub fn find(dir: &Path) -> Result<(PathBuf, Config), ConfigError> {
    for candidate in dir.ancestors().take(MAX_PARENTS + 1) {
        let path = candidate.join(CONFIG_FILE);
        if path.is_file() {
            return Ok((candidate.to_path_buf(), Config::read(&path)?));
        }
    }
    Err(ConfigError::NotFound { dir: dir.to_path_buf() })
}

impl Config {
    /// Reads and validates one configuration file.
    pub fn read(path: &Path) -> Result<Config, ConfigError> {
        let bytes = std::fs::read(path).map_err(|source| ConfigError::Io { path: path.to_path_buf(), source })?;
        Config::parse(path, &bytes)
    }

    /// Validates the text of a configuration file; `path` is only used in errors.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Config, ConfigError> {
        let text = utf8(path, bytes)?;
        let mut info = None;
        let mut version = None;
        for (name, pos, entries) in split_sections(path, text)? {
            match name.as_str() {
                "info" => info = Some((pos, entries)),
                "version" => version = Some(entries),
                _ => return Err(ConfigError::UnknownSection { path: path.to_path_buf(), pos, name }),
            }
        }
        // The version first: a tree for a newer stacscheck may use keys this one does not know.
        let required_version = required_version(path, version.unwrap_or_default())?;
        let Some((info_pos, info)) = info else {
            return Err(ConfigError::MissingSection { path: path.to_path_buf() });
        };
        let mut config = Config {
            path: path.to_path_buf(),
            practical: String::new(),
            course: String::new(),
            srcdir: String::new(),
            timeout: DEFAULT_TIMEOUT,
            required_version,
        };
        let mut seen = Vec::new();
        for entry in info {
            config.set(&entry)?;
            seen.push(entry.key);
        }
        for key in ["practical", "course", "srcdir"] {
            if !seen.iter().any(|k| k == key) {
                return Err(ConfigError::MissingKey { path: path.to_path_buf(), pos: info_pos, key });
            }
        }
        Ok(config)
    }

    /// Sets what an `[info]` entry says, or says why it cannot.
    fn set(&mut self, entry: &Entry) -> Result<(), ConfigError> {
        let bad = |expected| ConfigError::BadValue {
            path: self.path.clone(),
            pos: entry.value_pos,
            key: entry.key.clone(),
            value: entry.value.clone(),
            expected,
        };
        match entry.key.as_str() {
            "practical" => self.practical = entry.value.clone(),
            "course" => self.course = entry.value.clone(),
            "srcdir" => {
                // It is compared with folder names, so anything but one plain name could
                // never be found.
                let v = &entry.value;
                if v.is_empty() || v == "." || v == ".." || v.contains('/') || v.contains('\0') {
                    return Err(bad("the name of one folder, such as `src`"));
                }
                self.srcdir = v.clone();
            }
            "timeout" => {
                self.timeout = entry
                    .value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| bad("a number of seconds greater than 0, such as `60` or `2.5`"))?;
            }
            _ => {
                return Err(ConfigError::UnknownKey {
                    path: self.path.clone(),
                    pos: entry.key_pos,
                    section: "info".into(),
                    key: entry.key.clone(),
                    expected: INFO_KEYS,
                })
            }
        }
        Ok(())
    }
}

/// The file's text, or where its first byte that is not UTF-8 stands.
fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, ConfigError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let before = &bytes[..e.valid_up_to()];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        ConfigError::Syntax {
            path: path.to_path_buf(),
            pos: Pos { line, column },
            problem: "a byte that is not UTF-8".into(),
            expected: "UTF-8 text",
        }
    })
}

/// The stacscheck version the `[version]` section requires, refused if newer than this one.
fn required_version(path: &Path, entries: Vec<Entry>) -> Result<Option<Version>, ConfigError> {
    let mut required_version = None;
    for entry in entries {
        if entry.key != "required" {
            return Err(ConfigError::UnknownKey {
                path: path.to_path_buf(),
                pos: entry.key_pos,
                section: "version".into(),
                key: entry.key,
                expected: VERSION_KEYS,
            });
        }
        let required = parse_version(&entry.value).ok_or_else(|| ConfigError::BadValue {
            path: path.to_path_buf(),
            pos: entry.value_pos,
            key: entry.key.clone(),
            value: entry.value.clone(),
            expected: "a version `X.Y.Z`, such as `3.2.0`",
        })?;
        if required > STACSCHECK_VERSION {
            return Err(ConfigError::VersionTooNew {
                path: path.to_path_buf(),
                pos: entry.value_pos,
                required,
                supported: STACSCHECK_VERSION,
            });
        }
        required_version = Some(required);
    }
    Ok(required_version)
}

fn parse_version(text: &str) -> Option<Version> {
    let mut parts = text.split('.').map(|p| {
        // `u32::from_str` takes a leading `+`; a version never has one.
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            None
        } else {
            p.parse::<u32>().ok()
        }
    });
    let version = Version { major: parts.next()??, minor: parts.next()??, patch: parts.next()?? };
    parts.next().is_none().then_some(version)
}

/// The file's sections in order, each with the position of its header and its entries;
/// duplicates of sections and keys are refused here, where both places are known.
fn split_sections(path: &Path, text: &str) -> Result<Vec<Section>, ConfigError> {
    let mut sections: Vec<Section> = Vec::new();
    // Indentation of the last `key = value` line: a line indented deeper is what configparser
    // takes as a continuation of its value.
    let mut last_indent: Option<usize> = None;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, raw) in text.lines().enumerate() {
        let body = raw.trim_start();
        let indent = raw.chars().count() - body.chars().count();
        let body = body.trim_end();
        if body.is_empty() || body.starts_with('#') || body.starts_with(';') {
            continue;
        }
        let at = Pos { line: index + 1, column: indent + 1 };
        if last_indent.is_some_and(|last| indent > last) {
            return Err(syntax(
                path,
                at,
                "an indented line, which would continue the value above".into(),
                "`key = value` at the same indentation as the line before",
            ));
        }
        if let Some(rest) = body.strip_prefix('[') {
            sections.push(section_header(path, &sections, body, rest, at)?);
            last_indent = None;
        } else {
            add_entry(path, &mut sections, body, at)?;
            last_indent = Some(indent);
        }
    }
    Ok(sections)
}

/// A section's name, where its header stands, and its entries in file order.
type Section = (String, Pos, Vec<Entry>);

fn syntax(path: &Path, pos: Pos, problem: String, expected: &'static str) -> ConfigError {
    ConfigError::Syntax { path: path.to_path_buf(), pos, problem, expected }
}

/// The section a header line `body` (`[` then `rest`) at `at` opens, unless it is malformed or
/// repeats one of `sections`.
fn section_header(path: &Path, sections: &[Section], body: &str, rest: &str, at: Pos) -> Result<Section, ConfigError> {
    let Some((name, after)) = rest.split_once(']') else {
        return Err(syntax(path, at, format!("`{body}`"), "a section header `[name]`"));
    };
    if name.is_empty() || !after.is_empty() {
        return Err(syntax(path, at, format!("`{body}`"), "a section header `[name]` alone on its line"));
    }
    if let Some((_, first, _)) = sections.iter().find(|(n, _, _)| n == name) {
        return Err(ConfigError::Duplicate {
            path: path.to_path_buf(),
            pos: at,
            what: format!("section [{name}]"),
            first_line: first.line,
        });
    }
    Ok((name.to_string(), at, Vec::new()))
}

/// Adds the `key = value` (or `key: value`) line `body` at `at` to the last of `sections`.
fn add_entry(path: &Path, sections: &mut [Section], body: &str, at: Pos) -> Result<(), ConfigError> {
    let Some(split) = body.find(['=', ':']) else {
        return Err(syntax(path, at, format!("`{body}`"), "`key = value`, a `[section]` header or a comment"));
    };
    let key_text = body[..split].trim_end();
    if key_text.is_empty() {
        return Err(syntax(path, at, format!("`{body}` has no key"), "`key = value`"));
    }
    let Some((section, _, entries)) = sections.last_mut() else {
        return Err(syntax(path, at, format!("`{body}` before any section"), "a `[section]` header first"));
    };
    // configparser folds keys to lower case; values keep their case.
    let key = key_text.to_lowercase();
    if let Some(first) = entries.iter().find(|e| e.key == key) {
        return Err(ConfigError::Duplicate {
            path: path.to_path_buf(),
            pos: at,
            what: format!("key `{key}` in [{section}]"),
            first_line: first.key_pos.line,
        });
    }
    let after = &body[split + 1..];
    let value = after.trim_start();
    let value_column = at.column + body[..split + 1].chars().count() + (after.chars().count() - value.chars().count());
    entries.push(Entry {
        key,
        key_pos: at,
        value: value.to_string(),
        value_pos: Pos { line: at.line, column: value_column },
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("Tests/practical.config"), text.as_bytes())
    }

    #[test]
    fn a_good_file_is_read_with_comments_case_and_both_separators() {
        let config = parse(
            "# the course's tree\n[info]\nPractical = CS3105-P1\ncourse: CS3105\n  ; indented comment\n\
             srcdir = src\ntimeout = 2.5\n\n[version]\nrequired = 3.0.1\n",
        )
        .unwrap();
        assert_eq!(config.practical, "CS3105-P1");
        assert_eq!(config.course, "CS3105");
        assert_eq!(config.srcdir, "src");
        assert_eq!(config.timeout, Duration::from_millis(2500));
        assert_eq!(config.required_version, Some(Version { major: 3, minor: 0, patch: 1 }));
    }

    #[test]
    fn timeout_defaults_to_sixty_seconds() {
        let config = parse("[info]\npractical = P\ncourse = C\nsrcdir = src\n").unwrap();
        assert_eq!(config.timeout, DEFAULT_TIMEOUT);
        assert_eq!(config.required_version, None);
    }

    #[test]
    fn an_unknown_key_is_fatal_and_placed() {
        let err = parse("[info]\n  practical = P\n  colour = red\n").unwrap_err();
        assert!(
            matches!(&err, ConfigError::UnknownKey { pos: Pos { line: 3, column: 3 }, key, .. } if key == "colour")
        );
        assert_eq!(
            err.to_string(),
            "Tests/practical.config:3:3: unknown key `colour` in [info]; expected one of: practical, course, srcdir, timeout"
        );
    }

    #[test]
    fn an_unknown_section_and_a_key_outside_sections_are_fatal() {
        let err = parse("[info]\npractical = P\n[extras]\n").unwrap_err();
        assert!(matches!(err, ConfigError::UnknownSection { pos: Pos { line: 3, column: 1 }, .. }), "{err}");
        let err = parse("srcdir = src\n[info]\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { pos: Pos { line: 1, column: 1 }, .. }), "{err}");
        let err = parse("[version]\nwanted = 1.0.0\n").unwrap_err();
        assert!(matches!(&err, ConfigError::UnknownKey { section, .. } if section == "version"), "{err}");
    }

    #[test]
    fn missing_section_and_missing_keys_are_named() {
        let err = parse("[version]\nrequired = 3.2.0\n").unwrap_err();
        assert!(matches!(err, ConfigError::MissingSection { .. }), "{err}");
        let err = parse("\n[info]\npractical = P\ncourse = C\n").unwrap_err();
        assert!(matches!(err, ConfigError::MissingKey { key: "srcdir", pos: Pos { line: 2, column: 1 }, .. }), "{err}");
        assert_eq!(
            err.to_string(),
            "Tests/practical.config:2:1: [info] has no `srcdir`; expected `srcdir = ...` in it"
        );
    }

    #[test]
    fn bad_values_point_at_the_value() {
        let base = "[info]\npractical = P\ncourse = C\nsrcdir = src\n";
        for bad in ["timeout = soon", "timeout = 0", "timeout = -1", "timeout = inf", "timeout = 5 # seconds"] {
            let err = parse(&format!("{base}{bad}\n")).unwrap_err();
            assert!(matches!(err, ConfigError::BadValue { pos: Pos { line: 5, column: 11 }, .. }), "{bad}: {err}");
        }
        let err = parse("[info]\nsrcdir = src/main\n").unwrap_err();
        assert!(matches!(err, ConfigError::BadValue { pos: Pos { line: 2, column: 10 }, .. }), "{err}");
        for bad in ["3.2", "3.2.0.1", "v3.2.0", "3.+2.0", ""] {
            let err = parse(&format!("{base}[version]\nrequired = {bad}\n")).unwrap_err();
            assert!(matches!(err, ConfigError::BadValue { .. }), "{bad}: {err}");
        }
        let err = parse(&format!("{base}[version]\nrequired = 3.10.0\n")).unwrap_err();
        assert!(matches!(err, ConfigError::VersionTooNew { .. }), "{err}");
    }

    #[test]
    fn duplicates_continuations_and_junk_are_refused() {
        let err = parse("[info]\nsrcdir = a\nSRCDIR = b\n").unwrap_err();
        assert!(matches!(err, ConfigError::Duplicate { first_line: 2, pos: Pos { line: 3, .. }, .. }), "{err}");
        let err = parse("[info]\n[info]\n").unwrap_err();
        assert!(matches!(err, ConfigError::Duplicate { first_line: 1, .. }), "{err}");
        let err = parse("[info]\nsrcdir = a\n    b\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { pos: Pos { line: 3, column: 5 }, .. }), "{err}");
        let err = parse("[info]\njust words\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { pos: Pos { line: 2, column: 1 }, .. }), "{err}");
        let err = parse("[info] x\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { .. }), "{err}");
        let err = Config::parse(Path::new("c"), b"[info]\npractical = \xff\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { pos: Pos { line: 2, column: 13 }, .. }), "{err}");
    }

    #[test]
    fn the_file_is_found_in_a_parent_but_not_past_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("Tests");
        let deep = (1..=MAX_PARENTS).fold(root.clone(), |dir, i| dir.join(format!("d{i}")));
        std::fs::create_dir_all(deep.join("one-more")).unwrap();
        std::fs::write(root.join(CONFIG_FILE), "[info]\npractical = P\ncourse = C\nsrcdir = src\n").unwrap();
        let (found, config) = find(&deep).unwrap();
        assert_eq!(found, root);
        assert_eq!(config.path, root.join(CONFIG_FILE));
        let err = find(&deep.join("one-more")).unwrap_err();
        assert!(matches!(err, ConfigError::NotFound { .. }), "{err}");
    }
}
