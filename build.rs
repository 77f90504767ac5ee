//! Builds the bundled suites into the binary: every folder of `suites/` that holds a
//! `suite.yaml` becomes an entry of `$OUT_DIR/bundled_suites.rs` (its files' relative paths and
//! bytes), so `--suite cs3105-p1` works from any folder, with no clone beside the binary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read a suite folder").flatten().collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            files(&path, found);
        } else if path.is_file() {
            found.push(path);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let suites = manifest.join("suites");
    println!("cargo:rerun-if-changed={}", suites.display());
    let mut code = String::from(
        "/// A bundled suite's files: (path relative to the suite folder, bytes).\n\
         pub type SuiteFiles = &'static [(&'static str, &'static [u8])];\n\
         /// The bundled suites: (name, files).\npub const BUNDLED: &[(&str, SuiteFiles)] = &[\n",
    );
    let mut folders: Vec<_> = std::fs::read_dir(&suites).expect("read suites/").flatten().map(|e| e.path()).collect();
    folders.sort();
    for folder in folders.into_iter().filter(|folder| folder.join("suite.yaml").is_file()) {
        let name = folder.file_name().and_then(|n| n.to_str()).expect("a UTF-8 suite name");
        let mut found = Vec::new();
        files(&folder, &mut found);
        let _ = writeln!(code, "    ({name:?}, &[");
        for file in found {
            let relative = file.strip_prefix(&folder).expect("inside").to_str().expect("UTF-8 file names");
            let _ = writeln!(code, "        ({relative:?}, include_bytes!({:?})),", file.display().to_string());
        }
        code.push_str("    ]),\n");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it")).join("bundled_suites.rs");
    std::fs::write(out, code).expect("write bundled_suites.rs");
}
