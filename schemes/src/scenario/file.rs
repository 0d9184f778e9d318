//! The scenario file of `run --scenario FILE`: one timed event a line.
//!
//! ```text
//! # time  action  arguments
//! 600     add     1          # add 1 shard (numbered after the last)
//! 1200    drain   3          # planned: shard 3's data moves out by the scheme's removal rule
//! 1800    fail    2          # unplanned: shard 2 stops answering, nothing moves
//! 2400    recover 2          # shard 2 answers again, with its data
//! 3000    weight  1 2.5      # shard 1's weight becomes 2.5 (schemes that honour weights)
//! ```
//!
//! Times are seconds of trace time from the first event (`90`, `1.5`, `10m`, `2h`), or event
//! positions from 0 for traces without timestamps; they never go backwards. `#` starts a
//! comment.

use crate::AnalysisError;

pub use crate::changing::Action;

/// One line of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    /// Seconds from the first event (or an event position without timestamps).
    pub at: f64,
    /// What happens.
    pub action: Action,
    /// Its line in the file (1-based).
    pub line: usize,
}

/// Parses the text of a scenario file named `name`; errors name the file and the line.
pub fn parse(name: &str, text: &str) -> Result<Vec<Step>, AnalysisError> {
    let mut steps: Vec<Step> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let error = |what: String| AnalysisError::Config(format!("{name}:{line}: {what}"));
        let words: Vec<&str> = body.split_whitespace().collect();
        let at = parse_time(words[0]).map_err(error)?;
        if let Some(before) = steps.last().filter(|s| s.at > at) {
            return Err(error(format!(
                "time {} is before the previous event's ({} on line {}); list events in time \
                 order",
                words[0], before.at, before.line
            )));
        }
        let action = parse_action(&words[1..]).map_err(error)?;
        steps.push(Step { at, action, line });
    }
    Ok(steps)
}

fn parse_time(word: &str) -> Result<f64, String> {
    let (number, scale) = match word.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        None | Some((0, _)) => (word, 1.0),
        Some((i, _)) => match &word[i..] {
            "s" => (&word[..i], 1.0),
            "m" => (&word[..i], 60.0),
            "h" => (&word[..i], 3600.0),
            unit => {
                return Err(format!(
                    "unknown time unit '{unit}' in '{word}'; use s, m or h"
                ))
            }
        },
    };
    match number.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t * scale),
        _ => Err(format!(
            "'{word}' is not a time; a line starts with seconds from the first event (90, 1.5, \
             10m, 2h)"
        )),
    }
}

fn parse_action(words: &[&str]) -> Result<Action, String> {
    const USAGE: &str = "actions: add K, drain S, fail S, recover S, weight S W";
    let Some((&name, args)) = words.split_first() else {
        return Err(format!("a time without an action; {USAGE}"));
    };
    let count = |what: &str, min: u32| -> Result<u32, String> {
        let word = args.first().ok_or(format!("'{name}' needs {what}"))?;
        match word.parse::<u32>() {
            Ok(v) if v >= min => Ok(v),
            _ => Err(format!("'{word}' is not {what}")),
        }
    };
    let expect = |n: usize| -> Result<(), String> {
        match args.len() == n {
            true => Ok(()),
            false => Err(format!(
                "'{name}' takes {n} argument(s), got {}: '{}'",
                args.len(),
                words.join(" ")
            )),
        }
    };
    let action = match name {
        "add" => Action::Add(count("a number of shards (1 or more)", 1)?),
        "drain" => Action::Drain(count("a shard number", 0)?),
        "fail" => Action::Fail(count("a shard number", 0)?),
        "recover" => Action::Recover(count("a shard number", 0)?),
        "weight" => {
            let shard = count("a shard number", 0)?;
            let w = args.get(1).ok_or("'weight' needs a shard and a weight")?;
            match w.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Action::Weight(shard, v),
                _ => return Err(format!("weight '{w}' must be a number above 0")),
            }
        }
        other => return Err(format!("unknown action '{other}'; {USAGE}")),
    };
    expect(if name == "weight" { 2 } else { 1 })?;
    Ok(action)
}

/// Checks `steps` (of file `name`) against a cluster of `shards` shards at the start: every
/// shard named exists then, a drained shard is not named again, only a failed shard recovers,
/// at least one shard stays up, and no shard is added after a drain (growth rules number new
/// shards after the last, which a drained layout no longer has).
pub fn check(name: &str, steps: &[Step], shards: u32) -> Result<(), AnalysisError> {
    let mut n = shards;
    let (mut drained, mut failed): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for step in steps {
        let error = |what: String| {
            AnalysisError::Config(format!("{name}:{}: '{}': {what}", step.line, step.action))
        };
        let exists = |s: u32| -> Result<(), AnalysisError> {
            match (s < n, drained.contains(&s)) {
                (false, _) => Err(error(format!(
                    "there is no shard {s}: the cluster has shards 0..={} then (--shards {shards} \
                     and the adds before this line)",
                    n - 1
                ))),
                (true, true) => Err(error(format!("shard {s} was drained before"))),
                _ => Ok(()),
            }
        };
        match step.action {
            Action::Add(k) => {
                if !drained.is_empty() {
                    return Err(error(
                        "a shard cannot be added after a drain (growth numbers new shards after \
                         the last one); add before draining, as a replacement does"
                            .into(),
                    ));
                }
                n = n
                    .checked_add(k)
                    .ok_or_else(|| error("too many shards".into()))?;
            }
            Action::Drain(s) | Action::Fail(s) => {
                exists(s)?;
                if failed.contains(&s) {
                    return Err(error(format!("shard {s} has failed and not recovered")));
                }
                if n as usize - drained.len() - failed.len() <= 1 {
                    return Err(error("it is the last shard up; one must stay".into()));
                }
                match step.action {
                    Action::Drain(_) => drained.push(s),
                    _ => failed.push(s),
                }
            }
            Action::Recover(s) => {
                exists(s)?;
                let Some(i) = failed.iter().position(|&f| f == s) else {
                    return Err(error(format!("shard {s} has not failed")));
                };
                failed.remove(i);
            }
            Action::Weight(s, _) => {
                exists(s)?;
                if !drained.is_empty() {
                    return Err(error(
                        "weights cannot change after a drain; change them before".into(),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_with_comments_units_and_blank_lines() {
        let steps = parse(
            "s.txt",
            "# header\n\n10 add 1\n1.5m drain 3 # planned\n2h fail 0\n2h recover 0\n7300 weight 1 2.5\n",
        )
        .unwrap();
        let actions: Vec<(f64, Action, usize)> =
            steps.iter().map(|s| (s.at, s.action, s.line)).collect();
        assert_eq!(
            actions,
            [
                (10.0, Action::Add(1), 3),
                (90.0, Action::Drain(3), 4),
                (7200.0, Action::Fail(0), 5),
                (7200.0, Action::Recover(0), 6),
                (7300.0, Action::Weight(1, 2.5), 7),
            ]
        );
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let err = |text: &str| parse("s.txt", text).unwrap_err().to_string();
        assert!(err("10 add 1\n5 add 1").contains("s.txt:2: time 5 is before"));
        assert!(err("10 explode 1").contains("s.txt:1: unknown action 'explode'"));
        assert!(err("ten add 1").contains("s.txt:1: 'ten' is not a time"));
        assert!(err("10 add 0").contains("is not a number of shards"));
        assert!(err("10 drain").contains("'drain' needs a shard number"));
        assert!(err("10 drain 1 2").contains("takes 1 argument"));
        assert!(err("10 weight 1 -2").contains("must be a number above 0"));
        assert!(err("10x add 1").contains("unknown time unit 'x'"));
        let check_err = |text: &str| {
            check("s.txt", &parse("s.txt", text).unwrap(), 4)
                .unwrap_err()
                .to_string()
        };
        assert!(check_err("1 drain 4").contains("s.txt:1: 'drain 4': there is no shard 4"));
        assert!(check("s.txt", &parse("s.txt", "1 add 1\n2 drain 4").unwrap(), 4).is_ok());
        assert!(check_err("1 recover 1").contains("has not failed"));
        assert!(check_err("1 drain 1\n2 fail 1").contains("drained before"));
        assert!(check_err("1 drain 1\n2 add 1").contains("after a drain"));
        assert!(check_err("1 fail 0\n2 fail 1\n3 fail 2\n4 drain 3").contains("last shard up"));
    }
}
