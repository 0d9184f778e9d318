//! A run directory read back into memory: the one model that charts and the report are drawn
//! from, so that `shardlab report DIR` and the run that wrote DIR draw the same pictures.
//!
//! Files are read by column name (extra columns are ignored, so sweep parameter columns can be
//! added later); every malformed value is reported with its file and line.
//!
//! ```no_run
//! use engine::metrics::registry::load::HOTTEST_SHARD_SHARE;
//! let run = reports::data::RunData::load(std::path::Path::new("results/review")).unwrap();
//! for workload in run.workloads() {
//!     println!("{workload}: {:?}", run.metric(workload, "hash", run.base_shards(workload).unwrap(), HOTTEST_SHARD_SHARE));
//! }
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use engine::metrics::{MetricId, WorkloadResult};

use crate::csv_rows::{self, malformed};
use crate::dynamic_csv::{FinderCsvRow, SplitCsvRow, TimelineCsvRow};
use crate::layout_tables::TextTable;
use crate::plan_csv::PlanCsvRow;
use crate::recommendation_csv::RecommendationRow;
use crate::refusals_csv::RefusalRow;
pub use crate::scheme_load::{is_full_window, SchemeLoad};
use crate::summary::{ShardRow, SummaryRow};
use crate::windows::{WindowCell, WindowRow};
use crate::{Manifest, ReportError};

/// Everything a run directory holds, in file order.
#[derive(Clone, Debug, Default)]
pub struct RunData {
    /// The manifest.
    pub manifest: Manifest,
    /// The manifest as JSON, for fields this version does not model (such as `machine`).
    pub manifest_json: serde_json::Value,
    /// Every row of `summary.csv`.
    pub metrics: Vec<SummaryRow>,
    /// Every row of `shards.csv`.
    pub shard_rows: Vec<ShardRow>,
    /// `refusals.csv`: why a figure is empty where a scheme's own rule refused it (empty
    /// without the file).
    pub refusals: Vec<RefusalRow>,
    /// Every table of the changing layouts (`timeline.csv`, `splits.csv`, ...), as written.
    pub layout_tables: Vec<TextTable>,
    /// Per-shard and per-window load, one entry per workload, scheme and shard count, in the
    /// order of `shards.csv`.
    pub loads: Vec<SchemeLoad>,
    /// `timeline.csv` as `range-dynamic`'s rows, when the run has one.
    pub timeline: Option<Vec<TimelineCsvRow>>,
    /// `timeline.csv` as numbers, whichever layouts wrote it (what the charts draw).
    pub timeline_table: Option<crate::timeline_table::TimelineTable>,
    /// `splits.csv`, when the run has one.
    pub splits: Option<Vec<SplitCsvRow>>,
    /// `events.csv` (a scenario run's events), when the run has one.
    pub events: Option<Vec<crate::dynamic_csv::EventCsvRow>>,
    /// `finders.csv`, when the run has one.
    pub finders: Option<Vec<FinderCsvRow>>,
    /// `plan.csv`, when `shardlab plan` wrote one into the directory.
    pub plan: Option<Vec<PlanCsvRow>>,
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
    /// `recommendation.csv`, `refusals.csv`, `plan.csv`, `plan-manifest.json` and the layout
    /// tables (every other CSV file: see [`crate::layout_tables`]) when present.
    ///
    /// A directory written by `shardlab plan` alone (`plan.csv` but no `manifest.json`) loads
    /// as a plan without a run: [`RunData::is_plan_only`].
    pub fn load(dir: &Path) -> Result<RunData, ReportError> {
        let files = RunFiles(dir);
        let plan = files.optional("plan.csv", read_plan)?;
        let plan_manifest = match plan {
            Some(_) => files.optional("plan-manifest.json", read_json)?,
            None => None,
        };
        let manifest_path = files.path("manifest.json");
        let Some(manifest_bytes) = files.bytes("manifest.json")? else {
            if plan.is_some() {
                return Ok(RunData {
                    plan,
                    plan_manifest,
                    ..RunData::default()
                });
            }
            return Err(ReportError::Missing(manifest_path));
        };
        let malformed_json = |e: serde_json::Error| ReportError::Malformed {
            path: manifest_path.clone(),
            line: e.line() as u64,
            message: format!("not a shardlab manifest: {e}"),
        };
        let manifest_json: serde_json::Value =
            serde_json::from_slice(&manifest_bytes).map_err(malformed_json)?;
        let manifest: Manifest =
            serde_json::from_value(manifest_json.clone()).map_err(malformed_json)?;

        let metrics = files.required("summary.csv", read_metrics)?;
        let shard_rows = files.required("shards.csv", read_shard_rows)?;
        let mut loads = gather_shards(&shard_rows);
        files.required("windows.csv", |path, bytes| {
            let rows = csv_rows::parse::<WindowRow>(path, bytes)?;
            let cells = rows.iter().map(|l| (l.row.cell(), l.line));
            gather_windows(path, rows.len(), cells, &mut loads)
        })?;
        let layout_tables = files.layout_tables()?;
        RunData {
            recommendations: files
                .optional(crate::recommendation_csv::FILE, read_recommendations)?,
            refusals: files
                .optional(crate::refusals_csv::FILE, read_rows)?
                .unwrap_or_default(),
            manifest,
            manifest_json,
            metrics,
            shard_rows,
            loads,
            layout_tables,
            plan,
            plan_manifest,
            ..RunData::default()
        }
        .with_layout_views(dir)
    }

    /// The model of a run from its results and manifest: the rows its files will hold, which
    /// the exporters write and the charts and report are drawn from (no file is read).
    /// [`RunData::load`] of the directory they are written to gives the same model.
    pub fn of_run(results: &[WorkloadResult], manifest: Manifest) -> Result<RunData, ReportError> {
        let metrics = crate::summary::summary_rows(results);
        let shard_rows = crate::summary::shard_rows(results);
        let mut loads = gather_shards(&shard_rows);
        let rows = results
            .iter()
            .flat_map(|r| &r.schemes)
            .map(|s| s.load.window_requests.len() * s.shards as usize)
            .sum();
        gather_windows(
            Path::new("windows.csv"),
            rows,
            crate::windows::window_cells(results).zip(2..),
            &mut loads,
        )?;
        let layout_tables = crate::layout_tables::tables(results);
        RunData {
            manifest_json: serde_json::to_value(&manifest)?,
            manifest,
            metrics,
            shard_rows,
            refusals: crate::refusals_csv::refusal_rows(results),
            loads,
            layout_tables,
            recommendations: Some(crate::recommendation_csv::recommendation_rows(results)),
            ..RunData::default()
        }
        .with_layout_views(Path::new(""))
    }

    /// Sets the layout tables the report reads as rows of their own types (`timeline`,
    /// `splits`, `events`, `finders`) from [`RunData::layout_tables`], of the run in `dir`
    /// (errors name their files).
    fn with_layout_views(mut self, dir: &Path) -> Result<RunData, ReportError> {
        fn rows<R: serde::de::DeserializeOwned>(
            dir: &Path,
            t: Option<&TextTable>,
        ) -> Result<Option<Vec<R>>, ReportError> {
            t.map(|t| t.rows_as(&dir.join(t.file_name()))).transpose()
        }
        let tables = &self.layout_tables;
        let table = |name: &str| tables.iter().find(|t| t.name == name);
        let timeline = table("timeline");
        self.timeline = rows(dir, timeline)?;
        self.timeline_table = timeline
            .map(|t| crate::timeline_table::TimelineTable::of(&dir.join(t.file_name()), t))
            .transpose()?;
        self.splits = rows(dir, table("splits"))?;
        self.events = rows(dir, table("events"))?;
        self.finders = rows(dir, table("finders"))?;
        Ok(self)
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
    pub fn metric(
        &self,
        workload: &str,
        scheme: &str,
        shards: u32,
        metric: MetricId,
    ) -> Option<f64> {
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
        metric: MetricId,
    ) -> Option<&SummaryRow> {
        self.metrics.iter().find(|m| {
            m.workload == workload
                && m.scheme == scheme
                && m.shards == shards
                && m.target_shards == target
                && m.metric == metric.name()
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

    /// The recommendation row of one workload and N, when `recommendation.csv` has it.
    pub fn recommendation(&self, workload: &str, shards: u32) -> Option<&RecommendationRow> {
        self.recommendations
            .as_deref()?
            .iter()
            .find(|r| r.workload == workload && r.shards == shards)
    }

    /// The row of a metric, if the run has it.
    pub fn metric_row(
        &self,
        workload: &str,
        scheme: &str,
        shards: u32,
        metric: MetricId,
    ) -> Option<&SummaryRow> {
        self.metrics.iter().find(|m| {
            m.workload == workload
                && m.scheme == scheme
                && m.shards == shards
                && m.metric == metric.name()
        })
    }

    /// Every (N, M, value) of a metric measured between shard counts, such as `remap_fraction`,
    /// in run order and without repeats.
    pub fn transitions(
        &self,
        workload: &str,
        scheme: &str,
        metric: MetricId,
    ) -> Vec<(u32, u32, f64)> {
        let mut out: Vec<(u32, u32, f64)> = Vec::new();
        for m in self
            .metrics
            .iter()
            .filter(|m| m.workload == workload && m.scheme == scheme && m.metric == metric.name())
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

    /// Whether the run weighted its shards (`--weights`, recorded as `parameters.run.weights`).
    pub fn weighted(&self) -> bool {
        self.manifest
            .parameters
            .get("run")
            .and_then(|run| run.get("weights"))
            .is_some_and(|w| !w.is_null())
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

/// The files of a run directory.
struct RunFiles<'a>(&'a Path);

impl RunFiles<'_> {
    /// Where the file `name` is.
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The bytes of `name`; `None` when the run has no such file.
    fn bytes(&self, name: &str) -> Result<Option<Vec<u8>>, ReportError> {
        match csv_rows::read_file(&self.path(name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(ReportError::Missing(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `read` of the file `name`, when the run has it.
    fn optional<T>(
        &self,
        name: &str,
        read: impl FnOnce(&Path, &[u8]) -> Result<T, ReportError>,
    ) -> Result<Option<T>, ReportError> {
        self.bytes(name)?
            .map(|bytes| read(&self.path(name), &bytes))
            .transpose()
    }

    /// `read` of the file `name`, which every run has.
    fn required<T>(
        &self,
        name: &str,
        read: impl FnOnce(&Path, &[u8]) -> Result<T, ReportError>,
    ) -> Result<T, ReportError> {
        self.optional(name, read)?
            .ok_or_else(|| ReportError::Missing(self.path(name)))
    }

    /// Every layout table in the directory, by file name: each CSV file other than the
    /// run's fixed files.
    fn layout_tables(&self) -> Result<Vec<TextTable>, ReportError> {
        const FIXED: [&str; 6] = [
            "summary.csv",
            "shards.csv",
            "windows.csv",
            "plan.csv",
            crate::recommendation_csv::FILE,
            crate::refusals_csv::FILE,
        ];
        let entries = std::fs::read_dir(self.0).map_err(|source| ReportError::Read {
            path: self.0.to_path_buf(),
            source,
        })?;
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".csv") && !FIXED.contains(&n.as_str()))
            .collect();
        names.sort();
        let mut tables = Vec::new();
        for name in names {
            tables.extend(self.optional(&name, TextTable::parse)?);
        }
        Ok(tables)
    }
}

/// Every row of a file, without line numbers (for files that need no check beyond their types).
fn read_rows<R: serde::de::DeserializeOwned + Send>(
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<R>, ReportError> {
    Ok(csv_rows::parse(path, bytes)?
        .into_iter()
        .map(|l| l.row)
        .collect())
}

/// Refuses a cluster of no shards.
fn check_count(path: &Path, line: u64, column: &str, n: u32) -> Result<(), ReportError> {
    if n == 0 {
        return Err(malformed(
            path,
            line,
            format!("column '{column}': a cluster has at least 1 shard, found 0"),
        ));
    }
    Ok(())
}

fn read_metrics(path: &Path, bytes: &[u8]) -> Result<Vec<SummaryRow>, ReportError> {
    let rows = csv_rows::parse::<SummaryRow>(path, bytes)?;
    crate::value_checks::check_summary(path, &rows)?;
    rows.into_iter()
        .map(|l| {
            check_count(path, l.line, "shards", l.row.shards)?;
            check_count(path, l.line, "target_shards", l.row.target_shards)?;
            Ok(l.row)
        })
        .collect()
}

/// True for the load of (workload, scheme, shards).
fn is_load(l: &SchemeLoad, workload: &str, scheme: &str, shards: u32) -> bool {
    l.workload == workload && l.scheme == scheme && l.shards == shards
}

/// Finds or adds the load of (workload, scheme, shards).
fn load_index(loads: &mut Vec<SchemeLoad>, workload: &str, scheme: &str, shards: u32) -> usize {
    match loads
        .iter()
        .position(|l| is_load(l, workload, scheme, shards))
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
    }
}

/// Checks that `shard` is a shard of an `shards`-shard cluster, and that the cluster is no
/// larger than the file can describe (every shard has a row), so a corrupt count cannot make
/// the reader allocate without bound.
fn check_shard(
    path: &Path,
    line: u64,
    (shard, shards): (u32, u32),
    rows: usize,
) -> Result<(), ReportError> {
    check_count(path, line, "shards", shards)?;
    if shard >= shards {
        return Err(malformed(
            path,
            line,
            format!("shard {shard} does not exist with {shards} shards (shards are 0..{shards})"),
        ));
    }
    if shards as usize > rows {
        return Err(malformed(
            path,
            line,
            format!("{shards} shards, but the file has only {rows} rows (one per shard expected)"),
        ));
    }
    Ok(())
}

/// Reads `shards.csv`, checking every shard against its cluster.
fn read_shard_rows(path: &Path, bytes: &[u8]) -> Result<Vec<ShardRow>, ReportError> {
    let rows = csv_rows::parse::<ShardRow>(path, bytes)?;
    for l in &rows {
        check_shard(path, l.line, (l.row.shard, l.row.shards), rows.len())?;
    }
    crate::value_checks::check_shards(path, &rows)?;
    Ok(rows.into_iter().map(|l| l.row).collect())
}

/// The loads of `shards.csv`'s rows (checked: every shard below its count). Rows repeated
/// by a sweep over target shard counts (same workload, scheme and N) carry the same load;
/// the first is kept.
fn gather_shards(rows: &[ShardRow]) -> Vec<SchemeLoad> {
    let mut loads = Vec::new();
    let mut seen: HashMap<(&str, &str, u32, u32), ()> = HashMap::new();
    for r in rows {
        if seen
            .insert((&r.workload, &r.scheme, r.shards, r.shard), ())
            .is_some()
        {
            continue;
        }
        let i = load_index(&mut loads, &r.workload, &r.scheme, r.shards);
        let load = &mut loads[i];
        load.shard_requests[r.shard as usize] = r.requests;
        load.shard_distinct_keys[r.shard as usize] = r.distinct_keys;
        load.shard_share[r.shard as usize] = r.request_share.unwrap_or(0.0);
    }
    loads
}

/// Adds the rows of `windows.csv` (read from `path`; `rows` of them, each with its line) to
/// the loads of `shards.csv`.
fn gather_windows<'a>(
    path: &Path,
    rows: usize,
    cells: impl Iterator<Item = (WindowCell<'a>, u64)>,
    loads: &mut Vec<SchemeLoad>,
) -> Result<(), ReportError> {
    // Per load, the (window, shard) cells read: a repeated row is ignored. A flag per cell,
    // not a set of labels, so that a long windows.csv costs no string or hash per row.
    let mut seen: Vec<Vec<bool>> = Vec::new();
    // Consecutive rows are mostly of one load: the last one found is tried first.
    let mut last: Option<usize> = None;
    for (r, line) in cells {
        let (shards, window, shard) = (r.shards, r.window, r.shard);
        check_shard(path, line, (shard, shards), rows)?;
        // Every window has a row per shard, so a real index is below the row count.
        if window as usize >= rows {
            return Err(malformed(
                path,
                line,
                format!(
                    "window {window}, but the file has only {rows} rows (one per window and shard)"
                ),
            ));
        }
        let i = match last {
            Some(i) if is_load(&loads[i], r.workload, r.scheme, shards) => i,
            _ => load_index(loads, r.workload, r.scheme, shards),
        };
        last = Some(i);
        seen.resize(loads.len(), Vec::new());
        let cell = window as usize * shards as usize + shard as usize;
        if seen[i].len() <= cell {
            seen[i].resize(cell + 1, false);
        }
        if std::mem::replace(&mut seen[i][cell], true) {
            continue;
        }
        let load = &mut loads[i];
        if load.window_requests.len() <= window as usize {
            load.window_requests
                .resize(window as usize + 1, vec![0; shards as usize]);
        }
        load.window_requests[window as usize][shard as usize] = r.requests;
        if let Some(h) = r.window_hottest_share {
            if load.window_hottest_share.len() <= window as usize {
                load.window_hottest_share.resize(window as usize + 1, 0.0);
            }
            load.window_hottest_share[window as usize] = h;
        }
    }
    Ok(())
}

fn read_recommendations(path: &Path, bytes: &[u8]) -> Result<Vec<RecommendationRow>, ReportError> {
    csv_rows::parse::<RecommendationRow>(path, bytes)?
        .into_iter()
        .map(|l| {
            check_count(path, l.line, "shards", l.row.shards)?;
            for &m in &l.row.grow_to {
                check_count(path, l.line, "grow_to", m)?;
            }
            Ok(l.row)
        })
        .collect()
}

fn read_json(path: &Path, bytes: &[u8]) -> Result<serde_json::Value, ReportError> {
    serde_json::from_slice(bytes)
        .map_err(|e| malformed(path, e.line() as u64, format!("not valid JSON: {e}")))
}

fn read_plan(path: &Path, bytes: &[u8]) -> Result<Vec<PlanCsvRow>, ReportError> {
    csv_rows::parse::<PlanCsvRow>(path, bytes)?
        .into_iter()
        .map(|l| {
            let r = &l.row;
            if r.growth <= 0.0 {
                return Err(l.error(
                    path,
                    format!(
                        "column 'growth': expected a positive number, found '{}'",
                        r.growth
                    ),
                ));
            }
            if r.shards_needed.is_none() && r.binding.is_empty() {
                return Err(l.error(
                    path,
                    "no shards_needed and no binding: an empty count must say why".into(),
                ));
            }
            for (column, n) in [
                ("shards_needed", r.shards_needed),
                ("balanced_shards", r.balanced_shards),
                ("current_shards", r.current_shards),
            ] {
                if let Some(n) = n {
                    check_count(path, l.line, column, n)?;
                }
            }
            Ok(l.row)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::metrics::registry::fanout::SCAN_FANOUT_MEAN;
    use engine::metrics::registry::load::HOTTEST_SHARD_SHARE;
    use engine::metrics::registry::remap::REMAP_FRACTION;

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
        assert_eq!(run.metric("w", "hash", 2, HOTTEST_SHARD_SHARE), Some(0.6));
        assert_eq!(run.metric("w", "hash", 2, SCAN_FANOUT_MEAN), None);
        assert_eq!(run.transitions("w", "hash", REMAP_FRACTION), [(2, 3, 0.66)]);
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
    fn values_no_run_writes_are_refused_naming_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |summary: &str, shards: &str, want: &[&str]| {
            write_run(dir.path(), summary, shards, WINDOWS);
            let err = RunData::load(dir.path()).unwrap_err().to_string();
            for w in want {
                assert!(err.contains(w), "want '{w}' in: {err}");
            }
        };
        let lat = "w,hash,2,lookup_ns_p50,1e308,ns,3\n";
        for (summary, want) in [
            (
                SUMMARY.replace("0.66", "-1e308"),
                vec!["summary.csv:4:", "'value'", "at least 0"],
            ),
            (
                SUMMARY.replace("0.66", "1.5"),
                vec!["summary.csv:4:", "at most 1"],
            ),
            (
                SUMMARY.replace("0.66", "NaN"),
                vec!["summary.csv:4:", "finite"],
            ),
            (format!("{SUMMARY}{lat}"), vec!["summary.csv:5:", "1e12 ns"]),
            (
                format!("{SUMMARY}w,hash,2,remap_fraction,0.5,share,3\n"),
                vec!["summary.csv:5:", "'metric'", "also on line 4"],
            ),
            (
                SUMMARY.lines().next().unwrap().to_string() + "\n",
                vec!["summary.csv:1:", "no rows"],
            ),
        ] {
            refused(&summary, SHARDS, &want);
        }
        let header = SHARDS.lines().next().unwrap();
        let first = SHARDS.lines().nth(1).unwrap();
        let second = SHARDS.lines().nth(2).unwrap();
        // A deleted row leaves a shard without its load; a duplicated one with other
        // figures doubles it; a share above 1.
        refused(
            SUMMARY,
            &format!("{header}\n{first}\n{first}\n"),
            &["shards.csv:", "shard 1", "no row"],
        );
        refused(
            SUMMARY,
            &format!(
                "{header}\n{first}\n{second}\n{}\n",
                second.replace(",4,2,", ",9,2,")
            ),
            &["shards.csv:4:", "also on line 3"],
        );
        refused(
            SUMMARY,
            &SHARDS.replace("0.4\n", "1.4\n"),
            &["shards.csv:3:", "request_share"],
        );
        // The same row twice (a sweep over targets writes each once per target) is read.
        write_run(dir.path(), SUMMARY, &format!("{SHARDS}{second}\n"), WINDOWS);
        assert!(RunData::load(dir.path()).is_ok());
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
        std::fs::write(dir.path().join("splits.csv"), "window,finder\n0,median\n").unwrap();
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
    fn the_timeline_reads_without_optional_columns_or_values() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), SUMMARY, SHARDS, WINDOWS);
        std::fs::write(
            dir.path().join("timeline.csv"),
            "scheme,window,ranges,bytes_moved,measured\nrange-dynamic,0,1,,false\nrange-dynamic,1,3,4096,true\n",
        )
        .unwrap();
        let run = RunData::load(dir.path()).unwrap();
        let t = run.timeline.unwrap();
        assert_eq!(t[1].series(), "range-dynamic");
        assert_eq!(t[1].bytes_moved, Some(4096));
        assert_eq!((t[0].bytes_moved, t[0].splits), (None, None));
        assert_eq!((t[0].measured, t[1].measured), (Some(false), Some(true)));
    }

    #[test]
    fn every_file_the_run_writes_reads_back_into_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), SUMMARY, SHARDS, WINDOWS);
        let recommendation = RecommendationRow {
            workload: "w".into(),
            shards: 2,
            grow_to: vec![3, 4],
            scheme: None,
            decided_by: "tie".into(),
            margin: None,
            tied_with: vec!["hash".into(), "ring:vnodes=1,2".into()],
            tied_growth_cost: vec!["hash".into(), "ring:vnodes=1,2".into()],
            warning: "tie: \"quoted\", with commas".into(),
            ..Default::default()
        };
        std::fs::write(
            dir.path().join(crate::recommendation_csv::FILE),
            csv_rows::write([recommendation.clone()]).unwrap(),
        )
        .unwrap();
        let run = RunData::load(dir.path()).unwrap();
        assert_eq!(run.recommendations.unwrap(), [recommendation]);
        let written = csv_rows::write(run.metrics).unwrap();
        assert_eq!(
            String::from_utf8(written).unwrap(),
            format!(
                "{}\n{}",
                csv_rows::header::<SummaryRow>(),
                SUMMARY
                    .lines()
                    .skip(1)
                    .map(|l| format!("{l},0,,,\n"))
                    .collect::<String>()
            )
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
