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

/// The fraction of a test's weight a verdict earns on its own: an accepted answer its
/// `quality` (1 unless its test credits quality), `-1` the suite's give-up credit (earned only
/// beside real answers: see [`part_scores`]), anything else nothing.
pub fn credit(verdict: Verdict, quality: Option<f64>, gave_up_credit: f64) -> f64 {
    match verdict {
        Verdict::Accepted => quality.unwrap_or(1.0).clamp(0.0, 1.0),
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

/// How a test that credits quality turns an accepted answer's measure (a count of which less is
/// better, such as a solution's moves) into the share of its marks it earns: all of them at the
/// proven best, then falling in a straight line to `floor` at `floor_at` times the best, and
/// `floor` from there on. An invalid answer is never measured: it earns nothing, as before.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QualityCurve {
    /// The share of the marks an answer `floor_at` times the best, or worse, earns (0 to 1).
    pub floor: f64,
    /// The multiple of the best at which the credit reaches `floor` (more than 1).
    pub floor_at: f64,
}

impl QualityCurve {
    /// The share of the marks an accepted answer measuring `value` earns where the best is
    /// `best`. Never more for a larger `value` on the same test.
    pub fn credit(self, value: u64, best: u64) -> f64 {
        if value <= best {
            return 1.0;
        }
        if best == 0 {
            return self.floor;
        }
        let ratio = value as f64 / best as f64;
        if ratio >= self.floor_at {
            return self.floor;
        }
        1.0 - (1.0 - self.floor) * (ratio - 1.0) / (self.floor_at - 1.0)
    }
}

/// How the tests of a group earn its marks together (named in reports as in a suite file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupScoring {
    /// Each test of the group earns the lowest credit any of them earned (CMS's subtasks).
    #[default]
    Minimum,
    /// The group's marks are earned only when every test in it is accepted (Kattis's test
    /// groups); then each test earns its own credit (its quality, where that is credited).
    AllOrNothing,
}

impl GroupScoring {
    /// The names a suite file uses.
    pub const NAMES: [&'static str; 2] = ["minimum", "all-or-nothing"];

    pub fn parse(name: &str) -> Option<GroupScoring> {
        match name {
            "minimum" => Some(GroupScoring::Minimum),
            "all-or-nothing" => Some(GroupScoring::AllOrNothing),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GroupScoring::Minimum => "minimum",
            GroupScoring::AllOrNothing => "all-or-nothing",
        }
    }
}

/// One test as scoring sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored<'a> {
    pub weight: f64,
    pub verdict: Verdict,
    /// For an accepted answer whose test credits quality, the share of the test's marks its
    /// quality earns (see `judge`); `None` for full credit.
    pub quality: Option<f64>,
    /// The test's group in its part; a test without one is a group of its own.
    pub group: Option<&'a str>,
}

/// How a part's tests earn its marks: the share of a `-1` and how a group's tests combine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rules {
    pub gave_up_credit: f64,
    pub group_scoring: GroupScoring,
}

/// The credit each test earns inside its group, in test order. A group's tests earn together
/// (see [`GroupScoring`]); a `-1` earns the give-up credit only in a group where some test was
/// accepted, so a program that gives up everywhere, or a test alone in its group, earns
/// nothing by it: give-up credit rewards knowing where one's search stops, beside real answers.
pub fn group_credits(tests: &[Scored<'_>], rules: Rules) -> Vec<f64> {
    let group_of = |index: usize| tests[index].group.map_or(GroupKey::Alone(index), GroupKey::Named);
    (0..tests.len())
        .map(|index| {
            let members: Vec<&Scored<'_>> =
                (0..tests.len()).filter(|&other| group_of(other) == group_of(index)).map(|m| &tests[m]).collect();
            let answered = members.iter().any(|test| test.verdict == Verdict::Accepted);
            let own = |test: &Scored<'_>| match test.verdict == Verdict::GaveUp && !answered {
                true => 0.0,
                false => credit(test.verdict, test.quality, rules.gave_up_credit),
            };
            match rules.group_scoring {
                GroupScoring::Minimum => members.iter().map(|test| own(test)).fold(1.0, f64::min),
                GroupScoring::AllOrNothing => match members.iter().all(|test| test.verdict == Verdict::Accepted) {
                    true => own(&tests[index]),
                    false => 0.0,
                },
            }
        })
        .collect()
}

/// Which group a test is in: a named one, or its own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GroupKey<'a> {
    Named(&'a str),
    Alone(usize),
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

/// A part's marks: its weight shared among its tests in proportion to their weights, each test
/// earning its share times its credit in its group ([`group_credits`]).
///
/// Input: the part's weight in marks, each test as [`Scored`], the part's [`Rules`].
/// Output: for each test `(score, max_score)` in marks, and the part's score, the exact sum of
/// the tests' scores. Every figure is a whole number of units.
pub fn part_scores(part_weight: f64, tests: &[Scored<'_>], rules: Rules) -> (Vec<(f64, f64)>, f64) {
    let weights: Vec<f64> = tests.iter().map(|test| test.weight).collect();
    let maxima = apportion(to_units(part_weight), &weights);
    let credits = group_credits(tests, rules);
    let scores: Vec<i64> =
        maxima.iter().zip(&credits).map(|(&max, &credit)| (max as f64 * credit).round() as i64).collect();
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

    fn scored(weight: f64, verdict: Verdict, group: Option<&str>) -> Scored<'_> {
        Scored { weight, verdict, quality: None, group }
    }

    fn rules(gave_up_credit: f64, group_scoring: GroupScoring) -> Rules {
        Rules { gave_up_credit, group_scoring }
    }

    #[test]
    fn weights_share_the_part() {
        let g = Some("g");
        let tests = [
            scored(1.0, Verdict::Accepted, g),
            scored(3.0, Verdict::WrongAnswer, None),
            scored(1.0, Verdict::GaveUp, g),
        ];
        let (per_test, score) = part_scores(10.0, &tests, rules(0.5, GroupScoring::Minimum));
        // The group {accepted, gave up} earns the give-up credit on both of its tests.
        assert_eq!(per_test, vec![(1.0, 2.0), (0.0, 6.0), (1.0, 2.0)]);
        assert_eq!(score, 2.0);
    }

    #[test]
    fn an_empty_part_scores_nothing() {
        assert_eq!(part_scores(5.0, &[], Rules::default()), (vec![], 0.0));
    }

    #[test]
    fn a_group_earns_its_lowest_credit_or_nothing() {
        let (a, b) = (Some("a"), Some("b"));
        let tests = [
            scored(1.0, Verdict::Accepted, a),
            scored(1.0, Verdict::WrongAnswer, a),
            scored(1.0, Verdict::Accepted, b),
            scored(1.0, Verdict::Accepted, b),
            scored(1.0, Verdict::Accepted, None),
        ];
        let credits = group_credits(&tests, rules(0.25, GroupScoring::Minimum));
        assert_eq!(credits, vec![0.0, 0.0, 1.0, 1.0, 1.0]);
        let mut graded = tests;
        graded[3].quality = Some(0.5);
        assert_eq!(group_credits(&graded, rules(0.25, GroupScoring::Minimum))[2..4], [0.5, 0.5]);
        assert_eq!(group_credits(&graded, rules(0.25, GroupScoring::AllOrNothing))[2..4], [1.0, 0.5]);
        assert_eq!(group_credits(&graded, rules(0.25, GroupScoring::AllOrNothing))[..2], [0.0, 0.0]);
    }

    /// Give-up credit rewards knowing where one's search stops, beside real answers: never a
    /// program that gives up everywhere.
    #[test]
    fn giving_up_earns_only_beside_an_accepted_answer() {
        let g = Some("g");
        let alone = [scored(1.0, Verdict::GaveUp, None)];
        assert_eq!(group_credits(&alone, rules(0.25, GroupScoring::Minimum)), vec![0.0]);
        let all_given_up = [scored(1.0, Verdict::GaveUp, g), scored(1.0, Verdict::GaveUp, g)];
        assert_eq!(group_credits(&all_given_up, rules(0.25, GroupScoring::Minimum)), vec![0.0, 0.0]);
        let beside = [scored(1.0, Verdict::Accepted, g), scored(1.0, Verdict::GaveUp, g)];
        assert_eq!(group_credits(&beside, rules(0.25, GroupScoring::Minimum)), vec![0.25, 0.25]);
        assert_eq!(group_credits(&beside, rules(0.25, GroupScoring::AllOrNothing)), vec![0.0, 0.0]);
    }

    /// Reports name a part's group scoring as its suite file does.
    #[test]
    fn group_scoring_is_named_alike_in_suites_and_reports() {
        for scoring in [GroupScoring::Minimum, GroupScoring::AllOrNothing] {
            assert_eq!(serde_json::to_value(scoring).unwrap(), scoring.name());
            assert_eq!(GroupScoring::parse(scoring.name()), Some(scoring));
        }
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
            let tests: Vec<Scored<'_>> = (0..n).map(|i| scored(1.0 + i as f64, Verdict::Accepted, None)).collect();
            let (per_test, score) = part_scores(weight, &tests, rules(0.25, GroupScoring::Minimum));
            assert_eq!(to_units(score), to_units(weight));
            assert_eq!(per_test.iter().map(|(_, max)| to_units(*max)).sum::<i64>(), to_units(weight));
        }
    }

    #[test]
    fn a_part_score_is_the_sum_of_its_tests() {
        let verdicts = [Verdict::Accepted, Verdict::GaveUp, Verdict::WrongAnswer];
        let groups = [Some("a"), Some("b"), None];
        let tests: Vec<Scored<'_>> = (0..16).map(|i| scored(1.0, verdicts[i % 3], groups[i % 2])).collect();
        let (per_test, score) = part_scores(11.0, &tests, rules(0.25, GroupScoring::Minimum));
        assert_eq!(per_test.iter().map(|(s, _)| to_units(*s)).sum::<i64>(), to_units(score));
    }

    #[test]
    fn shares_already_in_units_come_back_unchanged() {
        // `bhgrade test` gives each kept test its share of the whole part as its weight.
        let weights = [0.69, 0.69, 0.68, 0.68];
        assert_eq!(apportion(274, &weights), vec![69, 69, 68, 68]);
    }

    /// Issue 44: a shortest answer earns full credit, a valid longer one less and more than
    /// nothing (above the floor's multiple, the floor), and no longer answer more than a
    /// shorter one on the same test.
    #[test]
    fn quality_credit_falls_with_the_measure() {
        let curve = QualityCurve { floor: 0.1, floor_at: 3.0 };
        assert_eq!(curve.credit(30, 30), 1.0);
        assert_eq!(curve.credit(29, 30), 1.0, "better than the proven best cannot happen; it is not punished");
        assert!((curve.credit(60, 30) - 0.55).abs() < 1e-9);
        assert_eq!(curve.credit(90, 30), 0.1);
        assert_eq!(curve.credit(900, 30), 0.1);
        assert_eq!(curve.credit(1, 0), 0.1);
        for best in [0, 1, 7, 30] {
            let credits: Vec<f64> = (best..best * 5 + 10).map(|value| curve.credit(value, best)).collect();
            assert!(credits.windows(2).all(|pair| pair[1] <= pair[0]), "best {best}: {credits:?}");
            assert!(credits.iter().all(|&credit| (0.1..=1.0).contains(&credit)));
        }
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
