//! A run directory read back into memory: the one model that charts and the report are drawn
//! from, so that `shardlab report DIR` and the run that wrote DIR draw the same pictures.
//!
//! Files are read by column name (extra columns are ignored, so sweep parameter columns can be
//! added later); every malformed value is reported with its file and line.
//!
//! ```no_run
//! let run = reports::data::RunData::load(std::path::Path::new("results/review")).unwrap();
//! for workload in run.workloads() {
//!     println!("{workload}: {:?}", run.metric(workload, "hash", run.base_shards(workload).unwrap(), "hottest_shard_share"));
//! }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::{Manifest, ReportError};

/// One row of `summary.csv`: one metric of one scheme on one workload.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRow {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// Shard count M of the remap measurement.
    pub target_shards: u32,
    /// Metric name.
    pub metric: String,
    /// The value; `None` when undefined (an empty cell).
    pub value: Option<f64>,
    /// The metric's unit.
    pub unit: String,
    /// Its 95% interval, when summary.csv gives one (`ci_low`, `ci_high`).
    pub ci: Option<(f64, f64)>,
}

/// Requests per shard of one scheme on one workload at one shard count, whole-trace and per
/// window (from `shards.csv` and `windows.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeLoad {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Shard count N.
    pub shards: u32,
    /// Requests per shard over the whole trace.
    pub shard_requests: Vec<u64>,
    /// Distinct point keys per shard.
    pub shard_distinct_keys: Vec<u64>,
    /// Requests per shard in each window, in window order (empty without `windows.csv` rows).
    pub window_requests: Vec<Vec<u64>>,
    /// Each shard's share of all requests (`shards.csv`'s `request_share`).
    pub shard_share: Vec<f64>,
    /// The hottest shard's share of each window's requests, in window order
    /// (`windows.csv`'s `window_hottest_share`; empty when the file lacks the column).
    pub window_hottest_share: Vec<f64>,
}

/// One row of `recommendation.csv`: the outcome of the decision procedure for one workload,
/// shard count and growth target.
#[derive(Clone, Debug, PartialEq)]
pub struct RecommendationRow {
    /// Workload label.
    pub workload: String,
    /// Shard count N.
    pub shards: u32,
    /// Growth (or shrink) target M.
    pub grow_to: u32,
    /// The recommended scheme; `None` for a tie or too little data.
    pub scheme: Option<String>,
    /// The deciding criterion (`usable_capacity`, `idle_new_shards`, `growth_cost`,
    /// `scan_fanout`, `lookup_time`, `tie`; empty when nothing was compared).
    pub decided_by: String,
    /// The margin in the criterion's unit.
    pub margin: Option<f64>,
    /// Schemes tied with the winner on usable capacity (every tied scheme for a tie).
    pub tied_with: Vec<String>,
    /// Why no scheme is named, or a caveat about the one named.
    pub warning: String,
}

/// One row of `timeline.csv` (range dynamics): the figures of one window.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineRow {
    /// What the row belongs to: the values of its `workload`, `scheme` and `finder` columns,
    /// joined with " / " (empty when the file has none of them).
    pub series: String,
    /// Window index.
    pub window: u64,
    /// Every other column by name, e.g. `ranges`, `splits`, `merges`, `bytes_moved`; empty
    /// cells are left out.
    pub values: BTreeMap<String, f64>,
}

/// One row of `splits.csv`: one split decision of one finder.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitRow {
    /// The values of the file's `workload` and `scheme` columns, if any, joined with " / ".
    pub series: String,
    /// Window of the decision.
    pub window: u64,
    /// Split-key finder: `median`, `sampled`, `reservoir` or `optimal`.
    pub finder: String,
    /// Start key of the range considered.
    pub range_start: String,
    /// The chosen key (empty when refused).
    pub split_key: String,
    /// |L-R|/(L+R) of the next window's load at the chosen key.
    pub balance_after: Option<f64>,
    /// The same at the optimal key.
    pub optimal_balance: Option<f64>,
    /// Share of scans cut by the boundary.
    pub contained: Option<f64>,
    /// Empty for a split made, else why it was refused (`popular_key`, `no_split_key`,
    /// `clear_direction`).
    pub reason: String,
}

/// One row of `plan.csv` (written by `shardlab plan`): the shard count one scheme needs for one
/// workload at one growth factor.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRecord {
    /// Workload label.
    pub workload: String,
    /// Scheme label.
    pub scheme: String,
    /// Growth factor: traffic and stored bytes times this.
    pub growth: f64,
    /// Replicas of every key.
    pub replicas: u32,
    /// Shards that may fail at once.
    pub failures: u32,
    /// Shards needed; `None` when no count works.
    pub shards_needed: Option<u32>,
    /// What decides the count (or why none works), e.g. `rate`, `hot_key`, `search_limit`.
    pub binding: String,
    /// Peak requests per second on the busiest shard at the chosen count.
    pub peak_rate_per_shard: Option<f64>,
    /// The hottest shard's share of requests at the chosen count.
    pub hottest_share: Option<f64>,
    /// Share of keys that move from `--current` shards; `None` without `--current`.
    pub moved_fraction_from_current: Option<f64>,
    /// Where reads go (`leader` or `any`), as written.
    pub reads: String,
    /// Requests per second one shard may serve (capacity × headroom).
    pub rate_limit_per_shard: Option<f64>,
    /// Shards a perfectly even scheme would need.
    pub balanced_shards: Option<u32>,
    /// The shard count today, when given.
    pub current_shards: Option<u32>,
    /// Explanation written by the planner (empty for most rows).
    pub note: String,
}

/// Everything a run directory holds, in file order.
#[derive(Clone, Debug, Default)]
pub struct RunData {
    /// The manifest.
    pub manifest: Manifest,
    /// The manifest as JSON, for fields this version does not model (such as `machine`).
    pub manifest_json: serde_json::Value,
    /// Every row of `summary.csv`.
    pub metrics: Vec<MetricRow>,
    /// Per-shard and per-window load, one entry per workload, scheme and shard count, in the
    /// order of `shards.csv`.
    pub loads: Vec<SchemeLoad>,
    /// `timeline.csv`, when the run has one.
    pub timeline: Option<Vec<TimelineRow>>,
    /// `splits.csv`, when the run has one.
    pub splits: Option<Vec<SplitRow>>,
    /// `plan.csv`, when `shardlab plan` wrote one into the directory.
    pub plan: Option<Vec<PlanRecord>>,
    /// `plan-manifest.json` as JSON, when present with `plan.csv`.
    pub plan_manifest: Option<serde_json::Value>,
    /// `recommendation.csv`, when the run wrote one.
    pub recommendations: Option<Vec<RecommendationRow>>,
}

/// A workload label split into its kind and parameters, e.g. `zipf:keys=1000,s=0.8`.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadLabel {
    /// The part before `:` (the whole label when it has no parameters, e.g. a trace path).
    pub kind: String,
    /// `name=value` pairs in label order.
    pub params: Vec<(String, String)>,
}

impl WorkloadLabel {
    /// Splits a label; a label whose tail is not a list of `name=value` has no parameters.
    pub fn parse(label: &str) -> WorkloadLabel {
        let whole = || WorkloadLabel {
            kind: label.to_string(),
            params: vec![],
        };
        let Some((kind, tail)) = label.split_once(':') else {
            return whole();
        };
        let params: Option<Vec<(String, String)>> = tail
            .split(',')
            .map(|p| {
                p.split_once('=')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            })
            .collect();
        match params {
            Some(params) if !kind.is_empty() => WorkloadLabel {
                kind: kind.to_string(),
                params,
            },
            _ => whole(),
        }
    }

    /// A numeric parameter.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.replace('_', "").parse().ok())
    }

    /// The label without one parameter: workloads that differ only in it form one sweep.
    pub fn without(&self, name: &str) -> String {
        let rest: Vec<String> = self
            .params
            .iter()
            .filter(|(k, _)| k != name)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if rest.is_empty() {
            self.kind.clone()
        } else {
            format!("{}:{}", self.kind, rest.join(","))
        }
    }
}

/// Workloads that differ only in one label parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Family<'a> {
    /// The shared label without the parameter.
    pub label: String,
    /// (parameter value, workload label), by value.
    pub members: Vec<(f64, &'a str)>,
}

impl Family<'_> {
    /// True when the family has two or more distinct values: a sweep.
    pub fn is_sweep(&self) -> bool {
        self.members.windows(2).any(|p| p[0].0 != p[1].0)
    }
}

/// Scan length of synthetic workloads when the label does not give `scan_len`.
pub const DEFAULT_SCAN_LEN: f64 = 100.0;

impl RunData {
    /// Reads `summary.csv`, `shards.csv`, `windows.csv` and `manifest.json` from `dir`, and
    /// `timeline.csv`, `splits.csv`, `plan.csv` and `plan-manifest.json` when present.
    ///
    /// A directory written by `shardlab plan` alone (`plan.csv` but no `manifest.json`) loads
    /// as a plan without a run: [`RunData::is_plan_only`].
    pub fn load(dir: &Path) -> Result<RunData, ReportError> {
        let plan = read_optional(&dir.join("plan.csv"), read_plan)?;
        let plan_manifest = match plan {
            Some(_) => read_optional(&dir.join("plan-manifest.json"), read_json)?,
            None => None,
        };
        let manifest_path = dir.join("manifest.json");
        if plan.is_some() && !manifest_path.exists() {
            return Ok(RunData {
                plan,
                plan_manifest,
                ..RunData::default()
            });
        }
        let manifest_bytes = read_required(&manifest_path)?;
        let malformed_json = |e: serde_json::Error| ReportError::Malformed {
            path: manifest_path.clone(),
            line: e.line() as u64,
            message: format!("not a shardlab manifest: {e}"),
        };
        let manifest_json: serde_json::Value =
            serde_json::from_slice(&manifest_bytes).map_err(malformed_json)?;
        let manifest: Manifest =
            serde_json::from_value(manifest_json.clone()).map_err(malformed_json)?;

        let metrics = read_metrics(&dir.join("summary.csv"))?;
        let mut loads = read_shards(&dir.join("shards.csv"))?;
        read_windows(&dir.join("windows.csv"), &mut loads)?;
        let timeline = read_optional(&dir.join("timeline.csv"), read_timeline)?;
        let splits = read_optional(&dir.join("splits.csv"), read_splits)?;
        let recommendations = read_optional(
            &dir.join(crate::recommendation_csv::FILE),
            read_recommendations,
        )?;
        Ok(RunData {
            recommendations,
            manifest,
            manifest_json,
            metrics,
            loads,
            timeline,
            splits,
            plan,
            plan_manifest,
        })
    }

    /// Workload labels of `plan.csv`, in file order.
    pub fn plan_workloads(&self) -> Vec<&str> {
        unique(self.plan.iter().flatten().map(|r| r.workload.as_str()))
    }

    /// Scheme labels of `plan.csv`, in file order.
    pub fn plan_schemes(&self) -> Vec<&str> {
        unique(self.plan.iter().flatten().map(|r| r.scheme.as_str()))
    }

    /// True for a directory holding only a plan (`plan.csv`, no run files).
    pub fn is_plan_only(&self) -> bool {
        self.plan.is_some() && self.metrics.is_empty() && self.loads.is_empty()
    }

    /// Workload labels in run order.
    pub fn workloads(&self) -> Vec<&str> {
        unique(self.metrics.iter().map(|m| m.workload.as_str()))
    }

    /// Scheme labels in run order.
    pub fn schemes(&self) -> Vec<&str> {
        unique(self.metrics.iter().map(|m| m.scheme.as_str()))
    }

    /// Shard counts a workload was run with, in run order.
    pub fn shard_counts(&self, workload: &str) -> Vec<u32> {
        unique(
            self.metrics
                .iter()
                .filter(|m| m.workload == workload)
                .map(|m| m.shards),
        )
    }

    /// The shard count that per-shard charts and the comparison table show: the first one of
    /// the run for this workload.
    pub fn base_shards(&self, workload: &str) -> Option<u32> {
        self.shard_counts(workload).first().copied()
    }

    /// A metric of one scheme on one workload at `shards` (the first row when a sweep of target
    /// shard counts repeats it); `None` when absent or undefined.
    pub fn metric(&self, workload: &str, scheme: &str, shards: u32, metric: &str) -> Option<f64> {
        self.metric_row(workload, scheme, shards, metric)
            .and_then(|m| m.value)
    }

    /// A metric of one scheme on one workload from `shards` to `target` shards (the remap
    /// and growth metrics differ by target; the others repeat).
    pub fn metric_at(
        &self,
        workload: &str,
        scheme: &str,
        (shards, target): (u32, u32),
        metric: &str,
    ) -> Option<&MetricRow> {
        self.metrics.iter().find(|m| {
            m.workload == workload
                && m.scheme == scheme
                && m.shards == shards
                && m.target_shards == target
                && m.metric == metric
        })
    }

    /// The growth targets measured for a workload at `shards`, in run order.
    pub fn targets(&self, workload: &str, shards: u32) -> Vec<u32> {
        unique(
            self.metrics
                .iter()
                .filter(|m| m.workload == workload && m.shards == shards)
                .map(|m| m.target_shards),
        )
    }

    /// The recommendation row of one workload, N and M, when `recommendation.csv` has it.
    pub fn recommendation(
        &self,
        workload: &str,
        shards: u32,
        grow_to: u32,
    ) -> Option<&RecommendationRow> {
        self.recommendations
            .as_deref()?
            .iter()
            .find(|r| r.workload == workload && r.shards == shards && r.grow_to == grow_to)
    }

    /// The row of a metric, if the run has it.
    pub fn metric_row(
        &self,
        workload: &str,
        scheme: &str,
        shards: u32,
        metric: &str,
    ) -> Option<&MetricRow> {
        self.metrics.iter().find(|m| {
            m.workload == workload && m.scheme == scheme && m.shards == shards && m.metric == metric
        })
    }

    /// Every (N, M, value) of a metric measured between shard counts, such as `remap_fraction`,
    /// in run order and without repeats.
    pub fn transitions(&self, workload: &str, scheme: &str, metric: &str) -> Vec<(u32, u32, f64)> {
        let mut out: Vec<(u32, u32, f64)> = Vec::new();
        for m in self
            .metrics
            .iter()
            .filter(|m| m.workload == workload && m.scheme == scheme && m.metric == metric)
        {
            if let Some(v) = m.value {
                if !out
                    .iter()
                    .any(|(n, t, _)| *n == m.shards && *t == m.target_shards)
                {
                    out.push((m.shards, m.target_shards, v));
                }
            }
        }
        out
    }

    /// Schemes measured on a workload at `shards`, in run order.
    pub fn schemes_at(&self, workload: &str, shards: u32) -> Vec<&str> {
        unique(
            self.metrics
                .iter()
                .filter(|m| m.workload == workload && m.shards == shards)
                .map(|m| m.scheme.as_str()),
        )
    }

    /// Workloads grouped into sweeps of one label parameter: workloads whose labels differ only
    /// in `param` form one family, listed with the parameter's value (`default` when a label
    /// does not give it; workloads without it and without a default are left out). Families
    /// are in run order, members by value.
    pub fn families(&self, param: &str, default: Option<f64>) -> Vec<Family<'_>> {
        let mut out: Vec<Family<'_>> = Vec::new();
        for w in self.workloads() {
            let label = WorkloadLabel::parse(w);
            let Some(value) = label.number(param).or(default) else {
                continue;
            };
            let family = label.without(param);
            match out.iter_mut().find(|f| f.label == family) {
                Some(f) => f.members.push((value, w)),
                None => out.push(Family {
                    label: family,
                    members: vec![(value, w)],
                }),
            }
        }
        for f in &mut out {
            f.members.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        out
    }

    /// The load of one scheme on one workload at `shards`.
    pub fn load_of(&self, workload: &str, scheme: &str, shards: u32) -> Option<&SchemeLoad> {
        self.loads
            .iter()
            .find(|l| l.workload == workload && l.scheme == scheme && l.shards == shards)
    }

    /// The workload's description, from the manifest's `parameters.workload_descriptions`
    /// (an object from label to sentence), when the run recorded it.
    pub fn description(&self, workload: &str) -> Option<&str> {
        self.manifest
            .parameters
            .get("workload_descriptions")?
            .get(workload)?
            .as_str()
    }
}

/// Items in order of first appearance.
fn unique<T: PartialEq + Copy>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn read_required(path: &Path) -> Result<Vec<u8>, ReportError> {
    std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ReportError::Missing(path.to_path_buf()),
        _ => ReportError::Read {
            path: path.to_path_buf(),
            source,
        },
    })
}

fn read_optional<T>(
    path: &Path,
    read: fn(&Path) -> Result<T, ReportError>,
) -> Result<Option<T>, ReportError> {
    if path.exists() {
        read(path).map(Some)
    } else {
        Ok(None)
    }
}

/// A CSV file opened for reading by column name.
struct CsvTable {
    path: PathBuf,
    columns: HashMap<String, usize>,
    headers: Vec<String>,
    reader: csv::Reader<std::io::Cursor<Vec<u8>>>,
}

/// One record with its line number, read by column name.
struct CsvRecord<'t> {
    table: &'t CsvTable,
    record: csv::StringRecord,
    line: u64,
}

impl CsvTable {
    /// Opens `path` and checks that every `required` column is in its header.
    fn open(path: &Path, required: &[&str]) -> Result<CsvTable, ReportError> {
        let bytes = read_required(path)?;
        let mut reader = csv::ReaderBuilder::new().from_reader(std::io::Cursor::new(bytes));
        let headers: Vec<String> = reader
            .headers()
            .map_err(|e| malformed(path, 1, format!("cannot read the header: {e}")))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        let columns: HashMap<String, usize> = headers
            .iter()
            .enumerate()
            .map(|(i, h)| (h.clone(), i))
            .collect();
        if let Some(missing) = required.iter().find(|c| !columns.contains_key(**c)) {
            return Err(malformed(
                path,
                1,
                format!(
                    "the header has no column '{missing}' (expected at least: {})",
                    required.join(",")
                ),
            ));
        }
        Ok(CsvTable {
            path: path.to_path_buf(),
            columns,
            headers,
            reader,
        })
    }

    /// Every record, or the first error with its line.
    fn records(&mut self) -> Result<Vec<(csv::StringRecord, u64)>, ReportError> {
        let mut out = Vec::new();
        for rec in self.reader.records() {
            let rec = rec.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                malformed(&self.path, line, format!("not valid CSV: {e}"))
            })?;
            let line = rec.position().map_or(0, |p| p.line());
            out.push((rec, line));
        }
        Ok(out)
    }

    fn rows(&mut self) -> Result<Vec<CsvRecord<'_>>, ReportError> {
        let records = self.records()?;
        Ok(records
            .into_iter()
            .map(|(record, line)| CsvRecord {
                table: self,
                record,
                line,
            })
            .collect())
    }
}

impl CsvRecord<'_> {
    fn text(&self, column: &str) -> &str {
        self.table
            .columns
            .get(column)
            .and_then(|&i| self.record.get(i))
            .unwrap_or("")
            .trim()
    }

    fn error(&self, message: String) -> ReportError {
        malformed(&self.table.path, self.line, message)
    }

    fn parsed<T: std::str::FromStr>(&self, column: &str, expected: &str) -> Result<T, ReportError> {
        let text = self.text(column);
        text.parse().map_err(|_| {
            self.error(format!(
                "column '{column}': expected {expected}, found '{text}'"
            ))
        })
    }

    fn whole(&self, column: &str) -> Result<u64, ReportError> {
        self.parsed(column, "a whole number")
    }

    fn count(&self, column: &str) -> Result<u32, ReportError> {
        self.parsed(column, "a whole number below 2^32")
    }

    /// A shard count: a whole number of at least 1.
    fn shard_count(&self, column: &str) -> Result<u32, ReportError> {
        match self.count(column)? {
            0 => Err(self.error(format!(
                "column '{column}': a cluster has at least 1 shard, found 0"
            ))),
            n => Ok(n),
        }
    }

    /// A number, `None` for an empty cell.
    fn number(&self, column: &str) -> Result<Option<f64>, ReportError> {
        if self.text(column).is_empty() {
            return Ok(None);
        }
        let v: f64 = self.parsed(column, "a number")?;
        if v.is_finite() {
            Ok(Some(v))
        } else {
            Err(self.error(format!(
                "column '{column}': expected a finite number, found '{}'",
                self.text(column)
            )))
        }
    }

    /// The values of the label columns present, joined with " / ".
    fn series(&self, label_columns: &[&str]) -> String {
        let parts: Vec<&str> = label_columns
            .iter()
            .filter(|c| self.table.columns.contains_key(**c))
            .map(|c| self.text(c))
            .collect();
        parts.join(" / ")
    }
}

fn malformed(path: &Path, line: u64, message: String) -> ReportError {
    ReportError::Malformed {
        path: path.to_path_buf(),
        line,
        message,
    }
}

fn read_metrics(path: &Path) -> Result<Vec<MetricRow>, ReportError> {
    let mut table = CsvTable::open(
        path,
        &[
            "workload",
            "scheme",
            "shards",
            "metric",
            "value",
            "unit",
            "target_shards",
        ],
    )?;
    table
        .rows()?
        .iter()
        .map(|r| {
            Ok(MetricRow {
                workload: r.text("workload").to_string(),
                scheme: r.text("scheme").to_string(),
                shards: r.shard_count("shards")?,
                target_shards: r.shard_count("target_shards")?,
                metric: r.text("metric").to_string(),
                value: r.number("value")?,
                unit: r.text("unit").to_string(),
                ci: match (r.number("ci_low")?, r.number("ci_high")?) {
                    (Some(lo), Some(hi)) => Some((lo, hi)),
                    _ => None,
                },
            })
        })
        .collect()
}

/// Finds or adds the load of (workload, scheme, shards).
fn load_entry<'a>(
    loads: &'a mut Vec<SchemeLoad>,
    workload: &str,
    scheme: &str,
    shards: u32,
) -> &'a mut SchemeLoad {
    let i = match loads
        .iter()
        .position(|l| l.workload == workload && l.scheme == scheme && l.shards == shards)
    {
        Some(i) => i,
        None => {
            loads.push(SchemeLoad {
                workload: workload.to_string(),
                scheme: scheme.to_string(),
                shards,
                shard_requests: vec![0; shards as usize],
                shard_distinct_keys: vec![0; shards as usize],
                window_requests: Vec::new(),
                shard_share: vec![0.0; shards as usize],
                window_hottest_share: Vec::new(),
            });
            loads.len() - 1
        }
    };
    &mut loads[i]
}

/// Checks that `shard` is a shard of an `shards`-shard cluster, and that the cluster is no
/// larger than the file can describe (every shard has a row), so a corrupt count cannot make
/// the reader allocate without bound.
fn check_shard(r: &CsvRecord<'_>, shard: u32, shards: u32, rows: usize) -> Result<(), ReportError> {
    if shard >= shards {
        return Err(r.error(format!(
            "shard {shard} does not exist with {shards} shards (shards are 0..{shards})"
        )));
    }
    if shards as usize > rows {
        return Err(r.error(format!(
            "{shards} shards, but the file has only {rows} rows (one per shard expected)"
        )));
    }
    Ok(())
}

/// Rows repeated by a sweep over target shard counts (same workload, scheme and N) carry the
/// same load; the first is kept.
fn read_shards(path: &Path) -> Result<Vec<SchemeLoad>, ReportError> {
    let mut table = CsvTable::open(
        path,
        &[
            "workload",
            "scheme",
            "shard",
            "requests",
            "distinct_keys",
            "shards",
        ],
    )?;
    let mut loads = Vec::new();
    let mut seen: HashMap<(String, String, u32, u32), ()> = HashMap::new();
    let rows = table.rows()?;
    for r in &rows {
        let (workload, scheme) = (r.text("workload"), r.text("scheme"));
        let (shard, shards) = (r.count("shard")?, r.count("shards")?);
        check_shard(r, shard, shards, rows.len())?;
        let (requests, distinct) = (r.whole("requests")?, r.whole("distinct_keys")?);
        if seen
            .insert(
                (workload.to_string(), scheme.to_string(), shards, shard),
                (),
            )
            .is_some()
        {
            continue;
        }
        let share = r.number("request_share")?.unwrap_or(0.0);
        let load = load_entry(&mut loads, workload, scheme, shards);
        load.shard_requests[shard as usize] = requests;
        load.shard_distinct_keys[shard as usize] = distinct;
        load.shard_share[shard as usize] = share;
    }
    Ok(loads)
}

fn read_windows(path: &Path, loads: &mut Vec<SchemeLoad>) -> Result<(), ReportError> {
    let mut table = CsvTable::open(
        path,
        &[
            "workload", "scheme", "shards", "window", "shard", "requests",
        ],
    )?;
    let mut seen: HashMap<(String, String, u32, u32, u32), ()> = HashMap::new();
    let rows = table.rows()?;
    for r in &rows {
        let (workload, scheme) = (r.text("workload"), r.text("scheme"));
        let (shards, window, shard) = (r.count("shards")?, r.count("window")?, r.count("shard")?);
        check_shard(r, shard, shards, rows.len())?;
        // Every window has a row per shard, so a real index is below the row count.
        if window as usize >= rows.len() {
            return Err(r.error(format!(
                "window {window}, but the file has only {} rows (one per window and shard)",
                rows.len()
            )));
        }
        let requests = r.whole("requests")?;
        if seen
            .insert(
                (
                    workload.to_string(),
                    scheme.to_string(),
                    shards,
                    window,
                    shard,
                ),
                (),
            )
            .is_some()
        {
            continue;
        }
        let hottest = r.number("window_hottest_share")?;
        let load = load_entry(loads, workload, scheme, shards);
        if load.window_requests.len() <= window as usize {
            load.window_requests
                .resize(window as usize + 1, vec![0; shards as usize]);
        }
        load.window_requests[window as usize][shard as usize] = requests;
        if let Some(h) = hottest {
            if load.window_hottest_share.len() <= window as usize {
                load.window_hottest_share.resize(window as usize + 1, 0.0);
            }
            load.window_hottest_share[window as usize] = h;
        }
    }
    Ok(())
}

/// Columns of `timeline.csv` and `splits.csv` that name what a row belongs to.
const TIMELINE_LABELS: [&str; 3] = ["workload", "scheme", "finder"];

fn read_timeline(path: &Path) -> Result<Vec<TimelineRow>, ReportError> {
    let mut table = CsvTable::open(path, &["window"])?;
    let value_columns: Vec<String> = table
        .headers
        .iter()
        .filter(|h| *h != "window" && !TIMELINE_LABELS.contains(&h.as_str()))
        .cloned()
        .collect();
    table
        .rows()?
        .iter()
        .map(|r| {
            let mut values = BTreeMap::new();
            for c in &value_columns {
                // Flags such as `measured` read as 1 and 0.
                let v = match r.text(c) {
                    "true" => Some(1.0),
                    "false" => Some(0.0),
                    _ => r.number(c)?,
                };
                if let Some(v) = v {
                    values.insert(c.clone(), v);
                }
            }
            Ok(TimelineRow {
                series: r.series(&TIMELINE_LABELS),
                window: r.whole("window")?,
                values,
            })
        })
        .collect()
}

fn read_splits(path: &Path) -> Result<Vec<SplitRow>, ReportError> {
    let mut table = CsvTable::open(
        path,
        &[
            "window",
            "finder",
            "range_start",
            "split_key",
            "balance_after",
            "optimal_balance",
            "contained",
            "reason",
        ],
    )?;
    table
        .rows()?
        .iter()
        .map(|r| {
            Ok(SplitRow {
                series: r.series(&["workload", "scheme"]),
                window: r.whole("window")?,
                finder: r.text("finder").to_string(),
                range_start: r.text("range_start").to_string(),
                split_key: r.text("split_key").to_string(),
                balance_after: r.number("balance_after")?,
                optimal_balance: r.number("optimal_balance")?,
                contained: r.number("contained")?,
                reason: r.text("reason").to_string(),
            })
        })
        .collect()
}

fn read_recommendations(path: &Path) -> Result<Vec<RecommendationRow>, ReportError> {
    let header: Vec<&str> = crate::recommendation_csv::HEADER.split(',').collect();
    let mut table = CsvTable::open(path, &header)?;
    table
        .rows()?
        .iter()
        .map(|r| {
            let list = r.text("tied_with");
            Ok(RecommendationRow {
                workload: r.text("workload").to_string(),
                shards: r.shard_count("shards")?,
                grow_to: r.shard_count("grow_to")?,
                scheme: Some(r.text("scheme").to_string()).filter(|s| !s.is_empty()),
                decided_by: r.text("decided_by").to_string(),
                margin: r.number("margin")?,
                tied_with: if list.is_empty() {
                    Vec::new()
                } else {
                    list.split(crate::recommendation_csv::LIST_SEPARATOR)
                        .map(str::to_string)
                        .collect()
                },
                warning: r.text("warning").to_string(),
            })
        })
        .collect()
}

fn read_json(path: &Path) -> Result<serde_json::Value, ReportError> {
    serde_json::from_slice(&read_required(path)?)
        .map_err(|e| malformed(path, e.line() as u64, format!("not valid JSON: {e}")))
}

fn read_plan(path: &Path) -> Result<Vec<PlanRecord>, ReportError> {
    let mut table = CsvTable::open(
        path,
        &[
            "workload",
            "scheme",
            "growth",
            "replicas",
            "failures",
            "shards_needed",
            "binding",
            "peak_rate_per_shard",
            "hottest_share",
            "moved_fraction_from_current",
            "balanced_shards",
            "note",
        ],
    )?;
    let optional_count = |r: &CsvRecord<'_>, column: &str| -> Result<Option<u32>, ReportError> {
        if r.text(column).is_empty() {
            Ok(None)
        } else {
            r.shard_count(column).map(Some)
        }
    };
    table
        .rows()?
        .iter()
        .map(|r| {
            let growth = r.number("growth")?.filter(|g| *g > 0.0).ok_or_else(|| {
                r.error(format!(
                    "column 'growth': expected a positive number, found '{}'",
                    r.text("growth")
                ))
            })?;
            let shards_needed = optional_count(r, "shards_needed")?;
            let binding = r.text("binding").to_string();
            if shards_needed.is_none() && binding.is_empty() {
                return Err(
                    r.error("no shards_needed and no binding: an empty count must say why".into())
                );
            }
            Ok(PlanRecord {
                workload: r.text("workload").to_string(),
                scheme: r.text("scheme").to_string(),
                growth,
                replicas: r.count("replicas")?,
                failures: r.count("failures")?,
                shards_needed,
                binding,
                peak_rate_per_shard: r.number("peak_rate_per_shard")?,
                hottest_share: r.number("hottest_share")?,
                moved_fraction_from_current: r.number("moved_fraction_from_current")?,
                reads: r.text("reads").to_string(),
                rate_limit_per_shard: r.number("rate_limit_per_shard")?,
                balanced_shards: optional_count(r, "balanced_shards")?,
                current_shards: optional_count(r, "current_shards")?,
                note: r.text("note").to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_run(dir: &Path, summary: &str, shards: &str, windows: &str) {
        std::fs::write(dir.join("manifest.json"), "{\"tool\":\"shardlab\",\"version\":\"0.1.0\",\"command_line\":[],\"seed\":1,\"parameters\":{\"workload_descriptions\":{\"w\":\"a test\"}},\"inputs\":[],\"threads\":2,\"started_utc\":\"\",\"duration_secs\":0.5}").unwrap();
        std::fs::write(dir.join("summary.csv"), summary).unwrap();
        std::fs::write(dir.join("shards.csv"), shards).unwrap();
        std::fs::write(dir.join("windows.csv"), windows).unwrap();
    }

    const SUMMARY: &str = "workload,scheme,shards,metric,value,unit,target_shards\nw,hash,2,hottest_shard_share,0.6,share,3\nw,hash,2,scan_fanout_mean,,shards,3\nw,hash,2,remap_fraction,0.66,share,3\n";
    const SHARDS: &str = "workload,scheme,shard,requests,distinct_keys,shards,request_share\nw,hash,0,6,3,2,0.6\nw,hash,1,4,2,2,0.4\n";
    const WINDOWS: &str = "workload,scheme,shards,window,shard,requests,window_hottest_share\nw,hash,2,0,0,5,0.8\nw,hash,2,0,1,1,0.8\nw,hash,2,1,0,1,0.75\nw,hash,2,1,1,3,0.75\n";

    #[test]
    fn a_run_directory_reads_back_into_the_model() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), SUMMARY, SHARDS, WINDOWS);
        let run = RunData::load(dir.path()).unwrap();
        assert_eq!(run.workloads(), ["w"]);
        assert_eq!(run.metric("w", "hash", 2, "hottest_shard_share"), Some(0.6));
        assert_eq!(run.metric("w", "hash", 2, "scan_fanout_mean"), None);
        assert_eq!(
            run.transitions("w", "hash", "remap_fraction"),
            [(2, 3, 0.66)]
        );
        let load = run.load_of("w", "hash", 2).unwrap();
        assert_eq!(load.shard_requests, [6, 4]);
        assert_eq!(load.window_requests, [vec![5, 1], vec![1, 3]]);
        assert_eq!(load.window_hottest_share, [0.8, 0.75]);
        assert_eq!(load.shard_share, [0.6, 0.4]);
        assert_eq!(run.description("w"), Some("a test"));
        assert!(run.timeline.is_none() && run.splits.is_none());
    }

    #[test]
    fn a_bad_value_is_reported_with_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        write_run(
            dir.path(),
            &SUMMARY.replace("0.66", "lots"),
            SHARDS,
            WINDOWS,
        );
        let err = RunData::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("summary.csv:4:") && err.contains("'value'") && err.contains("lots"),
            "{err}"
        );
    }

    #[test]
    fn a_shard_outside_the_cluster_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        write_run(
            dir.path(),
            SUMMARY,
            &SHARDS.replace("w,hash,1,4", "w,hash,7,4"),
            WINDOWS,
        );
        let err = RunData::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("shards.csv:3:") && err.contains("shard 7"),
            "{err}"
        );
    }

    #[test]
    fn a_cluster_of_no_shards_or_a_window_past_the_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        write_run(
            dir.path(),
            &SUMMARY.replace("w,hash,2,", "w,hash,0,"),
            SHARDS,
            WINDOWS,
        );
        let err = RunData::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("summary.csv:2:") && err.contains("at least 1 shard"),
            "{err}"
        );
        write_run(
            dir.path(),
            SUMMARY,
            SHARDS,
            &WINDOWS.replace("w,hash,2,1,1,3", "w,hash,2,4000000000,1,3"),
        );
        let err = RunData::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("windows.csv:5:") && err.contains("window 4000000000"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_file_or_column_says_which() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), SUMMARY, SHARDS, WINDOWS);
        std::fs::write(dir.path().join("splits.csv"), "window,finder\n").unwrap();
        let err = RunData::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("splits.csv:1:") && err.contains("range_start"),
            "{err}"
        );
        std::fs::remove_file(dir.path().join("windows.csv")).unwrap();
        let err = RunData::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("windows.csv") && err.contains("missing"),
            "{err}"
        );
    }

    #[test]
    fn the_timeline_keeps_every_numeric_column_by_name() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), SUMMARY, SHARDS, WINDOWS);
        std::fs::write(
            dir.path().join("timeline.csv"),
            "scheme,window,ranges,bytes_moved,measured\nrange-dynamic,0,1,,false\nrange-dynamic,1,3,4096,true\n",
        )
        .unwrap();
        let run = RunData::load(dir.path()).unwrap();
        let t = run.timeline.unwrap();
        assert_eq!(t[1].series, "range-dynamic");
        assert_eq!(t[1].values["bytes_moved"], 4096.0);
        assert!(!t[0].values.contains_key("bytes_moved"));
        assert_eq!(
            (t[0].values["measured"], t[1].values["measured"]),
            (0.0, 1.0)
        );
    }

    #[test]
    fn workload_labels_give_their_parameters() {
        let w = WorkloadLabel::parse("zipf:keys=1_000,s=0.8,scans=0.05");
        assert_eq!(w.number("s"), Some(0.8));
        assert_eq!(w.number("keys"), Some(1000.0));
        assert_eq!(w.without("s"), "zipf:keys=1_000,scans=0.05");
        assert_eq!(WorkloadLabel::parse("traces/a.csv").number("s"), None);
        assert_eq!(WorkloadLabel::parse("C:/x,y").kind, "C:/x,y");
    }
}
