//! What to shard on: candidate shard keys measured on a multi-column trace under
//! partitioning schemes (`shardlab keys`). The figures are defined in docs/keys.md ("What to
//! shard on"); this crate computes them in two streaming passes over the trace.

pub mod candidate;
mod error;
pub mod events;
mod figures;
mod options;
mod recommend;
mod targeting;
pub mod trace;

use std::collections::HashMap;
use std::path::Path;

use schemes::{BuildContext, SchemeSpec};
use schemes::{Partitioner, ShardSet};

pub use candidate::{parse_candidates, Candidate};
pub use error::KeysError;
use figures::{share, KeyStats, Routing};
pub use options::Options;
pub use recommend::Recommendation;
use targeting::{full_key, new_key, target};
pub use targeting::{request, Request};
use trace::{CsvTrace, Pred, Row};

/// What `shardlab keys` writes.
#[derive(Clone, Debug)]
pub struct KeysReport {
    /// `keys.csv`: candidate, scheme, shards, metric, value.
    pub keys_csv: String,
    /// `top_values.csv`: candidate, rank, value, count, share.
    pub top_values_csv: String,
    /// The report section, in Markdown.
    pub report_md: String,
    /// The recommendation the section explains.
    pub recommendation: Recommendation,
}

/// A distinct value of a candidate: how often operations give it, and where first.
struct Seen {
    count: u64,
    first_row: u64,
    shown: Box<str>,
}

/// Runs the analysis of the CSV trace at `path`.
pub fn analyze(path: &Path, opts: &Options) -> Result<KeysReport, KeysError> {
    if opts.shards == 0 {
        return Err(KeysError::Usage("--shards must be at least 1".into()));
    }
    for s in &opts.schemes {
        let probe = s.build(&BuildContext {
            shards: opts.shards,
            warmup_keys: &[],
            key_type: Default::default(),
            weights: None,
        });
        if s.is_changing() || probe.as_ref().is_ok_and(|p| p.learns_arrival()) {
            return Err(KeysError::Usage(format!(
                "--schemes: '{}' places keys by their arrival or changes its layout during \
                 the replay; shardlab keys measures fixed layouts (hash, range, ring, ...)",
                s.label()
            )));
        }
        probe.map_err(|e| KeysError::Usage(format!("--schemes: {e}")))?;
    }
    // Pass 1: distinct values per candidate.
    let mut trace = CsvTrace::open(path, &opts.op_col, opts.txn_col.as_deref(), &opts.op_map)?;
    let cands = parse_candidates(&opts.candidates, &trace.layout.columns)?;
    let mut seen: Vec<HashMap<Vec<u8>, Seen>> = cands.iter().map(|_| HashMap::new()).collect();
    let mut stats: Vec<KeyStats> = cands
        .iter()
        .map(|_| KeyStats {
            key_ops: 0,
            cardinality: 0,
            top: Vec::new(),
            monotonicity: None,
            writes: 0,
            key_updates: 0,
        })
        .collect();
    let (mut row, mut key, mut rows) = (Row::default(), Vec::new(), 0u64);
    while trace.next_row(&mut row)? {
        for (c, cand) in cands.iter().enumerate() {
            if !row.read {
                stats[c].writes += 1;
                stats[c].key_updates += u64::from(new_key(cand, &row, &mut key) != Some(false));
            }
            if full_key(cand, &row.preds, &mut key) {
                stats[c].key_ops += 1;
                match seen[c].get_mut(&key) {
                    Some(s) => s.count += 1,
                    None => {
                        let shown = shown_value(cand, &row);
                        let s = Seen {
                            count: 1,
                            first_row: rows,
                            shown: shown.into(),
                        };
                        seen[c].insert(key.clone(), s);
                    }
                }
            }
        }
        rows += 1;
    }
    let warmup_rows = (opts.warmup * rows as f64).ceil() as u64;
    let mut built: Vec<Vec<Box<dyn Partitioner>>> = Vec::new();
    for (c, values) in seen.into_iter().enumerate() {
        let mut by_key: Vec<(Vec<u8>, Seen)> = values.into_iter().collect();
        by_key.sort_by(|a, b| a.0.cmp(&b.0));
        let warm: Vec<Vec<u8>> = by_key
            .iter()
            .filter(|(_, s)| s.first_row < warmup_rows)
            .map(|(k, _)| k.clone())
            .collect();
        let ctx = BuildContext {
            shards: opts.shards,
            warmup_keys: &warm,
            key_type: Default::default(),
            weights: None,
        };
        built.push(
            opts.schemes
                .iter()
                .map(|s| s.build(&ctx))
                .collect::<Result<_, _>>()
                .map_err(|e| KeysError::Data(format!("candidate '{}': {e}", cands[c].label)))?,
        );
        let st = &mut stats[c];
        st.cardinality = by_key.len() as u64;
        st.monotonicity = monotonicity(&by_key);
        let mut top: Vec<(&Seen, usize)> = by_key.iter().map(|(_, s)| s).zip(0..).collect();
        top.sort_by(|a, b| b.0.count.cmp(&a.0.count).then(a.1.cmp(&b.1)));
        st.top = top
            .iter()
            .take(opts.top.max(5))
            .map(|(s, _)| (s.shown.to_string(), s.count))
            .collect();
    }
    // Pass 2: routing.
    let mut routing: Vec<Vec<Routing>> = cands
        .iter()
        .map(|_| {
            opts.schemes
                .iter()
                .map(|_| Routing {
                    load: vec![0; opts.shards as usize],
                    ..Routing::default()
                })
                .collect()
        })
        .collect();
    let mut trace = CsvTrace::open(path, &opts.op_col, opts.txn_col.as_deref(), &opts.op_map)?;
    let mut set = ShardSet::new(opts.shards);
    while trace.next_row(&mut row)? {
        for (c, cand) in cands.iter().enumerate() {
            let moved = !row.read && new_key(cand, &row, &mut key) == Some(true);
            let req = request(cand, &row.preds);
            for (s, scheme) in built[c].iter().enumerate() {
                set.clear();
                target(scheme.as_ref(), &req, &mut set);
                if moved {
                    set.insert(scheme.shard_of(&key));
                }
                let r = &mut routing[c][s];
                let class = match set.len() {
                    1 => 0,
                    n if n < opts.shards => 1,
                    _ => 2,
                };
                if row.read {
                    r.reads[class] += 1;
                } else {
                    r.writes[class] += 1;
                }
                for shard in set.iter() {
                    r.load[shard as usize] += 1;
                }
                if let Some(t) = &row.txn {
                    let txn = r
                        .txns
                        .entry(t.clone())
                        .or_insert_with(|| ShardSet::new(opts.shards));
                    set.iter().for_each(|shard| {
                        txn.insert(shard);
                    });
                }
            }
        }
    }
    let labels: Vec<String> = opts.schemes.iter().map(SchemeSpec::label).collect();
    let recommendation = recommend::recommend(&cands, &labels, &stats, &routing, opts);
    Ok(KeysReport {
        keys_csv: keys_csv(&cands, &labels, &stats, &routing, opts),
        top_values_csv: top_values_csv(&cands, &stats, opts.top),
        report_md: recommendation.markdown(),
        recommendation,
    })
}

/// The value of `cand` in `row` as the trace wrote it (columns joined by `,`).
fn shown_value(cand: &Candidate, row: &Row) -> String {
    cand.parts
        .iter()
        .map(|p| match &row.preds[p.col] {
            Pred::Eq(v) => decode(row.types[p.col], v),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The text of an encoded value ([`candidate::encode`] reversed).
fn decode(ty: candidate::ColType, v: &[u8]) -> String {
    match (ty, v.strip_suffix(&[0, 1])) {
        (candidate::ColType::Str, Some(text)) => {
            let mut bytes = Vec::with_capacity(text.len());
            let mut i = 0;
            while i < text.len() {
                bytes.push(text[i]);
                i += if text[i] == 0 { 2 } else { 1 };
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => {
            let raw = u64::from_be_bytes(v.try_into().unwrap_or([0; 8])) ^ (1 << 63);
            (raw as i64).to_string()
        }
    }
}

/// Pearson r between each distinct value's rank in key order (`by_key` is sorted by key) and
/// the rank of its first appearance; `None` with fewer than two distinct values.
fn monotonicity(by_key: &[(Vec<u8>, Seen)]) -> Option<f64> {
    let n = by_key.len();
    if n < 2 {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| by_key[i].1.first_row);
    let mut arrival_rank = vec![0usize; n];
    for (rank, &i) in order.iter().enumerate() {
        arrival_rank[i] = rank;
    }
    let mean = (n as f64 - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &a) in arrival_rank.iter().enumerate() {
        sxy += (i as f64 - mean) * (a as f64 - mean);
        sxx += (i as f64 - mean) * (i as f64 - mean);
    }
    // Both rank lists are permutations of 0..n, so their variances are equal.
    Some(sxy / sxx)
}

/// `keys.csv`, in candidate, then scheme order.
fn keys_csv(
    cands: &[Candidate],
    labels: &[String],
    stats: &[KeyStats],
    routing: &[Vec<Routing>],
    opts: &Options,
) -> String {
    let mut out = String::from("candidate,scheme,shards,metric,value\n");
    let num = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
    for (c, cand) in cands.iter().enumerate() {
        let st = &stats[c];
        let top5: u64 = st.top.iter().take(5).map(|t| t.1).sum();
        let top1 = st.top.first().map_or(0, |t| t.1);
        let mono = st.monotonicity;
        let rows: [(&str, String); 7] = [
            ("key_operations", st.key_ops.to_string()),
            ("cardinality", st.cardinality.to_string()),
            ("top1_share", num(share(top1, st.key_ops))),
            ("top5_share", num(share(top5, st.key_ops))),
            ("monotonicity", num(mono)),
            (
                "monotonic",
                u8::from(mono.is_some_and(|r| r.abs() >= 0.7)).to_string(),
            ),
            ("shard_key_updates", num(share(st.key_updates, st.writes))),
        ];
        for (metric, value) in rows {
            out.push_str(&format!("{},,,{metric},{value}\n", csv_field(&cand.label)));
        }
        for (s, label) in labels.iter().enumerate() {
            let r = &routing[c][s];
            let reads: u64 = r.reads.iter().sum();
            let writes: u64 = r.writes.iter().sum();
            let ops = reads + writes;
            let max = r.load.iter().copied().max().unwrap_or(0);
            let requests: u64 = r.load.iter().sum();
            let usable = share(ops, u64::from(opts.shards) * max).map(|u| u.min(1.0));
            let mut metrics = vec![
                ("single_shard_reads", share(r.reads[0], reads)),
                ("multi_shard_reads", share(r.reads[1], reads)),
                ("scatter_gather_reads", share(r.reads[2], reads)),
                ("single_shard_writes", share(r.writes[0], writes)),
                ("multi_shard_writes", share(r.writes[1], writes)),
                ("scatter_gather_writes", share(r.writes[2], writes)),
                ("hottest_shard_share", share(max, requests)),
                ("usable_capacity", usable),
            ];
            if opts.txn_col.is_some() {
                metrics.push(("cross_shard_txns", r.cross_shard_txns()));
            }
            for (metric, value) in metrics {
                out.push_str(&format!(
                    "{},{},{},{metric},{}\n",
                    csv_field(&cand.label),
                    csv_field(label),
                    opts.shards,
                    num(value)
                ));
            }
        }
    }
    out
}

/// `top_values.csv`: the `top` most common values of each candidate.
fn top_values_csv(cands: &[Candidate], stats: &[KeyStats], top: usize) -> String {
    let mut out = String::from("candidate,rank,value,count,share\n");
    for (cand, st) in cands.iter().zip(stats) {
        for (rank, (value, count)) in st.top.iter().take(top).enumerate() {
            out.push_str(&format!(
                "{},{},{},{count},{}\n",
                csv_field(&cand.label),
                rank + 1,
                csv_field(value),
                share(*count, st.key_ops).unwrap_or(0.0)
            ));
        }
    }
    out
}

/// A CSV field, quoted when it holds a comma, quote or newline.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targeting::successor;

    #[test]
    fn successor_skips_trailing_ff_bytes() {
        assert_eq!(successor(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(successor(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(successor(&[0xFF]), None);
    }

    #[test]
    fn decode_reverses_both_encodings() {
        for (ty, text) in [
            (candidate::ColType::Int, "-42"),
            (candidate::ColType::Int, "1"), // ends in 0x00 0x01, like a string's terminator
            (candidate::ColType::Str, "acme"),
        ] {
            let mut v = Vec::new();
            candidate::encode(ty, text, &mut v).unwrap();
            assert_eq!(decode(ty, &v), text);
        }
    }
}
