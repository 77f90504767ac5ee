//! Reports: the pipeline's [`Event`]s → output. The pipeline never prints; each [`Reporter`]
//! turns events into one kind of output (progress on the terminal, files in the output folder,
//! a report on standard output), so a new format touches only its reporter.

mod html;
pub mod markdown;
pub mod model;
pub mod text;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

pub use model::{ClassReport, StudentReport};

use crate::fsutil::write_atomically;

/// What the pipeline tells the reporters, in order.
#[derive(Clone, Debug)]
pub enum Event {
    /// Marking starts: how many submissions, and how many tests each.
    Started { submissions: usize, tests: usize },
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

/// Progress on standard error: a bar on a terminal, a plain line per student otherwise.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new() -> Self {
        Progress { bar: None }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl Reporter for Progress {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { submissions, .. } => {
                if std::io::stderr().is_terminal() {
                    let bar = ProgressBar::new(*submissions as u64);
                    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} submissions {elapsed} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar());
                    bar.set_style(style);
                    self.bar = Some(bar);
                }
            }
            Event::StudentDone { report, reused_runs } => {
                let reused = match reused_runs {
                    0 => String::new(),
                    n => format!(" [{n} stored result(s) reused]"),
                };
                let line = format!(
                    "{}: {} / {} ({}){reused}",
                    report.student,
                    report.score,
                    report.max_score,
                    summary_of_verdicts(report)
                );
                match &self.bar {
                    Some(bar) => {
                        bar.println(line);
                        bar.inc(1);
                    }
                    None => eprintln!("{line}"),
                }
            }
            Event::Finished(class) => {
                if let Some(bar) = self.bar.take() {
                    bar.finish_and_clear();
                }
                eprintln!("marked {} submissions", class.students.len());
                if !class.incomplete.is_empty() {
                    eprintln!("interrupted: not marked: {}", class.incomplete.join(", "));
                }
                for problem in &class.harness_problems {
                    eprintln!("harness problem: {problem}");
                }
            }
        }
        Ok(())
    }
}

fn summary_of_verdicts(report: &StudentReport) -> String {
    if report.build.verdict != crate::build::BuildVerdict::Ok {
        return format!("build: {}", report.build.detail);
    }
    let counts: Vec<String> = report.verdict_counts().iter().map(|(v, n)| format!("{n} {}", v.label())).collect();
    counts.join(", ")
}

/// Files in the output folder: `STUDENT.md` and `STUDENT.json` as each student finishes,
/// `summary.md`, `grades.csv`, the class page `index.html` and the roster `class.json` at the
/// end (the roster last: it says the marking finished). Every file is written atomically.
pub struct Files {
    pub dir: PathBuf,
}

impl Files {
    fn write(&self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        let path = self.dir.join(name);
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| write_atomically(&path, bytes))
            .map_err(|error| ReportError::Write { path, error })
    }
}

impl Files {
    /// Moves the reports of students an earlier marking into this folder listed and this one
    /// did not (a reused `--out`) into `stale/`, and says so, so that no one mistakes them for
    /// this class's.
    fn set_aside_stale_reports(&self, class: &ClassReport) -> Result<(), ReportError> {
        let roster_path = self.dir.join(crate::merge::ROSTER_FILE);
        let Ok(bytes) = std::fs::read(&roster_path) else { return Ok(()) };
        let Ok(old) = serde_json::from_slice::<model::ClassRoster>(&bytes) else { return Ok(()) };
        let current: std::collections::HashSet<&str> = class
            .students
            .iter()
            .map(|s| s.student.as_str())
            .chain(class.incomplete.iter().map(String::as_str))
            .collect();
        let stale_dir = self.dir.join("stale");
        for name in old.students.iter().filter(|name| !current.contains(name.as_str())) {
            for extension in ["md", "json"] {
                let from = self.dir.join(format!("{name}.{extension}"));
                if !from.is_file() {
                    continue;
                }
                let to = stale_dir.join(format!("{name}.{extension}"));
                std::fs::create_dir_all(&stale_dir)
                    .and_then(|()| std::fs::rename(&from, &to))
                    .map_err(|error| ReportError::Write { path: to.clone(), error })?;
            }
            eprintln!(
                "note: {name} was marked into {} before but is not in this marking; its reports were moved to {}",
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
            Event::Started { .. } => Ok(()),
            Event::StudentDone { report, .. } => {
                self.write(&format!("{}.md", report.student), markdown::student(report)?.as_bytes())?;
                let json = serde_json::to_string_pretty(report.as_ref()).expect("reports serialise");
                self.write(&format!("{}.json", report.student), json.as_bytes())
            }
            Event::Finished(class) => {
                self.write("summary.md", markdown::summary(class)?.as_bytes())?;
                self.write("grades.csv", markdown::grades_csv(class).as_bytes())?;
                self.write("index.html", html::class_page(class)?.as_bytes())?;
                self.set_aside_stale_reports(class)?;
                let roster = serde_json::to_string_pretty(&class.roster()).expect("rosters serialise");
                self.write(crate::merge::ROSTER_FILE, roster.as_bytes())
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
        let path = self.dir.join(format!("{}.json", report.student));
        let Ok(old) = std::fs::read(&path) else { return Ok(()) };
        let Ok(old) = serde_json::from_slice::<StudentReport>(&old) else { return Ok(()) };
        let verdicts = |r: &StudentReport| -> Vec<(String, crate::verdict::Verdict)> {
            r.parts.iter().flat_map(|p| &p.tests).map(|t| (t.id.clone(), t.verdict)).collect()
        };
        let before: std::collections::BTreeMap<_, _> = verdicts(&old).into_iter().collect();
        for (test, now) in verdicts(report) {
            match before.get(&test) {
                Some(was) if *was != now => {
                    eprintln!("rejudge: {}: {test}: {} -> {}", report.student, was.name(), now.name())
                }
                Some(_) => {}
                None => eprintln!("rejudge: {}: {test}: new test, {}", report.student, now.name()),
            }
        }
        Ok(())
    }
}

/// A student's markdown report on standard output (what `bhgrade test` shows).
pub struct Terminal;

impl Reporter for Terminal {
    fn event(&mut self, event: &Event) -> Result<(), ReportError> {
        match event {
            Event::Started { .. } | Event::Finished(_) => Ok(()),
            Event::StudentDone { report, .. } => {
                let text = markdown::student(report)?;
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())
                    .and_then(|()| out.flush())
                    .map_err(|error| ReportError::Write { path: PathBuf::from("<stdout>"), error })
            }
        }
    }
}
