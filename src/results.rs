//! The results of marking and their wording: what the plan, the pipeline and stacscheck's
//! judge produce, and every reporter renders. Input: verdicts, scores, build outcomes and the
//! marking environment; output: [`model`]'s serialisable reports (per test, student and class)
//! and [`text`]'s words (escaping, shortening, counts) that every output format shares.
//!
//! Below the plan and above the verdicts: reporting ([`crate::report`]) reads these and nothing
//! here knows how they are shown.

pub mod model;
pub mod text;
