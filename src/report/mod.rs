//! Reports: the pipeline's [`Event`]s → output. The pipeline never prints; each [`Reporter`]
//! turns events into one kind of output (progress on the terminal, files in the output folder,
//! a report on standard output), so a new format touches only its reporter.

pub mod export;
pub mod feedback;
mod html;
pub mod markdown;
pub mod roster;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

use crate::results::model::{self, ClassReport, StudentReport};
use crate::results::text;
use crate::suite::LeftOut;

use crate::fsutil::write_atomically;

/// What the pipeline tells the reporters, in order.
#[derive(Clone, Debug)]
pub enum Event {
    /// Marking starts: how many submissions, and how many tests each.
    Started { submissions: usize, tests: usize },
    /// A run of `student`'s program ended, answering `tests` tests (for progress by test).
    RunDone { student: String, tests: usize },
    /// One submission is fully marked; `reused_runs` of its runs came from an earlier marking.
    StudentDone { report: Box<StudentReport>, reused_runs: usize },
    /// Every submission is marked.
    Finished(Box<ClassReport>),
}

/// A consumer of events that produces one kind of output.
pub trait Reporter {
    fn event(&mut self, event: &Event) -> Result<(), ReportError>;
}

/// Why a reporter could not write.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {error}")]
    Write { path: PathBuf, error: std::io::Error },
    #[error("cannot render a report: {0}")]
    Render(#[from] minijinja::Error),
}

/// Whether output may be coloured: `--color auto|always|never`; `auto` colours a terminal
/// unless `NO_COLOR` is set to anything (<https://no-color.org>).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour what goes to standard error.
    pub fn for_stderr(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// Progress on standard error: a bar with an ETA on a terminal, a plain line per student ending
/// `[k/N, about T left]` otherwise, and a last line saying where the reports are and how long it took.
pub struct Progress {
    bar: Option<ProgressBar>,
    color: bool,
    /// Where the reports go, for the last line (none when nothing is written).
    out: Option<PathBuf>,
    started: std::time::Instant,
    total: usize,
    done: usize,
    /// Tests per submission, and the tests of each unfinished submission the bar has counted.
    tests: usize,
    counted: std::collections::HashMap<String, usize>,
}

impl Progress {
    /// Progress for a marking whose reports go to `out`, coloured or not.
    pub fn new(color: ColorChoice, out: Option<PathBuf>) -> Self {
        Progress {
            bar: None,
            color: color.for_stderr(),
            out,
            started: std::time::Instant::now(),
            total: 0,
            done: 0,
            tests: 0,
            counted: Default::default(),
        }
    }

    /// `text` in the colour of a score (green: full marks, red: none, yellow: some).
    fn paint(&self, text: String, score: f64, max: f64) -> String {
        if !self.color {
            return text;
        }
        let code = match crate::score::to_units(score) {
            0 => 31,
            s if s >= crate::score::to_units(max) => 32,
            _ => 33,
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// A duration as people read it: `42 s`, `3 min 5 s`, `1 h 2 min`.
pub fn human_duration(duration: std::time::Duration) -> String {
    let secs = duration.as_secs();
    match secs {
        0..60 => format!("{:.1} s", duration.as_secs_f64()),
        60..3600 => format!("{} min {} s", secs / 60, secs % 60),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}

impl Reporter for Progress {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { submissions, tests } => {
                self.started = std::time::Instant::now();
                self.total = *submissions;
                self.tests = *tests;
                if std::io::stderr().is_terminal() {
                    // Ticks per test, so a class of slow submissions still shows it moving.
                    let bar = ProgressBar::new((*submissions * *tests) as u64);
                    let style = ProgressStyle::with_template(
                        "{bar:40} {pos}/{len} tests, {elapsed} so far, about {eta} left {msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
                    bar.set_style(style);
                    self.bar = Some(bar);
                }
            }
            Event::RunDone { student, tests } => {
                *self.counted.entry(student.clone()).or_default() += tests;
                if let Some(bar) = &self.bar {
                    bar.inc(*tests as u64);
                }
            }
            Event::StudentDone { report, reused_runs } => self.student_done(report, *reused_runs),
            Event::Finished(class) => self.finished(class),
        }
        Ok(())
    }
}

impl Progress {
    /// One line per student as each is marked: marks, verdicts, reused results; on a terminal
    /// above the bar, else with the count and the time left.
    fn student_done(&mut self, report: &StudentReport, reused_runs: usize) {
        self.done += 1;
        // The tests not counted by a run: reused, skipped, or never run.
        let counted = self.counted.remove(&report.student).unwrap_or(0);
        let rest = self.tests.saturating_sub(counted) as u64;
        let reused = match reused_runs {
            0 => String::new(),
            n => format!(" [{} reused]", text::count(n, "stored result")),
        };
        let marks = self.paint(
            format!("{} / {}", crate::score::format(report.score), crate::score::format(report.max_score)),
            report.score,
            report.max_score,
        );
        let line = format!(
            "{}: {marks} ({}){reused}",
            text::terminal(&report.student),
            text::terminal(&summary_of_verdicts(report))
        );
        match &self.bar {
            Some(bar) => {
                bar.println(line);
                bar.inc(rest);
            }
            None => {
                // Not a terminal (a log, CI): a plain line per student with the ETA.
                let elapsed = self.started.elapsed();
                let left = self.total.saturating_sub(self.done);
                let eta = elapsed.mul_f64(left as f64 / self.done as f64);
                let eta = match left {
                    0 => String::new(),
                    _ => format!(", about {} left", human_duration(eta)),
                };
                // The name first, so a log can be searched by student.
                eprintln!("{line} [{}/{}{eta}]", self.done, self.total)
            }
        }
    }

    /// The end of marking: what was not marked, harness problems, how long it took.
    fn finished(&mut self, class: &ClassReport) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if !class.incomplete.is_empty() {
            eprintln!(
                "interrupted: not marked (blank in grades.csv and canvas.csv): {}",
                text::terminal(&class.incomplete_names().join(", "))
            );
        }
        for problem in &class.harness_problems {
            eprintln!("harness problem: {}", text::terminal(&problem.message));
        }
        let took = human_duration(self.started.elapsed());
        let marked = text::count(class.students.len(), "submission");
        match &self.out {
            Some(out) => eprintln!("marked {marked} in {took}; reports in {}", out.display()),
            None => eprintln!("marked {marked} in {took}"),
        }
    }
}

fn summary_of_verdicts(report: &StudentReport) -> String {
    if report.build.verdict != crate::build::BuildVerdict::Ok {
        return format!("build: {}", report.build.detail);
    }
    let counts: Vec<String> = report.verdict_counts().iter().map(|(v, n)| format!("{n} {}", v.label())).collect();
    counts.join(", ")
}

/// Files in the output folder: `STUDENT.md`, `STUDENT.json`, `feedback/STUDENT.md`,
/// `gradescope/STUDENT.json` and `prairielearn/STUDENT.json` as each student finishes;
/// `summary.md`, `grades.csv`, `canvas.csv`, `junit.xml`, the class page `index.html` and the
/// roster `class.json` at the end (the roster last: it says the marking finished). Every file
/// is written atomically.
pub struct Files {
    pub dir: PathBuf,
    /// What the marking left out (`bhgrade test` without `--all`), said in every report.
    pub left_out: Option<LeftOut>,
    /// The class roster (`mark --roster`): `canvas.csv` has its rows, the summary says who on
    /// it handed nothing in and which submissions are no one's on it.
    pub roster: Option<roster::Roster>,
}

impl Files {
    /// Files in `dir`, of a marking that left nothing out, with no roster.
    pub fn new(dir: PathBuf) -> Files {
        Files { dir, left_out: None, roster: None }
    }

    /// Removes `name` (a path relative to the output folder) if it is there.
    fn remove(&self, name: &str) -> Result<(), ReportError> {
        let path = self.dir.join(name);
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(ReportError::Write { path, error }),
            Ok(()) | Err(_) => Ok(()),
        }
    }

    /// Writes `name` (a path relative to the output folder) atomically, making its folder.
    fn write(&self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        let path = self.dir.join(name);
        let parent = path.parent().unwrap_or(&self.dir).to_path_buf();
        std::fs::create_dir_all(&parent)
            .and_then(|()| write_atomically(&path, bytes))
            .map_err(|error| ReportError::Write { path, error })
    }
}

/// The roster every marking writes into its output folder (read back by [`crate::merge`]).
pub const ROSTER_FILE: &str = "class.json";

/// The folder of the per-student files, so that no student's name (`summary`, `index`,
/// `grades`) can be a class file's.
pub const STUDENTS_DIR: &str = "students";

/// A student's report file (`extension` "md" or "json") relative to the output folder.
pub fn student_file(student: &str, extension: &str) -> String {
    format!("{STUDENTS_DIR}/{student}.{extension}")
}

/// The link from a class page in the output folder (`summary.md`, `index.html`) to a student's
/// markdown report, the name encoded whole.
pub fn student_link(student: &str) -> String {
    format!("{STUDENTS_DIR}/{}.md", text::percent_encode(student, b""))
}

impl Files {
    /// Moves the reports of students an earlier marking into this folder listed and this one
    /// did not (a reused `--out`) into `stale/`, and says so, so that no one mistakes them for
    /// this class's.
    fn set_aside_stale_reports(&self, class: &ClassReport) -> Result<(), ReportError> {
        let roster_path = self.dir.join(ROSTER_FILE);
        let Ok(bytes) = std::fs::read(&roster_path) else { return Ok(()) };
        let Ok(old) = serde_json::from_slice::<model::ClassRoster>(&bytes) else { return Ok(()) };
        let current: std::collections::HashSet<&str> =
            class.students.iter().map(|s| s.student.as_str()).chain(class.incomplete_names()).collect();
        let stale_dir = self.dir.join("stale");
        for name in old.students.iter().filter(|name| !current.contains(name.as_str())) {
            let files = [
                student_file(name, "md"),
                student_file(name, "json"),
                format!("feedback/{name}.md"),
                format!("gradescope/{name}.json"),
                format!("prairielearn/{name}.json"),
            ];
            for file in files {
                let from = self.dir.join(&file);
                if !from.is_file() {
                    continue;
                }
                let to = stale_dir.join(&file);
                to.parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::rename(&from, &to))
                    .map_err(|error| ReportError::Write { path: to.clone(), error })?;
            }
            eprintln!(
                "note: {} was marked into {} before but is not in this marking; its reports were moved to {}",
                text::terminal(name),
                self.dir.display(),
                stale_dir.display()
            );
        }
        Ok(())
    }
}

impl Reporter for Files {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::RunDone { .. } => Ok(()),
            Event::StudentDone { report, .. } => {
                let left_out = self.left_out.as_ref();
                self.write(&student_file(&report.student, "md"), markdown::student(report, left_out)?.as_bytes())?;
                let json = serde_json::to_string_pretty(report.as_ref()).expect("reports serialise");
                self.write(&student_file(&report.student, "json"), json.as_bytes())?;
                let feedback = feedback::student(report, left_out)?;
                self.write(&format!("feedback/{}.md", report.student), feedback.as_bytes())?;
                let gradescope_file = format!("gradescope/{}.json", report.student);
                match export::gradescope::to_json(report) {
                    Some(gradescope) => self.write(&gradescope_file, gradescope.as_bytes())?,
                    // Not judged: no score at all, and none left from an earlier marking.
                    None => self.remove(&gradescope_file)?,
                }
                let prairielearn = export::prairielearn::to_json(report);
                self.write(&format!("prairielearn/{}.json", report.student), prairielearn.as_bytes())
            }
            Event::Finished(class) => {
                let mut summary = markdown::summary(class)?;
                summary.push_str(&markdown::lms_sections(class, self.roster.as_ref()));
                self.write("summary.md", summary.as_bytes())?;
                self.write("grades.csv", markdown::grades_csv(class).as_bytes())?;
                self.write("canvas.csv", export::canvas::gradebook(class, self.roster.as_ref()).as_bytes())?;
                self.write("junit.xml", export::junit::xml(class).as_bytes())?;
                self.write("index.html", html::class_page(class)?.as_bytes())?;
                self.set_aside_stale_reports(class)?;
                let roster = serde_json::to_string_pretty(&class.roster()).expect("rosters serialise");
                self.write(ROSTER_FILE, roster.as_bytes())
            }
        }
    }
}

/// The export files `bhgrade test` was asked for (`--gradescope`, `--junit`, `--prairielearn`),
/// written once the submission is marked.
#[derive(Default)]
pub struct Exports {
    pub gradescope: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub prairielearn: Option<PathBuf>,
}

impl Exports {
    fn write(path: &std::path::Path, text: &str) -> Result<(), ReportError> {
        write_atomically(path, text.as_bytes()).map_err(|error| ReportError::Write { path: path.to_path_buf(), error })
    }
}

impl Reporter for Exports {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::RunDone { .. } | Event::StudentDone { .. } => Ok(()),
            Event::Finished(class) => {
                // One submission: its results are the files (nothing, if marking was stopped).
                if let (Some(path), Some(student)) = (&self.gradescope, class.students.first()) {
                    // A submission the harness could not judge gets no file (and bhgrade exits 3).
                    if let Some(gradescope) = export::gradescope::to_json(student) {
                        Self::write(path, &gradescope)?;
                    }
                }
                if let (Some(path), Some(student)) = (&self.prairielearn, class.students.first()) {
                    Self::write(path, &export::prairielearn::to_json(student))?;
                }
                if let Some(path) = &self.junit {
                    Self::write(path, &export::junit::xml(class))?;
                }
                Ok(())
            }
        }
    }
}

/// Before a report is overwritten, tells which verdicts changed since the last marking into the
/// same folder (a rejudge preview, after a suite fix or a rebuilt reference). Put it before
/// [`Files`] in the list of reporters.
pub struct Rejudge {
    pub dir: PathBuf,
}

impl Reporter for Rejudge {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        let Event::StudentDone { report, .. } = event else { return Ok(()) };
        let path = self.dir.join(student_file(&report.student, "json"));
        let Ok(old) = std::fs::read(&path) else { return Ok(()) };
        let Ok(old) = serde_json::from_slice::<StudentReport>(&old) else { return Ok(()) };
        let verdicts = |r: &StudentReport| -> Vec<(String, crate::verdict::Verdict)> {
            r.parts.iter().flat_map(|p| &p.tests).map(|t| (t.id.clone(), t.verdict)).collect()
        };
        let before: std::collections::BTreeMap<_, _> = verdicts(&old).into_iter().collect();
        for (test, now) in verdicts(report) {
            match before.get(&test) {
                Some(was) if *was != now => {
                    eprintln!("rejudge: {}: {test}: {} -> {}", text::terminal(&report.student), was.name(), now.name())
                }
                Some(_) => {}
                None => eprintln!("rejudge: {}: {test}: new test, {}", text::terminal(&report.student), now.name()),
            }
        }
        Ok(())
    }
}

/// A student's markdown report on standard output (what `bhgrade test` shows); with `quiet`,
/// only its score line.
#[derive(Default)]
pub struct Terminal {
    /// What the marking left out (`bhgrade test` without `--all`), said in the report.
    pub left_out: Option<LeftOut>,
    pub quiet: bool,
    /// The variable the report's lines to run a test again start from (`SUITE`, a suite's
    /// folder; `TREE`, a stacscheck tree's), and the folder it stands for.
    pub rerun_from: Option<(&'static str, PathBuf)>,
}

impl Terminal {
    /// The line that says what `SUITE` (or `TREE`) is, when the report shows a line to run a
    /// test again.
    fn suite_line(&self, report: &StudentReport) -> String {
        let shows_a_run = report.parts.iter().flat_map(|part| &part.tests).any(|test| {
            test.visible && test.verdict != crate::verdict::Verdict::Accepted && !test.reproduce.is_empty()
        });
        match (&self.rerun_from, shows_a_run) {
            (Some((name, dir)), true) => {
                let dir = crate::sandbox::shell_quote(dir.as_os_str());
                format!("\nTo run a test above yourself, from the submission's source folder: export {name}={dir}\n")
            }
            _ => String::new(),
        }
    }
}

impl Reporter for Terminal {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::RunDone { .. } | Event::Finished(_) => Ok(()),
            Event::StudentDone { report, .. } => {
                let text = match self.quiet {
                    true => format!(
                        "{}: {} / {}\n",
                        report.student,
                        crate::score::format(report.score),
                        crate::score::format(report.max_score)
                    ),
                    false => markdown::student(report, self.left_out.as_ref())? + &self.suite_line(report),
                };
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())
                    .and_then(|()| out.flush())
                    .map_err(|error| ReportError::Write { path: PathBuf::from("<stdout>"), error })
            }
        }
    }
}
