//! Every file the bundled marking writes (reports, feedback, JSON, gradebooks, exports, the
//! class page), compared with a stored copy in `snapshots/outputs/` after masking what changes
//! from run to run: the temporary folder, timings, memory figures, timestamps, the machine's load and cores, and the
//! class page's scatter plot (drawn from timings). A restructuring that changes one byte of
//! what a marker or student reads fails here. To accept a deliberate change, run the test with
//! `INSTA_UPDATE=always` and review the `.snap` files' diff.

use std::path::Path;

use regex::Regex;

use crate::support::marked;

/// What varies between two markings of the same class on the same machine, and its stand-in.
fn masks() -> Vec<(Regex, &'static str)> {
    [
        // JSON figures measured from the run.
        (r#""(cpu_ms|wall_ms|peak_rss_kb|memory_peak_bytes)": \d+"#, r#""$1": N"#),
        (r#""load_average": "[^"]*""#, r#""load_average": "L""#),
        // UTC timestamps, wherever they appear.
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?", "TIMESTAMP"),
        // The machine: its kind, cores, load and the isolation layers it proved (another
        // machine, or the same one as another user, proves others; the verdicts stay).
        (r"\| Machine \|[^\n]*\|", "| Machine | M |"),
        (r"\| Isolation \|[^\n]*\|", "| Isolation | I |"),
        (r#""isolation": \[[^\]]*\]"#, r#""isolation": [I]"#),
        (r"isolation: [^\n<]*", "isolation: I"),
        (r#""cores": \d+"#, r#""cores": C"#),
        (r"\d+ cores", "C cores"),
        (r"load [\d.]+ [\d.]+ [\d.]+", "load L"),
        // Durations and sizes in words and tables ("183 ms", "0.18 s", "40 MiB").
        (r"\d+(\.\d+)?(k)? ?(ms|s|MiB|KiB|MB|kB)\b", "N $3"),
        // JUnit's seconds.
        (r#"time="[\d.]+""#, r#"time="T""#),
        // The class page's scatter plot: positions and order follow the timings.
        (r#"(?s)<svg class="scatter".*?</svg>"#, "<svg class=\"scatter\"/>"),
    ]
    .into_iter()
    .map(|(pattern, replacement)| (Regex::new(pattern).expect("a valid mask"), replacement))
    .collect()
}

/// `text` with the marking's temporary folder as `DIR` and every mask applied.
fn masked(text: &str, dir: &Path, masks: &[(Regex, &str)]) -> String {
    let text = text.replace(&dir.display().to_string(), "DIR");
    masks.iter().fold(text, |text, (pattern, replacement)| pattern.replace_all(&text, *replacement).into_owned())
}

/// The files of a marking's output folder, in name order, without the result store (the
/// runs' raw measurements, kept only to resume an interrupted marking).
fn output_files(out: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = walkdir::WalkDir::new(out)
        .into_iter()
        .filter_entry(|entry| entry.file_name() != ".bhgrade-results")
        .map(|entry| entry.expect("walk the output folder"))
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| entry.path().strip_prefix(out).expect("inside").to_path_buf())
        .collect();
    files.sort();
    files
}

#[test]
fn every_output_of_the_bundled_marking_matches_its_stored_copy() {
    let marked = marked();
    let masks = masks();
    let files = output_files(&marked.out);
    assert!(files.len() > 50, "the marking wrote only {} files", files.len());
    let names: Vec<String> = files.iter().map(|file| file.display().to_string()).collect();
    insta::with_settings!({ snapshot_path => "snapshots/outputs", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("files", names.join("\n"));
        for (file, name) in files.iter().zip(&names) {
            let text = std::fs::read_to_string(marked.out.join(file)).unwrap_or_else(|e| panic!("read {name}: {e}"));
            insta::assert_snapshot!(name.replace('/', "__"), masked(&text, marked.out.parent().expect("the marking's folder"), &masks));
        }
    });
}
