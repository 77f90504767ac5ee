//! The 2022 practical through the same harness: the Late Binding fixtures (real Java
//! submissions, each with one known defect; see fixtures/lbs-submissions/README.md) marked with
//! the bundled `suites/lbs-2022`, every verdict asserted.

use std::collections::{BTreeMap, BTreeSet};

use bhgrade::build::BuildVerdict;
use bhgrade::verdict::Verdict;

use crate::support::{bhgrade, copy_tree, repo, typed, verdicts};

/// The tests each fixture does not pass, and how; every other test must be accepted.
fn failures(fixture: &str) -> BTreeMap<&'static str, Verdict> {
    let wrong = |ids: &[&'static str]| ids.iter().map(|id| (*id, Verdict::WrongAnswer)).collect();
    match fixture {
        "correct" | "debug-after-first-line" => BTreeMap::new(),
        // The layout on standard input: `SOLVE` with no file prints its usage, `SOLVE -` looks
        // for a file called `-`.
        "file-only" => [
            "part2/example-stdin",
            "part2/standard-deal-stdin",
            "part2/standard-unsolvable-dash",
            "part3/grace-ten-ranks-stdin",
            "part3/unsolvable-with-grace-dash",
        ]
        .into_iter()
        .map(|id| (id, Verdict::FormatError))
        .collect(),
        "accepts-two-piles" => wrong(&["part1/one-move-short", "part3/one-move-short"]),
        "always-true" => wrong(&[
            "part1/grace-solution-example",
            "part1/one-move-short",
            "part1/cards-do-not-match",
            "part1/no-moves",
            "part1/count-too-large",
            "part1/dangling",
            "part1/negative-count",
            "part1/card-not-in-row",
            "part1/card-at-position-zero",
            "part1/destination-out-of-range",
            "part1/not-one-or-three",
            "part1/grace-solution-standard",
            "part1/grace-solution-ten-ranks",
            "part1/far-grace",
            "part3/one-move-short",
            "part3/dangling",
            "part3/grace-already-used",
            "part3/grace-already-used-2",
            "part3/grace-not-onto-pile-zero",
        ]),
        "grace-distance" => wrong(&[
            "part3/grace-solution-standard",
            "part3/far-grace",
            "part3/far-grace-no-plain-solution",
            "part3/grace-solution-ten-ranks",
        ]),
        "grace-twice" => wrong(&[
            "part3/solve-grace-standard",
            "part3/grace-already-used",
            "part3/grace-already-used-2",
            "part3/grace-ten-ranks",
            "part3/grace-ten-ranks-stdin",
            "part3/hard-grace",
            "part3/hard-unsolvable",
            "part3/hard-unsolvable-2",
        ]),
        "zero-for-unsolvable" => wrong(&[
            "part2/example-no-solution",
            "part2/standard-unsolvable",
            "part2/standard-unsolvable-2",
            "part2/standard-unsolvable-dash",
            "part2/ten-ranks-six-suits-unsolvable",
            "part2/hard-unsolvable",
            "part2/hard-unsolvable-2",
            "part3/unsolvable-with-grace",
            "part3/unsolvable-with-grace-dash",
            "part3/hard-unsolvable",
            "part3/hard-unsolvable-2",
        ]),
        other => panic!("no expectations for fixture {other}"),
    }
}

#[test]
fn every_late_binding_fixture_gets_the_verdicts_of_its_defect() {
    let dir = tempfile::tempdir().unwrap();
    // The bundled suite with the hard groups' minute cut to 3 s of CPU: the fixture without a
    // visited set still runs out on them, and a test costs little.
    let suite = dir.path().join("suite");
    copy_tree(&repo().join("suites/lbs-2022"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let quick = yaml.replace("cpu_seconds: 60 }", "cpu_seconds: 3 }");
    assert_ne!(yaml, quick, "the suite has hard groups");
    std::fs::write(suite.join("suite.yaml"), quick).unwrap();
    let class = dir.path().join("class");
    let fixtures = repo().join("fixtures/lbs-submissions");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        if path.join("src/build.sh").is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            copy_tree(&path, &class.join(&name));
            names.push(name);
        }
    }
    names.sort();
    assert_eq!(names.len(), 9, "{names:?}");
    let out = dir.path().join("out");
    let output =
        bhgrade().args(["mark", "--quiet", "--suite"]).arg(&suite).arg("--out").arg(&out).arg(&class).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut mismatches = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(out.join(format!("students/{name}.json"))).unwrap();
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(typed(&report["build"]["verdict"]), Some(BuildVerdict::Ok), "{name}");
        let got: BTreeMap<String, Verdict> =
            verdicts(&report).into_iter().filter(|(_, verdict)| *verdict != Verdict::Accepted).collect();
        if name == "no-visited-set" {
            // Out of time on the hard groups (how many of their layouts a search with every
            // prune but no visited set gets through in 3 s is the machine's business), and
            // nowhere else.
            let hard: BTreeSet<&str> = [
                "part2/hard-unsolvable",
                "part2/hard-unsolvable-2",
                "part2/hard-solvable",
                "part3/hard-grace",
                "part3/hard-unsolvable",
                "part3/hard-unsolvable-2",
            ]
            .into();
            assert!(got.keys().all(|id| hard.contains(id.as_str())), "{name}: {got:?}");
            assert!(got.values().all(|verdict| *verdict == Verdict::TimeLimit), "{name}: {got:?}");
            assert!(got.contains_key("part2/hard-solvable"), "{name}: {got:?}");
            continue;
        }
        let want: BTreeMap<String, Verdict> =
            failures(name).into_iter().map(|(id, verdict)| (id.to_string(), verdict)).collect();
        // Cut to 3 s, a hard test may also run out of time for a slow defective solver on a
        // slow machine: that says nothing about the defect, so it stands for either verdict.
        let timed_out: BTreeSet<String> = got
            .iter()
            .filter(|(id, verdict)| id.contains("/hard-") && **verdict == Verdict::TimeLimit)
            .map(|(id, _)| id.clone())
            .collect();
        let got: BTreeMap<String, Verdict> = got.into_iter().filter(|(id, _)| !timed_out.contains(id)).collect();
        let want: BTreeMap<String, Verdict> = want.into_iter().filter(|(id, _)| !timed_out.contains(id)).collect();
        // A test that gives the layout on standard input is reproduced that way.
        let example_stdin = report["parts"][1]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|test| test["id"] == "part2/example-stdin")
            .unwrap();
        let reproduce = example_stdin["reproduce"].as_str().unwrap();
        assert!(reproduce.ends_with(r#" java LBSMain SOLVE < "$SUITE"/instances/example-1.txt"#), "{reproduce}");
        if got != want {
            mismatches.push(format!("{name}:\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    let grades = std::fs::read_to_string(out.join("grades.csv")).unwrap();
    assert!(grades.lines().any(|line| line == "correct,11.00,6.00,3.00,20.00"), "{grades}");
}
