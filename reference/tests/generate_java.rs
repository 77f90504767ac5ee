//! `bhref::blackhole::generate` against the real thing: the starter's `GEN` as the `correct`
//! fixture submission implements it, compiled with `javac` and run with `java`, byte for byte.
//!
//! Input: `fixtures/submissions/correct/src/*.java`. Output: pass, or the first (seed, cards,
//! ranks, suits, piles) whose text differs. Skipped, with a message, when no JDK is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use bhref::blackhole::generate::generate;

fn correct_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/submissions/correct/src")
}

fn have_jdk() -> bool {
    let works = |tool: &str| Command::new(tool).arg("-version").output().is_ok_and(|o| o.status.success());
    works("javac") && works("java")
}

/// Compiles the `correct` submission into a fresh directory and returns it.
fn compile(into: &Path) {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(correct_sources())
        .expect("the correct fixture's src/ exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "java"))
        .collect();
    sources.sort();
    assert!(!sources.is_empty(), "no .java files in {}", correct_sources().display());
    let out = Command::new("javac").arg("-d").arg(into).args(&sources).output().expect("javac runs");
    assert!(out.status.success(), "javac failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// What `java BHMain GEN args...` prints.
fn java_gen(classes: &Path, args: &[String]) -> String {
    let out =
        Command::new("java").arg("-cp").arg(classes).arg("BHMain").arg("GEN").args(args).output().expect("java runs");
    assert!(out.status.success(), "java BHMain GEN {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("GEN prints ASCII")
}

#[test]
fn generate_matches_the_java_starter_byte_for_byte() {
    if !have_jdk() {
        eprintln!("SKIPPED generate_matches_the_java_starter_byte_for_byte: no `javac`/`java` on PATH");
        return;
    }
    let classes = tempfile::tempdir().expect("temporary directory");
    compile(classes.path());

    // (seed, cards, ranks, suits, piles)
    let cases: &[(i64, u32, u32, u32, u32)] = &[
        (1, 51, 13, 4, 17), // the course's 1-51-13-4-17.txt
        (2, 51, 13, 4, 17),
        (12345, 51, 13, 4, 17),
        (-7, 51, 13, 4, 17),       // negative seed
        (i64::MAX, 51, 13, 4, 17), // seed scrambling at the extremes
        (i64::MIN, 30, 13, 4, 10),
        (3, 4, 5, 1, 4),     // small deck, one card per pile
        (4, 10, 5, 2, 3),    // uneven piles
        (5, 12, 13, 4, 1),   // one pile
        (6, 100, 13, 4, 17), // more cards asked for than the pack holds
        (7, 5, 13, 4, 17),   // fewer cards than piles: empty piles
        (8, 0, 13, 4, 5),    // no cards at all
        (9, 51, 1, 1, 3),    // R*S = 1: nothing to shuffle or deal
        (10, 51, 2, 1, 2),   // R*S = 2: nothing to shuffle
        (11, 51, 3, 1, 2),   // R*S = 3: one swap
        (12, 60, 1, 20, 4),  // one rank
        (13, 200, 20, 8, 9), // a large generalised pack (rejection loop in nextInt)
    ];
    for &(seed, cards, ranks, suits, piles) in cases {
        let args: Vec<String> =
            [seed.to_string(), cards.to_string(), ranks.to_string(), suits.to_string(), piles.to_string()].into();
        assert_eq!(
            generate(seed, cards, ranks, suits, piles),
            java_gen(classes.path(), &args),
            "GEN {seed} {cards} {ranks} {suits} {piles}"
        );
    }

    // The defaults: `GEN seed` is `GEN seed 51 13 4 17`, and so on for each optional argument.
    assert_eq!(generate(77, 51, 13, 4, 17), java_gen(classes.path(), &["77".into()]));
    assert_eq!(generate(78, 20, 13, 4, 17), java_gen(classes.path(), &["78".into(), "20".into()]));
    assert_eq!(generate(79, 20, 6, 4, 17), java_gen(classes.path(), &["79".into(), "20".into(), "6".into()]));
}
