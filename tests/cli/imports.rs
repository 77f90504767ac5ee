//! The module graph points one way: no module of the harness (`src/`) or of the reference
//! (`reference/src/`) imports, directly or through others, from a module that imports it. Read
//! from the source text: every `crate::NAME` in the code (not the comments) of a module's files
//! is an arrow to module `NAME`.
//! On failure the message names a circle; on success the layers are printed top to bottom.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::Regex;

use crate::support::repo;

/// Top-level module of the library (those `lib.rs` declares) → the top-level modules its files
/// name as `crate::NAME`.
fn arrows(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let path = Regex::new(r"\bcrate::([a-z_][a-z0-9_]*)").expect("a valid pattern");
    let declared = Regex::new(r"(?m)^\s*(?:pub )?mod ([a-z_][a-z0-9_]*);").expect("a valid pattern");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let modules: BTreeSet<String> = declared.captures_iter(&lib).map(|found| found[1].to_string()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.expect("walk the sources");
        let file = entry.path();
        if file.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let rel = file.strip_prefix(src).expect("inside");
        let first = rel.components().next().expect("a component").as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if !modules.contains(&module) {
            continue; // lib.rs itself, or the binaries' own modules (another crate)
        }
        let text = std::fs::read_to_string(file).expect("read a source file");
        // Code only: a comment may point anywhere (a module's doc names who reads it).
        let code: String =
            text.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let targets = graph.entry(module.clone()).or_default();
        for found in path.captures_iter(&code) {
            if found[1] != module {
                targets.insert(found[1].to_string());
            }
        }
    }
    graph
}

/// The modules in layers, top first (each imports only from layers below it), or a circle.
fn layers(graph: &BTreeMap<String, BTreeSet<String>>) -> Result<Vec<Vec<String>>, Vec<String>> {
    let mut left: BTreeMap<&str, BTreeSet<&str>> = graph
        .iter()
        .map(|(module, to)| {
            (module.as_str(), to.iter().map(String::as_str).filter(|t| graph.contains_key(*t)).collect())
        })
        .collect();
    let mut bottom_up = Vec::new();
    while !left.is_empty() {
        let floor: Vec<&str> = left.iter().filter(|(_, to)| to.is_empty()).map(|(module, _)| *module).collect();
        if floor.is_empty() {
            // Every module left imports another left: walk the arrows until one repeats.
            let mut walk = vec![*left.keys().next().expect("not empty")];
            loop {
                let next = *left[walk.last().expect("a step")].iter().next().expect("an arrow");
                if let Some(start) = walk.iter().position(|m| *m == next) {
                    return Err(walk[start..].iter().chain([&next]).map(|m| m.to_string()).collect());
                }
                walk.push(next);
            }
        }
        for module in &floor {
            left.remove(module);
        }
        for to in left.values_mut() {
            to.retain(|t| !floor.contains(t));
        }
        bottom_up.push(floor.into_iter().map(str::to_string).collect());
    }
    bottom_up.reverse();
    Ok(bottom_up)
}

#[test]
fn no_module_imports_from_one_that_imports_it() {
    for crate_src in ["src", "reference/src"] {
        let graph = arrows(&repo().join(crate_src));
        assert!(graph.len() > 8, "{crate_src}: only {} modules read", graph.len());
        match layers(&graph) {
            Ok(layers) => {
                let lines: Vec<String> = layers.iter().map(|layer| layer.join(", ")).collect();
                println!("{crate_src}, top to bottom:\n  {}", lines.join("\n  "));
            }
            Err(circle) => panic!("{crate_src}: a circle of imports: {}", circle.join(" → ")),
        }
    }
}

#[test]
fn a_circle_is_found_and_named() {
    let graph: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
        .collect();
    assert_eq!(layers(&graph), Err(vec!["a".to_string(), "b".into(), "c".into(), "a".into()]));
    let chain: BTreeMap<String, BTreeSet<String>> =
        [("top".to_string(), BTreeSet::from(["bottom".to_string()])), ("bottom".to_string(), BTreeSet::new())].into();
    assert_eq!(layers(&chain), Ok(vec![vec!["top".to_string()], vec!["bottom".to_string()]]));
}
