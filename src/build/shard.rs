//! Spreading a class over machines (`mark --shard K/N`): `K/N` → a [`Shard`], and the
//! submissions found → the fixed 1/N of them that shard marks.

use std::str::FromStr;

use super::Submission;

/// Shard `index` of `count` (1-based, as written: `2/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 <= K <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 2/4")?;
        let index: usize = k.trim().parse().map_err(|_| format!("`{k}` is not a shard number"))?;
        let count: usize = n.trim().parse().map_err(|_| format!("`{n}` is not a number of shards"))?;
        if index == 0 || index > count {
            return Err(format!("shard {index}/{count}: K must be between 1 and N"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// This shard's submissions: every N-th of them, starting at the K-th. The intake sorts
    /// submissions by name, so every machine computes the same shards, and together the N
    /// shards hold each submission exactly once.
    pub fn take(self, submissions: Vec<Submission>) -> Vec<Submission> {
        submissions.into_iter().enumerate().filter(|(i, _)| i % self.count == self.index - 1).map(|(_, s)| s).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_hold_each_submission_once_and_refuse_what_is_no_shard() {
        let class: Vec<Submission> =
            (0..10).map(|i| Submission::plain(format!("s{i}"), std::path::PathBuf::from("/nowhere"))).collect();
        let mut seen: Vec<String> = (1..=3)
            .flat_map(|k| Shard { index: k, count: 3 }.take(class.clone()))
            .map(|submission| submission.name)
            .collect();
        seen.sort();
        let mut names: Vec<String> = class.iter().map(|s| s.name.clone()).collect();
        names.sort();
        assert_eq!(seen, names);
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/3", "4/3", "2", "a/3", "1/b"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
