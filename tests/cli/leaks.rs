//! Nothing a student is handed gives a hidden test away (issue 47): the README, the docs, the
//! manuals and completions the release archive ships, and each bundled suite's students' copy,
//! searched by `bhgrade suite leaks` for every hidden test of every bundled suite.

use crate::support::{bhgrade, repo};

fn leaks(suite: &str, paths: &[&std::path::Path]) -> std::process::Output {
    bhgrade().args(["suite", "leaks"]).arg(repo().join("suites").join(suite)).args(paths).output().unwrap()
}

#[test]
fn nothing_a_student_is_handed_names_a_hidden_test() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    let made = bhgrade().arg("release-assets").arg(&assets).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let (readme, docs) = (repo().join("README.md"), repo().join("docs"));
    for suite in bhgrade::suite::bundled::names() {
        let suite = suite.as_str();
        // Each suite's copy is searched for its own hidden tests (two suites may use one id,
        // hidden in one and a sample in the other).
        let copy = dir.path().join("copies").join(suite);
        let mut export = bhgrade();
        export.args(["suite", "export", "--student"]).arg(repo().join("suites").join(suite));
        let output = export.arg("--out").arg(&copy).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let output = leaks(suite, &[&readme, &docs, &assets, &copy]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{suite}:\n{stdout}{}", String::from_utf8_lossy(&output.stderr));
        assert!(String::from_utf8_lossy(&output.stderr).contains("is given away"), "{suite}");
    }
}

/// The search finds what the README said before issue 47: a hidden id in a Gradescope example,
/// and a hidden Worm Hole deal by its id and the generator call that makes it.
#[test]
fn the_search_finds_a_hidden_test_however_it_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let before = dir.path().join("README.md");
    std::fs::write(
        &before,
        "  in about 24 s (8 zeros; the slowest, `part3/hard-unsolvable`, GEN 123 51 13 4 8 in Worm Hole,\n\
         { \"name\": \"part1/one-move-short\", \"number\": \"1.10\" }\n\
         | `part1/one-move-short-handout` | a visible test, named |\n",
    )
    .unwrap();
    let output = leaks("cs3105-p1", &[&before]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    for found in [
        "hidden test part1/one-move-short by its id",
        "hidden test part3/hard-unsolvable by its id",
        "hidden test part3/hard-unsolvable by the generator call that makes its puzzle: `GEN 123 51 13 4 8`",
    ] {
        assert!(stdout.contains(found), "{found}:\n{stdout}");
    }
    assert_eq!(stdout.lines().count(), 3, "the visible test is not a give-away:\n{stdout}");
}
