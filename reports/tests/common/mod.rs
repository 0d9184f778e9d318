//! Hand-built runs written through the real exporters, so the tests need neither the CLI nor a
//! replay: a skew sweep (zipf s = 0.6, 1.0, 1.4) over shard counts 4, 8, 16 and 32, four
//! schemes, a sequential workload with a monotonic hot spot, and range-dynamics files.

#![allow(dead_code)]

use std::path::Path;

use engine::metrics::{
    Latency, Remap, ScanFanout, SchemeResult, ShardLoad, SplitBalance, WorkloadResult,
};
use reports::output::OutputDir;
use reports::{exporters, Manifest};

/// The schemes of every sample run.
pub const SCHEMES: [&str; 4] = ["range", "hash", "ring", "salted"];
/// The shard counts of the sample sweep.
pub const SHARD_COUNTS: [u32; 4] = [4, 8, 16, 32];
/// The skews of the sample sweep.
pub const SKEWS: [&str; 3] = ["0.6", "1.0", "1.4"];
/// Windows per scheme.
pub const WINDOWS: usize = 12;

/// Which numbers the sample run has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    /// Sequential keys make range one hot shard; mod-N moves almost every key.
    MonotonicHotSpot,
    /// Range spreads well and one key is very hot.
    HotKey,
}

/// Requests per shard of `scheme` in window `w`: deterministic, shaped by the variant.
fn window_counts(variant: Variant, workload: usize, scheme: &str, n: u32, w: usize) -> Vec<u32> {
    let n = n as usize;
    (0..n)
        .map(|shard| {
            let base = 1000 + 10 * ((shard * 7 + w * 3 + workload) % 11) as u32;
            match (variant, scheme) {
                (Variant::MonotonicHotSpot, "range") if workload == 3 => {
                    if shard == n - 1 {
                        5000
                    } else {
                        2
                    }
                }
                (_, "range") if shard == w % n => base * 3,
                (Variant::HotKey, _) if shard == 0 => base * 4,
                _ => base,
            }
        })
        .collect()
}

fn scheme_result(
    variant: Variant,
    workload: usize,
    scheme: &str,
    n: u32,
    scans: bool,
) -> SchemeResult {
    let windows: Vec<Vec<u32>> = (0..WINDOWS)
        .map(|w| window_counts(variant, workload, scheme, n, w))
        .collect();
    let totals: Vec<u64> = (0..n as usize)
        .map(|s| windows.iter().map(|w| w[s] as u64).sum())
        .collect();
    let remap_fraction = match (variant, scheme) {
        (Variant::MonotonicHotSpot, "hash") => n as f64 / (n as f64 + 1.0),
        (Variant::HotKey, "hash") => 0.5,
        _ => 1.0 / (n as f64 + 1.0),
    };
    let fanout = match scheme {
        "range" => 1.2,
        "salted" => (n as f64).min(8.0),
        _ => n as f64,
    };
    SchemeResult {
        scheme: scheme.to_string(),
        shards: n,
        // Windows of equal length: the windowed share is their plain mean.
        load: ShardLoad::from_counts(totals.clone(), windows, vec![1000; WINDOWS]),
        shard_distinct_keys: totals.iter().map(|t| t / 3).collect(),
        remap: Remap {
            target_shards: n + 1,
            remap_fraction,
            remap_fraction_traffic: remap_fraction,
            remap_ideal: 1.0 / (n as f64 + 1.0),
            moved_to_new_shards: 1.0,
            growth: Default::default(),
            refusal: None,
        },
        fanout: scans.then_some(ScanFanout {
            scans: 50,
            mean: fanout,
            p99: fanout.ceil() as u64,
            max: n as u64,
        }),
        latency: Some(Latency {
            p50_ns: 10.0 + scheme.len() as f64,
            p99_ns: 20.0 + 2.0 * scheme.len() as f64,
            p999_ns: 40.0 + 3.0 * scheme.len() as f64,
            mean_ns: 12.0,
            lookups_per_sec: 8.0e7,
            lookups: 1000,
            timer_overhead_ns: 20.0,
        }),
        split: (scheme == "range").then_some(SplitBalance {
            range_index: 0,
            range_requests: 100,
            range_distinct_keys: 10,
            median_balance: 0.3,
            optimal_balance: 0.1,
            top_key_share: 0.2,
        }),
        router: Default::default(),
        extra_metrics: Vec::new(),
        intervals: Vec::new(),
    }
}

/// The results of a sample run.
pub fn results(variant: Variant) -> Vec<WorkloadResult> {
    let mut labels: Vec<String> = SKEWS
        .iter()
        .map(|s| format!("zipf:keys=1000,s={s},scans=0.05"))
        .collect();
    labels.push("sequential:scans=0.05".into());
    let mut out = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        for &n in &SHARD_COUNTS {
            let schemes: Vec<SchemeResult> = SCHEMES
                .iter()
                .map(|s| scheme_result(variant, i, s, n, true))
                .collect();
            // Every scheme sees the same events; scans make some contact more shards.
            let events = schemes.iter().map(|s| s.load.requests).min().unwrap_or(0);
            let hot_key = match variant {
                Variant::HotKey => 0.31,
                Variant::MonotonicHotSpot => 0.002,
            };
            out.push(WorkloadResult {
                workload: label.clone(),
                description: format!("sample workload {label}"),
                key_type: Default::default(),
                events_measured: events,
                warmup_events: 0,
                distinct_keys: 100_000,
                point_requests: 1000,
                scans: 50,
                hottest_key: Some((b"k".to_vec(), (hot_key * 1000.0) as u64)),
                key_sample: None,
                schemes,
                changing: Vec::new(),
            });
        }
    }
    out
}

/// The manifest of a sample run, with descriptions and the machine.
pub fn manifest(results: &[WorkloadResult]) -> Manifest {
    let descriptions: serde_json::Map<String, serde_json::Value> = results
        .iter()
        .map(|r| {
            (
                r.workload.clone(),
                serde_json::Value::String(r.description.clone()),
            )
        })
        .collect();
    Manifest {
        tool: "shardlab".into(),
        version: "0.1.0".into(),
        command_line: vec!["shardlab".into(), "run".into()],
        seed: 42,
        parameters: serde_json::json!({
            "workload_descriptions": descriptions,
            "machine": {"cores": 2, "os": "linux"},
            "window": 1000,
        }),
        inputs: vec![],
        threads: 2,
        started_utc: "2026-11-30T00:00:00Z".into(),
        duration_secs: 1.5,
        phase_secs: Default::default(),
    }
}

/// Writes a sample run into `dir` through the exporters, with `timeline.csv` and `splits.csv`.
pub fn write_run(dir: &Path, variant: Variant) {
    let results = results(variant);
    let data = reports::data::RunData::of_run(&results, manifest(&results)).unwrap();
    let out = OutputDir::claim(dir, true).unwrap();
    out.write_files(&exporters::render(&data, &exporters::all()).unwrap())
        .unwrap();
    // The headers the range-dynamics exporter writes (reports/src/dynamic_csv.rs).
    let mut timeline = String::from(
        "window,ranges,splits,merges,ownership_moves,data_moves,bytes_moved,hottest_node_share,\
hottest_range_share,size_splits,load_splits,refusals,oscillations,events,requests,measured\n",
    );
    for w in 0..WINDOWS {
        timeline.push_str(&format!(
            "{w},{},1,{},1,1,{},{},0.9,0,1,0,0,1000,1000,{}\n",
            1 + w,
            w % 3 / 2,
            4096 * w,
            1.0 - w as f64 * 0.05,
            w > 0
        ));
    }
    std::fs::write(dir.join("timeline.csv"), timeline).unwrap();
    let mut splits = String::from(
        "window,finder,range_start,split_key,balance_after,optimal_balance,contained,reason,range_end,applied,requests\n",
    );
    for (finder, balance) in [
        ("median", 0.4),
        ("sampled", 0.25),
        ("reservoir", 0.12),
        ("optimal", 0.05),
    ] {
        for w in 0..4 {
            splits.push_str(&format!(
                "{w},{finder},k{w},k{w}5,{balance},0.05,0.01,,k{w}9,true,400\n"
            ));
        }
        splits.push_str(&format!("5,{finder},k9,,,,,popular_key,,false,300\n"));
    }
    std::fs::write(dir.join("splits.csv"), splits).unwrap();
    // finders.csv as analysis summarises those splits: 4 judged, 1 refused per finder.
    let mut finders = String::from(
        "finder,decisions,splits,applied,evaluated,balance_mean,balance_p90,excess_over_optimal_mean,optimal_balance_mean,popular_key,no_split_key,clear_direction\n",
    );
    for (finder, balance) in [
        ("median", 0.4),
        ("sampled", 0.25),
        ("reservoir", 0.12),
        ("optimal", 0.05),
    ] {
        let excess: f64 = balance - 0.05;
        finders.push_str(&format!(
            "{finder},5,4,4,4,{balance},{balance},{excess},0.05,1,0,0\n"
        ));
    }
    std::fs::write(dir.join("finders.csv"), finders).unwrap();
}

/// Every chart file stem a sample run draws.
pub fn expected_chart_stems() -> Vec<String> {
    let workloads: Vec<String> = results(Variant::MonotonicHotSpot)
        .iter()
        .map(|r| r.workload.clone())
        .fold(Vec::new(), |mut v, w| {
            if !v.contains(&w) {
                v.push(w);
            }
            v
        });
    let mut out = Vec::new();
    for chart in [
        "decision",
        "usable_capacity",
        "load_bars",
        "hottest_over_time",
        "load_heatmap",
        "remap",
    ] {
        for (i, w) in workloads.iter().enumerate() {
            out.push(format!(
                "{chart}-{}-{}",
                i + 1,
                reports::charts::style::slug(w)
            ));
        }
    }
    for chart in [
        "latency",
        "scan_fanout",
        "skew_sweep",
        "shard_sweep",
        "layout_timeline",
        "split_balance",
    ] {
        out.push(chart.to_string());
    }
    out.sort();
    out
}
