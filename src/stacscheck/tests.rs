//! Plans of the fixture tree (`fixtures/stacscheck/Tests`) and of small trees made here, and
//! the source folder search. Nothing is run: running steps is the pipeline's business.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stacscheck/Tests").canonicalize().unwrap()
}

fn ids(plan: &Tree) -> Vec<&str> {
    plan.steps.iter().map(|s| s.id.as_str()).collect()
}

fn write(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, body).unwrap();
}

const CONFIG: &str = "[info]\npractical = P\ncourse = C\nsrcdir = src\n";

#[test]
fn the_whole_fixture_tree_runs_in_stacscheck_order() {
    let plan = Tree::load(&fixture()).unwrap();
    assert_eq!(plan.root, fixture());
    assert_eq!(plan.target, fixture());
    assert_eq!(plan.config.srcdir, "src");
    assert_eq!(plan.config.timeout, std::time::Duration::from_secs(5));
    assert_eq!(
        ids(&plan),
        [
            "build-all",
            "Part1/prog-check-01Solved",
            "Part1/prog-check-02Illegal",
            "Part2/build-extra",
            "Part2/test-solve-check",
            "Part2/info-files",
            "Part2/prog-solve-01Solvable",
            "Part2/prog-solve-02Unsolvable",
            "Part2/Slow/prog-slow-01Sleep",
        ]
    );
    let kinds: Vec<StepKind> = plan.steps.iter().map(|s| s.kind).collect();
    use StepKind::{Build, Info, Prog, Test};
    assert_eq!(kinds, [Build, Prog, Prog, Build, Test, Info, Prog, Prog, Prog]);
    let guards: Vec<&[usize]> = plan.steps.iter().map(|s| s.guarded_by.as_slice()).collect();
    assert_eq!(guards, [&[][..], &[0], &[0], &[0], &[0, 3], &[0, 3], &[0, 3], &[0, 3], &[0, 3]]);
    assert_eq!(plan.warnings, []);
}

#[test]
fn a_part_runs_the_builds_above_it_and_everything_below_it() {
    let plan = Tree::load(&fixture().join("Part2")).unwrap();
    assert_eq!(plan.root, fixture());
    assert_eq!(
        ids(&plan),
        [
            "build-all",
            "Part2/build-extra",
            "Part2/test-solve-check",
            "Part2/info-files",
            "Part2/prog-solve-01Solvable",
            "Part2/prog-solve-02Unsolvable",
            "Part2/Slow/prog-slow-01Sleep",
        ]
    );
    let plan = Tree::load(&fixture().join("Part2/Slow")).unwrap();
    assert_eq!(ids(&plan), ["build-all", "Part2/build-extra", "Part2/Slow/prog-slow-01Sleep"]);
    assert_eq!(plan.steps[2].guarded_by, [0, 1]);
    let plan = Tree::load(&fixture().join("Part1")).unwrap();
    assert_eq!(ids(&plan), ["build-all", "Part1/prog-check-01Solved", "Part1/prog-check-02Illegal"]);
}

#[test]
fn prog_runs_pair_each_out_with_its_in_or_empty_input() {
    let root = fixture();
    let plan = Tree::load(&root).unwrap();
    let step = |id: &str| plan.steps.iter().find(|s| s.id == id).unwrap();
    let solved = step("Part1/prog-check-01Solved");
    assert_eq!(solved.script, root.join("Part1/prog-check.sh"));
    assert_eq!(solved.testdir, root.join("Part1"));
    assert_eq!(solved.stdin.as_deref(), Some(root.join("Part1/01Solved.in").as_path()));
    assert_eq!(solved.expected.as_deref(), Some(root.join("Part1/01Solved.out").as_path()));
    assert_eq!(solved.input, b"solvable.txt\n0 2 0 3 1 4\n");
    assert_eq!(solved.expected_output.as_deref(), Some(&b"true\n"[..]));
    let slow = step("Part2/Slow/prog-slow-01Sleep");
    assert_eq!(slow.stdin, None);
    assert_eq!(slow.input, b"");
    assert_eq!(slow.expected_output.as_deref(), Some(&b"1\n"[..]));
    let build = step("build-all");
    assert_eq!((build.stdin.as_ref(), build.expected.as_ref()), (None, None));
}

/// Byte order of names, hidden and non-script files, several builds in one folder, several
/// prog scripts and outputs, and what is never used.
#[test]
fn naming_order_and_guards_in_a_made_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("T");
    write(&root.join("practical.config"), CONFIG);
    for name in [
        "build-b.sh",
        "build-a.sh",
        "build.sh",
        "Build-upper.sh",
        ".build-hidden.sh",
        "build-notes.txt",
        "helper.sh",
        "info.sh",
        "test-z.sh",
        "test-Y.sh",
        "prog-2.sh",
        "prog-1.sh",
        "b.out",
        "a.out",
        "a.in",
        "orphan.in",
        ".c.out",
        "B/prog-x.sh",
        "B/build-b.sh",
        "A/x.out",
        ".hidden/test-h.sh",
        "A/Deeper/test-d.sh",
    ] {
        write(&root.join(name), "");
    }
    std::os::unix::fs::symlink(root.join("B"), root.join("C-link")).unwrap();
    std::os::unix::fs::symlink(root.join("info.sh"), root.join("info-link.sh")).unwrap();
    let plan = Tree::load(&root).unwrap();
    assert_eq!(
        ids(&plan),
        [
            // Byte order, as Python's sorted(): '-' < '.' < 'Y' < 'z'.
            "build-a",
            "build-b",
            "build",
            "test-Y",
            "test-z",
            "info-link",
            "info",
            "prog-1-a",
            "prog-1-b",
            "prog-2-a",
            "prog-2-b",
            "A/Deeper/test-d",
            "B/build-b",
        ]
    );
    let guards: Vec<&[usize]> = plan.steps.iter().map(|s| s.guarded_by.as_slice()).collect();
    assert_eq!(guards[..3], [&[][..], &[0], &[0, 1]]);
    assert!(guards[3..12].iter().all(|g| *g == [0, 1, 2]));
    assert_eq!(guards[12], [0, 1, 2]);
    let prog_1_a = &plan.steps[7];
    assert_eq!(prog_1_a.stdin.as_deref(), Some(root.join("a.in").as_path()));
    assert_eq!(plan.steps[8].stdin, None, "b.out has no b.in");
    let warnings: Vec<String> = plan.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "orphan.in is never read: no .out file of the same name",
            "A/x.out is never compared: no prog script beside it",
            "B/prog-x.sh never runs: no .out file beside it",
        ]
    );
    // A target inside the tree: only builds of the folders above it.
    let plan = Tree::load(&root.join("B")).unwrap();
    assert_eq!(ids(&plan), ["build-a", "build-b", "build", "B/build-b"]);
    assert_eq!(plan.steps[3].guarded_by, [0, 1, 2]);
}

#[test]
fn two_runs_with_one_id_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("practical.config"), CONFIG);
    for name in ["prog-a.sh", "prog-a-b.sh", "b-c.out", "c.out"] {
        write(&root.join(name), "");
    }
    let err = Tree::load(root).unwrap_err();
    assert!(matches!(&err, StacscheckError::DuplicateStep { id, .. } if id == "prog-a-b-c"), "{err}");
    assert!(err.to_string().contains("prog-a-b.sh with c.out and prog-a.sh with b-c.out"), "{err}");
}

#[test]
fn load_errors_are_typed() {
    let tmp = tempfile::tempdir().unwrap();
    let err = Tree::load(&tmp.path().join("missing")).unwrap_err();
    assert!(matches!(err, StacscheckError::Io { .. }), "{err}");
    write(&tmp.path().join("file"), "");
    let err = Tree::load(&tmp.path().join("file")).unwrap_err();
    assert!(matches!(err, StacscheckError::NotADirectory { .. }), "{err}");
    write(&tmp.path().join("T/practical.config"), "[info]\nsrcdir = src\nextra = 1\n");
    let err = Tree::load(&tmp.path().join("T")).unwrap_err();
    assert!(matches!(err, StacscheckError::Config(ConfigError::UnknownKey { .. })), "{err}");
}
