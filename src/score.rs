//! Scores: verdicts and the suite's weights → marks per test, per part and in total.

use crate::verdict::Verdict;

/// The fraction of a test's weight a verdict earns.
pub fn credit(verdict: Verdict, gave_up_credit: f64) -> f64 {
    match verdict {
        Verdict::Accepted => 1.0,
        Verdict::GaveUp => gave_up_credit,
        Verdict::HarnessError
        | Verdict::TimeLimit
        | Verdict::MemoryLimit
        | Verdict::RuntimeError
        | Verdict::OutputLimit
        | Verdict::NoOutput
        | Verdict::FormatError
        | Verdict::WrongAnswer
        | Verdict::NotRun => 0.0,
    }
}

/// A part's marks: its weight shared among its tests in proportion to their weights.
///
/// Returns, for each test, `(score, max_score)` in marks, and the part's total score.
pub fn part_scores(part_weight: f64, tests: &[(f64, Verdict)], gave_up_credit: f64) -> (Vec<(f64, f64)>, f64) {
    let total_weight: f64 = tests.iter().map(|(weight, _)| weight).sum();
    let per_test: Vec<(f64, f64)> = tests
        .iter()
        .map(|&(weight, verdict)| {
            let max = if total_weight > 0.0 { part_weight * weight / total_weight } else { 0.0 };
            (max * credit(verdict, gave_up_credit), max)
        })
        .collect();
    let score = per_test.iter().map(|(score, _)| score).sum();
    (per_test, round(score))
}

/// Rounds marks to two decimals, as a gradebook shows them.
pub fn round(marks: f64) -> f64 {
    (marks * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_share_the_part() {
        let tests = [(1.0, Verdict::Accepted), (3.0, Verdict::WrongAnswer), (1.0, Verdict::GaveUp)];
        let (per_test, score) = part_scores(10.0, &tests, 0.5);
        assert_eq!(per_test, vec![(2.0, 2.0), (0.0, 6.0), (1.0, 2.0)]);
        assert_eq!(score, 3.0);
    }

    #[test]
    fn an_empty_part_scores_nothing() {
        assert_eq!(part_scores(5.0, &[], 0.0), (vec![], 0.0));
    }
}
