//! A class roster: a Canvas gradebook export (`Student, ID, SIS User ID, SIS Login ID,
//! Section, ...`, as "Export" in Canvas's gradebook writes it) → a [`Roster`], and the match of
//! a marked class against it ([`Roster::match_class`]): who on the roster handed in what, who
//! did not, and which submissions are nobody's on the roster.
//!
//! A submission is a roster row's when its Canvas user id (from Canvas's download names, see
//! [`crate::build::lms`]) is the row's `ID`, or its name is the row's `SIS Login ID` or
//! `SIS User ID` (a course that names submissions by login), ignoring case.

use std::path::{Path, PathBuf};

use crate::build::lms::{Lms, LmsIdentity};
use crate::results::model::{ClassReport, Standing};

/// One student of the roster, with Canvas's own columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosterRow {
    pub student: String,
    pub id: String,
    pub sis_user_id: String,
    pub sis_login_id: String,
    pub section: String,
}

/// A class roster, in its file's order.
#[derive(Clone, Debug)]
pub struct Roster {
    pub path: PathBuf,
    pub rows: Vec<RosterRow>,
    /// The header's assignment columns, as Canvas names them (`Practical 1 (4242)`).
    pub assignments: Vec<String>,
    /// The column `canvas.csv` gives the marks in ([`Roster::choose_column`]): the assignment's
    /// own, so that an import fills it rather than making a new one.
    pub grade_column: Option<String>,
}

/// Why a roster cannot be used; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum RosterError {
    #[error("{}: cannot read the roster: {error}", path.display())]
    Read { path: PathBuf, error: std::io::Error },
    #[error("{}:{line}: {message}", path.display())]
    Format { path: PathBuf, line: usize, message: String },
    #[error("{}: {message}", path.display())]
    Column { path: PathBuf, message: String },
}

/// A class matched against a roster.
pub struct Matched<'a> {
    /// Every roster row, in roster order, with the student's submission when they handed one in
    /// (marked or not).
    pub on_roster: Vec<(&'a RosterRow, Option<Standing<'a>>)>,
    /// Submissions that are no roster row's.
    pub not_on_roster: Vec<Standing<'a>>,
}

impl Matched<'_> {
    /// The roster's students who handed nothing in, in roster order.
    pub fn absent(&self) -> impl Iterator<Item = &RosterRow> + '_ {
        self.on_roster.iter().filter(|(_, report)| report.is_none()).map(|(row, _)| *row)
    }
}

/// The columns a roster must have (Canvas's names), and `Section`, which it may.
const REQUIRED: [&str; 4] = ["Student", "ID", "SIS User ID", "SIS Login ID"];

impl Roster {
    pub fn read(path: &Path) -> Result<Roster, RosterError> {
        let text = std::fs::read_to_string(path).map_err(|error| RosterError::Read { path: path.into(), error })?;
        Roster::parse(path, &text)
    }

    /// Reads the roster's text; `path` is only for messages.
    pub fn parse(path: &Path, text: &str) -> Result<Roster, RosterError> {
        let error = |line: usize, message: String| RosterError::Format { path: path.into(), line, message };
        let records = csv_records(text.trim_start_matches('\u{feff}')).map_err(|(line, m)| error(line, m))?;
        let Some((_, header)) = records.first() else {
            return Err(error(1, "the roster is empty; expected Canvas's gradebook export".into()));
        };
        let column = |name: &str| header.iter().position(|h| h.trim() == name);
        let missing: Vec<&str> = REQUIRED.into_iter().filter(|name| column(name).is_none()).collect();
        if !missing.is_empty() {
            let message = format!(
                "the header lacks {}; expected Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID, Section)",
                missing.join(", ")
            );
            return Err(error(1, message));
        }
        let [student, id, sis_user, sis_login] = REQUIRED.map(|name| column(name).expect("checked"));
        let section = column("Section");
        let field = |record: &[String], index: Option<usize>| {
            index.and_then(|i| record.get(i)).map_or_else(String::new, |f| f.trim().to_string())
        };
        let mut rows = Vec::new();
        for (line, record) in records.iter().skip(1) {
            let row = RosterRow {
                student: field(record, Some(student)),
                id: field(record, Some(id)),
                sis_user_id: field(record, Some(sis_user)),
                sis_login_id: field(record, Some(sis_login)),
                section: field(record, section),
            };
            // Canvas's own rows: the points possible, and the course's test student.
            let canvas_row = row.student.contains("Points Possible") || row.student == "Student, Test";
            if canvas_row || record.iter().all(|f| f.trim().is_empty()) {
                continue;
            }
            if row.id.is_empty() && row.sis_user_id.is_empty() && row.sis_login_id.is_empty() {
                return Err(error(*line, format!("`{}` has no ID, SIS User ID or SIS Login ID", row.student)));
            }
            rows.push(row);
        }
        let assignments = header.iter().map(|h| h.trim()).filter(|h| assignment_name(h).is_some()).map(String::from);
        Ok(Roster { path: path.into(), rows, assignments: assignments.collect(), grade_column: None })
    }

    /// Chooses the column `canvas.csv` gives the marks in: `chosen` (`--canvas-column`), which
    /// must be one of the roster's; else the one assignment column named exactly as the suite's
    /// `title` (its words, ignoring case and punctuation), or failing that the one named by the
    /// first words of the other (`Practical 1 (4242)` for `Practical 1: Search`); else, on a
    /// roster with no assignment columns, a new column named `title`. Several such columns, or
    /// none among many, is an error listing them.
    pub fn choose_column(&mut self, title: &str, chosen: Option<&str>) -> Result<(), RosterError> {
        let listed = || self.assignments.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
        let error = |message: String| RosterError::Column { path: self.path.clone(), message };
        let column = match chosen {
            Some(chosen) if self.assignments.iter().any(|a| a == chosen.trim()) => chosen.trim().to_string(),
            Some(chosen) => {
                return Err(error(format!("no assignment column `{chosen}`; its assignment columns: {}", listed())))
            }
            None if self.assignments.is_empty() => title.to_string(),
            None => {
                let exact = |a: &&String| assignment_name(a).is_some_and(|name| words(name) == words(title));
                let named = |a: &&String| assignment_name(a).is_some_and(|name| same_assignment(name, title));
                let exactly: Vec<&String> = self.assignments.iter().filter(exact).collect();
                let found = match exactly.len() {
                    1 => exactly,
                    _ => self.assignments.iter().filter(named).collect(),
                };
                match found.as_slice() {
                    [one] => one.to_string(),
                    [] => {
                        return Err(error(format!(
                            "no assignment column is named as the suite (`{title}`); choose one with \
                             --canvas-column: {}",
                            listed()
                        )))
                    }
                    several => {
                        let several: Vec<String> = several.iter().map(|a| format!("`{a}`")).collect();
                        return Err(error(format!(
                            "{} assignment columns are named as the suite (`{title}`): {}; choose one with \
                             --canvas-column",
                            several.len(),
                            several.join(", ")
                        )));
                    }
                }
            }
        };
        self.grade_column = Some(column);
        Ok(())
    }

    /// Whether the submission `student` (handed in as `lms` says) is `row`'s.
    fn is_of(row: &RosterRow, student: &str, lms: Option<&LmsIdentity>) -> bool {
        let same = |a: &str, b: &str| !a.is_empty() && a.eq_ignore_ascii_case(b);
        let canvas_user = lms.filter(|lms| lms.lms == Lms::Canvas).map(|lms| lms.user_id.as_str());
        canvas_user.is_some_and(|user| same(&row.id, user))
            || same(&row.sis_login_id, student)
            || same(&row.sis_user_id, student)
    }

    /// The class matched against the roster: each row its first matching submission, marked or
    /// not (a submission marking did not reach was still handed in).
    pub fn match_class<'a>(&'a self, class: &'a ClassReport) -> Matched<'a> {
        let standings = class.standings();
        let mut claimed = vec![false; standings.len()];
        let mut on_roster = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            let found = standings
                .iter()
                .enumerate()
                .find(|(i, standing)| !claimed[*i] && Roster::is_of(row, standing.student(), standing.lms()));
            if let Some((index, _)) = found {
                claimed[index] = true;
            }
            on_roster.push((row, found.map(|(_, standing)| *standing)));
        }
        let not_on_roster = standings.into_iter().zip(claimed).filter(|(_, c)| !c).map(|(s, _)| s).collect();
        Matched { on_roster, not_on_roster }
    }
}

/// What the LMS and the roster said of a class, for the summary and the class page alike: who
/// handed in late and, with a roster, who on it handed nothing in (0 marks in `canvas.csv`),
/// who handed in but has no marks yet (blank), and which submissions are no one's on it.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LmsNotes {
    /// Students the LMS says handed in late.
    pub late: Vec<String>,
    /// What the roster says, when there is one.
    pub roster: Option<RosterNotes>,
}

/// A roster's side of [`LmsNotes`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct RosterNotes {
    /// The roster's file, as given.
    pub path: String,
    pub on_roster: usize,
    pub handed_in: usize,
    /// On the roster, nothing handed in: their names and ids.
    pub absent: Vec<RosterNote>,
    /// On the roster, handed in, no marks yet, and why.
    pub blank: Vec<RosterNote>,
    /// Submissions no roster row claims.
    pub not_on_roster: Vec<String>,
}

/// One roster row in [`RosterNotes`]: the student, their id, and what became of them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RosterNote {
    pub student: String,
    /// The first of the row's login, user id and Canvas id that it has.
    pub id: String,
    pub what: String,
}

impl LmsNotes {
    /// The notes for `class`, matched against `roster` when there is one.
    pub fn of(class: &ClassReport, roster: Option<&Roster>) -> LmsNotes {
        let late = class.students.iter().filter(|s| s.lms.as_ref().is_some_and(|lms| lms.late));
        let late = late.map(|s| s.student.clone()).collect();
        LmsNotes { late, roster: roster.map(|roster| RosterNotes::of(class, roster)) }
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        self.late.is_empty() && self.roster.is_none()
    }
}

impl RosterNotes {
    fn of(class: &ClassReport, roster: &Roster) -> RosterNotes {
        let matched = roster.match_class(class);
        let note = |row: &RosterRow, what: String| {
            let ids = [&row.sis_login_id, &row.sis_user_id, &row.id].into_iter().find(|id| !id.is_empty());
            RosterNote { student: row.student.clone(), id: ids.cloned().unwrap_or_default(), what }
        };
        let absent: Vec<RosterNote> = matched
            .absent()
            .map(|row| note(row, "no submission of theirs was found; 0 marks in canvas.csv".to_string()))
            .collect();
        let blank = matched
            .on_roster
            .iter()
            .filter_map(|(row, standing)| standing.filter(|s| s.marks().is_none()).map(|s| (row, s)))
            .map(|(row, standing)| {
                note(row, format!("handed in as {}, {}; blank in canvas.csv", standing.student(), standing.label()))
            })
            .collect();
        RosterNotes {
            path: roster.path.display().to_string(),
            on_roster: matched.on_roster.len(),
            handed_in: matched.on_roster.len() - absent.len(),
            absent,
            blank,
            not_on_roster: matched.not_on_roster.iter().map(|standing| standing.student().to_string()).collect(),
        }
    }
}

/// The assignment's name in a Canvas gradebook column (`Practical 1 (4242)` → `Practical 1`):
/// a name, then its Canvas id in brackets.
fn assignment_name(column: &str) -> Option<&str> {
    let (name, id) = column.strip_suffix(')')?.rsplit_once(" (")?;
    (!name.trim().is_empty() && !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then_some(name.trim())
}

/// A name's words, in lower case, without punctuation.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Whether an assignment named `name` is the suite titled `title`: the same words, ignoring case
/// and punctuation, or the first words of the other.
fn same_assignment(name: &str, title: &str) -> bool {
    let (name, title) = (words(name), words(title));
    !name.is_empty() && (title.starts_with(&name) || name.starts_with(&title))
}

/// A CSV record and the line it starts on.
type Record = (usize, Vec<String>);

/// RFC 4180 records with their first line numbers: fields split on commas, quoted fields may
/// hold commas, line breaks and doubled quotes. An error is its line and what is wrong.
fn csv_records(text: &str) -> Result<Vec<Record>, (usize, String)> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut line, mut start_line, mut quoted, mut chars) = (1, 1, false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                line += usize::from(c == '\n');
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push((start_line, std::mem::take(&mut record)));
                line += 1;
                start_line = line;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err((start_line, "a quoted field is never closed".into()));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push((start_line, record));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canvas_exports_are_read_with_their_own_rows_left_out() {
        let text = "\u{feff}Student,ID,SIS User ID,SIS Login ID,Section,P1 (123)\r\n\
                    \"    Points Possible\",,,,,25\r\n\
                    \"Smith, Jane\",101,S1,js1,\"A, B\",\r\n\
                    \"Student, Test\",999,,,,\r\n\
                    Doe John,102,,jd2,,\r\n";
        let roster = Roster::parse(Path::new("r.csv"), text).unwrap();
        let names: Vec<&str> = roster.rows.iter().map(|r| r.student.as_str()).collect();
        assert_eq!(names, ["Smith, Jane", "Doe John"]);
        assert_eq!(roster.rows[0].section, "A, B");
        assert_eq!(roster.rows[1].sis_login_id, "jd2");
    }

    #[test]
    fn the_marks_go_in_the_assignment_column_named_as_the_suite_or_the_one_chosen() {
        let header = "Student,ID,SIS User ID,SIS Login ID,Section,CS3105 Practical 1 (4242),CS3105 Practical 2 (4243),\
                      Current Points,Final Score\n";
        let title = "CS3105 Practical 1: Search in Black Hole Patience";
        let mut roster = Roster::parse(Path::new("r.csv"), header).unwrap();
        assert_eq!(roster.assignments, ["CS3105 Practical 1 (4242)", "CS3105 Practical 2 (4243)"]);
        roster.choose_column(title, None).unwrap();
        assert_eq!(roster.grade_column.as_deref(), Some("CS3105 Practical 1 (4242)"));
        roster.choose_column(title, Some("CS3105 Practical 2 (4243)")).unwrap();
        assert_eq!(roster.grade_column.as_deref(), Some("CS3105 Practical 2 (4243)"));
        let unknown = roster.choose_column(title, Some("Practical 9")).unwrap_err().to_string();
        assert!(
            unknown.starts_with("r.csv: no assignment column `Practical 9`; its assignment columns: `CS3105"),
            "{unknown}"
        );
        let none = roster.choose_column("Gaps", None).unwrap_err().to_string();
        assert!(none.contains("no assignment column is named as the suite (`Gaps`); choose one with --canvas-column"));
        let both = roster.choose_column("CS3105 Practical", None).unwrap_err().to_string();
        assert!(both.contains("2 assignment columns are named as the suite"), "{both}");
        // The column named exactly as the suite wins over one named by its first words.
        let mut exact =
            Roster::parse(Path::new("r.csv"), "Student,ID,SIS User ID,SIS Login ID,P1 (1),P1 redo (2)\n").unwrap();
        exact.choose_column("p1", None).unwrap();
        assert_eq!(exact.grade_column.as_deref(), Some("P1 (1)"));
        // A roster with no assignment yet: a new column, named as the suite.
        let mut bare = Roster::parse(Path::new("r.csv"), "Student,ID,SIS User ID,SIS Login ID,Section\n").unwrap();
        bare.choose_column(title, None).unwrap();
        assert_eq!(bare.grade_column.as_deref(), Some(title));
    }

    #[test]
    fn a_file_that_is_no_roster_is_refused_naming_what_it_lacks() {
        let error = Roster::parse(Path::new("grades.csv"), "student,total\nabc,3\n").unwrap_err().to_string();
        assert!(error.starts_with("grades.csv:1: the header lacks Student, ID, SIS User ID, SIS Login ID"), "{error}");
        let open = Roster::parse(Path::new("r.csv"), "Student,ID,SIS User ID,SIS Login ID\n\"Smith, Jane,1,,\n");
        assert_eq!(open.unwrap_err().to_string(), "r.csv:2: a quoted field is never closed");
    }
}
