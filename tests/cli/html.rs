//! The class page, `OUT/index.html`, in a real browser: headless Chromium (Debian's `chromium`,
//! which `.ci/run` installs) loads the page of the marked fixture class, and the DOM it renders
//! must list every student, sort the table by the same clicks a marker makes (the page clicks a
//! heading itself when its address ends in `#sort=KEY`), and draw every chart; a screenshot is
//! saved. A class whose folder names are HTML must show them as text and run none of them.
//!
//! Where no Chromium can start, each test says it is skipped in the browser (the checks on the
//! file itself still run), since a machine without a browser is no fault of bhgrade's; under
//! `BHGRADE_NO_SKIP` (set by `.ci/run`) that is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::support::{copy_tree, mark_command, marked, repo};

/// How long one Chromium command may take (a page load here takes about a second).
const BROWSER_LIMIT: Duration = Duration::from_secs(60);

/// A headless Chromium that has shown it can start.
pub(crate) struct Browser {
    program: PathBuf,
    version: String,
}

impl Browser {
    /// The first of `$BHGRADE_CHROMIUM`, `chromium`, `chromium-browser`, `google-chrome` on the
    /// PATH that renders a blank page, or why none does.
    fn start() -> Result<Browser, String> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let named = std::env::var_os("BHGRADE_CHROMIUM").map(PathBuf::from);
        let on_path = ["chromium", "chromium-browser", "google-chrome"]
            .into_iter()
            .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)));
        let Some(program) = named.into_iter().chain(on_path).find(|p| p.is_file()) else {
            return Err("no chromium, chromium-browser or google-chrome on the PATH \
                        (`apt-get install chromium`, or set BHGRADE_CHROMIUM)"
                .into());
        };
        let mut browser = Browser { program, version: String::new() };
        let blank = browser.run(&["--dump-dom".into(), "about:blank".into()])?;
        if !blank.contains("<html") {
            return Err(format!("{} started but rendered no page", browser.program.display()));
        }
        browser.version = browser.run(&["--version".into()]).unwrap_or_default().trim().to_string();
        Ok(browser)
    }

    /// Runs Chromium headless with `args` and returns its standard output. Each run has its own
    /// new profile, so runs of tests in parallel share no lock. `--no-sandbox`: Chromium's
    /// sandbox cannot start as root nor in many containers, and the page is our own file.
    /// The other switches keep it off the network (closed here), as the page needs none.
    fn run(&self, args: &[String]) -> Result<String, String> {
        let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
        let stdout_path = scratch.path().join("stdout");
        let stderr_path = scratch.path().join("stderr");
        // Output goes to files, not pipes: a page's DOM is larger than a pipe holds, and
        // Chromium would block writing it while we wait for it to end.
        let file = |path: &Path| std::fs::File::create(path).map_err(|e| e.to_string());
        let mut child = Command::new(&self.program)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
            ])
            .arg(format!("--user-data-dir={}", scratch.path().join("profile").display()))
            .args(args)
            .stdin(Stdio::null())
            .stdout(file(&stdout_path)?)
            .stderr(file(&stderr_path)?)
            .spawn()
            .map_err(|e| format!("{} does not start: {e}", self.program.display()))?;
        let status = match child.wait_timeout(BROWSER_LIMIT).map_err(|e| e.to_string())? {
            Some(status) => status,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} ran over {BROWSER_LIMIT:?}", self.program.display()));
            }
        };
        let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
        if !status.success() {
            let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
            return Err(format!("{} failed ({status}): {}", self.program.display(), stderr.trim()));
        }
        Ok(stdout)
    }

    /// The DOM of the page at `url` once its script has run.
    pub(crate) fn dom(&self, url: &str) -> String {
        self.run(&["--dump-dom".into(), url.into()]).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    /// A screenshot of the page at `url`, as a PNG at `to`.
    fn screenshot(&self, url: &str, to: &Path) {
        let args = [format!("--screenshot={}", to.display()), "--window-size=1200,2900".into(), url.into()];
        self.run(&args).unwrap_or_else(|e| panic!("screenshot of {url}: {e}"));
    }
}

/// The browser, or `None` after saying why `test` runs without one ([`crate::skip::skipped`]:
/// a failure under `BHGRADE_NO_SKIP`).
pub(crate) fn browser_for(test: &str) -> Option<Browser> {
    match Browser::start() {
        Ok(browser) => Some(browser),
        Err(why) => {
            crate::skip::skipped(&format!("html::{test}"), format!("no browser: {why}"));
            None
        }
    }
}

/// `file://` address of a page, with a fragment.
pub(crate) fn url(page: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", page.display())
}

/// Every value of attribute `name` in `html` inside the element that starts with `start`, in
/// document order, entities decoded (enough of HTML for a DOM Chromium wrote itself).
fn attributes(html: &str, start: &str, name: &str) -> Vec<String> {
    let from = html.find(start).unwrap_or_else(|| panic!("no {start} in the page"));
    let tag = start.trim_start_matches('<').split([' ', '>']).next().unwrap_or_default();
    let end = html[from..].find(&format!("</{tag}>")).map_or(html.len(), |end| from + end);
    let needle = format!(" {name}=\"");
    html[from..end].split(&needle).skip(1).map(|rest| decode(&rest[..rest.find('"').unwrap_or(0)])).collect()
}

fn decode(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The folders of the fixture class, in name order.
fn fixture_students() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("fixtures/submissions"))
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The file itself, with or without a browser: one document, nothing to fetch, one script.
fn assert_self_contained(page: &str) {
    for outside in ["<link", "src=\"http", "href=\"http", "@import", "url(", "<iframe", "<img"] {
        assert!(!page.contains(outside), "the page must fetch nothing, but has {outside:?}");
    }
    assert_eq!(page.matches("<script").count(), 1, "exactly the page's own script");
}

/// The rows of the students' table, in the order the browser shows them, with their totals.
fn table_rows(dom: &str) -> Vec<(String, f64)> {
    let names = attributes(dom, "<table id=\"students\"", "data-student");
    let totals = attributes(dom, "<table id=\"students\"", "data-total");
    assert_eq!(names.len(), totals.len(), "each row has its total");
    names.into_iter().zip(totals.iter().map(|t| t.parse::<f64>().expect("a number"))).collect()
}

#[test]
fn the_class_page_shows_every_student_sorts_and_draws_its_charts() {
    let marked = marked();
    assert_eq!(marked.status, 0, "bhgrade mark failed: {}", marked.stderr);
    let page = marked.out.join("index.html");
    assert_self_contained(&marked.text("index.html"));
    let Some(browser) = browser_for("the_class_page_shows_every_student_sorts_and_draws_its_charts") else {
        return;
    };
    let started = Instant::now();
    let students = fixture_students();

    // Best first: the page clicks "Total" twice, as a marker would.
    let dom = browser.dom(&url(&page, "#sort=-total"));
    assert!(dom.contains("data-ready=\"yes\""), "the page's script ran to its end");
    assert!(dom.contains("data-sorted=\"-total\""), "the table says it is sorted by total, descending");
    let rows = table_rows(&dom);
    let mut names: Vec<String> = rows.iter().map(|(name, _)| name.clone()).collect();
    names.sort();
    assert_eq!(names, students, "every student has one row");
    assert!(rows.windows(2).all(|w| w[0].1 >= w[1].1), "totals descend: {rows:?}");
    assert_eq!(rows[0].1, 20.0, "the correct fixtures lead: {rows:?}");

    // Worst first, then by name backwards: the other direction, on both kinds of column.
    let rows = table_rows(&browser.dom(&url(&page, "#sort=total")));
    assert!(rows.windows(2).all(|w| w[0].1 <= w[1].1), "totals ascend: {rows:?}");
    let rows = table_rows(&browser.dom(&url(&page, "#sort=-student")));
    let backwards: Vec<String> = students.iter().rev().cloned().collect();
    assert_eq!(rows.into_iter().map(|(name, _)| name).collect::<Vec<_>>(), backwards);

    // The heat map: a column per student, a row per test, a verdict in every cell.
    let columns = attributes(&dom, "<table id=\"heat\"", "data-column");
    assert_eq!(columns, students, "a heat-map column per student, in name order");
    let tests = attributes(&dom, "<table id=\"heat\"", "data-test");
    assert_eq!(tests.len(), 50, "a heat-map row per test of the suite");
    let cells = attributes(&dom, "<table id=\"heat\"", "data-verdict");
    assert_eq!(cells.len(), 50 * students.len());
    let failed = attributes(&dom, "<table id=\"heat\"", "data-failed");
    assert!(failed.iter().any(|f| f != "0"), "some test is failed by someone");

    // The histogram holds the class; each search kind has a plot with a line per built student
    // whose runs of the kind answered (or searched to a limit): one whose every run crashed,
    // printed nothing or flooded its output never searched, and would draw a flat line.
    let counts = attributes(&dom, "<svg class=\"histogram\"", "data-count");
    assert_eq!(counts.iter().map(|c| c.parse::<usize>().unwrap()).sum::<usize>(), students.len());
    for kind in ["solve", "solveworm"] {
        let series = attributes(&dom, &format!("<svg class=\"scatter\" data-kind=\"{kind}\""), "data-student");
        let answered = |student: &String| {
            let report = marked.json(student);
            let verdicts = crate::support::verdicts(&report);
            let kinds: Vec<&str> = report["parts"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|part| part["tests"].as_array().unwrap())
                .filter(|test| test["kind"] == kind)
                .map(|test| test["id"].as_str().unwrap())
                .collect();
            use bhgrade::verdict::Verdict;
            let never_searched = [Verdict::RuntimeError, Verdict::NoOutput, Verdict::OutputLimit, Verdict::NotRun];
            kinds.iter().any(|id| verdicts.get(*id).is_some_and(|v| !never_searched.contains(v)))
        };
        let plotted: Vec<&String> = students.iter().filter(|student| answered(student)).collect();
        assert_eq!(series.iter().collect::<Vec<_>>(), plotted, "{kind}: a line per student whose runs answered");
        for never in ["does-not-compile", "no-build-script", "crashes"] {
            assert!(!series.iter().any(|s| s == never), "{kind}: {never} draws no line");
        }
    }

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html");
    std::fs::create_dir_all(&shots).expect("mkdir");
    let shot = shots.join("index.png");
    browser.screenshot(&url(&page, "#sort=-total"), &shot);
    let png = std::fs::read(&shot).expect("the screenshot is written");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "a PNG of a drawn page");
    println!(
        "{}: 4 loads and a screenshot in {:.1} s; screenshot at {}",
        browser.version,
        started.elapsed().as_secs_f64(),
        shot.display()
    );
}

/// Folder names a student chose, as HTML that would run if the page pasted it in: it must
/// arrive as text, in the table, the charts' legends and the link to the student's report.
const HOSTILE: [&str; 2] = ["<img src=x onerror=\"document.title='pwned'\">&amp;", "a #b?c%d 'e'"];

#[test]
fn student_names_reach_the_class_page_as_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let submissions = dir.path().join("submissions");
    for name in HOSTILE {
        // No build script: nothing runs, so the class is marked in seconds.
        copy_tree(&repo().join("fixtures/submissions/no-build-script"), &submissions.join(name));
    }
    let out = dir.path().join("out");
    let output = mark_command(&repo().join("suites/cs3105-p1"), &out, &submissions).output().expect("run bhgrade mark");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let page = out.join("index.html");
    let text = std::fs::read_to_string(&page).expect("index.html is written");
    assert_self_contained(&text);
    assert!(!text.contains("onerror=\""), "a name is never markup");
    let Some(browser) = browser_for("student_names_reach_the_class_page_as_text") else { return };

    let dom = browser.dom(&url(&page, "#sort=student"));
    // An element made of a name would be written back with its attribute quoted; the name as
    // text or in an attribute is `&lt;img src=x` or `<img src=x` (older Chromium).
    assert!(!dom.contains("<img src=\"x\""), "no name became an element");
    let title = &dom[dom.find("<title>").unwrap()..dom.find("</title>").unwrap()];
    assert!(!title.contains("pwned"), "the page's title is its own: {title}");
    let mut expected: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
    expected.sort();
    let rows: Vec<String> = table_rows(&dom).into_iter().map(|(name, _)| name).collect();
    assert_eq!(rows, expected, "each name, as it is, in the table");
    for link in attributes(&dom, "<table id=\"students\"", "href") {
        let file = percent_decode(&link);
        assert!(out.join(&file).is_file(), "{link} links to {file}, the student's report");
    }
}

/// Undoes `%XX` escapes.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ascii");
            out.push(u8::from_str_radix(hex, 16).expect("hex"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}
