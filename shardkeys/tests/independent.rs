//! The `hash` figures of `shardlab keys` on a generated multi-column trace, against a direct
//! computation written from the definitions of docs/keys.md alone.

use std::collections::HashMap;

use schemes::{BuildContext, SchemeSpec};
use shardkeys::{analyze, Options};

/// A seeded trace: skewed tenants, users per tenant, timestamps; reads by user, by tenant and
/// by time range; puts, some moving a user to another tenant; transactions of 3 rows.
fn generate(rows: u64) -> Vec<[String; 7]> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let mut out = Vec::new();
    for i in 0..rows {
        let tenant = next(20) * next(20) / 19; // skewed towards small ids
        let user = tenant * 1000 + next(50);
        let ts = 1_700_000_000 + i;
        let txn = format!("t{}", i / 3);
        let e = String::new;
        let row = match next(10) {
            0..=2 => [
                "get".into(),
                tenant.to_string(),
                user.to_string(),
                e(),
                e(),
                e(),
                txn,
            ],
            3 => ["get".into(), tenant.to_string(), e(), e(), e(), e(), txn],
            4 => [
                "scan".into(),
                e(),
                e(),
                ts.to_string(),
                (ts + 50).to_string(),
                e(),
                txn,
            ],
            5 => {
                let moved = (tenant + 1).to_string();
                [
                    "put".into(),
                    tenant.to_string(),
                    user.to_string(),
                    ts.to_string(),
                    e(),
                    moved,
                    txn,
                ]
            }
            _ => [
                "put".into(),
                tenant.to_string(),
                user.to_string(),
                ts.to_string(),
                e(),
                e(),
                txn,
            ],
        };
        out.push(row);
    }
    out
}

fn enc(v: &str) -> [u8; 8] {
    ((v.parse::<i64>().unwrap() as u64) ^ (1 << 63)).to_be_bytes()
}

#[test]
fn hash_figures_equal_a_direct_computation() {
    let rows = generate(3000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.csv");
    let mut text = String::from("op,tenant,user,ts,ts_end,tenant_new,txn\n");
    for r in &rows {
        text.push_str(&r.join(","));
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let n = 16u32;
    let opts = Options {
        txn_col: Some("txn".into()),
        ..Options::new("tenant,user", "hash", n).unwrap()
    };
    let got = analyze(&path, &opts).unwrap().keys_csv;
    let hash = SchemeSpec::parse_list("hash").unwrap()[0]
        .build(&BuildContext {
            shards: n,
            warmup_keys: &[],
            key_type: Default::default(),
            weights: None,
        })
        .unwrap();
    let owner = |t: &str, u: &str| hash.shard_of(&[enc(t), enc(u)].concat());
    // Under hash a key that is not given whole is a scan, which contacts every shard.
    let (mut reads, mut writes) = ([0u64; 3], [0u64; 3]);
    let mut load = vec![0u64; n as usize];
    let mut txns: HashMap<&str, Vec<u32>> = HashMap::new();
    let (mut updates, mut nwrites) = (0u64, 0u64);
    for r in &rows {
        let read = r[0] != "put";
        let mut shards: Vec<u32> = if !r[1].is_empty() && !r[2].is_empty() {
            vec![owner(&r[1], &r[2])]
        } else {
            (0..n).collect()
        };
        if !read {
            nwrites += 1;
            if !r[5].is_empty() && r[5] != r[1] {
                updates += 1;
                shards.push(owner(&r[5], &r[2]));
            }
        }
        shards.sort();
        shards.dedup();
        let class = match shards.len() {
            1 => 0,
            k if k < n as usize => 1,
            _ => 2,
        };
        if read {
            reads[class] += 1;
        } else {
            writes[class] += 1;
        }
        shards.iter().for_each(|&s| load[s as usize] += 1);
        txns.entry(&r[6]).or_default().extend(&shards);
    }
    let f = |a: u64, b: u64| a as f64 / b as f64;
    let (nr, nw): (u64, u64) = (reads.iter().sum(), writes.iter().sum());
    let max = *load.iter().max().unwrap();
    let cross = txns
        .values()
        .filter(|s| {
            let mut s = s.to_vec();
            s.sort();
            s.dedup();
            s.len() > 1
        })
        .count() as u64;
    let want = [
        ("single_shard_reads", f(reads[0], nr)),
        ("multi_shard_reads", f(reads[1], nr)),
        ("scatter_gather_reads", f(reads[2], nr)),
        ("single_shard_writes", f(writes[0], nw)),
        ("multi_shard_writes", f(writes[1], nw)),
        ("scatter_gather_writes", f(writes[2], nw)),
        ("hottest_shard_share", f(max, load.iter().sum())),
        ("usable_capacity", f(nr + nw, u64::from(n) * max).min(1.0)),
        ("cross_shard_txns", f(cross, txns.len() as u64)),
        ("shard_key_updates", f(updates, nwrites)),
    ];
    assert!(
        updates > 0 && reads[2] > 0 && writes[1] > 0,
        "the trace exercises every class"
    );
    let mut csv = csv::Reader::from_reader(got.as_bytes());
    let recs: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    for (metric, value) in want {
        let row = recs
            .iter()
            .find(|r| &r[3] == metric && (r[1].is_empty() || &r[1] == "hash"))
            .unwrap_or_else(|| panic!("{metric} missing"));
        let v: f64 = row[4].parse().unwrap();
        assert!((v - value).abs() < 1e-12, "{metric}: {v} != {value}");
    }
}
