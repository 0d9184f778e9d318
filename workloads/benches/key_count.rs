//! Distinct-key counting, the largest cost of a replay: `cargo bench -p workloads --bench
//! key_count`.
//!
//! One timed iteration counts [`EVENTS`] keys of a Zipf(0.99) workload over 1,000,000 keys
//! (the replay benchmark's trace, `scripts/bench-replay.sh`) into a table that already holds
//! them (about 800,000 distinct keys, past the L2 cache): the steady state of a replay, where
//! the table has grown in the first seconds and then only counts. Results are per key
//! (`Throughput::Elements`). Layouts in one group, so ratios come from one run:
//! - `hashbrown_map`: a `hashbrown::HashMap<u64, u64>` keyed by the integer, with the same
//!   inlined XXH3 hash (the plain baseline);
//! - `add`: [`KeyTable::add`] key by key;
//! - `add_each`: [`KeyTable::add_each`] (home slots prefetched ahead);
//! - `add_each_routed_16`: [`KeyTable::add_each_routed`] into 16 tables by hash, as one
//!   replay worker counts the 16 key-space parts.

// criterion_group! and criterion_main! generate undocumented functions.
#![allow(missing_docs)]

use std::hash::{BuildHasher, Hasher};
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use workloads::stats::{sample_hash, KeyTable};
use workloads::WorkloadSpec;

/// Keys counted per timed iteration.
const EVENTS: u64 = 4_000_000;

/// The keys of the benchmark workload, as the trace reader hands them out (8 bytes).
fn zipf_keys() -> Vec<[u8; 8]> {
    let spec = WorkloadSpec::parse("zipf:keys=1000000,s=0.99").expect("a valid spec");
    let mut source = spec.open(42, EVENTS).expect("a synthetic source");
    let chunk = workloads::collect(source.as_mut()).expect("synthetic events");
    chunk
        .iter()
        .map(|ev| ev.key.try_into().expect("8-byte keys"))
        .collect()
}

/// The sample hash as a `Hasher`, so that the baseline map hashes as the table does.
#[derive(Default, Clone, Copy)]
struct SampleHash(u64);

impl Hasher for SampleHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = sample_hash(bytes);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = sample_hash(&n.to_be_bytes());
    }
}

impl BuildHasher for SampleHash {
    type Hasher = SampleHash;
    fn build_hasher(&self) -> SampleHash {
        SampleHash(0)
    }
}

fn key_count(c: &mut Criterion) {
    let keys = zipf_keys();
    let mut group = c.benchmark_group("key_count");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(keys.len() as u64));
    let mut map: hashbrown::HashMap<u64, u64, SampleHash> = Default::default();
    let count_map = |map: &mut hashbrown::HashMap<u64, u64, SampleHash>| {
        for k in &keys {
            *map.entry(u64::from_be_bytes(*k)).or_default() += 1;
        }
    };
    count_map(&mut map);
    group.bench_function("hashbrown_map", |b| {
        b.iter(|| count_map(black_box(&mut map)))
    });
    drop(map);
    let mut table = KeyTable::default();
    table.add_each(keys.iter().map(|k| &k[..]));
    group.bench_function("add", |b| {
        b.iter(|| keys.iter().for_each(|k| black_box(&mut table).add(k, 1)))
    });
    group.bench_function("add_each", |b| {
        b.iter(|| black_box(&mut table).add_each(keys.iter().map(|k| &k[..])))
    });
    drop(table);
    let route = |h: u64| Some((h >> 32) as usize & 15);
    let mut tables: Vec<KeyTable> = (0..16).map(|_| KeyTable::default()).collect();
    KeyTable::add_each_routed(&mut tables, keys.iter().map(|k| &k[..]), route);
    group.bench_function("add_each_routed_16", |b| {
        b.iter(|| {
            KeyTable::add_each_routed(black_box(&mut tables), keys.iter().map(|k| &k[..]), route)
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .sample_size(10);
    targets = key_count
}
criterion_main!(benches);
