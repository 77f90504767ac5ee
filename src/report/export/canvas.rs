//! Canvas: a [`ClassReport`] → a gradebook CSV that Canvas's "Import" takes as it is: Canvas's
//! own columns (`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`), one column for the
//! practical's total, and a `Points Possible` row first. Students are matched on `SIS Login ID`,
//! which is the name of each student's submission (the login, as a course usually names them).

use crate::report::markdown::csv_field;
use crate::report::model::ClassReport;
use crate::score;

/// [`ClassReport`] → the Canvas gradebook CSV.
pub fn gradebook(class: &ClassReport) -> String {
    let mut out = format!("Student,ID,SIS User ID,SIS Login ID,Section,{}\n", csv_field(&class.suite_title));
    out.push_str(&format!("Points Possible,,,,,{}\n", score::format(class.max_score)));
    for student in &class.students {
        let name = csv_field(&student.student);
        out.push_str(&format!("{name},,,{name},,{}\n", score::format(student.score)));
    }
    out
}
