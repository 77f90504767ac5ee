//! The class page's own checks: nothing a student wrote becomes markup, the charts fit and
//! plot only what measures a search.

use super::*;
use crate::results::model::ClassHeader;

/// A class of one student whose name and output try to end the page's script.
fn hostile_class() -> ClassReport {
    let name = "</script><script>alert(1)</script>";
    let test = serde_json::json!({
        "id": "part2/hard", "kind": "solve", "instance": "p.txt", "verdict": "wrong_answer",
        "verdict_label": "wrong answer", "explanation": format!("printed `{name}`"), "wall_ms": 9,
        "cpu_ms": 1500, "peak_rss_kb": 1, "score": 0.0, "max_score": 1.0, "command": "",
        "expected": "1", "expected_detail": "", "input": null, "first_line": name,
        "stderr_tail": "", "reference_nodes": 12345
    });
    let environment = serde_json::json!({
        "bhgrade_version": "0", "machine": "m", "cores": 2, "load_average": "0", "jobs": 1,
        "marked_at": "now", "limits": "", "isolation": []
    });
    let student = serde_json::json!({
        "student": name, "suite": "s", "suite_title": "S", "score": 0.0, "max_score": 1.0,
        "build": { "verdict": "ok", "detail": "", "log_tail": "", "wall_ms": 1 },
        "parts": [{ "id": "part2", "title": "P", "score": 0.0, "max_score": 1.0, "passed": 0, "tests": [test] }],
        "check_table": [], "environment": environment
    });
    let student: StudentReport = serde_json::from_value(student).expect("a student report");
    let header = ClassHeader {
        suite: "s".into(),
        suite_title: "S".into(),
        suite_digest: String::new(),
        part_ids: vec!["part2".into()],
        max_score: 1.0,
    };
    let environment = student.environment.clone();
    ClassReport::new(header, vec![student], environment, Vec::new(), Vec::new())
}

#[test]
fn nothing_a_student_wrote_becomes_markup() {
    let page = class_page(&hostile_class(), &LmsNotes::default()).expect("renders");
    assert_eq!(page.matches("<script").count(), 1, "only the page's own script");
    assert_eq!(page.matches("</script>").count(), 1);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(page.contains("href=\"students&#x2f;%3C%2Fscript%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E.md\""));
    assert!(page.contains("data-kind=\"solve\""), "a search kind gets its plot");
}

/// The histogram's last tick label (the maximum mark, centred on the axis's end) fits in the
/// picture: at the page's 11 px, a digit or point is at most 0.6 em wide.
#[test]
fn the_histogram_s_last_axis_label_is_not_cut_off() {
    for max in [20.0, 100.0, 999.99] {
        let mut class = hostile_class();
        class.max_score = max;
        let svg = histogram_svg(&class);
        let label = number(max);
        let tick = format!(r#"" text-anchor="middle">{label}</text><text class="axis""#);
        let before = &svg[..svg.find(&tick).expect("the last tick label")];
        let x: f64 = before.rsplit("x=\"").next().unwrap().split('"').next().unwrap().parse().unwrap();
        let width: f64 = svg.split("viewBox=\"0 0 ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(x + label.len() as f64 * 11.0 * 0.6 / 2.0 <= width, "{label} at {x} of {width}");
    }
}

#[test]
fn marks_and_names_are_written_for_their_place() {
    assert_eq!([number(20.0), number(9.6251), number(0.1), number(-0.0001)], ["20.00", "9.63", "0.10", "0.00"]);
    assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    assert_eq!(super::super::student_link("a b#c?d%é"), "students/a%20b%23c%3Fd%25%C3%A9.md");
    assert_eq!([si(1.0), si(1e3), si(1e6)], ["1", "1k", "1M"]);
    assert_eq!([duration(10.0), duration(1000.0)], ["10 ms", "1 s"]);
}

/// A run that never answered (it crashed, printed nothing, flooded its output) draws no point in
/// the scaling charts; one that answered, or searched until its time ran out, does.
#[test]
fn runs_that_never_answered_are_left_out_of_the_scaling_charts() {
    for (verdict, plotted) in [
        (Verdict::RuntimeError, false),
        (Verdict::NoOutput, false),
        (Verdict::OutputLimit, false),
        (Verdict::WrongAnswer, true),
        (Verdict::TimeLimit, true),
    ] {
        let mut class = hostile_class();
        class.students[0].parts[0].tests[0].verdict = verdict;
        assert_eq!(!scatter_series("solve", &class).is_empty(), plotted, "{verdict:?}");
    }
}
