//! The reports a marker hands out and the files other tools read, checked over the shared
//! marking of every fixture submission ([`marked`]): student feedback leaks no hidden test,
//! marks add up exactly in every format, and every export parses as its reader expects.

use crate::support::{marked, repo};

/// Every fixture submission's name.
fn students() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("fixtures/submissions"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn tests_of(report: &serde_json::Value) -> Vec<&serde_json::Value> {
    report["parts"].as_array().unwrap().iter().flat_map(|p| p["tests"].as_array().unwrap()).collect()
}

/// Marks as whole hundredths, the units every figure is exact in.
fn units(value: &serde_json::Value) -> i64 {
    let marks = value.as_f64().unwrap_or_else(|| panic!("{value} is not a number"));
    let units = (marks * 100.0).round();
    assert!((marks * 100.0 - units).abs() < 1e-6, "{marks} is not a whole number of hundredths");
    units as i64
}

/// `a.bc` → hundredths; every figure a report shows has two decimals.
fn shown_units(text: &str) -> i64 {
    let (whole, hundredths) = text.trim().split_once('.').unwrap_or_else(|| panic!("`{text}` has no decimals"));
    assert_eq!(hundredths.len(), 2, "`{text}` is not in the one format of marks");
    whole.parse::<i64>().unwrap() * 100 + hundredths.parse::<i64>().unwrap()
}

/// The feedback without the sections of visible tests' failures: what is left must show
/// nothing of a hidden test (a visible test may show a text a hidden one shares, such as a
/// puzzle both use, or the reference's solution that a hidden test's input extends).
fn without_visible_sections(feedback: &str, visible: &[&str]) -> String {
    let mut kept = String::new();
    let mut skipping = false;
    for line in feedback.lines() {
        if line.starts_with("### ") || line.starts_with("## ") {
            skipping = visible.iter().any(|id| line.starts_with(&format!("### `{id}`:")));
        }
        if !skipping {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

#[test]
fn no_feedback_file_shows_anything_of_a_hidden_test() {
    let marked = marked();
    assert_eq!(marked.status, 0, "{}", marked.stderr);
    for student in students() {
        let report = marked.json(&student);
        let feedback = marked.text(&format!("feedback/{student}.md"));
        let tests = tests_of(&report);
        let visible: Vec<&str> =
            tests.iter().filter(|t| t["visible"] == true).map(|t| t["id"].as_str().unwrap()).collect();
        assert!(!visible.is_empty(), "the bundled suite has visible tests");
        let rest = without_visible_sections(&feedback, &visible);
        let mut hidden_in_part = std::collections::HashMap::new();
        for test in tests.iter().filter(|t| t["visible"] == false) {
            let id = test["id"].as_str().unwrap();
            let (part, _) = id.split_once('/').unwrap();
            let place = hidden_in_part.entry(part).and_modify(|n| *n += 1).or_insert(1);
            let label = format!("`{part} hidden {place}` | hidden |");
            assert!(feedback.contains(&label), "{student}: {id} is listed as {label}");
            assert!(!feedback.contains(&format!("`{id}`")), "{student}: hidden {id} is named");
            for field in ["instance", "input", "expected_detail", "stderr_tail", "explanation", "command", "reproduce"]
            {
                let secret = test[field].as_str().unwrap_or("").trim();
                // Short texts (`true`, `0`) are in every report whatever the test.
                if secret.len() < 8 {
                    continue;
                }
                // Long texts were shortened in the JSON: their start is enough to find them.
                let start: String = secret.chars().take(60).collect();
                assert!(!rest.contains(&start), "{student}: hidden {id}'s {field} `{secret}` is in the feedback");
            }
        }
        assert!(feedback.contains("Hidden tests are shown by a label"), "{student}");
    }
}

#[test]
fn feedback_shows_a_failed_visible_test_in_full() {
    let feedback = marked().text("feedback/check-one-short.md");
    let section = feedback.split("### `part1/one-move-short-handout`").nth(1).expect("the failure is shown");
    assert!(section.contains("printf '%s\\n' '1 2 2 3 0 4' | "), "the input is piped in: {section}");
    assert!(section.contains("java BHMain CHECK \"$SUITE\"/instances/handout-simple.txt"), "{section}");
    assert!(section.contains("Puzzle `instances/handout-simple.txt`:\n\n```text\n5 1 4"), "the puzzle: {section}");
    assert!(!feedback.contains("### `part1/one-move-short`:"), "a hidden failure has no section");
}

#[test]
fn marks_add_up_in_the_json() {
    let marked = marked();
    for student in students() {
        let report = marked.json(&student);
        let mut total = (0, 0);
        for part in report["parts"].as_array().unwrap() {
            let tests = part["tests"].as_array().unwrap();
            let score: i64 = tests.iter().map(|t| units(&t["score"])).sum();
            let max: i64 = tests.iter().map(|t| units(&t["max_score"])).sum();
            assert_eq!(score, units(&part["score"]), "{student} {}: tests sum to the part", part["id"]);
            assert_eq!(max, units(&part["max_score"]), "{student} {}: maxima sum to the part's", part["id"]);
            total = (total.0 + score, total.1 + max);
        }
        assert_eq!(total, (units(&report["score"]), units(&report["max_score"])), "{student}: parts sum to the total");
    }
}

/// Checks one markdown report: each part's rows sum to its heading, the headings to the score.
fn check_markdown_sums(name: &str, text: &str) {
    let score_line = text.lines().find(|l| l.starts_with("**Score: ")).expect("a score line");
    let score = score_line.trim_start_matches("**Score: ").trim_end_matches("**");
    let (total, total_max) = score.split_once(" / ").unwrap();
    let mut sums = (0, 0);
    for part in text.split("\n## ").skip(1).filter(|p| !p.starts_with("Check table") && !p.starts_with("Build")) {
        let heading = part.lines().next().unwrap();
        let (_, figures) = heading.rsplit_once(": ").unwrap();
        let (score, max) = figures.split_once(" / ").unwrap();
        // The rows of the table headed `| first |`: a test's, or a group's.
        let rows_of = |first: &str| -> Vec<(i64, i64)> {
            let table = part.split(&format!("\n| {first} |")).nth(1).unwrap_or_default();
            let rows = table.lines().skip(2).take_while(|l| l.starts_with("| `"));
            rows.map(|row| {
                let cells: Vec<&str> = row.trim_end_matches('|').split(" | ").collect();
                let (s, m) = cells.last().unwrap().split_once(" / ").unwrap();
                (shown_units(s), shown_units(m))
            })
            .collect()
        };
        let rows = rows_of("Test");
        assert!(!rows.is_empty(), "{name}: {heading} has rows");
        let row_sum = rows.iter().fold((0, 0), |a, r| (a.0 + r.0, a.1 + r.1));
        assert_eq!(row_sum, (shown_units(score), shown_units(max)), "{name}: {heading}");
        // A part whose every test is grouped: its groups add up to it too.
        let groups = rows_of("Group");
        let group_sum = groups.iter().fold((0, 0), |a, r| (a.0 + r.0, a.1 + r.1));
        assert!(groups.is_empty() || group_sum == row_sum, "{name}: {heading}: groups {group_sum:?}");
        sums = (sums.0 + row_sum.0, sums.1 + row_sum.1);
    }
    assert_eq!(sums, (shown_units(total), shown_units(total_max)), "{name}: parts sum to the score");
}

#[test]
fn marks_add_up_in_every_markdown_report_and_the_gradebook() {
    let marked = marked();
    for student in students() {
        check_markdown_sums(&format!("students/{student}.md"), &marked.text(&format!("students/{student}.md")));
        check_markdown_sums(&format!("feedback/{student}.md"), &marked.text(&format!("feedback/{student}.md")));
    }
    let csv = marked.text("grades.csv");
    for row in csv.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        let parts: i64 = cells[1..cells.len() - 1].iter().map(|c| shown_units(c)).sum();
        assert_eq!(parts, shown_units(cells[cells.len() - 1]), "grades.csv: {row}");
        let report = marked.json(cells[0]);
        assert_eq!(shown_units(cells[cells.len() - 1]), units(&report["score"]), "grades.csv and JSON: {row}");
    }
}

/// Every heading of every markdown file the marking wrote stands after a blank line (outside
/// fenced blocks), as CommonMark renderers and linters expect.
#[test]
fn every_markdown_heading_follows_a_blank_line() {
    let marked = marked();
    let mut files = vec!["summary.md".to_string()];
    for student in students() {
        files.extend([format!("students/{student}.md"), format!("feedback/{student}.md")]);
    }
    for name in files {
        let text = marked.text(&name);
        // The backticks of the fence a line is inside (none outside one).
        let (mut fence, mut previous) = (0, "");
        for (number, line) in text.lines().enumerate() {
            let ticks = line.bytes().take_while(|&b| b == b'`').count();
            match (fence, ticks) {
                (0, 3..) => fence = ticks,
                (open, _) if open > 0 && ticks >= open && line.trim_end().len() == ticks => fence = 0,
                _ => {}
            }
            let heading = fence == 0 && line.starts_with('#');
            assert!(
                !heading || number == 0 || previous.is_empty(),
                "{name}:{}: {line:?} after {previous:?}",
                number + 1
            );
            previous = line;
        }
    }
}

#[test]
fn reports_are_readable_by_others() {
    use std::os::unix::fs::PermissionsExt;
    let marked = marked();
    for name in ["summary.md", "grades.csv", "students/correct.md", "students/correct.json", "feedback/correct.md"] {
        let mode = std::fs::metadata(marked.out.join(name)).unwrap().permissions().mode();
        assert_eq!(mode & 0o044, 0o044, "{name} has mode {:o}", mode & 0o777);
    }
}

/// Whether `python3` runs here (the JUnit file is then parsed by Python's own XML parser).
fn python3() -> bool {
    std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// A small well-formedness check for where Python is missing: every tag closed in order, every
/// attribute quoted, no bare `&` or `<` in text.
fn well_formed(xml: &str) -> Result<usize, String> {
    let mut open: Vec<&str> = Vec::new();
    let mut elements = 0;
    let mut rest =
        xml.strip_prefix("<?xml").and_then(|r| r.split_once("?>")).map(|(_, r)| r).ok_or("no declaration")?;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        if text.contains('<')
            || text
                .replace("&amp;", "")
                .replace("&lt;", "")
                .replace("&gt;", "")
                .replace("&quot;", "")
                .replace("&apos;", "")
                .contains('&')
        {
            return Err(format!("bad text: {text}"));
        }
        let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
        let tag = &rest[start + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            if open.pop() != Some(name) {
                return Err(format!("</{name}> closes nothing open"));
            }
        } else {
            elements += 1;
            let name = tag.split_whitespace().next().unwrap_or("").trim_end_matches('/');
            if tag.matches('"').count() % 2 != 0 {
                return Err(format!("unbalanced quotes in <{tag}>"));
            }
            if !tag.ends_with('/') {
                open.push(name);
            }
        }
        rest = &rest[end + 1..];
    }
    match open.is_empty() {
        true => Ok(elements),
        false => Err(format!("left open: {open:?}")),
    }
}

/// Checks a JUnit file: it parses, and it counts every test of every report it covers.
fn check_junit(path: &std::path::Path, tests: usize, failing: usize) {
    let xml = std::fs::read_to_string(path).unwrap();
    if python3() {
        let script = "import sys, xml.etree.ElementTree as ET\n\
            root = ET.parse(sys.argv[1]).getroot()\n\
            assert root.tag == 'testsuites', root.tag\n\
            cases = root.findall('./testsuite/testcase')\n\
            bad = [c for c in cases if c.find('failure') is not None or c.find('error') is not None or c.find('skipped') is not None]\n\
            print(len(cases), len(bad), root.get('tests'))\n";
        let out = std::process::Command::new("python3").arg("-c").arg(script).arg(path).output().unwrap();
        assert!(
            out.status.success(),
            "Python cannot parse {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let counts = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert_eq!(counts, format!("{tests} {failing} {tests}"), "{}", path.display());
    } else {
        eprintln!("python3 is not installed: checking {} with the test's own XML check", path.display());
        well_formed(&xml).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(xml.matches("<testcase ").count(), tests);
    }
}

#[test]
fn the_class_junit_file_parses_and_counts_every_test() {
    let marked = marked();
    let mut tests = 0;
    let mut failing = 0;
    for student in students() {
        let report = marked.json(&student);
        if report["build"]["verdict"] != "ok" {
            // One failed case per part in place of the tests that could not run.
            let parts = report["parts"].as_array().unwrap().len();
            (tests, failing) = (tests + parts, failing + parts);
            continue;
        }
        for test in tests_of(&report) {
            tests += 1;
            failing += usize::from(test["verdict"] != "accepted");
        }
    }
    check_junit(&marked.out.join("junit.xml"), tests, failing);
    assert!(well_formed(&marked.text("junit.xml")).is_ok(), "the fallback check accepts what Python does");
}

/// Checks a Gradescope results.json against the fields of Gradescope's specification.
fn check_gradescope(results: &serde_json::Value, report: &serde_json::Value) {
    assert_eq!(units(&results["score"]), units(&report["score"]));
    let tests = results["tests"].as_array().expect("tests");
    let of_report = tests_of(report);
    assert_eq!(tests.len(), of_report.len());
    let mut sum = 0;
    for (test, full) in tests.iter().zip(of_report) {
        // A hidden test's name would give it away: students see `PART hidden N`.
        let (part, _) = full["id"].as_str().unwrap().split_once('/').unwrap();
        match full["visible"] == true {
            true => assert_eq!(test["name"], full["id"]),
            false => assert!(test["name"].as_str().unwrap().starts_with(&format!("{part} hidden ")), "{test}"),
        }
        assert!(matches!(test["status"].as_str(), Some("passed" | "failed")), "{test}");
        assert_eq!(test["status"] == "passed", full["verdict"] == "accepted");
        let visibility = if full["visible"] == true { "visible" } else { "hidden" };
        assert_eq!(test["visibility"], visibility);
        assert!(test["output"].is_string() && test["max_score"].is_number());
        // A grouped test says what its group earned of what it was worth.
        if full["group"].is_string() {
            let output = test["output"].as_str().unwrap();
            assert!(output.lines().nth(1).is_some_and(|line| line.starts_with("Group ")), "{output}");
        }
        sum += units(&test["score"]);
        if full["visible"] == false {
            let output = test["output"].as_str().unwrap();
            assert!(!output.contains("instances/"), "a hidden test's output names its puzzle: {output}");
        }
    }
    assert_eq!(sum, units(&results["score"]), "the tests sum to the score");
}

/// Checks a PrairieLearn results file: its fields and types, a score from 0 to 1.
fn check_prairielearn(results: &serde_json::Value, report: &serde_json::Value) {
    assert!(results["gradable"].is_boolean());
    let score = results["score"].as_f64().expect("score");
    assert!((0.0..=1.0).contains(&score));
    let expected = report["score"].as_f64().unwrap() / report["max_score"].as_f64().unwrap();
    assert!((score - expected).abs() < 1e-9);
    for test in results["tests"].as_array().unwrap() {
        for field in ["name", "description", "message", "output"] {
            assert!(test[field].is_string(), "{field}: {test}");
        }
        assert!(test["points"].as_f64().unwrap() <= test["max_points"].as_f64().unwrap());
    }
}

#[test]
fn every_students_gradescope_and_prairielearn_files_follow_their_formats() {
    let marked = marked();
    for student in students() {
        let report = marked.json(&student);
        let read = |name: &str| -> serde_json::Value { serde_json::from_str(&marked.text(name)).unwrap() };
        check_gradescope(&read(&format!("gradescope/{student}.json")), &report);
        check_prairielearn(&read(&format!("prairielearn/{student}.json")), &report);
    }
    // A build failure's result carries the compiler's errors, as the student needs them.
    let failed = marked.text("prairielearn/does-not-compile.json");
    let output = serde_json::from_str::<serde_json::Value>(&failed).unwrap()["output"].as_str().unwrap().to_string();
    assert!(output.contains("Build output (end)") && output.contains("error:"), "{output}");
}

#[test]
fn the_canvas_gradebook_has_a_points_possible_row_and_every_total() {
    let marked = marked();
    let csv = marked.text("canvas.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("Student,ID,SIS User ID,SIS Login ID,Section,CS3105 Practical 1: Search in Black Hole Patience")
    );
    assert_eq!(lines.next(), Some("Points Possible,,,,,20.00"));
    let grades = marked.text("grades.csv");
    for (row, grade) in lines.zip(grades.lines().skip(1)) {
        let cells: Vec<&str> = row.split(',').collect();
        let grade: Vec<&str> = grade.split(',').collect();
        assert_eq!(cells.len(), 6, "{row}");
        assert_eq!((cells[0], cells[3], cells[5]), (grade[0], grade[0], *grade.last().unwrap()));
    }
}

/// `bhgrade test` on one visible test of the quick suite, with every export asked for.
#[test]
fn test_runs_one_test_with_its_exports_and_says_hidden_tests_are_not_included() {
    let dir = tempfile::tempdir().unwrap();
    let suite = crate::support::quick_suite(dir.path());
    let [gradescope, junit, prairielearn] = ["results.json", "junit.xml", "pl.json"].map(|f| dir.path().join(f));
    let output = crate::support::bhgrade()
        .arg("test")
        .arg(repo().join("fixtures/submissions/check-one-short"))
        .arg("--suite")
        .arg(&suite)
        .args(["--only", "one-move-short-handout", "--gradescope"])
        .arg(&gradescope)
        .arg("--junit")
        .arg(&junit)
        .arg("--prairielearn")
        .arg(&prairielearn)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    // The test is worth what `mark` says it is worth, not a rescaled share.
    let marked = marked().json("check-one-short");
    let worth =
        tests_of(&marked).into_iter().find(|t| t["id"] == "part1/one-move-short-handout").unwrap()["max_score"].clone();
    assert!(stdout.contains(&format!("**Score: 0.00 / {:.2}**", worth.as_f64().unwrap())), "{stdout}");
    assert!(stdout.contains("Hidden tests are not included"), "{stdout}");
    assert!(stdout.contains("other visible tests"), "{stdout}");
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&gradescope).unwrap()).unwrap();
    assert_eq!(results["tests"].as_array().unwrap().len(), 1);
    assert_eq!(results["tests"][0]["status"], "failed");
    assert_eq!(results["tests"][0]["visibility"], "visible");
    check_junit(&junit, 1, 1);
    let pl: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&prairielearn).unwrap()).unwrap();
    assert_eq!(pl["score"], 0.0);
}

#[test]
fn only_names_the_known_tests_when_it_finds_none() {
    let output = crate::support::bhgrade()
        .args(["test", ".", "--only", "no-such-test", "--suite"])
        .arg(repo().join("suites/cs3105-p1"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no test `no-such-test` in the suite; its tests are: part1/valid-handout,"), "{stderr}");
    assert!(!stderr.contains("part1/valid-two-ranks"), "hidden tests are not listed: {stderr}");
}

/// Runs bhgrade with `args`, returning its exit status and standard error.
fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let output = crate::support::bhgrade().args(args).output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn bad_command_lines_are_refused_before_anything_is_marked() {
    let dir = tempfile::tempdir().unwrap();
    let os = |s: &str| std::ffi::OsString::from(s);
    let suite = repo().join("suites/cs3105-p1").into_os_string();
    let one = repo().join("fixtures/submissions/correct").into_os_string();
    // One submission's own folder given to `mark`.
    let (status, stderr) =
        run(&[&os("mark"), &one, &os("--suite"), &suite, &os("--out"), dir.path().join("o").as_os_str()]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains("looks like one submission (it has `src/`)") && stderr.contains("bhgrade test"),
        "{stderr}"
    );
    // `--out` is a file.
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let subs = repo().join("fixtures/submissions").into_os_string();
    let (status, stderr) = run(&[&os("mark"), &subs, &os("--suite"), &suite, &os("--out"), file.as_os_str()]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("exists and is not a folder"), "{stderr}");
    // A missing folder is named once.
    let missing = dir.path().join("missing");
    let (status, stderr) = run(&[
        &os("mark"),
        missing.as_os_str(),
        &os("--suite"),
        &suite,
        &os("--out"),
        dir.path().join("o").as_os_str(),
    ]);
    assert_eq!(status, Some(2), "{stderr}");
    assert_eq!(stderr.matches(&*missing.to_string_lossy()).count(), 1, "{stderr}");
    // `test` on a folder that is not a submission.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (status, stderr) = run(&[&os("test"), empty.as_os_str(), &os("--suite"), &suite, &os("--quiet")]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("not a submission"), "{stderr}");
    // `test` in a submission's `src` whose build.sh is missing: the folder is named.
    let src = crate::support::repo().join("fixtures/submissions/no-build-script/src");
    let (status, stderr) = run(&[&os("test"), src.as_os_str(), &os("--suite"), &suite, &os("--quiet")]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("build.sh is missing from the submission's top folder\n"), "names the folder: {stderr}");
}
