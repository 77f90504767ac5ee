//! The LMS round trip: a folder as Canvas's "Download submissions" delivers it, marked with
//! the course's roster (Canvas's gradebook export), gives a `canvas.csv` Canvas imports row
//! for row: the roster's students in its order with its IDs, 0 for who handed nothing in, no
//! row for a submission that is no one's on the roster; one student per Canvas user however
//! many files they handed in, and a late one flagged.

use std::path::Path;

use crate::support::{bhgrade, repo};

/// `tar czf ARCHIVE -C FROM PATHS...`: an archive as a student would make it.
fn tar(archive: &Path, from: &Path, paths: &[&str]) {
    let status = std::process::Command::new("tar").arg("czf").arg(archive).arg("-C").arg(from).args(paths).status();
    assert!(status.unwrap().success(), "tar {}", archive.display());
}

const ROSTER: &str = "Student,ID,SIS User ID,SIS Login ID,Section,Practical 1 (4021)\n\
    \"    Points Possible\",,,,,25.00\n\
    \"Smith, Jane\",101,S0001,js1,CS3105 A\n\
    \"Doe, John\",102,S0002,jd2,CS3105 A\n\
    \"Lee, Ann\",103,S0003,al3,CS3105 B\n\
    \"Absent, Max\",104,S0004,ma4,CS3105 B\n\
    \"Student, Test\",999,,,\n";

#[test]
fn a_canvas_download_and_its_roster_give_a_gradebook_canvas_imports_row_for_row() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("submissions");
    std::fs::create_dir(&class).unwrap();
    let fixtures = repo().join("fixtures/submissions");
    tar(&class.join("smithjane_101_9001_p1.tar.gz"), &fixtures.join("correct"), &["src"]);
    tar(&class.join("doejohn_LATE_102_9002_p1.tar.gz"), &fixtures.join("check-one-short"), &["src"]);
    // Ann handed in her code in two archives and a note: one student, one copy.
    let correct = fixtures.join("correct");
    tar(
        &class.join("leeann_103_9003_first.tar.gz"),
        &correct,
        &["src/BHMain.java", "src/BHLayout.java", "src/build.sh"],
    );
    tar(&class.join("leeann_103_9007_second.tar.gz"), &correct, &["src/Checker.java", "src/Solver.java"]);
    std::fs::write(class.join("leeann_103_9008_notes.txt"), "my notes\n").unwrap();
    tar(&class.join("roguebob_105_9005_p1.tar.gz"), &correct, &["src"]);
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, ROSTER).unwrap();
    let out = dir.path().join("out");
    let marking = bhgrade()
        .args(["mark", "--jobs", "2", "--suite"])
        .arg(repo().join("fixtures/suites/tiny"))
        .arg("--roster")
        .arg(&roster)
        // The tiny suite's title names no column of the roster: the assignment is chosen.
        .args(["--canvas-column", "Practical 1 (4021)"])
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&marking.stderr).into_owned();
    assert_eq!(marking.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("roster: 1 student on the roster handed nothing in, 1 submission not on it"), "{stderr}");
    let mut students: Vec<String> = std::fs::read_dir(out.join("students"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
        .collect();
    students.sort();
    assert_eq!(students, ["doejohn", "leeann", "roguebob", "smithjane"], "one student per Canvas user");

    let report = |student: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join(format!("students/{student}.json"))).unwrap()).unwrap()
    };
    let (full, max) =
        (report("smithjane")["score"].as_f64().unwrap(), report("smithjane")["max_score"].as_f64().unwrap());
    assert_eq!(full, max, "the correct submission earns every mark");
    assert_eq!(report("leeann")["score"].as_f64().unwrap(), max, "Ann's two archives make one working submission");
    assert_eq!(report("leeann")["lms"]["files"], serde_json::json!(["first.tar.gz", "notes.txt", "second.tar.gz"]));
    let short = report("doejohn")["score"].as_f64().unwrap();
    assert!(short < max, "John's checker is wrong on a test");
    assert_eq!(report("doejohn")["lms"]["late"], true);

    let csv = std::fs::read_to_string(out.join("canvas.csv")).unwrap();
    let marks = |marks: f64| format!("{marks:.2}");
    let expected = [
        "Student,ID,SIS User ID,SIS Login ID,Section,Practical 1 (4021)".to_string(),
        format!("Points Possible,,,,,{}", marks(max)),
        format!("\"Smith, Jane\",101,S0001,js1,CS3105 A,{}", marks(max)),
        format!("\"Doe, John\",102,S0002,jd2,CS3105 A,{}", marks(short)),
        format!("\"Lee, Ann\",103,S0003,al3,CS3105 B,{}", marks(max)),
        "\"Absent, Max\",104,S0004,ma4,CS3105 B,0.00".to_string(),
    ];
    assert_eq!(csv.lines().collect::<Vec<_>>(), expected, "row by row");

    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let section = |title: &str| summary.split(title).nth(1).map(|rest| rest.split("\n#").next().unwrap().to_string());
    assert!(section("## Handed in late").is_some_and(|s| s.contains("- doejohn")), "{summary}");
    assert!(
        section("### On the roster, nothing handed in").is_some_and(|s| s.contains("Absent, Max (ma4)")),
        "{summary}"
    );
    assert!(section("### Handed in, not on the roster").is_some_and(|s| s.contains("- roguebob")), "{summary}");
    let markdown = std::fs::read_to_string(out.join("students/doejohn.md")).unwrap();
    assert!(markdown.contains("| Handed in | canvas user `102`: p1.tar.gz, **late** |"), "{markdown}");
    the_class_page_shows_the_absent_the_late_and_the_unlisted(&out);
}

/// The class page, as Chromium shows it, says what the summary says of the roster and the LMS:
/// Max handed nothing in (0 in canvas.csv), John was late (beside his row too), and roguebob is
/// no one's on the roster.
fn the_class_page_shows_the_absent_the_late_and_the_unlisted(out: &Path) {
    let Some(browser) = crate::html::browser_for("lms::the_class_page_shows_the_absent_the_late_and_the_unlisted")
    else {
        return;
    };
    let dom = browser.dom(&crate::html::url(&out.join("index.html"), ""));
    let element = |start: &str| {
        let from = dom.find(start).unwrap_or_else(|| panic!("no {start} on the class page"));
        let tag = start.trim_start_matches('<').split(' ').next().unwrap();
        let end = dom[from..].find(&format!("</{tag}>")).map_or(dom.len(), |end| from + end);
        dom[from..end].to_string()
    };
    assert!(element("<p id=\"late\"").contains("doejohn"), "{dom}");
    assert!(element("<ul id=\"absent\"").contains("Absent, Max (ma4): no submission of theirs was found"), "{dom}");
    assert!(element("<ul id=\"not-on-roster\"").contains("roguebob: not in canvas.csv"), "{dom}");
    assert!(dom.contains("3 of the 4 students on the roster"), "{dom}");
    let johns_row = dom.split("data-student=\"doejohn\"").nth(1).and_then(|row| row.split("</tr>").next());
    assert!(johns_row.is_some_and(|row| row.contains(">late</span>")), "{johns_row:?}");
}

#[test]
fn a_roster_that_is_not_canvass_export_is_refused_before_marking() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("grades.csv");
    std::fs::write(&roster, "student,total\nabc1,3\n").unwrap();
    let refused = bhgrade().arg("mark").arg("--roster").arg(&roster).arg("--out").arg(dir.path().join("out")).assert();
    let stderr = String::from_utf8_lossy(&refused.code(2).get_output().stderr).into_owned();
    assert!(stderr.contains("grades.csv:1: the header lacks Student, ID, SIS User ID, SIS Login ID"), "{stderr}");
    assert!(!dir.path().join("out").exists(), "nothing was marked");
}

#[test]
fn a_roster_with_two_columns_named_as_the_suite_is_refused_listing_them() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, "Student,ID,SIS User ID,SIS Login ID,Section,Tiny suite (1),Tiny suite for scale (2)\n")
        .unwrap();
    let refused = bhgrade()
        .args(["mark", "--suite"])
        .arg(repo().join("fixtures/suites/tiny"))
        .arg("--roster")
        .arg(&roster)
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert();
    let stderr = String::from_utf8_lossy(&refused.code(2).get_output().stderr).into_owned();
    assert!(stderr.contains("2 assignment columns are named as the suite (`Tiny suite for scale tests`)"), "{stderr}");
    assert!(
        stderr.contains("`Tiny suite (1)`, `Tiny suite for scale (2)`; choose one with --canvas-column"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists(), "nothing was marked");
}
