//! A review kept as a file: `shardlab run --config review.toml`.
//!
//! Each key of the file is a long option of the subcommand (`key-type` or `key_type` for
//! `--key-type`), so every option is expressible and means exactly what it means on the
//! command line: the file is expanded into options before parsing. A string, integer or float
//! is the option's value; `true` gives a flag (`false` leaves it out); an array repeats a
//! repeatable option (`workload = ["zipf", "uniform"]`) and is joined with commas for a list
//! option (`shards = [4, 8]` is `--shards 4,8`). An option given on the command line wins over
//! the file's. A key that is not an option, or a table, is a usage error naming the file and
//! line.
//!
//! ```toml
//! workload = ["zipf:s=1.1,keys=20000"]
//! schemes = ["hash", "ring:vnodes=64"]
//! shards = [8, 16]
//! grow = ["+1", "x2"]
//! seed = 7
//! out = "results/review"
//! ```

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::ArgAction;

use crate::usage::usage;

/// The name of the option that names the file.
const OPTION: &str = "config";

/// A configuration file that was read: its path, as given, and its bytes.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The path as given after `--config`.
    pub path: PathBuf,
    /// The file's bytes, copied into the run directory as `config.toml`.
    pub bytes: Vec<u8>,
}

/// The command line `argv` with the options of the `--config` file of `subcommand` added
/// (those not given on the command line), and the file; `argv` unchanged and no file when
/// there is no `--config`.
pub fn expand(
    command: &clap::Command,
    argv: Vec<OsString>,
) -> Result<(Vec<OsString>, Option<ConfigFile>)> {
    // A first parse finds the subcommand and what the command line gives; errors (and
    // --help) are clap's own, reported as on any command line.
    let matches = command
        .clone()
        .try_get_matches_from(&argv)
        .unwrap_or_else(|e| e.exit());
    let Some((name, sub_matches)) = matches.subcommand() else {
        return Ok((argv, None));
    };
    let Some(sub) = command.find_subcommand(name) else {
        return Ok((argv, None));
    };
    if !sub.get_arguments().any(|a| a.get_id() == OPTION) {
        return Ok((argv, None));
    }
    let Some(path) = sub_matches.get_one::<PathBuf>(OPTION).cloned() else {
        return Ok((argv, None));
    };
    let bytes = std::fs::read(&path)
        .with_context(|| format!("cannot read the configuration '{}'", path.display()))?;
    let given = crate::cli::options_given(&matches);
    let added = options_of(sub, &path, &bytes, &given)?;
    let mut expanded = argv;
    expanded.extend(added);
    Ok((expanded, Some(ConfigFile { path, bytes })))
}

/// The command-line options that the configuration `bytes` (read from `path`) gives for
/// `sub`, leaving out those in `given`.
fn options_of(
    sub: &clap::Command,
    path: &Path,
    bytes: &[u8],
    given: &[String],
) -> Result<Vec<OsString>> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| usage(format!("{}: not UTF-8 text", path.display())))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let place = e
            .span()
            .map(|s| format!(":{}", line_of_offset(text, s.start)))
            .unwrap_or_default();
        usage(format!("{}{place}: {}", path.display(), e.message()))
    })?;
    let mut options = Vec::new();
    for (key, value) in &table {
        let at = || format!("{}:{}", path.display(), line_of_key(text, key));
        let long = key.replace('_', "-");
        let arg = sub
            .get_arguments()
            .find(|a| a.get_long() == Some(long.as_str()) && !a.is_positional())
            .ok_or_else(|| {
                usage(format!(
                    "{}: '{key}' is not an option of `shardlab {}`; the keys are its long \
                     option names (see `shardlab {} --help`)",
                    at(),
                    sub.get_name(),
                    sub.get_name()
                ))
            })?;
        if arg.get_id() == OPTION {
            return Err(usage(format!(
                "{}: a configuration cannot name another configuration",
                at()
            )));
        }
        if given.iter().any(|g| g == arg.get_id().as_str()) {
            continue;
        }
        let flag = matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::Count);
        let repeated = matches!(arg.get_action(), ArgAction::Append);
        let option = OsString::from(format!("--{long}"));
        match value {
            toml::Value::Boolean(on) if flag => {
                if *on {
                    options.push(option);
                }
            }
            _ if flag => {
                return Err(usage(format!(
                    "{}: '{key}' is a flag: write `{key} = true` or `{key} = false`",
                    at()
                )))
            }
            toml::Value::Array(items) => {
                let items = items
                    .iter()
                    .map(|v| scalar(v).ok_or_else(|| not_a_value(&at(), key)))
                    .collect::<Result<Vec<_>>>()?;
                if repeated {
                    for item in items {
                        options.push(option.clone());
                        options.push(item.into());
                    }
                } else {
                    options.push(option);
                    options.push(items.join(",").into());
                }
            }
            other => {
                options.push(option);
                options.push(scalar(other).ok_or_else(|| not_a_value(&at(), key))?.into());
            }
        }
    }
    Ok(options)
}

/// The text of a string, number or boolean value; `None` for tables, arrays and dates.
fn scalar(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn not_a_value(at: &str, key: &str) -> anyhow::Error {
    usage(format!(
        "{at}: '{key}' must be a string, a number, a boolean or an array of those (a table \
         or a date is not an option value)"
    ))
}

/// The 1-based line of byte `offset` of `text`.
fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The 1-based line where top-level `key` is defined (1 when it cannot be found).
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let line = line.trim_start_matches('"');
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start_matches('"').trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn run_options(text: &str, given: &[&str]) -> Result<Vec<String>> {
        let cli = crate::command::Cli::command();
        let run = cli.find_subcommand("run").unwrap();
        let given: Vec<String> = given.iter().map(|s| s.to_string()).collect();
        options_of(run, Path::new("review.toml"), text.as_bytes(), &given)
            .map(|v| v.into_iter().map(|s| s.into_string().unwrap()).collect())
    }

    #[test]
    fn keys_become_options_arrays_repeat_or_join_and_flags_follow_booleans() {
        let options = run_options(
            "workload = [\"zipf\", \"uniform\"]\nshards = [4, 8]\nkey_type = \"u64\"\n\
             warmup = 0.25\nno-latency = true\nquiet = false\nseed = 7\n",
            &[],
        )
        .unwrap();
        assert_eq!(
            options,
            [
                "--key-type",
                "u64",
                "--no-latency",
                "--seed",
                "7",
                "--shards",
                "4,8",
                "--warmup",
                "0.25",
                "--workload",
                "zipf",
                "--workload",
                "uniform"
            ]
        );
    }

    #[test]
    fn the_command_line_wins_over_the_file() {
        let options = run_options("seed = 7\nshards = 4\n", &["seed"]).unwrap();
        assert_eq!(options, ["--shards", "4"]);
    }

    #[test]
    fn unknown_keys_tables_and_bad_toml_name_the_file_and_line() {
        let e = run_options("seed = 7\nshard = 4\n", &[]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("review.toml:2: 'shard' is not an option"),
            "{e}"
        );
        let e = run_options("[schemes]\nring = 1\n", &[]).unwrap_err();
        assert!(
            e.to_string().contains("review.toml:1: 'schemes' must be"),
            "{e}"
        );
        let e = run_options("seed = 7\nshards = = 4\n", &[]).unwrap_err();
        assert!(e.to_string().starts_with("review.toml:2:"), "{e}");
        let e = run_options("no-latency = 1\n", &[]).unwrap_err();
        assert!(e.to_string().contains("is a flag"), "{e}");
        let e = run_options("config = \"other.toml\"\n", &[]).unwrap_err();
        assert!(e.to_string().contains("cannot name another"), "{e}");
    }
}
