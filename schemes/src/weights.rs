//! Shard weights (`--weights`): how much of the keys each shard should hold, for clusters of
//! unequal machines. Schemes that can honour weights take them from the build context
//! ([`Weights::for_context`]); the others refuse them ([`refuse`]).

use std::path::Path;

use super::BuildContext;
use crate::AnalysisError;

/// Relative shard weights, or none (every shard equal).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Weights(Option<Vec<f64>>);

impl Weights {
    /// Equal weights.
    pub fn equal() -> Self {
        Weights(None)
    }

    /// These weights (empty: equal); each must be finite and above 0.
    pub fn new(weights: Vec<f64>) -> Result<Self, AnalysisError> {
        if let Some((i, w)) = weights
            .iter()
            .enumerate()
            .find(|(_, w)| !(w.is_finite() && **w > 0.0))
        {
            return Err(AnalysisError::Config(format!(
                "weight {} of shard {i} must be a number above 0",
                w
            )));
        }
        Ok(Weights((!weights.is_empty()).then_some(weights)))
    }

    /// The weights of the build context, checked against its shard count.
    pub fn for_context(ctx: &BuildContext<'_>) -> Result<Self, AnalysisError> {
        let weights = Self::new(ctx.weights.map(<[f64]>::to_vec).unwrap_or_default())?;
        weights.check_len(ctx.shards as usize)?;
        Ok(weights)
    }

    /// The weights, or `None` when all are equal.
    #[inline(always)]
    pub fn get(&self) -> Option<&[f64]> {
        self.0.as_deref()
    }

    /// Fails unless there is one weight per shard (or none).
    pub fn check_len(&self, shards: usize) -> Result<(), AnalysisError> {
        match &self.0 {
            Some(w) if w.len() != shards => Err(AnalysisError::Config(format!(
                "{} weights given for {shards} shards; give one weight per shard",
                w.len()
            ))),
            _ => Ok(()),
        }
    }

    /// The weights for `shards` shards after a resize: shards kept keep their weight, new
    /// shards get the mean weight of the old ones.
    pub fn resized(&self, shards: usize) -> Self {
        Weights(self.0.as_ref().map(|w| {
            let mean = w.iter().sum::<f64>() / w.len() as f64;
            let mut w = w.clone();
            w.resize(shards, mean);
            w
        }))
    }

    /// The weights without shard `i`.
    pub fn without(&self, i: usize) -> Self {
        Weights(self.0.as_ref().map(|w| {
            let mut w = w.clone();
            w.remove(i);
            w
        }))
    }
}

/// Fails when the build context carries weights: for schemes that cannot honour them.
pub fn refuse(ctx: &BuildContext<'_>, label: &str, why: &str) -> Result<(), AnalysisError> {
    match ctx.weights {
        Some(w) if !w.is_empty() => Err(AnalysisError::Config(format!(
            "scheme '{label}' cannot honour --weights: {why}; weighted schemes: ring, \
             rendezvous, maglev, range, ketama, twemproxy (nginx-chash: weight= in its servers \
             file)"
        ))),
        _ => Ok(()),
    }
}

/// Parses `--weights`: a comma-separated list (`1,2,2`) or a file with one weight per line
/// (at least one). Errors say which weight (or which line of the file) is wrong. Weights are
/// relative: when their sum would not be a finite number they come back divided by the
/// largest (`1e308` four times is four equal shards); otherwise as given, so that the
/// systems whose integer weights shardlab matches bit for bit see the very numbers given.
pub fn parse(text: &str) -> Result<Vec<f64>, AnalysisError> {
    let weights = parse_raw(text)?;
    if weights.iter().sum::<f64>().is_finite() {
        return Ok(weights);
    }
    let largest = weights.iter().copied().fold(0.0, f64::max);
    Ok(weights.into_iter().map(|w| w / largest).collect())
}

/// [`parse`] before the weights are divided by the largest.
fn parse_raw(text: &str) -> Result<Vec<f64>, AnalysisError> {
    let path = Path::new(text);
    let looks_like_list = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | ' ' | '_'));
    if looks_like_list || !path.is_file() {
        return text
            .split(',')
            .enumerate()
            .map(|(i, w)| {
                parse_one(w).map_err(|m| {
                    AnalysisError::Config(format!(
                        "--weights '{text}': weight {}: {m}; give W1,W2,... or a file with one \
                         weight per line",
                        i + 1
                    ))
                })
            })
            .collect();
    }
    let body = std::fs::read_to_string(path).map_err(|e| {
        AnalysisError::Config(format!(
            "cannot read weights file '{}': {e}",
            path.display()
        ))
    })?;
    // A byte order mark (an editor may add one) is not part of the first weight.
    let body = body.strip_prefix('\u{feff}').unwrap_or(&body);
    if body.trim().is_empty() {
        return Err(AnalysisError::Boundaries {
            path: path.to_path_buf(),
            line: 1,
            message: "the weights file is empty; give one weight per line, one line per shard"
                .into(),
        });
    }
    body.lines()
        .enumerate()
        .map(|(i, line)| {
            parse_one(line.trim_end_matches('\r')).map_err(|message| AnalysisError::Boundaries {
                path: path.to_path_buf(),
                line: i + 1,
                message: format!("bad weight: {message}"),
            })
        })
        .collect()
}

/// One weight: a number above 0.
fn parse_one(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(w) if w.is_finite() && w > 0.0 => Ok(w),
        _ => Err(format!(
            "'{}' is not a number above 0 (e.g. 1, 2.5)",
            text.trim()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_parse_from_a_list_or_a_file_and_bad_ones_are_named() {
        assert_eq!(parse("1,2, 2.5").unwrap(), [1.0, 2.0, 2.5]);
        // Relative: divided by the largest when their sum would overflow.
        assert_eq!(parse("1e308,1e308,1e308,1e308").unwrap(), [1.0; 4]);
        let err = parse("1,x").unwrap_err().to_string();
        assert!(
            err.contains("weight 2: 'x' is not a number above 0"),
            "{err}"
        );
        assert!(parse("1,0").is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.txt");
        std::fs::write(&file, "1\n3\n-1\n").unwrap();
        let err = parse(file.to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains("w.txt:3: bad weight: '-1'"), "{err}");
        std::fs::write(&file, "1\r\n3\n").unwrap();
        assert_eq!(parse(file.to_str().unwrap()).unwrap(), [1.0, 3.0]);
        std::fs::write(&file, "\n").unwrap();
        let err = parse(file.to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains("w.txt:1: ") && err.contains("empty"), "{err}");
        std::fs::write(&file, "\u{feff}1\r\n3\n").unwrap();
        assert_eq!(parse(file.to_str().unwrap()).unwrap(), [1.0, 3.0]);
    }

    #[test]
    fn weights_follow_resizes_and_removals() {
        let w = Weights::new(vec![1.0, 3.0]).unwrap();
        assert_eq!(w.resized(3).get().unwrap(), [1.0, 3.0, 2.0]);
        assert_eq!(w.without(0).get().unwrap(), [3.0]);
        assert!(w.check_len(3).is_err());
        assert_eq!(Weights::new(vec![]).unwrap(), Weights::equal());
    }
}
