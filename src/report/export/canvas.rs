//! Canvas: a [`ClassReport`] → a gradebook CSV that Canvas's "Import" takes as it is: Canvas's
//! own columns (`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`), one column for the
//! practical's total, and a `Points Possible` row first.
//!
//! With a roster (`mark --roster`, Canvas's own gradebook export) the rows are the roster's, in
//! its order, with its ID columns, so Canvas matches every one; a student on it who handed
//! nothing in gets 0 (the summary says why). Without one, students are matched on
//! `SIS Login ID`, the submission's name (the login, as a course usually names them), and a
//! submission downloaded from Canvas carries its Canvas user id as `ID`.

use crate::build::lms::Lms;
use crate::report::markdown::csv_field;
use crate::report::roster::Roster;
use crate::results::model::ClassReport;
use crate::score;

/// [`ClassReport`] (and the roster, when given) → the Canvas gradebook CSV.
pub fn gradebook(class: &ClassReport, roster: Option<&Roster>) -> String {
    let mut out = format!("Student,ID,SIS User ID,SIS Login ID,Section,{}\n", csv_field(&class.suite_title));
    out.push_str(&format!("Points Possible,,,,,{}\n", score::format(class.max_score)));
    let mut row = |student: &str, id: &str, sis_user: &str, sis_login: &str, section: &str, marks: f64| {
        let fields = [student, id, sis_user, sis_login, section].map(csv_field);
        out.push_str(&format!("{},{}\n", fields.join(","), score::format(marks)));
    };
    match roster {
        Some(roster) => {
            for (entry, report) in roster.match_class(class).on_roster {
                let marks = report.map_or(0.0, |report| report.score);
                row(&entry.student, &entry.id, &entry.sis_user_id, &entry.sis_login_id, &entry.section, marks);
            }
        }
        None => {
            for student in &class.students {
                let canvas = student.lms.as_ref().filter(|lms| lms.lms == Lms::Canvas);
                let id = canvas.map_or("", |lms| lms.user_id.as_str());
                let login = if canvas.is_some() { "" } else { student.student.as_str() };
                row(&student.student, id, "", login, "", student.score);
            }
        }
    }
    out
}
