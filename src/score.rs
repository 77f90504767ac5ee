//! Scores: verdicts and the suite's weights → marks per test, per part and in total.
//!
//! Marks are computed in exact units, hundredths of a mark (the gradebook's precision), as
//! integers: a part's marks are shared among its tests by the largest-remainder method, so the
//! tests' maxima sum exactly to the part's, and every sum after that (a part's score from its
//! tests', the total from the parts') is an integer sum. Rounding happens once, when a test's
//! share (or its partial credit) is turned into units; what a report shows is then exact, so a
//! reader adding up the numbers shown gets the number shown below them.

use crate::verdict::Verdict;

/// Units of marks per mark: every mark in a report is a whole number of hundredths.
pub const UNITS_PER_MARK: i64 = 100;

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

/// Marks (a suite's weight, a report's figure) → whole units, rounded to the nearest.
pub fn to_units(marks: f64) -> i64 {
    (marks * UNITS_PER_MARK as f64).round() as i64
}

/// Whole units → marks, for the JSON and the templates (exact to the hundredth).
pub fn from_units(units: i64) -> f64 {
    units as f64 / UNITS_PER_MARK as f64
}

/// `total` units shared in proportion to `weights` by the largest-remainder method: every share
/// is its quota rounded down or up, and the shares sum to exactly `total`. Ties go to the earlier
/// weight, so the sharing is the same on every machine. All-zero weights share nothing.
pub fn apportion(total: i64, weights: &[f64]) -> Vec<i64> {
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 || total <= 0 {
        return vec![0; weights.len()];
    }
    let quotas: Vec<f64> = weights.iter().map(|w| total as f64 * w / sum).collect();
    let mut shares: Vec<i64> = quotas.iter().map(|q| q.floor() as i64).collect();
    let left = total - shares.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    // Largest fractional part first; the sort is stable, so equal remainders keep test order.
    order.sort_by(|&a, &b| (quotas[b] - quotas[b].floor()).total_cmp(&(quotas[a] - quotas[a].floor())));
    for &index in order.iter().take(left.max(0) as usize) {
        shares[index] += 1;
    }
    shares
}

/// A part's marks: its weight shared among its tests in proportion to their weights.
///
/// Input: the part's weight in marks, each test's `(weight, verdict)`, the share `-1` earns.
/// Output: for each test `(score, max_score)` in marks, and the part's score, the exact sum of
/// the tests' scores. Every figure is a whole number of units.
pub fn part_scores(part_weight: f64, tests: &[(f64, Verdict)], gave_up_credit: f64) -> (Vec<(f64, f64)>, f64) {
    let weights: Vec<f64> = tests.iter().map(|(weight, _)| *weight).collect();
    let maxima = apportion(to_units(part_weight), &weights);
    let scores: Vec<i64> = maxima
        .iter()
        .zip(tests)
        .map(|(&max, &(_, verdict))| (max as f64 * credit(verdict, gave_up_credit)).round() as i64)
        .collect();
    let total: i64 = scores.iter().sum();
    let per_test = scores.iter().zip(&maxima).map(|(&score, &max)| (from_units(score), from_units(max))).collect();
    (per_test, from_units(total))
}

/// The exact sum of figures that are each a whole number of units (parts into a total).
pub fn sum(marks: impl IntoIterator<Item = f64>) -> f64 {
    from_units(marks.into_iter().map(to_units).sum())
}

/// Rounds marks to whole units, as a gradebook shows them.
pub fn round(marks: f64) -> f64 {
    from_units(to_units(marks))
}

/// Marks as every report shows them, in one format: two decimals (`9.63`, `11.00`, `0.00`).
pub fn format(marks: f64) -> String {
    let units = to_units(marks);
    let sign = if units < 0 { "-" } else { "" };
    let units = units.abs();
    format!("{sign}{}.{:02}", units / UNITS_PER_MARK, units % UNITS_PER_MARK)
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

    /// The measured case of the issue: 11 marks over 16 tests showed 0.69 each (11.04 in all).
    #[test]
    fn maxima_sum_exactly_to_the_part() {
        let shares = apportion(1100, &[1.0; 16]);
        assert_eq!(shares.iter().sum::<i64>(), 1100);
        assert!(shares.iter().all(|&s| s == 68 || s == 69), "{shares:?}");
        // Earlier tests take the extra hundredths.
        assert_eq!(shares[0], 69);
        assert_eq!(shares[15], 68);
        for (weight, n) in [(3.0, 20), (6.0, 14), (7.0, 3), (0.01, 7)] {
            let tests: Vec<(f64, Verdict)> = (0..n).map(|i| (1.0 + i as f64, Verdict::Accepted)).collect();
            let (per_test, score) = part_scores(weight, &tests, 0.25);
            assert_eq!(to_units(score), to_units(weight));
            assert_eq!(per_test.iter().map(|(_, max)| to_units(*max)).sum::<i64>(), to_units(weight));
        }
    }

    #[test]
    fn a_part_score_is_the_sum_of_its_tests() {
        let tests: Vec<(f64, Verdict)> =
            (0..16).map(|i| (1.0, [Verdict::Accepted, Verdict::GaveUp, Verdict::WrongAnswer][i % 3])).collect();
        let (per_test, score) = part_scores(11.0, &tests, 0.25);
        assert_eq!(per_test.iter().map(|(s, _)| to_units(*s)).sum::<i64>(), to_units(score));
    }

    #[test]
    fn shares_already_in_units_come_back_unchanged() {
        // `bhgrade test` gives each kept test its share of the whole part as its weight.
        let weights = [0.69, 0.69, 0.68, 0.68];
        assert_eq!(apportion(274, &weights), vec![69, 69, 68, 68]);
    }

    #[test]
    fn one_format() {
        assert_eq!(format(9.63), "9.63");
        assert_eq!(format(11.0), "11.00");
        assert_eq!(format(0.0), "0.00");
        assert_eq!(format(0.1075), "0.11");
        assert_eq!(sum([0.69, 0.68, 0.1]), 1.47);
    }
}
