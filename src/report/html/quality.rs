//! The class page's view of credit by quality: a [`ClassReport`] → for each part whose tests
//! credit quality, how the class's answers spread against the best (issue 44).

use serde::Serialize;

use crate::results::model::ClassReport;

/// The bands an answer's measure falls in, as a multiple of the best: at it, within 10%, within
/// half again, within twice, beyond.
const BANDS: [(f64, &str); 4] = [(1.0, "at the best"), (1.1, "up to 1.1 ×"), (1.5, "up to 1.5 ×"), (2.0, "up to 2 ×")];

/// One part's spread: how many answers fell in each band, and how many were not valid.
#[derive(Debug, PartialEq, Serialize)]
pub struct Spread {
    pub part: String,
    /// Counts per band of [`labels`], then "more than 2 ×".
    pub counts: Vec<usize>,
    /// Answers to those tests that were run and not accepted.
    pub not_valid: usize,
}

/// The bands' names, in the order [`Spread::counts`] holds them.
pub fn labels() -> Vec<&'static str> {
    BANDS.iter().map(|(_, label)| *label).chain(["more than 2 ×"]).collect()
}

/// Every part with a test crediting quality, in part order.
pub fn spreads(class: &ClassReport) -> Vec<Spread> {
    // A test credits quality when some student's accepted answer to it was measured.
    let tests = class.students.iter().flat_map(|s| &s.parts).flat_map(|p| &p.tests);
    let credited: std::collections::HashSet<&str> =
        tests.filter(|t| t.quality.is_some()).map(|t| t.id.as_str()).collect();
    let mut spreads: Vec<Spread> = Vec::new();
    for student in &class.students {
        for part in &student.parts {
            for test in part.tests.iter().filter(|test| credited.contains(test.id.as_str())) {
                let quality = test.quality.as_ref();
                let index = match spreads.iter().position(|spread| spread.part == part.title) {
                    Some(index) => index,
                    None => {
                        spreads.push(Spread {
                            part: part.title.clone(),
                            counts: vec![0; BANDS.len() + 1],
                            not_valid: 0,
                        });
                        spreads.len() - 1
                    }
                };
                let spread = &mut spreads[index];
                if let Some(quality) = quality {
                    spread.counts[band(quality.measured, quality.best)] += 1;
                } else if super::failed(test.verdict) {
                    spread.not_valid += 1;
                }
            }
        }
    }
    spreads
}

/// The band of a measure against the best.
fn band(measured: u64, best: u64) -> usize {
    let ratio = if best == 0 { f64::INFINITY } else { measured as f64 / best as f64 };
    BANDS.iter().position(|(limit, _)| ratio <= *limit || measured <= best).unwrap_or(BANDS.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_fall_in_their_bands() {
        assert_eq!(band(16, 16), 0);
        assert_eq!(band(17, 16), 1);
        assert_eq!(band(23, 16), 2);
        assert_eq!(band(32, 16), 3);
        assert_eq!(band(33, 16), 4);
        assert_eq!(band(0, 0), 0);
        assert_eq!(band(1, 0), 4);
        assert_eq!(labels().len(), BANDS.len() + 1);
    }
}
