//! Markdown injection (issue 13): students whose folder names and build logs, and a program
//! whose output and standard error, print a code fence, a heading, a `<script>`, a table row
//! and an escape sequence, marked once with the tiny suite. Every markdown report is then
//! parsed with a real CommonMark parser (GFM tables on): the injected text must be shown, as
//! printed in fences and code and as text elsewhere, and never become a heading, raw HTML, a
//! table row or cell, a link, emphasis, or a raw escape byte.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::support::{mark_command, repo};

/// What every hostile text prints: each line is live markdown or a terminal escape.
const LINES: [&str; 5] = ["```", "# Heading", "<script>alert(1)</script>", "| a | b |", "\x1b[31mred"];

/// Students whose build prints [`LINES`] on both streams and fails.
const FAILING: [&str; 4] = ["a|b", "tick`s``", "[x](y)", "<b>bold"];

/// The student whose program prints [`LINES`] on one line, then on their own, and on stderr.
const PRINTING: &str = "two words # - 1. *e*";

const TITLE: &str = "Tiny suite for scale tests";

struct Marked {
    _dir: tempfile::TempDir,
    out: PathBuf,
    status: Option<i32>,
    stderr: String,
}

fn write(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, body).expect("write");
}

fn marked() -> &'static Marked {
    static MARKED: OnceLock<Marked> = OnceLock::new();
    MARKED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let subs = dir.path().join("subs");
        // printf's `\033` is the escape byte; the log has both streams.
        let printed = LINES.join("\\n").replace('\x1b', "\\033");
        let build = format!("printf '{printed}\\n'\nprintf '{printed}\\n' >&2\nexit 1\n");
        for student in FAILING {
            write(&subs.join(student).join("src/build.sh"), &build);
        }
        let java_line = LINES.join(" ").replace('\x1b', "\\033");
        let java_lines = LINES.join("\\n").replace('\x1b', "\\033");
        let program = format!(
            "public class BHMain {{\n    public static void main(String[] args) {{\n        \
             System.out.println(\"{java_line}\\n{java_lines}\");\n        \
             System.err.println(\"{java_lines}\");\n    }}\n}}\n"
        );
        write(&subs.join(PRINTING).join("src/BHMain.java"), &program);
        write(&subs.join(PRINTING).join("src/build.sh"), "javac BHMain.java\n");
        let out = dir.path().join("out");
        let output =
            mark_command(&repo().join("fixtures/suites/tiny"), &out, &subs).output().expect("run bhgrade mark");
        Marked {
            _dir: dir,
            out,
            status: output.status.code(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    })
}

/// A markdown file as a reader sees it.
#[derive(Debug, Default)]
struct Doc {
    headings: Vec<String>,
    /// Each table's rows (its head first), each row's cells' text.
    tables: Vec<Vec<Vec<String>>>,
    links: Vec<String>,
    code_blocks: Vec<String>,
    code_spans: Vec<String>,
    strong: usize,
    /// Raw HTML, emphasis, strikethrough, images, quotes: nothing a report writes itself.
    live: Vec<String>,
}

fn parse(markdown: &str) -> Doc {
    let mut doc = Doc::default();
    // The heading, code block or table cell being read.
    let (mut heading, mut block, mut cell): (Option<String>, Option<String>, Option<String>) = (None, None, None);
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match &event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => doc.headings.extend(heading.take()),
            Event::Start(Tag::CodeBlock(_)) => block = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => doc.code_blocks.extend(block.take()),
            Event::Start(Tag::Table(_)) => doc.tables.push(Vec::new()),
            Event::Start(Tag::TableHead | Tag::TableRow) => doc.tables.last_mut().expect("a table").push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let row = doc.tables.last_mut().and_then(|t| t.last_mut()).expect("a row");
                row.push(cell.take().expect("a cell"));
            }
            Event::Start(Tag::Link { dest_url, .. }) => doc.links.push(dest_url.to_string()),
            Event::Start(Tag::Strong) => doc.strong += 1,
            Event::Start(
                tag @ (Tag::Emphasis | Tag::Strikethrough | Tag::Image { .. } | Tag::BlockQuote(_) | Tag::HtmlBlock),
            ) => doc.live.push(format!("{tag:?}")),
            Event::Html(html) | Event::InlineHtml(html) => doc.live.push(html.to_string()),
            Event::Text(text) | Event::Code(text) => {
                if matches!(event, Event::Code(_)) {
                    doc.code_spans.push(text.to_string());
                }
                if let Some(open) = [&mut block, &mut heading, &mut cell].into_iter().flatten().next() {
                    open.push_str(text);
                }
            }
            _ => {}
        }
    }
    doc
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("two hex digits"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

fn every_student() -> Vec<&'static str> {
    let mut all: Vec<&str> = FAILING.iter().copied().chain([PRINTING]).collect();
    all.sort();
    all
}

/// Reads a report, checking what holds for every one: no raw escape byte, nothing live.
fn read(marked: &Marked, name: &str) -> (String, Doc) {
    let bytes = fs::read(marked.out.join(name)).unwrap_or_else(|e| panic!("no {name}: {e}\n{}", marked.stderr));
    assert!(!bytes.contains(&0x1b), "{name} holds a raw escape byte");
    let markdown = String::from_utf8(bytes).expect("UTF-8");
    let doc = parse(&markdown);
    assert!(doc.live.is_empty(), "{name}: live markup {:?}\n{markdown}", doc.live);
    assert!(!doc.headings.iter().any(|h| h.contains("Heading")), "{name}: {:?}", doc.headings);
    (markdown, doc)
}

/// The one table row whose first cell is `label`.
fn row<'a>(doc: &'a Doc, label: &str) -> &'a [String] {
    let rows = doc.tables.iter().flatten();
    let found = rows.filter(|r| r.first().is_some_and(|c| c == label)).collect::<Vec<_>>();
    assert_eq!(found.len(), 1, "one {label} row: {:?}", doc.tables);
    found[0]
}

#[test]
fn student_reports_show_the_injection_inert() {
    let marked = marked();
    assert_eq!(marked.status, Some(0), "{}", marked.stderr);
    for student in every_student() {
        for (file, suffix) in
            [(format!("students/{student}.md"), ""), (format!("feedback/{student}.md"), " (feedback)")]
        {
            let (markdown, doc) = read(marked, &file);
            // The name is shown whole, in the heading and as code in the table.
            assert_eq!(doc.headings[0], format!("{TITLE}: {student}{suffix}"), "{file}");
            assert_eq!(row(&doc, "Student"), ["Student".to_string(), student.to_string()], "{file}");
            assert!(doc.links.is_empty(), "{file}: links {:?}", doc.links);
            assert_eq!(doc.strong, 1, "{file}: only the score is bold");
            // A GFM parser drops a row's extra cells, so columns are checked by what is in them:
            // a stray `|` would shift the marks out of the last column of a test's row.
            for cells in doc.tables.iter().filter(|t| t[0][0] == "Test").flat_map(|t| &t[1..]) {
                assert!(cells[7].starts_with("0.00 / "), "{file}: {cells:?}");
            }
            let printed = LINES.join("\n").replace('\x1b', "\\x1b");
            if student == PRINTING {
                let one_line = LINES.join(" ").replace('\x1b', "\\x1b");
                assert!(doc.code_spans.contains(&one_line), "{file}: the first line as code: {:?}", doc.code_spans);
                assert!(doc.code_blocks.iter().any(|b| b.contains(&printed)), "{file}: stderr: {markdown}");
                assert_eq!(doc.tables.iter().flatten().filter(|r| r[0] == "solve/standard-deal").count(), 1);
            } else {
                let build = row(&doc, "Build");
                assert_eq!(build[1], "build_failed (bash build.sh failed: exit status 1)", "{file}");
                let log = doc.code_blocks.iter().find(|b| b.contains("--- stderr ---")).expect("the build log");
                assert_eq!(log.matches(&printed).count(), 2, "{file}: the log as printed: {log}");
            }
        }
    }
}

#[test]
fn the_summary_links_every_student_and_nothing_else() {
    let marked = marked();
    let (markdown, doc) = read(marked, "summary.md");
    let students = every_student();
    let links: Vec<String> = doc.links.iter().map(|l| percent_decode(l)).collect();
    let wanted: Vec<String> = students.iter().map(|s| format!("students/{s}.md")).collect();
    assert_eq!(links, wanted, "{markdown}");
    for link in &links {
        assert!(marked.out.join(link).is_file(), "{link} leads nowhere");
    }
    let table = doc.tables.iter().find(|t| t[0][0] == "Student").expect("the class table");
    let names: Vec<&str> = table[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, students, "one row per student, named in full: {markdown}");
    for cells in &table[1..] {
        let verdicts = if cells[0] == PRINTING { "3 format error" } else { "3 not run" };
        assert_eq!(cells[4..], ["0.00 / 2.00", verdicts], "{cells:?}");
    }
}

/// Students named as a spreadsheet formula, and one whose only source folder hides in a folder
/// whose name holds terminal escapes (a window title, a clipboard write), which the build's
/// explanation quotes: the gradebooks show every name as text (OWASP's `'` in front of a
/// formula), and nothing bhgrade prints carries an escape byte.
#[test]
fn names_stay_text_in_the_gradebooks_and_inert_on_the_terminal() {
    const FORMULAS: [&str; 4] = ["=HYPERLINK(\"x\";\"y\")", "+1+1", "-2", "@SUM(A1)"];
    const HIDDEN: &str = ".esc\x1b]0;owned\x07\x1b]52;c;cHduZWQ=\x07";
    let dir = tempfile::tempdir().expect("tempdir");
    let subs = dir.path().join("subs");
    for student in FORMULAS {
        write(&subs.join(student).join("src/build.sh"), "exit 1\n");
    }
    write(&subs.join("hidden-source").join(HIDDEN).join("src/build.sh"), "exit 1\n");
    // A direction override reverses what follows on a plain-text reader's screen.
    const REVERSED: &str = "rev\u{202e}gnp.exe";
    write(&subs.join(REVERSED).join("src/build.sh"), "exit 1\n");
    let out = dir.path().join("out");
    let output = mark_command(&repo().join("fixtures/suites/tiny"), &out, &subs).output().expect("run bhgrade mark");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!output.stderr.contains(&0x1b) && !output.stderr.contains(&0x07), "raw escapes: {stderr:?}");
    assert!(stderr.contains(".esc\\x1b]0;owned\\x07"), "the folder is named, escaped: {stderr}");
    for file in ["grades.csv", "canvas.csv"] {
        let csv = fs::read_to_string(out.join(file)).expect(file);
        for formula in FORMULAS {
            let cell = format!("'{formula}");
            let shown = if formula.contains(['"', ',']) { format!("\"{}\"", cell.replace('"', "\"\"")) } else { cell };
            assert!(csv.lines().any(|line| line.starts_with(&format!("{shown},"))), "{file}: {formula}: {csv}");
        }
        for line in csv.lines() {
            assert!(!line.starts_with(['=', '+', '-', '@']), "{file}: a formula: {line}");
        }
    }
    // Shown, never obeyed, in every plain-text output and on the terminal.
    for file in ["grades.csv", "canvas.csv", "summary.md"] {
        let text = fs::read_to_string(out.join(file)).expect(file);
        assert!(!text.contains('\u{202e}'), "{file} holds a raw override: {text}");
        assert!(text.contains("rev\\u{202e}gnp.exe"), "{file} names the student, escaped: {text}");
    }
    assert!(!stderr.contains('\u{202e}'), "the terminal got a raw override: {stderr}");
}
