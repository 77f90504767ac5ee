//! Marks every fixture submission once with the full bundled suite and checks each verdict, the
//! class files and a report's text. Each fixture has one known defect (see
//! fixtures/submissions/README.md); the suite must catch exactly it. Also marks the reference
//! itself, `bhref`, as a submission: it must get full marks.

use std::path::{Path, PathBuf};

use bhgrade::build::BuildVerdict;
use bhgrade::verdict::Verdict;

use crate::support::{mark_command, marked, quick_suite, repo, typed, verdicts};

/// Every test of the bundled suite, in suite order.
const TESTS: [&str; 50] = [
    "part1/valid-handout",
    "part1/one-move-short-handout",
    "part1/valid-standard",
    "part1/wrong-card",
    "part1/not-adjacent-first",
    "part1/empty-solution-empty-layout",
    "part1/valid-two-ranks",
    "part1/valid-hole-not-ace",
    "part1/valid-multiline",
    "part1/one-move-short",
    "part1/not-adjacent-later",
    "part1/empty-pile",
    "part1/pile-out-of-range",
    "part1/dangling-integer",
    "part1/worm-moves-in-check",
    "part1/empty-solution-nonempty-layout",
    "part2/handout-simple",
    "part2/handout-unsolvable",
    "part2/empty-layout",
    "part2/standard-deal",
    "part2/standard-unsolvable",
    "part2/one-card",
    "part2/one-card-impossible",
    "part2/two-ranks-unsolvable",
    "part2/three-ranks-many-suits",
    "part2/one-suit-hole-not-ace",
    "part2/uneven-and-empty-piles",
    "part2/hard-solvable",
    "part2/hard-unsolvable",
    "part2/hard-unsolvable-2",
    "part3/bh-solution-is-wh-solution",
    "part3/worm-solution",
    "part3/card-left-in-worm-hole",
    "part3/handout-worm",
    "part3/bh-unsolvable-standard",
    "part3/valid-standard",
    "part3/one-move-short",
    "part3/dangling-integer",
    "part3/via-worm",
    "part3/worm-hole-full",
    "part3/worm-hole-empty",
    "part3/wrong-worm-card",
    "part3/worm-not-adjacent",
    "part3/card-left-in-worm",
    "part3/worm-only-solution",
    "part3/empty-layout-worm",
    "part3/unsolvable-uneven",
    "part3/hard-standard",
    "part3/hard-many-suits",
    "part3/hard-unsolvable",
];

/// Check and checkworm tests whose answer is `false`.
const FALSE_CHECKS: [&str; 18] = [
    "part1/one-move-short-handout",
    "part1/wrong-card",
    "part1/not-adjacent-first",
    "part1/one-move-short",
    "part1/not-adjacent-later",
    "part1/empty-pile",
    "part1/pile-out-of-range",
    "part1/dangling-integer",
    "part1/worm-moves-in-check",
    "part1/empty-solution-nonempty-layout",
    "part3/card-left-in-worm-hole",
    "part3/one-move-short",
    "part3/dangling-integer",
    "part3/worm-hole-full",
    "part3/worm-hole-empty",
    "part3/wrong-worm-card",
    "part3/worm-not-adjacent",
    "part3/card-left-in-worm",
];

/// Check tests whose candidate is legal but leaves exactly one card in the piles.
const ONE_SHORT: [&str; 3] = ["part1/one-move-short-handout", "part1/one-move-short", "part3/one-move-short"];

/// Checkworm tests whose candidate empties the piles but leaves a card in the worm hole.
const CARD_LEFT_IN_WORM: [&str; 2] = ["part3/card-left-in-worm-hole", "part3/card-left-in-worm"];

/// Solve and solveworm tests on solvable puzzles with cards in the piles.
const SOLVABLE: [&str; 11] = [
    "part2/handout-simple",
    "part2/standard-deal",
    "part2/one-card",
    "part2/three-ranks-many-suits",
    "part2/one-suit-hole-not-ace",
    "part2/uneven-and-empty-piles",
    "part2/hard-solvable",
    "part3/handout-worm",
    "part3/bh-unsolvable-standard",
    "part3/hard-standard",
    "part3/hard-many-suits",
];

/// Solve and solveworm tests on puzzles the reference proves unsolvable.
const UNSOLVABLE: [&str; 8] = [
    "part2/handout-unsolvable",
    "part2/standard-unsolvable",
    "part2/one-card-impossible",
    "part2/two-ranks-unsolvable",
    "part2/hard-unsolvable",
    "part2/hard-unsolvable-2",
    "part3/unsolvable-uneven",
    "part3/hard-unsolvable",
];

/// Solve and solveworm tests on layouts whose piles are all empty (the answer is `1` alone).
const EMPTY_LAYOUT: [&str; 2] = ["part2/empty-layout", "part3/empty-layout-worm"];

fn solves() -> impl Iterator<Item = &'static str> {
    SOLVABLE.into_iter().chain(UNSOLVABLE).chain(EMPTY_LAYOUT)
}

/// A fixture's expected build verdict, the verdict of most of its tests, and the exceptions.
struct Expectation {
    student: &'static str,
    build: BuildVerdict,
    usual: Verdict,
    exceptions: Vec<(&'static str, Verdict)>,
}

fn expectations() -> Vec<Expectation> {
    let all = |student, usual| Expectation { student, build: BuildVerdict::Ok, usual, exceptions: vec![] };
    let except = |student, tests: &mut dyn Iterator<Item = &'static str>, verdict| Expectation {
        student,
        build: BuildVerdict::Ok,
        usual: Verdict::Accepted,
        exceptions: tests.map(|test| (test, verdict)).collect(),
    };
    let unbuilt = |student, build| Expectation { student, build, usual: Verdict::NotRun, exceptions: vec![] };
    vec![
        all("correct", Verdict::Accepted),
        all("build-not-executable", Verdict::Accepted),
        all("output-quirks", Verdict::Accepted),
        all("stale-classes", Verdict::Accepted),
        all("crashes", Verdict::RuntimeError),
        except("check-always-true", &mut FALSE_CHECKS.into_iter(), Verdict::WrongAnswer),
        except("check-one-short", &mut ONE_SHORT.into_iter(), Verdict::WrongAnswer),
        except("worm-card-left", &mut CARD_LEFT_IN_WORM.into_iter(), Verdict::WrongAnswer),
        except("solve-empty-zero", &mut EMPTY_LAYOUT.into_iter(), Verdict::WrongAnswer),
        except("invalid-moves", &mut SOLVABLE.into_iter(), Verdict::WrongAnswer),
        except("always-gives-up", &mut solves(), Verdict::GaveUp),
        except("never-ends", &mut EMPTY_LAYOUT.into_iter(), Verdict::TimeLimit),
        unbuilt("does-not-compile", BuildVerdict::BuildFailed),
        unbuilt("no-build-script", BuildVerdict::NoBuildScript),
    ]
}

#[test]
fn the_groups_match_the_suite() {
    let report = marked().json("correct");
    let tests: Vec<&serde_json::Value> =
        report["parts"].as_array().unwrap().iter().flat_map(|p| p["tests"].as_array().unwrap()).collect();
    let ids: Vec<&str> = tests.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, TESTS, "TESTS lists the suite's tests in order");
    for test in tests {
        let id = test["id"].as_str().unwrap();
        let is_solve = matches!(test["kind"].as_str(), Some("solve" | "solveworm"));
        assert_eq!(
            is_solve,
            solves().filter(|t| *t == id).count() == 1,
            "{id}: in exactly one solve group iff a solve"
        );
        let expected = test["expected"].as_str().unwrap();
        assert_eq!(FALSE_CHECKS.contains(&id), expected == "false", "{id}: expected {expected}");
        assert_eq!(UNSOLVABLE.contains(&id), expected == "0", "{id}: expected {expected}");
    }
    assert!(ONE_SHORT.iter().chain(&CARD_LEFT_IN_WORM).all(|t| FALSE_CHECKS.contains(t)));
}

#[test]
fn every_fixture_gets_exactly_its_verdicts() {
    let marked = marked();
    assert_eq!(marked.status, 0, "bhgrade mark failed: {}", marked.stderr);
    let mut problems = Vec::new();
    for expectation in expectations() {
        let report = marked.json(expectation.student);
        let build: Option<BuildVerdict> = typed(&report["build"]["verdict"]);
        if build != Some(expectation.build) {
            problems.push(format!("{}: build {build:?}, expected {:?}", expectation.student, expectation.build));
        }
        let got = verdicts(&report);
        for test in TESTS {
            let want = expectation.exceptions.iter().find(|(id, _)| *id == test).map_or(expectation.usual, |(_, v)| *v);
            let actual = got.get(test).copied();
            if actual != Some(want) {
                problems.push(format!("{} {test}: {actual:?}, expected {want:?}", expectation.student));
            }
        }
    }
    assert!(problems.is_empty(), "verdicts differ:\n{}", problems.join("\n"));
}

#[test]
fn the_correct_submission_gets_full_marks() {
    let report = marked().json("correct");
    assert_eq!(report["score"], report["max_score"]);
    assert_eq!(report["max_score"], 20.0);
}

/// The reference's own binary, a binary of this package beside `bhgrade`.
fn bhref_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_bhref"))
}

#[test]
fn the_reference_marked_as_a_submission_gets_full_marks() {
    let dir = tempfile::tempdir().unwrap();
    let suite = quick_suite(dir.path());
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let launch = format!("command: [{:?}]", bhref_binary().display().to_string());
    let rewritten = yaml.replace("command: [java, BHMain]", &launch);
    assert_ne!(yaml, rewritten, "the suite launches java BHMain");
    std::fs::write(suite.join("suite.yaml"), rewritten).unwrap();
    let submissions = dir.path().join("submissions");
    let src = submissions.join("bhref/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("build.sh"), "true\n").unwrap();
    let out = dir.path().join("out");
    let output = mark_command(&suite, &out, &submissions).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = read_json(&out.join("students/bhref.json"));
    let not_accepted: Vec<_> =
        verdicts(&report).into_iter().filter(|(_, verdict)| *verdict != Verdict::Accepted).collect();
    assert!(not_accepted.is_empty(), "{not_accepted:?}");
    assert_eq!(report["score"], 20.0);
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_submission_in_the_folder_is_in_the_class_files() {
    let marked = marked();
    let csv = marked.text("grades.csv");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("student,part1,part2,part3,total"));
    let students: Vec<&str> = lines.map(|line| line.split(',').next().unwrap()).collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(repo().join("fixtures/submissions"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(students, on_disk);
    let summary = marked.text("summary.md");
    for student in &on_disk {
        assert!(summary.contains(&format!("[{student}](students/{student}.md)")), "{student} missing from summary");
    }
}

#[test]
fn a_wrong_answer_report_explains_the_failure() {
    let report = marked().text("students/check-one-short.md");
    insta::with_settings!({filters => vec![
        (r"\d+ ms", "[ms]"),
        (r"\d+ MiB \|", "[MiB] |"),
        (r"\| Marked \|.*", "| Marked | [redacted]"),
        (r"\| Machine \|.*", "| Machine | [redacted]"),
        (r"\| Isolation \|.*", "| Isolation | [redacted]"),
        (r"/[^ `]*/suite/", "[suite]/"),
        // A derived solution is the reference solver's: it changes when the solver's search does.
        (r"`[-0-9 ]{60,}`", "`[derived solution]`"),
    ]}, {
        insta::assert_snapshot!(report);
    });
}

#[test]
fn a_build_failure_shows_the_compiler_output() {
    let report = marked().text("students/does-not-compile.md");
    assert!(report.contains("did not build"), "{report}");
    assert!(report.contains("error"), "the javac error is shown: {report}");
}
