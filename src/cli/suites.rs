//! Finding suites for the commands: `--suite` as a folder or a bundled suite's name → a loaded
//! [`Suite`] (its errors as bad input that names the suite), and `suite export`.

use std::path::{Path, PathBuf};

use bhgrade::suite::{self, Suite};

use super::args::{ExportArgs, LeaksArgs, BUNDLED_SUBMISSIONS};
use super::CliError;

pub(super) fn load_suite(dir: &Path) -> Result<Suite, CliError> {
    let dir = suite_dir(dir)?;
    let definition = suite::load_definition(&dir).map_err(|e| suite_error(&dir, e))?;
    definition.verify().map_err(|e| suite_error(&dir, e))
}

/// A suite's error as bad input that says it is the suite's: an error naming a file of the suite
/// says so by its path; one naming only a test gets the suite's folder in front.
fn suite_error(dir: &Path, error: suite::SuiteError) -> CliError {
    use suite::SuiteError;
    match error {
        SuiteError::Read { .. }
        | SuiteError::Yaml { .. }
        | SuiteError::Invalid { .. }
        | SuiteError::ExpectedFile { .. } => CliError::BadInput(error.to_string()),
        SuiteError::ExpectedMissing { .. }
        | SuiteError::ExpectedStale { .. }
        | SuiteError::ExpectedMismatch { .. }
        | SuiteError::Reference { .. }
        | SuiteError::DerivedMissing { .. }
        | SuiteError::Derive { .. }
        | SuiteError::OptimumMissing { .. }
        | SuiteError::Duplicate { .. } => CliError::BadInput(format!("suite {}: {error}", dir.display())),
    }
}

/// A bundled default path, found from the current folder or, failing that, the source tree.
pub(super) fn bundled(path: &Path) -> PathBuf {
    if path == Path::new(BUNDLED_SUBMISSIONS) && !path.exists() {
        return Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    }
    path.to_path_buf()
}

/// The folder `--suite` names: a folder that exists, or the folder of a `suite.yaml` given
/// itself, else a bundled suite by its name (`cs3105-p1`, or `suites/cs3105-p1` as in a clone),
/// found where [`suite::bundled::roots`] says.
pub(super) fn suite_dir(given: &Path) -> Result<PathBuf, CliError> {
    if given.is_dir() {
        return Ok(given.to_path_buf());
    }
    if given.is_file() && given.file_name().is_some_and(|name| name == suite::SUITE_FILE) {
        let folder = given.parent().filter(|folder| !folder.as_os_str().is_empty());
        return Ok(folder.unwrap_or(Path::new(".")).to_path_buf());
    }
    if given.is_file() {
        let why = "is a file, not a suite: give the suite's folder, or the suite.yaml in it";
        return Err(CliError::BadInput(format!("{}: {why}", given.display())));
    }
    let name = given.to_str().map(|text| text.strip_prefix("suites/").unwrap_or(text));
    if let Some(folder) = name.and_then(suite::bundled::folder) {
        return Ok(folder);
    }
    let bundled = suite::bundled::names();
    let why = match bundled.is_empty() {
        true => {
            let roots: Vec<String> = suite::bundled::roots().iter().map(|root| root.display().to_string()).collect();
            format!(
                "no such suite folder, and no bundled suite is here ({} hold none; bhgrade builds no suite into \
                 itself, so that no hidden test reaches a student): give a suite's folder (a student: the copy of \
                 the tests the course handed out)",
                roots.join(" and ")
            )
        }
        false => format!("no such suite folder, and no bundled suite of that name (bundled: {})", bundled.join(", ")),
    };
    Err(CliError::BadInput(format!("{}: {why}", given.display())))
}

/// The launch settings of a suite, for runs that are not the suite's tests (stacscheck steps).
pub(super) fn launch_of(dir: &Path) -> Result<suite::Launch, CliError> {
    let dir = suite_dir(dir)?;
    let definition = suite::load_definition(&dir).map_err(|e| suite_error(&dir, e))?;
    Ok(definition.launch)
}

/// `suite leaks`: a line per file and hidden test it gives away.
pub(super) fn leaks(args: LeaksArgs) -> Result<super::exit::Exit, CliError> {
    use bhgrade::results::text::terminal;
    let suite = load_suite(&args.suite)?;
    let secrets = suite::secrets::secrets(&suite);
    let (mut files, mut found) = (0, 0);
    for path in &args.paths {
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            let entry = entry.map_err(|error| CliError::BadInput(format!("{}: {error}", path.display())))?;
            if !entry.file_type().is_file() {
                continue;
            }
            let bytes = std::fs::read(entry.path())
                .map_err(|error| CliError::BadInput(format!("{}: cannot read: {error}", entry.path().display())))?;
            files += 1;
            for secret in suite::secrets::found_in(&secrets, &String::from_utf8_lossy(&bytes)) {
                found += 1;
                bhgrade::tell!(
                    "{}: gives away hidden test {} by {}: `{}`",
                    terminal(&entry.path().display().to_string()),
                    secret.test,
                    secret.what,
                    terminal(&bhgrade::results::text::shorten(&secret.needle, 80))
                );
            }
        }
    }
    let hidden = bhgrade::results::text::count(suite.tests().filter(|t| !t.def.visible).count(), "hidden test");
    let searched = bhgrade::results::text::count(files, "file");
    if found == 0 {
        bhgrade::say!("{searched} searched: none of the suite's {hidden} is given away");
        return Ok(super::exit::Exit::Success);
    }
    bhgrade::say!("{searched} searched: {} of the suite's {hidden}", bhgrade::results::text::count(found, "give-away"));
    Ok(super::exit::Exit::NotPassed)
}

pub(super) fn export(args: ExportArgs) -> Result<super::exit::Exit, CliError> {
    debug_assert!(args.student, "clap requires --student");
    let suite = load_suite(&args.suite)?;
    let exported = suite::export::export_student(&suite, &args.out)?;
    bhgrade::say!(
        "wrote {}: {} kept, {} left out",
        bhgrade::results::text::terminal(&args.out.display().to_string()),
        bhgrade::results::text::count(exported.visible, "visible test"),
        bhgrade::results::text::count(exported.withheld, "hidden test")
    );
    Ok(super::exit::Exit::Success)
}
