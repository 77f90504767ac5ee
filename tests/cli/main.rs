//! The integration tests: one binary that drives the real `bhgrade` CLI against the fixtures
//! (real Java submissions built with the real JDK) and checks verdicts, reports and errors.

mod bounds;
mod closed_output;
mod errors;
mod expectations;
mod gaps;
mod hostile;
mod html;
mod imports;
mod injection;
mod intake;
mod junit;
mod lbs;
mod leaks;
mod lms;
mod mark;
mod merge;
mod nonroot;
mod outputs;
mod own_writes;
mod quality;
mod reports;
mod scale;
mod signals;
#[path = "../../src/skip.rs"]
mod skip;
mod slurm;
mod stacscheck;
mod student;
mod suite;
mod superpuzz;
mod support;
mod terminal;
mod timing;
