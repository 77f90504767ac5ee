//! The one result record every reporter reads: [`StudentReport`] per submission and
//! [`ClassReport`] for the class. Serialised as the JSON results file (schema in the README,
//! modelled on Gradescope's `results.json`), and the context of the markdown templates.

use serde::{Deserialize, Serialize};

use crate::build::BuildVerdict;
use crate::score::GroupScoring;
use crate::verdict::{Attempt, Quality, Verdict};

/// Everything known about one submission's marking.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StudentReport {
    pub student: String,
    pub suite: String,
    pub suite_title: String,
    /// A digest of everything about the suite that decides marks (tests, weights, limits,
    /// expected answers): reports merge only with reports of the same digest.
    #[serde(default)]
    pub suite_digest: String,
    pub score: f64,
    pub max_score: f64,
    pub build: BuildSection,
    pub parts: Vec<PartReport>,
    /// The rows of the handout's check table a harness can fill.
    pub check_table: Vec<CheckRow>,
    pub environment: Environment,
    /// Who handed the submission in, when an LMS named it (Canvas's user id, the late flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lms: Option<crate::build::lms::LmsIdentity>,
}

/// The build stage's outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BuildSection {
    pub verdict: BuildVerdict,
    pub detail: String,
    pub log_tail: String,
    pub wall_ms: u64,
}

impl BuildSection {
    /// What happened, and, when the build failed, the end of its output (the compiler's
    /// errors): what a reader needs to fix it, for exports that show the build as text.
    pub fn explained(&self) -> String {
        let mut text = self.detail.clone();
        let failed = match self.verdict {
            BuildVerdict::Ok => false,
            BuildVerdict::BuildFailed | BuildVerdict::BuildTimeout | BuildVerdict::NoBuildScript => true,
        };
        if failed && !self.log_tail.is_empty() {
            text.push_str("\n\nBuild output (end):\n");
            text.push_str(&self.log_tail);
        }
        text
    }
}

/// One part's tests and marks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PartReport {
    pub id: String,
    pub title: String,
    pub score: f64,
    pub max_score: f64,
    pub passed: usize,
    /// How the tests of a group earn its marks together (`minimum`, `all-or-nothing`), when
    /// the part has groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_scoring: Option<GroupScoring>,
    pub tests: Vec<TestReport>,
}

/// A group of a part's tests as reports show it: what it was worth, what it earned, and which
/// of its tests were not accepted (what cost it its marks).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    pub name: String,
    pub tests: Vec<String>,
    pub not_accepted: Vec<String>,
    pub score: f64,
    pub max_score: f64,
}

impl PartReport {
    /// The part's groups (tests naming one), in the order their first tests come.
    pub fn groups(&self) -> Vec<GroupReport> {
        let mut groups: Vec<GroupReport> = Vec::new();
        for test in &self.tests {
            let Some(name) = &test.group else { continue };
            let index = match groups.iter().position(|group| &group.name == name) {
                Some(index) => index,
                None => {
                    let blank = GroupReport {
                        name: name.clone(),
                        tests: Vec::new(),
                        not_accepted: Vec::new(),
                        score: 0.0,
                        max_score: 0.0,
                    };
                    groups.push(blank);
                    groups.len() - 1
                }
            };
            let group = &mut groups[index];
            group.tests.push(test.id.clone());
            if test.verdict != Verdict::Accepted {
                group.not_accepted.push(test.id.clone());
            }
            group.score = crate::score::sum([group.score, test.score]);
            group.max_score = crate::score::sum([group.max_score, test.max_score]);
        }
        groups
    }
}

/// One test's result, with what a student needs to see when it failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestReport {
    pub id: String,
    pub kind: String,
    /// The file the test is about, relative to where its tests come from: a suite's instance
    /// file, a stacscheck step's script.
    #[serde(alias = "puzzle")]
    pub instance: String,
    /// What that file is, for readers ("Puzzle", "Script").
    #[serde(default)]
    pub instance_label: String,
    /// Whether students see this test (a suite's samples; every stacscheck step): only a
    /// visible test's instance, input and expected answer may be shown to a student.
    #[serde(default)]
    pub visible: bool,
    pub verdict: Verdict,
    pub verdict_label: String,
    pub explanation: String,
    pub wall_ms: u64,
    pub cpu_ms: u64,
    pub peak_rss_kb: u64,
    pub score: f64,
    pub max_score: f64,
    /// The command line as run, in the marker's private copy (the marker's record).
    pub command: String,
    /// The same run as a student can paste it in a shell in the submission's source folder
    /// (`src/`): the input piped in, the instance under `$SUITE`, the suite's folder.
    #[serde(default)]
    pub reproduce: String,
    /// The instance file's text, shortened (visible tests only: hidden instances stay hidden).
    #[serde(default)]
    pub instance_text: Option<String>,
    /// Whether the program ran for this test (else its times and memory mean nothing).
    #[serde(default)]
    pub ran: bool,
    /// The reference's answer (`true`, `false`, `1`, `0`) and how it knows.
    pub expected: String,
    pub expected_detail: String,
    /// The candidate solution fed on standard input (check kinds), shortened.
    pub input: Option<String>,
    /// The first line the program printed, whitespace made visible, shortened.
    pub first_line: String,
    /// The end of what the program printed on standard error.
    pub stderr_tail: String,
    /// The time figures of every run of the test's program: one, or two when the first ended
    /// just past the CPU limit and was confirmed (the lower CPU time counts).
    #[serde(default)]
    pub time_runs: Vec<Attempt>,
    /// For text comparisons (stacscheck trees): a unified diff of expected and actual output.
    #[serde(default)]
    pub diff: String,
    /// Search nodes the reference needed on this test (a suite's `expected.json`): the test's
    /// hardness, against which the class page plots each student's CPU time. `None` where
    /// no reference searched (stacscheck steps, reports written before the field existed).
    #[serde(default)]
    pub reference_nodes: Option<u64>,
    /// The name a hidden test is shown by to students, when its suite gives one (else a
    /// neutral `PART hidden N`, see `report::feedback::redact`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_name: Option<String>,
    /// The test's group in its part, when its suite groups tests: a group's tests earn its
    /// marks together (its part's `group_scoring`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// For an accepted answer to a test that credits quality: its measure against the best and
    /// the share of the marks that earns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<Quality>,
}

impl TestReport {
    /// A test's report before anything is known of its run: no times, no output, no marks.
    pub fn new(id: String, kind: String, instance: String, verdict: Verdict) -> TestReport {
        TestReport {
            id,
            kind,
            instance,
            instance_label: String::new(),
            visible: false,
            verdict,
            verdict_label: verdict.label().to_string(),
            explanation: String::new(),
            wall_ms: 0,
            cpu_ms: 0,
            peak_rss_kb: 0,
            score: 0.0,
            max_score: 0.0,
            command: String::new(),
            reproduce: String::new(),
            instance_text: None,
            ran: false,
            expected: String::new(),
            expected_detail: String::new(),
            input: None,
            first_line: String::new(),
            stderr_tail: String::new(),
            time_runs: Vec::new(),
            diff: String::new(),
            reference_nodes: None,
            public_name: None,
            group: None,
            quality: None,
        }
    }
}

/// A row of the handout's check table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRow {
    pub task: String,
    pub done: String,
}

/// Where and how the marking ran: timing is noisy, so every report says.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Environment {
    pub bhgrade_version: String,
    pub machine: String,
    pub cores: usize,
    pub load_average: String,
    pub jobs: usize,
    /// Cores each run was pinned to.
    #[serde(default)]
    pub cores_per_run: usize,
    pub marked_at: String,
    pub limits: String,
    /// The environment every run was given (e.g. the JVM's settings), from the suite's launch.
    #[serde(default)]
    pub launch_env: String,
    pub isolation: Vec<String>,
}

/// The class: every student's report, in name order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClassReport {
    pub suite: String,
    pub suite_title: String,
    #[serde(default)]
    pub suite_digest: String,
    pub part_ids: Vec<String>,
    pub max_score: f64,
    pub students: Vec<StudentReport>,
    pub environment: Environment,
    /// Problems of the harness itself (a student that could not be marked), shown first.
    pub harness_problems: Vec<HarnessProblem>,
    /// Submissions not marked because marking was interrupted, in name order.
    pub incomplete: Vec<Unmarked>,
    /// Stored results of an earlier marking that failed their digest (edited, or not ours),
    /// and were redone.
    #[serde(default)]
    pub distrusted_results: Vec<String>,
}

/// What a class report says of itself, whatever the students: from the plan when marking,
/// from the first student report when merging.
#[derive(Clone, Debug)]
pub struct ClassHeader {
    pub suite: String,
    pub suite_title: String,
    pub suite_digest: String,
    pub part_ids: Vec<String>,
    pub max_score: f64,
}

impl ClassReport {
    /// The class report, the one way every command makes it: students in name order, and after
    /// `problems` one for each student some of whose tests could not be judged.
    pub fn new(
        header: ClassHeader,
        mut students: Vec<StudentReport>,
        environment: Environment,
        mut problems: Vec<HarnessProblem>,
        mut incomplete: Vec<Unmarked>,
    ) -> ClassReport {
        students.sort_by(|a, b| a.student.cmp(&b.student));
        incomplete.sort_by(|a, b| a.student.cmp(&b.student));
        let not_judged = students.iter().filter(|s| s.has_harness_error());
        problems.extend(not_judged.map(|s| HarnessProblem::new(&s.student, ProblemKind::NotJudged, "")));
        let ClassHeader { suite, suite_title, suite_digest, part_ids, max_score } = header;
        ClassReport {
            suite,
            suite_title,
            suite_digest,
            part_ids,
            max_score,
            students,
            environment,
            harness_problems: problems,
            incomplete,
            distrusted_results: Vec::new(),
        }
    }
}

/// A submission a marking did not reach (it was stopped): who it is, as a roster matches it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmarked {
    pub student: String,
    /// Who handed it in, when an LMS named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lms: Option<crate::build::lms::LmsIdentity>,
}

/// What a gradebook says of one submission: its marks only when every test was judged.
#[derive(Clone, Copy, Debug)]
pub enum Standing<'a> {
    /// Marked, every test judged: the report's marks stand.
    Marked(&'a StudentReport),
    /// Marked, but the harness could not judge some tests: no marks (never the student's fault).
    NotJudged(&'a StudentReport),
    /// Not reached: marking was stopped first.
    NotMarked(&'a Unmarked),
}

impl Standing<'_> {
    /// The submission's name.
    pub fn student(&self) -> &str {
        match self {
            Standing::Marked(report) | Standing::NotJudged(report) => &report.student,
            Standing::NotMarked(unmarked) => &unmarked.student,
        }
    }

    /// Who handed it in, when an LMS named it.
    pub fn lms(&self) -> Option<&crate::build::lms::LmsIdentity> {
        match self {
            Standing::Marked(report) | Standing::NotJudged(report) => report.lms.as_ref(),
            Standing::NotMarked(unmarked) => unmarked.lms.as_ref(),
        }
    }

    /// The report whose marks stand, if any.
    pub fn marks(&self) -> Option<&StudentReport> {
        match self {
            Standing::Marked(report) => Some(report),
            Standing::NotJudged(_) | Standing::NotMarked(_) => None,
        }
    }

    /// What a gradebook shows instead of marks.
    pub fn label(&self) -> &'static str {
        match self {
            Standing::Marked(_) => "",
            Standing::NotJudged(_) => "not judged (harness error)",
            Standing::NotMarked(_) => "not marked",
        }
    }
}

impl ClassReport {
    /// Every submission of the class, marked or not, in name order, with what a gradebook says
    /// of it.
    pub fn standings(&self) -> Vec<Standing<'_>> {
        let marked = self.students.iter().map(|report| match report.has_harness_error() {
            true => Standing::NotJudged(report),
            false => Standing::Marked(report),
        });
        let mut all: Vec<Standing<'_>> = marked.chain(self.incomplete.iter().map(Standing::NotMarked)).collect();
        all.sort_by(|a, b| a.student().cmp(b.student()));
        all
    }

    /// The names of the submissions not marked, for messages.
    pub fn incomplete_names(&self) -> Vec<&str> {
        self.incomplete.iter().map(|unmarked| unmarked.student.as_str()).collect()
    }
}

/// What a marking's output folder holds, written last (`class.json`): the students whose reports
/// it has, those it does not (marking was interrupted) and the harness problems, so that `merge`
/// takes exactly these reports and carries the rest over.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClassRoster {
    pub suite: String,
    pub suite_digest: String,
    pub students: Vec<String>,
    pub incomplete: Vec<Unmarked>,
    pub harness_problems: Vec<HarnessProblem>,
}

impl ClassReport {
    /// The roster of this class report.
    pub fn roster(&self) -> ClassRoster {
        ClassRoster {
            suite: self.suite.clone(),
            suite_digest: self.suite_digest.clone(),
            students: self.students.iter().map(|s| s.student.clone()).collect(),
            incomplete: self.incomplete.clone(),
            harness_problems: self.harness_problems.clone(),
        }
    }
}

/// A failure of the harness itself while marking a student: never the student's fault, and
/// the reason `bhgrade` exits with status 3.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarnessProblem {
    pub student: String,
    pub kind: ProblemKind,
    /// The error, when there is one to show.
    pub detail: String,
    /// The whole problem in a sentence (what the summary shows).
    pub message: String,
}

/// The closed set of harness problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// The submission could not be copied, or its tests' files put beside it.
    NotPrepared,
    /// A finished result could not be stored for reuse (the report is still right).
    NotStored,
    /// Some tests could not be run or judged (the sandbox or the reference failed).
    NotJudged,
}

impl HarnessProblem {
    pub fn new(student: &str, kind: ProblemKind, detail: impl std::fmt::Display) -> HarnessProblem {
        let detail = detail.to_string();
        let what = match kind {
            ProblemKind::NotPrepared => "could not prepare the submission",
            ProblemKind::NotStored => "could not store a result",
            ProblemKind::NotJudged => "some tests could not be judged",
        };
        let message =
            if detail.is_empty() { format!("{student}: {what}") } else { format!("{student}: {what}: {detail}") };
        HarnessProblem { student: student.to_string(), kind, detail, message }
    }
}

impl std::fmt::Display for HarnessProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl StudentReport {
    /// Counts of each verdict over every test, in the fixed verdict order, zeros left out.
    pub fn verdict_counts(&self) -> Vec<(Verdict, usize)> {
        Verdict::ALL
            .iter()
            .map(|&verdict| {
                let count = self.parts.iter().flat_map(|p| &p.tests).filter(|t| t.verdict == verdict).count();
                (verdict, count)
            })
            .filter(|&(_, count)| count > 0)
            .collect()
    }

    /// Whether the harness itself failed on any test of this student.
    pub fn has_harness_error(&self) -> bool {
        self.parts.iter().flat_map(|p| &p.tests).any(|t| t.verdict == Verdict::HarnessError)
    }
}
