//! Canvas: a [`ClassReport`] → a gradebook CSV that Canvas's "Import" takes as it is: Canvas's
//! own columns (`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`), one column for the
//! practical's total (the roster's own assignment column, when there is a roster, else named
//! after the suite's title), and a `Points Possible` row first.
//!
//! With a roster (`mark --roster`, Canvas's own gradebook export) the rows are the roster's, in
//! its order, with its ID columns, so Canvas matches every one; a student on it who handed
//! nothing in gets 0 (the summary says why). Without one, students are matched on `SIS Login
//! ID`, the submission's name (the login, as a course usually names them), and a submission
//! downloaded from Canvas carries its Canvas user id as `ID`. Either way a submission whose marks
//! do not stand (marking was stopped before it, or the harness could not judge a test) is blank,
//! never 0.

use crate::build::lms::Lms;
use crate::report::markdown::csv_field;
use crate::report::roster::Roster;
use crate::results::model::ClassReport;
use crate::score;

/// [`ClassReport`] (and the roster, when given) → the Canvas gradebook CSV.
pub fn gradebook(class: &ClassReport, roster: Option<&Roster>) -> String {
    let column = roster.and_then(|roster| roster.grade_column.as_deref()).unwrap_or(&class.suite_title);
    let mut out = format!("Student,ID,SIS User ID,SIS Login ID,Section,{}\n", csv_field(column));
    out.push_str(&format!("Points Possible,,,,,{}\n", score::format(class.max_score)));
    // Marks where they stand; blank (no grade to import) where they do not.
    let mut row = |student: &str, id: &str, sis_user: &str, sis_login: &str, section: &str, marks: Option<f64>| {
        let fields = [student, id, sis_user, sis_login, section].map(csv_field);
        out.push_str(&format!("{},{}\n", fields.join(","), marks.map(score::format).unwrap_or_default()));
    };
    match roster {
        Some(roster) => {
            for (entry, handed_in) in roster.match_class(class).on_roster {
                // Handed nothing in: 0. Handed in: the marks, when they stand.
                let marks = match handed_in {
                    None => Some(0.0),
                    Some(standing) => standing.marks().map(|report| report.score),
                };
                row(&entry.student, &entry.id, &entry.sis_user_id, &entry.sis_login_id, &entry.section, marks);
            }
        }
        None => {
            for standing in class.standings() {
                let canvas = standing.lms().filter(|lms| lms.lms == Lms::Canvas);
                let id = canvas.map_or("", |lms| lms.user_id.as_str());
                let login = if canvas.is_some() { "" } else { standing.student() };
                row(standing.student(), id, "", login, "", standing.marks().map(|report| report.score));
            }
        }
    }
    out
}
