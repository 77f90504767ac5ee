//! A student's copy of a suite (`bhgrade suite export --student`): nothing of a hidden test in
//! it, and every visible test's verdict and marks under `bhgrade test` with it equal to a
//! marker's run with the whole suite.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{bhgrade, marked, quick_suite, repo};

/// Every file of a folder, by relative path, as text.
fn files(dir: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.expect("walk"))
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let relative = entry.path().strip_prefix(dir).expect("inside").display().to_string();
            (relative, std::fs::read_to_string(entry.path()).expect("text file"))
        })
        .collect()
}

fn export(suite: &Path, out: &Path) -> assert_cmd::assert::Assert {
    bhgrade().args(["suite", "export", "--student"]).arg(suite).arg("--out").arg(out).assert()
}

/// A hidden test's text that would give it away where a student could read it.
struct Secret {
    test: String,
    what: &'static str,
    text: String,
}

/// The hidden tests of the suite in `suite`, and the secrets of each: its puzzle, input, answer
/// and note (those of more than 20 bytes that no visible test shows: a derived input that is a
/// visible answer plus one integer gives nothing away), and its answer's digest (unless a
/// visible test has the same).
fn hidden_secrets(suite: &Path) -> (Vec<bhgrade::suite::TestDefinition>, Vec<Secret>) {
    let whole = bhgrade::suite::load_definition(suite).unwrap();
    let stored = bhgrade::suite::ExpectedFile::read(suite).unwrap();
    let (visible, hidden): (Vec<_>, Vec<_>) = whole.tests().cloned().partition(|t| t.visible);
    assert!(!hidden.is_empty() && !visible.is_empty(), "{}", suite.display());
    let seen: Vec<String> = visible
        .iter()
        .flat_map(|t| {
            let answer = &stored.tests[&t.id];
            let digest = Some(answer.input_digest.clone());
            [Some(t.puzzle_text.clone()), t.input.clone(), answer.detail.clone(), t.note.clone(), digest]
        })
        .flatten()
        .collect();
    let shown = |text: &str| seen.iter().any(|seen| seen.contains(text.trim()));
    let mut secrets = Vec::new();
    for test in &hidden {
        let answer = &stored.tests[&test.id];
        let texts = [
            ("puzzle", Some(test.puzzle_text.clone())),
            ("input", test.input.clone()),
            ("answer", answer.detail.clone()),
            ("note", test.note.clone()),
        ];
        let texts = texts.into_iter().filter_map(|(what, text)| text.map(|text| (what, text)));
        for (what, text) in texts.filter(|(_, text)| text.trim().len() > 20 && !shown(text)) {
            secrets.push(Secret { test: test.id.clone(), what, text: text.trim().to_string() });
        }
        // A digest a visible test shares (the same puzzle and input, another kind) is shown anyway.
        if !shown(&answer.input_digest) {
            secrets.push(Secret { test: test.id.clone(), what: "answer digest", text: answer.input_digest.clone() });
        }
    }
    (hidden, secrets)
}

#[test]
fn a_students_copy_holds_nothing_of_a_hidden_test() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("student");
    let suite = repo().join("suites/cs3105-p1");
    export(&suite, &copy).success();
    let written = files(&copy);
    let whole = bhgrade::suite::load_definition(&suite).unwrap();
    let visible: Vec<_> = whole.tests().filter(|t| t.visible).collect();
    let (hidden, secrets) = hidden_secrets(&suite);
    for test in &hidden {
        let name = test.id.split_once('/').unwrap().1;
        for (file, text) in &written {
            let (part, _) = test.id.split_once('/').unwrap();
            assert!(!file.contains(&format!("{part}/{name}.")), "{file} is named after hidden test {}", test.id);
            // A name a visible test has too (in another part) is no secret.
            if !visible.iter().any(|v| v.id.ends_with(&format!("/{name}"))) {
                let stems = file.split('/').map(|component| component.split('.').next().unwrap_or_default());
                assert!(!stems.clone().any(|stem| stem == name), "{file} is named after hidden test {}", test.id);
                assert!(!text.contains(&format!("\"{name}\"")), "{file} names hidden test {}", test.id);
            }
        }
    }
    for secret in &secrets {
        for (file, text) in &written {
            assert!(!text.contains(&secret.text), "{file} holds hidden test {}'s {}", secret.test, secret.what);
        }
    }
    let copied: serde_json::Value = serde_json::from_str(&written["expected.json"]).unwrap();
    let ids: Vec<&String> = copied["tests"].as_object().unwrap().keys().collect();
    let mut wanted: Vec<&String> = visible.iter().map(|t| &t.id).collect();
    wanted.sort();
    assert_eq!(ids, wanted, "expected.json holds the visible tests' answers, and only theirs");
    // Each part says how many hidden tests it has, and what they are worth.
    for part in &whole.parts {
        let count = part.tests.iter().filter(|t| !t.visible).count();
        assert!(written["suite.yaml"].contains(&format!("withheld: {{tests: {count}, ")), "part {}", part.id);
    }
}

/// The binaries a student may be handed (`bhgrade`, `bhref`) hold nothing of a hidden test of
/// any bundled suite: no puzzle, input, answer, note or answer digest, and no hidden test's id.
#[test]
fn the_binaries_hold_nothing_of_a_hidden_test_of_any_bundled_suite() {
    let binaries =
        [env!("CARGO_BIN_EXE_bhgrade"), env!("CARGO_BIN_EXE_bhref")].map(|path| (path, std::fs::read(path).unwrap()));
    let mut wanted = Vec::new();
    for name in bhgrade::suite::bundled::names() {
        let (hidden, secrets) = hidden_secrets(&repo().join("suites").join(name));
        let ids =
            hidden.iter().map(|test| Secret { test: test.id.clone(), what: "id", text: format!("\"{}\"", test.id) });
        wanted.extend(secrets.into_iter().chain(ids));
    }
    assert!(wanted.len() > 100, "{} secrets", wanted.len());
    let pattern: Vec<String> = wanted.iter().map(|secret| regex::escape(&secret.text)).collect();
    let any = regex::bytes::RegexBuilder::new(&pattern.join("|")).size_limit(1 << 28).build().unwrap();
    // The search finds what a binary does hold: a message of bhgrade's, and one of bhref's.
    let built_in =
        |index: usize, text: &str| regex::bytes::Regex::new(&regex::escape(text)).unwrap().is_match(&binaries[index].1);
    assert!(built_in(0, "is a student's copy of a suite"));
    assert!(built_in(1, "the seed must be an integer (a Java long)"));
    for (path, bytes) in &binaries {
        let found: Vec<String> = any
            .find_iter(bytes)
            .filter_map(|hit| wanted.iter().find(|secret| secret.text.as_bytes() == hit.as_bytes()))
            .map(|secret| format!("{}'s {}", secret.test, secret.what))
            .collect();
        assert!(found.is_empty(), "{path} holds {}", found.join(", "));
    }
}

#[test]
fn a_copy_is_written_only_into_a_new_folder_and_never_copied_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let refused = export(&repo().join("suites/cs3105-p1"), dir.path()).code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("exists and is not empty"), "{stderr}");
    let copy = dir.path().join("copy");
    export(&repo().join("suites/cs3105-p1"), &copy).success();
    let again = export(&copy, &dir.path().join("again")).code(2);
    assert!(String::from_utf8_lossy(&again.get_output().stderr).contains("already a student's copy"));
    let marking = bhgrade().args(["mark", "--suite"]).arg(&copy).arg("--out").arg(dir.path().join("out")).assert();
    let stderr = String::from_utf8_lossy(&marking.code(2).get_output().stderr).into_owned();
    assert!(stderr.contains("mark with the whole suite"), "{stderr}");
}

/// Every fixture under `bhgrade test` with the student's copy of the quick suite: the same
/// verdict and the same marks for every visible test as the marker's run of the whole suite.
#[test]
fn bhgrade_test_with_the_copy_gives_every_visible_test_the_markers_verdict_and_marks() {
    let marker = marked();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("student");
    export(&quick_suite(dir.path()), &copy).success();
    let fixtures = repo().join("fixtures/submissions");
    let mut compared = 0;
    for entry in std::fs::read_dir(&fixtures).unwrap().flatten().filter(|e| e.path().is_dir()) {
        let student = entry.file_name().to_string_lossy().into_owned();
        let out = dir.path().join("out").join(&student);
        let run = bhgrade()
            .args(["test", "--quiet", "--jobs", "2", "--suite"])
            .arg(&copy)
            .arg("--out")
            .arg(&out)
            .arg(entry.path())
            .output()
            .unwrap();
        if run.status.code() == Some(2) {
            assert_eq!(student, "no-build-script", "{}", String::from_utf8_lossy(&run.stderr));
            continue;
        }
        let theirs: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join(format!("students/{student}.json"))).unwrap())
                .unwrap();
        let markers = marker.json(&student);
        let results = |report: &serde_json::Value, visible_only: bool| -> Vec<(String, String, f64, f64)> {
            report["parts"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|part| part["tests"].as_array().unwrap())
                .filter(|test| !visible_only || test["visible"] == true)
                .map(|test| {
                    let text = |key: &str| test[key].as_str().unwrap().to_string();
                    (text("id"), text("verdict"), test["score"].as_f64().unwrap(), test["max_score"].as_f64().unwrap())
                })
                .collect()
        };
        assert_eq!(results(&theirs, false), results(&markers, true), "{student}");
        compared += 1;
    }
    assert_eq!(compared, 13, "every fixture but the one with no build script was compared");
}

/// A suite with no build section (its default limits: more CPU than wall-clock time, which no
/// suite file can write out) and a part whose tests are all hidden still gives a copy that
/// reads back: no build limits written, the part with no tests and its withheld marks.
#[test]
fn a_suite_with_default_build_limits_and_an_all_hidden_part_exports() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("tiny");
    crate::support::copy_tree(&repo().join("fixtures/suites/tiny"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let hidden = yaml.replace("  - id: solve\n    weight: 1\n", "  - id: solve\n    weight: 1\n    visible: false\n");
    assert_ne!(hidden, yaml, "the tiny suite has a solve part to hide");
    std::fs::write(suite.join("suite.yaml"), hidden).unwrap();
    let copy = dir.path().join("copy");
    export(&suite, &copy).success();
    let written = std::fs::read_to_string(copy.join("suite.yaml")).unwrap();
    assert!(written.contains("withheld: {tests: 2, marks: 1}\n    tests: []"), "{written}");
    assert!(!written.contains("  limits: {wall_seconds: 120"), "{written}");
}
