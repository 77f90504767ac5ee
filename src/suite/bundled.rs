//! The suites bundled with bhgrade: a name (`cs3105-p1`) → a suite folder on the marker's disk,
//! read like any other: `suites/NAME` of the clone bhgrade was built from (the whole suite), or
//! `suites/NAME` beside the binary (the release archive's student copies).
//!
//! Nothing of a suite is built into the binary, and nothing is unpacked into a cache: a whole
//! suite holds every hidden test's puzzle and the reference's answer, while the binary is what
//! students are handed (with their copy of the tests, from `bhgrade suite export --student`)
//! and may be installed where the programs it runs can read it.

use std::path::{Path, PathBuf};

use super::SUITE_FILE;

/// Where bundled suites are looked for, in order: `suites/` in the clone bhgrade was built from,
/// then `suites/` beside the running binary (where the release archive puts its student copies).
pub fn roots() -> Vec<PathBuf> {
    let clone = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join("suites")));
    std::iter::once(clone).chain(beside).collect()
}

/// The folder of the bundled suite `name` (a plain name, `cs3105-p1`): the first root holding
/// a suite of that name.
pub fn folder(name: &str) -> Option<PathBuf> {
    let plain = !name.is_empty() && !name.starts_with('.') && !name.contains('/');
    let found = roots().into_iter().map(|root| root.join(name)).find(|folder| folder.join(SUITE_FILE).is_file());
    found.filter(|_| plain)
}

/// The names of the bundled suites found, in name order (none where no root holds any).
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = roots()
        .iter()
        .filter_map(|root| std::fs::read_dir(root).ok())
        .flat_map(|entries| entries.flatten())
        .filter(|entry| entry.path().join(SUITE_FILE).is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_suite_is_found_by_name_in_the_clone() {
        assert_eq!(names(), ["cs3105-p1", "gaps", "lbs-2022", "superpuzz"]);
        assert_eq!(folder("cs3105-p1"), Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/cs3105-p1")));
        assert!(folder("lbs-2022").is_some());
    }

    #[test]
    fn only_a_plain_name_of_a_suite_folder_is_a_bundled_suite() {
        for name in ["", ".", "..", "../suites/cs3105-p1", "cs3105-p1/", "README.md", "no-such-suite"] {
            assert_eq!(folder(name), None, "{name:?}");
        }
    }
}
