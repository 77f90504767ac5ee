//! Names as a learning management system delivers submissions → who each entry belongs to
//! ([`LmsIdentity`]), so that a folder downloaded from Canvas or Moodle is marked as it is.
//!
//! - Canvas's "Download submissions": one file per uploaded file, named
//!   `lastfirst_USERID_SUBMISSIONID_FILE` (`lastfirst_LATE_USERID_SUBMISSIONID_FILE` when late):
//!   the student's name squashed to lower-case letters, their Canvas user id, the submission's
//!   id and the student's own file name.
//! - Moodle's "Download all submissions" (as folders): one folder per student and plugin,
//!   `Full Name_PARTICIPANTID_assignsubmission_file_` (or `_onlinetext_`).
//!
//! Any other name is not an LMS's, and the entry is named by itself (see [`super::intake()`]).

use serde::{Deserialize, Serialize};

/// The system a name came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lms {
    Canvas,
    Moodle,
}

/// Who an entry belongs to, as its LMS named it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LmsIdentity {
    pub lms: Lms,
    /// The name the LMS gives the student (`lastfirst`, `Full Name`).
    pub name: String,
    /// Canvas's user id, Moodle's participant id.
    pub user_id: String,
    /// Canvas marked the submission late.
    pub late: bool,
    /// The student's own names of the files or folders they handed in, in file-name order.
    pub files: Vec<String>,
}

/// The identity in an entry's file name, if an LMS made it.
pub fn parse(file_name: &str, is_dir: bool) -> Option<LmsIdentity> {
    match is_dir {
        true => moodle(file_name),
        false => canvas(file_name),
    }
}

fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// `lastfirst[_LATE]_USERID_SUBMISSIONID_FILE`.
fn canvas(file_name: &str) -> Option<LmsIdentity> {
    let (name, rest) = file_name.split_once('_')?;
    let squashed = !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !squashed {
        return None;
    }
    let (late, rest) = match rest.strip_prefix("LATE_") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let (user_id, rest) = rest.split_once('_')?;
    let (submission_id, own) = rest.split_once('_')?;
    if !all_digits(user_id) || !all_digits(submission_id) || own.is_empty() {
        return None;
    }
    Some(LmsIdentity {
        lms: Lms::Canvas,
        name: name.to_string(),
        user_id: user_id.to_string(),
        late,
        files: vec![own.to_string()],
    })
}

/// `Full Name_PARTICIPANTID_assignsubmission_PLUGIN_`.
fn moodle(folder_name: &str) -> Option<LmsIdentity> {
    let (before, plugin) = folder_name.rsplit_once("_assignsubmission_")?;
    if !plugin.trim_end_matches('_').bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let (name, id) = before.rsplit_once('_')?;
    if !all_digits(id) || name.trim().is_empty() {
        return None;
    }
    Some(LmsIdentity {
        lms: Lms::Moodle,
        name: name.to_string(),
        user_id: id.to_string(),
        late: false,
        files: vec![folder_name.to_string()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canvas_names_give_the_user_the_late_flag_and_the_students_own_file() {
        let on_time = parse("smithjane_12345_67890_p1.zip", false).unwrap();
        assert_eq!((on_time.lms, on_time.name.as_str(), on_time.user_id.as_str()), (Lms::Canvas, "smithjane", "12345"));
        assert_eq!((on_time.late, on_time.files.as_slice()), (false, ["p1.zip".to_string()].as_slice()));
        let late = parse("smithjane_LATE_12345_67891_My_Files.tar.gz", false).unwrap();
        assert_eq!((late.late, late.user_id.as_str(), late.files[0].as_str()), (true, "12345", "My_Files.tar.gz"));
        for not_canvas in ["abc1.zip", "abc1", "smithjane_p1.zip", "Smith_12_34_x", "smithjane_12_34_", "a_b_1_2_x"] {
            assert_eq!(parse(not_canvas, false), None, "{not_canvas}");
        }
        assert_eq!(parse("smithjane_12345_67890_p1.zip", true), None, "a folder is never Canvas's");
    }

    #[test]
    fn moodle_folders_give_the_full_name_and_the_participant() {
        let found = parse("Jane Smith_4021_assignsubmission_file_", true).unwrap();
        assert_eq!((found.lms, found.name.as_str(), found.user_id.as_str()), (Lms::Moodle, "Jane Smith", "4021"));
        assert!(parse("Jane_Smith_4021_assignsubmission_onlinetext_", true).is_some_and(|m| m.name == "Jane_Smith"));
        for not_moodle in ["Jane Smith", "Jane Smith_x_assignsubmission_file_", "_4021_assignsubmission_file_"] {
            assert_eq!(parse(not_moodle, true), None, "{not_moodle}");
        }
    }
}
