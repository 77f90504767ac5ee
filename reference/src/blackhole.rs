//! [`BlackHoleReferee`]: the [`crate::referee::Referee`] for this practical's four commands.
//!
//! Input: test kinds `check`, `solve`, `checkworm`, `solveworm`, puzzle texts and candidate
//! solutions. Output: the reference's expected answers and judgements of programs' first lines.
