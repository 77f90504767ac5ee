//! What each fixture submission must get, as data beside it (`fixtures/*/NAME/expected.yaml`, as
//! problemtools keeps a submission's expected verdict beside it): read here for the tests that
//! mark the fixtures, and held against the fixtures' README, whose line for each is written from
//! the same `defect` and `effect`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bhgrade::build::BuildVerdict;
use bhgrade::verdict::Verdict;

/// One fixture's `expected.yaml`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    /// The defect, as the README states it.
    pub defect: String,
    /// Its effect on the verdicts, as the README states it.
    pub effect: String,
    pub build: BuildVerdict,
    /// The marks the fixture earns when every test gets its verdict here (groups decide how
    /// verdicts add up, so the marks are data too).
    pub marks: f64,
    /// The verdict of every test not listed in `except`.
    pub usual: Verdict,
    /// The tests that get another verdict, by verdict.
    #[serde(default)]
    pub except: BTreeMap<Verdict, Vec<String>>,
}

impl Expectation {
    /// The verdict `test` must get.
    pub fn verdict_of(&self, test: &str) -> Verdict {
        let listed = self.except.iter().find(|(_, tests)| tests.iter().any(|t| t == test));
        listed.map_or(self.usual, |(verdict, _)| *verdict)
    }

    /// Every test named in `except`.
    pub fn named(&self) -> impl Iterator<Item = &str> {
        self.except.values().flatten().map(String::as_str)
    }

    /// How fixture `name`'s JSON report differs from this data, a line each: its build verdict, a
    /// test the data names that the suite does not have, and every test's verdict but those
    /// `aside` sets aside (given the test's id and the verdict it got).
    pub fn differences(
        &self,
        name: &str,
        report: &serde_json::Value,
        aside: impl Fn(&str, Verdict) -> bool,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        let build: Option<BuildVerdict> = crate::support::typed(&report["build"]["verdict"]);
        if build != Some(self.build) {
            problems.push(format!("{name}: build {build:?}, expected {:?}", self.build));
        }
        let got = crate::support::verdicts(report);
        if let Some(unknown) = self.named().find(|test| !got.contains_key(*test)) {
            problems.push(format!("{name}/expected.yaml names `{unknown}`, which the suite does not have"));
        }
        let mut set_aside = false;
        for (test, actual) in got.iter() {
            let want = self.verdict_of(test);
            if aside(test, *actual) {
                set_aside |= *actual != want;
            } else if *actual != want {
                problems.push(format!("{name} {test}: {actual:?}, expected {want:?}"));
            }
        }
        // A verdict set aside (a slow machine's time limit) moves the marks with it.
        let marks = report["score"].as_f64();
        if problems.is_empty() && !set_aside && marks != Some(self.marks) {
            problems.push(format!("{name}: {marks:?} marks, expected {}", self.marks));
        }
        problems
    }
}

/// Every fixture in `folder` (a subfolder with an `expected.yaml`), by name, read; a subfolder
/// holding a submission (`src/`) without one fails the test, as does a file that does not parse.
pub fn fixtures_in(folder: &Path) -> BTreeMap<String, (PathBuf, Expectation)> {
    let mut fixtures = BTreeMap::new();
    for entry in std::fs::read_dir(folder).expect("the fixtures folder") {
        let path = entry.expect("an entry").path();
        if !path.join("src").is_dir() {
            continue;
        }
        let file = path.join("expected.yaml");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let expectation: Expectation =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        fixtures.insert(name, (path, expectation));
    }
    fixtures
}

/// Marks every fixture of `folder` (there must be `count`) with `suite`, each copied into
/// `dir/class` under its name, the reports in `dir/out`; the marking must succeed. The fixtures,
/// read, and the output folder.
pub fn mark_fixtures(
    dir: &Path,
    folder: &Path,
    suite: &Path,
    count: usize,
) -> (BTreeMap<String, (PathBuf, Expectation)>, PathBuf) {
    let class = dir.join("class");
    let fixtures = fixtures_in(folder);
    for (name, (path, _)) in &fixtures {
        crate::support::copy_tree(path, &class.join(name));
    }
    assert_eq!(fixtures.len(), count, "{:?}", fixtures.keys());
    let out = dir.join("out");
    let output = crate::support::bhgrade()
        .args(["mark", "--quiet", "--suite"])
        .arg(suite)
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    (fixtures, out)
}

/// The report `students/NAME.json` of a marking written to `out`.
pub fn student_report(out: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join(format!("students/{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Holds the README of `folder` to its fixtures' data: each fixture's line is `line(name,
/// expectation)` exactly, and the README's part from the line `from` to the next heading has as
/// many lines that start like one (`prefix`) as there are fixtures.
pub fn check_readme(folder: &Path, from: &str, prefix: &str, line: impl Fn(&str, &Expectation) -> String) {
    let readme_path = folder.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let fixtures = fixtures_in(folder);
    let mut problems = Vec::new();
    for (name, (_, expectation)) in &fixtures {
        let wanted = line(name, expectation);
        if !readme.lines().any(|l| l == wanted) {
            problems.push(format!("no line\n  {wanted}\n(from {name}/expected.yaml)"));
        }
    }
    let section = readme.lines().skip_while(|l| *l != from).skip(1).take_while(|l| !l.starts_with("## "));
    let lines = section.filter(|l| l.starts_with(prefix)).count();
    if lines != fixtures.len() {
        problems.push(format!("{lines} fixture lines, {} fixtures", fixtures.len()));
    }
    assert!(problems.is_empty(), "{}:\n{}", readme_path.display(), problems.join("\n"));
}

/// Every sample folder written by a `variants.py` (`fixtures/variants.py`) is still its base
/// folder plus its one defect: a change to the base that was not carried into a variant fails.
#[test]
fn every_fixture_variant_is_its_base_plus_its_defect() {
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(crate::support::repo().join("fixtures"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("variants.py"))
        .filter(|script| script.is_file())
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 3, "{scripts:?}");
    for script in scripts {
        let output = std::process::Command::new("python3").arg(&script).arg("--check").output().unwrap();
        assert!(output.status.success(), "{}: {}", script.display(), String::from_utf8_lossy(&output.stderr));
    }
}
