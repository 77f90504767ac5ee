//! Progress on standard error: events → a bar (on a terminal) or a line per student (in a log),
//! and a closing line saying what was marked, what was not and where the reports are.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

use super::{ColorChoice, Event, ReportError, Reporter};
use crate::results::model::{ClassReport, StudentReport};
use crate::results::text;

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
    /// Tests accounted for: answered by a run, or settled without one (reused, not run).
    accounted: usize,
    /// Tests answered by a run of this marking: the work whose pace predicts the rest.
    ran: usize,
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
            accounted: 0,
            ran: 0,
        }
    }

    /// How long the tests not yet accounted for will take at the pace of the tests run so far
    /// (`elapsed` since marking started); none before any test has run. Tests settled without
    /// a run (a build that failed, a stored result) cost nothing and say nothing of the pace, so
    /// a class whose first students failed to build is not promised an end in seconds.
    fn time_left(&self, elapsed: std::time::Duration) -> Option<std::time::Duration> {
        let left = (self.total * self.tests).saturating_sub(self.accounted);
        (self.ran > 0).then(|| elapsed.mul_f64(left as f64 / self.ran as f64))
    }

    /// The time left as the progress lines say it.
    fn time_left_text(&self) -> String {
        match self.time_left(self.started.elapsed()) {
            Some(left) => format!("about {} left", human_duration(left)),
            None => "time left not known until a test has run".to_string(),
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
                    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} tests, {elapsed} so far, {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar());
                    bar.set_style(style);
                    bar.set_message(self.time_left_text());
                    self.bar = Some(bar);
                }
            }
            Event::RunDone { student, tests } => {
                *self.counted.entry(student.clone()).or_default() += tests;
                self.ran += tests;
                self.accounted += tests;
                if let Some(bar) = &self.bar {
                    bar.inc(*tests as u64);
                    bar.set_message(self.time_left_text());
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
        let rest = self.tests.saturating_sub(counted);
        self.accounted += rest;
        let rest = rest as u64;
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
                bar.set_message(self.time_left_text());
            }
            None => {
                // Not a terminal (a log, CI): a plain line per student with the time left.
                let eta = match self.total.saturating_sub(self.done) {
                    0 => String::new(),
                    _ => format!(", {}", self.time_left_text()),
                };
                // The name first, so a log can be searched by student.
                crate::say!("{line} [{}/{}{eta}]", self.done, self.total)
            }
        }
    }

    /// The end of marking: what was not marked, harness problems, how long it took.
    fn finished(&mut self, class: &ClassReport) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if !class.incomplete.is_empty() {
            crate::say!(
                "interrupted: not marked (blank in grades.csv and canvas.csv): {}",
                text::terminal(&class.incomplete_names().join(", "))
            );
        }
        for problem in &class.harness_problems {
            crate::say!("harness problem: {}", text::terminal(&problem.message));
        }
        let took = human_duration(self.started.elapsed());
        let marked = text::count(class.students.len(), "submission");
        match &self.out {
            Some(out) => crate::say!("marked {marked} in {took}; reports in {}", out.display()),
            None => crate::say!("marked {marked} in {took}"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn progress(submissions: usize, tests: usize) -> Progress {
        let mut progress = Progress::new(ColorChoice::Never, None);
        (progress.total, progress.tests) = (submissions, tests);
        progress
    }

    /// The time left follows the tests left at the pace of the tests run, whatever order the
    /// students finish in: a failed build first promises nothing, reused results cost nothing.
    #[test]
    fn the_time_left_is_the_work_left_at_the_pace_of_the_work_done() {
        let mut marking = progress(4, 10);
        // The first student failed to build: ten tests settled, none run, no pace yet.
        marking.accounted += 10;
        assert_eq!(marking.time_left(Duration::from_secs(1)), None);
        // Ten tests of the second ran in 20 s: twenty tests are left, at 2 s a test.
        marking.ran += 10;
        marking.accounted += 10;
        assert_eq!(marking.time_left(Duration::from_secs(20)), Some(Duration::from_secs(40)));
        // The third's ten were reused at once: ten are left, still at 2 s a test.
        marking.accounted += 10;
        assert_eq!(marking.time_left(Duration::from_secs(20)), Some(Duration::from_secs(20)));
        marking.ran += 10;
        marking.accounted += 10;
        assert_eq!(marking.time_left(Duration::from_secs(40)), Some(Duration::ZERO));
    }
}
