//! [`ShardCount`]: a number of shards, at least 1, checked once where it is made.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

use crate::AnalysisError;

/// A shard count of at least 1. Every shard count the user gives (`--shards`, `--grow`,
/// `--current`, `--max-shards`) and every one the library is handed is made through
/// [`ShardCount::new`] or parsed, so the check and its message live here only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct ShardCount(NonZeroU32);

impl ShardCount {
    /// `n` shards; an error when `n` is 0.
    pub fn new(n: u32) -> Result<ShardCount, AnalysisError> {
        NonZeroU32::new(n).map(ShardCount).ok_or_else(|| {
            AnalysisError::Config("the shard count must be at least 1 (got 0)".into())
        })
    }

    /// The count.
    pub fn get(self) -> u32 {
        self.0.get()
    }
}

impl From<ShardCount> for u32 {
    fn from(n: ShardCount) -> u32 {
        n.get()
    }
}

impl fmt::Display for ShardCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for ShardCount {
    type Err = String;

    /// A whole number of at least 1 (surrounding spaces allowed).
    fn from_str(text: &str) -> Result<ShardCount, String> {
        let t = text.trim();
        let n: u32 = t
            .parse()
            .map_err(|_| format!("'{t}' is not a whole number of shards (e.g. 16)"))?;
        ShardCount::new(n).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_non_numbers_are_refused_with_one_message() {
        assert_eq!(ShardCount::new(16).unwrap().get(), 16);
        assert_eq!(" 4 ".parse::<ShardCount>().unwrap().get(), 4);
        assert_eq!(
            "0".parse::<ShardCount>().unwrap_err(),
            "the shard count must be at least 1 (got 0)"
        );
        assert!(ShardCount::new(0)
            .unwrap_err()
            .to_string()
            .contains("at least 1"));
        assert!("x".parse::<ShardCount>().unwrap_err().contains("'x'"));
        assert!("-1".parse::<ShardCount>().is_err());
    }
}
