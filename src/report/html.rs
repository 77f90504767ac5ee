//! The class page: a [`ClassReport`] → the text of `index.html`, one self-contained file (inline
//! CSS, JS and SVG; nothing is fetched) that a marker opens in a browser: a sortable table of
//! students, a histogram of totals, a test-by-student heat map of verdicts, and for each kind of
//! test the reference searches for (SOLVE, SOLVEWORM) every student's CPU time against the
//! reference's search nodes.
//!
//! Layout, CSS and JS live in `report-templates/index.html.j2`, rendered by minijinja with HTML
//! auto-escaping, so every student-controlled string (a name is a folder name; an explanation
//! quotes the program's output) reaches the page escaped. The SVG charts are built here, every
//! string in them through [`escape`]. No data is embedded as JSON or inside `<script>`: the
//! page's script reads the DOM (`data-*` attributes), so no student string can end a script.

use std::fmt::Write as _;

use minijinja::{context, value::Value, AutoEscape, Environment};
use serde::Serialize;

use crate::build::BuildVerdict;
use crate::results::model::{ClassReport, StudentReport, TestReport};
use crate::results::text::shorten;
use crate::verdict::Verdict;

use super::roster::LmsNotes;

const TEMPLATE: &str = include_str!("../../report-templates/index.html.j2");

/// How many bars the histogram of totals has.
const BINS: usize = 10;

/// The class page for `class`, with what the LMS and the roster said of it: a whole HTML document.
pub fn class_page(class: &ClassReport, notes: &LmsNotes) -> Result<String, minijinja::Error> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    // Explicit, whatever the template's name: the page must never depend on a naming rule.
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.add_template("index.html", TEMPLATE)?;

    let students: Vec<StudentRow> =
        class.students.iter().enumerate().map(|(i, s)| StudentRow::of(i, s, class.max_score)).collect();
    let tests = test_columns(&class.students);
    let heat: Vec<HeatRow> = tests.iter().map(|test| HeatRow::of(test, &class.students)).collect();
    let scatters: Vec<Scatter> = search_kinds(&tests)
        .into_iter()
        .map(|kind| Scatter { svg: Value::from_safe_string(scatter_svg(&kind, class)), kind })
        .collect();
    let totals: Vec<f64> = class.students.iter().map(|s| s.score).collect();
    let verdicts: Vec<VerdictStyle> = Verdict::ALL
        .iter()
        .map(|&v| VerdictStyle { name: v.name(), label: v.label(), color: verdict_color(v) })
        .collect();
    env.get_template("index.html")?.render(context! {
        c => class,
        notes => notes,
        students => students,
        heat => heat,
        scatters => scatters,
        verdicts => verdicts,
        histogram => Value::from_safe_string(histogram_svg(class)),
        stats => Stats::of(&totals),
        max_score => number(class.max_score),
        quality_bands => quality::labels(),
        quality => quality::spreads(class),
    })
}

/// One row of the students' table (and the colour the student has in every chart).
#[derive(Serialize)]
struct StudentRow {
    /// The student's position in the class (name order): `data-i` everywhere on the page.
    index: usize,
    name: String,
    /// The student's markdown report, percent-encoded for an `href`.
    href: String,
    color: String,
    parts: Vec<String>,
    part_scores: Vec<f64>,
    score: f64,
    score_text: String,
    /// The total as a percentage of the class's maximum, for the bar behind it.
    score_pct: f64,
    /// Handed in late, as the LMS says.
    late: bool,
    build: &'static str,
    build_label: &'static str,
    build_detail: String,
    accepted: usize,
    tests: usize,
    /// e.g. "3 wrong answer, 47 accepted".
    verdicts: String,
}

impl StudentRow {
    fn of(index: usize, s: &StudentReport, max_score: f64) -> StudentRow {
        let all = || s.parts.iter().flat_map(|p| &p.tests);
        let counts: Vec<String> = s.verdict_counts().iter().map(|(v, n)| format!("{n} {}", v.label())).collect();
        StudentRow {
            index,
            name: s.student.clone(),
            href: super::student_link(&s.student),
            color: student_color(index),
            parts: s.parts.iter().map(|p| number(p.score)).collect(),
            part_scores: s.parts.iter().map(|p| p.score).collect(),
            score: s.score,
            score_text: number(s.score),
            score_pct: if max_score > 0.0 { (100.0 * s.score / max_score).clamp(0.0, 100.0).round() } else { 0.0 },
            late: s.lms.as_ref().is_some_and(|lms| lms.late),
            build: BuildVerdict::name(s.build.verdict),
            build_label: BuildVerdict::label(s.build.verdict),
            build_detail: shorten(&s.build.detail, 200),
            accepted: all().filter(|t| t.verdict == Verdict::Accepted).count(),
            tests: all().count(),
            verdicts: counts.join(", "),
        }
    }
}

/// A test as the page knows it: its id, kind and the reference's search nodes.
struct TestColumn {
    id: String,
    kind: String,
    part: String,
    visible: bool,
    nodes: Option<u64>,
    /// The test's group in its part, when its suite groups tests.
    group: Option<String>,
}

/// Every test of the class in the order of the suite, with no repeats: the union over students,
/// so a class whose students ran different tests (merged shards of an edited suite) loses none.
fn test_columns(students: &[StudentReport]) -> Vec<TestColumn> {
    let mut columns: Vec<TestColumn> = Vec::new();
    for student in students {
        for part in &student.parts {
            for test in &part.tests {
                if !columns.iter().any(|c| c.id == test.id) {
                    columns.push(TestColumn {
                        id: test.id.clone(),
                        kind: test.kind.clone(),
                        part: part.id.clone(),
                        visible: test.visible,
                        nodes: test.reference_nodes,
                        group: test.group.clone(),
                    });
                }
            }
        }
    }
    columns
}

/// A student's report of one test, if they have one.
fn find<'a>(student: &'a StudentReport, id: &str) -> Option<&'a TestReport> {
    student.parts.iter().flat_map(|p| &p.tests).find(|t| t.id == id)
}

/// One row of the heat map: a test, each student's verdict of it, and how many failed it.
#[derive(Serialize)]
struct HeatRow {
    id: String,
    kind: String,
    part: String,
    visible: bool,
    group: Option<String>,
    /// Students who ran the test and did not get it accepted.
    failed: usize,
    /// Students who ran the test (a submission that did not build ran none).
    ran: usize,
    /// `failed` of `ran` in percent, for the bar and for sorting.
    failed_pct: u32,
    cells: Vec<HeatCell>,
}

#[derive(Serialize)]
struct HeatCell {
    index: usize,
    verdict: &'static str,
    /// The tooltip: student, test, verdict, CPU time and why.
    title: String,
}

impl HeatRow {
    fn of(test: &TestColumn, students: &[StudentReport]) -> HeatRow {
        let cells: Vec<HeatCell> = students
            .iter()
            .enumerate()
            .map(|(index, student)| match find(student, &test.id) {
                Some(t) => {
                    let mut title = format!("{} · {}: {}", student.student, test.id, t.verdict.label());
                    if ran(t.verdict) {
                        let _ = write!(title, ", {} ms CPU", t.cpu_ms);
                    }
                    if !t.explanation.is_empty() && t.verdict != Verdict::Accepted {
                        let _ = write!(title, "\n{}", shorten(&t.explanation, 160));
                    }
                    HeatCell { index, verdict: t.verdict.name(), title }
                }
                None => HeatCell {
                    index,
                    verdict: Verdict::NotRun.name(),
                    title: format!("{} · {}: no result", student.student, test.id),
                },
            })
            .collect();
        let verdicts = || students.iter().filter_map(|s| find(s, &test.id)).map(|t| t.verdict);
        let ran_count = verdicts().filter(|&v| ran(v)).count();
        let failed = verdicts().filter(|&v| failed(v)).count();
        HeatRow {
            id: test.id.clone(),
            kind: test.kind.clone(),
            part: test.part.clone(),
            visible: test.visible,
            group: test.group.clone(),
            failed,
            ran: ran_count,
            failed_pct: (100 * failed).checked_div(ran_count).unwrap_or(0) as u32,
            cells,
        }
    }
}

/// Whether a test with this verdict ran the student's program (so its times mean something).
fn ran(verdict: Verdict) -> bool {
    !matches!(verdict, Verdict::NotRun | Verdict::HarnessError)
}

/// Whether a test was run and not accepted: what "failed by" counts, and an answer that was
/// not valid on the quality table.
fn failed(verdict: Verdict) -> bool {
    ran(verdict) && verdict != Verdict::Accepted
}

/// Whether a run's CPU time measures its search, for the scaling charts: it answered, or it
/// searched until a limit stopped it. A run that crashed, printed nothing or flooded its output
/// never searched in earnest, and plotted it would draw a flat line across the chart.
fn answered(verdict: Verdict) -> bool {
    match verdict {
        Verdict::Accepted | Verdict::WrongAnswer | Verdict::GaveUp | Verdict::FormatError => true,
        Verdict::TimeLimit | Verdict::MemoryLimit => true,
        Verdict::RuntimeError | Verdict::NoOutput | Verdict::OutputLimit => false,
        Verdict::NotRun | Verdict::HarnessError => false,
    }
}

/// A scatter plot of one kind of test.
#[derive(Serialize)]
struct Scatter {
    kind: String,
    svg: Value,
}

/// The kinds of test the reference searches for (some test of the kind has search nodes), in
/// the order they first appear: checks cost the reference no search, so they have no plot.
fn search_kinds(tests: &[TestColumn]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for test in tests {
        if test.nodes.unwrap_or(0) > 0 && !kinds.contains(&test.kind) {
            kinds.push(test.kind.clone());
        }
    }
    kinds
}

/// The class's totals in figures: how many, mean, median, lowest and highest.
#[derive(Serialize)]
struct Stats {
    count: usize,
    mean: String,
    median: String,
    min: String,
    max: String,
}

impl Stats {
    fn of(totals: &[f64]) -> Stats {
        let mut sorted = totals.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => sorted[n / 2],
            _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        };
        let mean = if n == 0 { 0.0 } else { sorted.iter().sum::<f64>() / n as f64 };
        Stats {
            count: n,
            mean: number(mean),
            median: number(median),
            min: number(sorted.first().copied().unwrap_or(0.0)),
            max: number(sorted.last().copied().unwrap_or(0.0)),
        }
    }
}

#[derive(Serialize)]
struct VerdictStyle {
    name: &'static str,
    label: &'static str,
    color: &'static str,
}

/// A verdict's colour in the heat map and legends: green for accepted, warm colours for wrong
/// answers, cool ones for limits, grey where nothing ran.
fn verdict_color(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Accepted => "#2f9e44",
        Verdict::WrongAnswer => "#e03131",
        Verdict::FormatError => "#f783ac",
        Verdict::GaveUp => "#f59f00",
        Verdict::TimeLimit => "#7048e8",
        Verdict::MemoryLimit => "#ae3ec9",
        Verdict::OutputLimit => "#1c7ed6",
        Verdict::RuntimeError => "#862e9c",
        Verdict::NoOutput => "#868e96",
        Verdict::HarnessError => "#212529",
        Verdict::NotRun => "#dee2e6",
    }
}

/// A student's colour in the charts: hues a golden angle apart, so neighbours in name order
/// (often similar names) never look alike, however many students there are.
fn student_color(index: usize) -> String {
    let hue = (index as f64 * 137.508) % 360.0;
    // Hues alone come close after a few dozen students: the lightness steps too, so two
    // neighbours in hue differ in brightness as well.
    let lightness = [38, 56, 47][index % 3];
    format!("hsl({hue:.0}, 70%, {lightness}%)")
}

/// A mark as the page shows it: always two decimals.
fn number(value: f64) -> String {
    // Marks are whole hundredths: every figure of the page with two decimals, so a column's
    // numbers line up and read alike (18.50, not 18.5 beside 18.47).
    crate::score::format(value)
}

/// Escapes text for HTML and SVG, in element content and in quoted attributes alike.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The histogram of totals: [`BINS`] equal bars from 0 to the class's maximum mark, each with
/// the students in it as its tooltip and its count in `data-count`.
fn histogram_svg(class: &ClassReport) -> String {
    let (width, height) = (560.0, 220.0);
    // Room on the right for half the last tick label (the maximum mark), centred on the axis end.
    let (left, right, top, bottom) = (40.0, 28.0, 12.0, 36.0);
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let max_score = if class.max_score > 0.0 { class.max_score } else { 1.0 };
    let mut bins: Vec<Vec<&str>> = vec![Vec::new(); BINS];
    for s in &class.students {
        let bin = ((s.score / max_score) * BINS as f64).floor().clamp(0.0, (BINS - 1) as f64) as usize;
        bins[bin].push(&s.student);
    }
    let highest = bins.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut svg = format!(
        r#"<svg class="histogram" viewBox="0 0 {width} {height}" role="img" aria-label="Histogram of totals">"#
    );
    // Grid lines and counts on the left: every whole count when few, else about five.
    let step = highest.div_ceil(5).max(1);
    for count in (0..=highest).step_by(step) {
        let y = top + plot_h - plot_h * count as f64 / highest as f64;
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{left}" x2="{x2}" y1="{y:.1}" y2="{y:.1}"/><text class="tick" x="{tx}" y="{ty:.1}" text-anchor="end">{count}</text>"#,
            x2 = left + plot_w,
            tx = left - 6.0,
            ty = y + 4.0
        );
    }
    let bar_w = plot_w / BINS as f64;
    for (i, names) in bins.iter().enumerate() {
        let (from, to) = (max_score * i as f64 / BINS as f64, max_score * (i + 1) as f64 / BINS as f64);
        let h = plot_h * names.len() as f64 / highest as f64;
        let x = left + bar_w * i as f64;
        let tip = match names.len() {
            0 => format!("{} to {}: nobody", number(from), number(to)),
            n => format!("{} to {}: {n} ({})", number(from), number(to), names.join(", ")),
        };
        let _ = write!(
            svg,
            r#"<rect class="bar" data-count="{n}" x="{bx:.1}" y="{y:.1}" width="{bw:.1}" height="{h:.1}"><title>{tip}</title></rect>"#,
            n = names.len(),
            bx = x + 1.0,
            y = top + plot_h - h,
            bw = bar_w - 2.0,
            tip = escape(&tip)
        );
        let _ = write!(
            svg,
            r#"<text class="tick" x="{x:.1}" y="{y}" text-anchor="middle">{label}</text>"#,
            y = top + plot_h + 14.0,
            label = number(from)
        );
    }
    let _ = write!(
        svg,
        r#"<text class="tick" x="{x:.1}" y="{y}" text-anchor="middle">{label}</text><text class="axis" x="{cx:.1}" y="{ly}" text-anchor="middle">total mark</text></svg>"#,
        x = left + plot_w,
        y = top + plot_h + 14.0,
        label = number(max_score),
        cx = left + plot_w / 2.0,
        ly = height - 4.0
    );
    svg
}

/// One student's point on a scatter plot.
struct Point<'a> {
    test: &'a str,
    nodes: u64,
    cpu_ms: u64,
    verdict: Verdict,
}

/// Each student's points of `kind` tests that ran and have a reference node count, sorted by
/// nodes then CPU time, with the student's index in the class; students without any left out.
fn scatter_series<'a>(kind: &str, class: &'a ClassReport) -> Vec<(usize, &'a StudentReport, Vec<Point<'a>>)> {
    let mut series = Vec::new();
    for (index, student) in class.students.iter().enumerate() {
        let mut points: Vec<Point> = student
            .parts
            .iter()
            .flat_map(|p| &p.tests)
            .filter(|t| t.kind == kind && answered(t.verdict))
            .filter_map(|t| {
                let nodes = t.reference_nodes?;
                Some(Point { test: &t.id, nodes, cpu_ms: t.cpu_ms, verdict: t.verdict })
            })
            .collect();
        points.sort_by_key(|p| (p.nodes, p.cpu_ms));
        if !points.is_empty() {
            series.push((index, student, points));
        }
    }
    series
}

/// The scatter plot of one kind of test: x the reference's search nodes, y the student's CPU
/// time, both on log scales (hardness spans orders of magnitude); one line per student through
/// their tests in order of hardness. A solver that scales stays flat, one that does not climbs.
/// Filled dots were accepted; hollow ones were not (the tooltip says why).
fn scatter_svg(kind: &str, class: &ClassReport) -> String {
    let (width, height) = (640.0, 360.0);
    let (left, right, top, bottom) = (64.0, 16.0, 14.0, 44.0);
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let series = scatter_series(kind, class);
    // Logarithms of at least 1, so a test of no search (an empty layout) sits at the left edge
    // and a run of under a millisecond at the bottom.
    let log = |v: u64| (v.max(1) as f64).log10();
    let all = || series.iter().flat_map(|(_, _, points)| points);
    let x_hi = all().map(|p| log(p.nodes)).fold(1.0_f64, f64::max).ceil();
    let y_lo = all().map(|p| log(p.cpu_ms)).fold(f64::INFINITY, f64::min).floor();
    let y_lo = if y_lo.is_finite() { y_lo } else { 0.0 };
    let y_hi = all().map(|p| log(p.cpu_ms)).fold(y_lo + 1.0, f64::max).ceil();
    let px = |nodes: u64| left + plot_w * log(nodes) / x_hi;
    let py = |cpu: u64| top + plot_h - plot_h * (log(cpu) - y_lo) / (y_hi - y_lo);

    let mut svg = format!(
        r#"<svg class="scatter" data-kind="{k}" viewBox="0 0 {width} {height}" role="img" aria-label="CPU time against the reference's search nodes, {k} tests">"#,
        k = escape(kind)
    );
    for decade in 0..=(x_hi as u32) {
        let x = left + plot_w * f64::from(decade) / x_hi;
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{y2}"/><text class="tick" x="{x:.1}" y="{ty}" text-anchor="middle">{label}</text>"#,
            y2 = top + plot_h,
            ty = top + plot_h + 14.0,
            label = si(10_f64.powi(decade as i32))
        );
    }
    for decade in (y_lo as i32)..=(y_hi as i32) {
        let y = top + plot_h - plot_h * (f64::from(decade) - y_lo) / (y_hi - y_lo);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{left}" x2="{x2}" y1="{y:.1}" y2="{y:.1}"/><text class="tick" x="{tx}" y="{ty:.1}" text-anchor="end">{label}</text>"#,
            x2 = left + plot_w,
            tx = left - 6.0,
            ty = y + 4.0,
            label = duration(10_f64.powi(decade))
        );
    }
    let _ = write!(
        svg,
        r#"<text class="axis" x="{cx:.1}" y="{ly}" text-anchor="middle">reference's search nodes (log)</text><text class="axis" transform="translate(14 {cy:.1}) rotate(-90)" text-anchor="middle">student's CPU time (log)</text>"#,
        cx = left + plot_w / 2.0,
        ly = height - 6.0,
        cy = top + plot_h / 2.0
    );
    for (index, student, points) in &series {
        let color = student_color(*index);
        let name = escape(&student.student);
        let _ = write!(svg, r#"<g class="series" data-i="{index}" data-student="{name}" style="--c: {color}">"#);
        let path: Vec<String> = points.iter().map(|p| format!("{:.1},{:.1}", px(p.nodes), py(p.cpu_ms))).collect();
        let _ = write!(svg, r#"<polyline points="{}"/>"#, path.join(" "));
        for p in points {
            let tip = format!(
                "{} · {}: {} ms CPU, reference {} nodes, {}",
                student.student,
                p.test,
                p.cpu_ms,
                p.nodes,
                p.verdict.label()
            );
            let class = if p.verdict == Verdict::Accepted { "dot" } else { "dot failed" };
            let _ = write!(
                svg,
                r#"<circle class="{class}" data-test="{t}" cx="{x:.1}" cy="{y:.1}" r="4"><title>{tip}</title></circle>"#,
                t = escape(p.test),
                x = px(p.nodes),
                y = py(p.cpu_ms),
                tip = escape(&tip)
            );
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    svg
}

/// A count in SI style: 1, 10, 100, 1k, 10k, 100k, 1M.
fn si(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{}G", v / 1e9),
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}k", v / 1e3),
        v => format!("{v}"),
    }
}

/// Milliseconds as a tick label: 1 ms, 10 ms, 100 ms, 1 s, 10 s.
fn duration(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{} s", ms / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

mod quality;
#[cfg(test)]
mod tests;
