//! Lookup kernels, each layout against the plain ones in the same group so that ratios come
//! from one run: `cargo bench -p schemes --bench lookup`.
//!
//! Every measurement routes a batch of [`BATCH`] pre-built random keys (splitmix64, fixed
//! seed) and reports time per key (`Throughput::Elements`). The batch is large (8 MiB of
//! keys) so that the lookups touch the whole structure, as the keys of a trace do: a small
//! batch repeated would keep just the paths it touches in cache and flatter every layout.
//! Keys, boundaries and structures are built outside the timed loop; results go through
//! `black_box`. Every structure is on the heap (`Box`), as the replay holds its schemes
//! (`Box<dyn Partitioner>`): held on a bench function's stack, beside the keys `black_box`
//! stores there, `range_shard_of` at 1,000 ranges measured 10.4 ns against 5.0 ns boxed, in
//! the same build with the same code (other rows moved too, by less).

// criterion_group! and criterion_main! generate undocumented functions.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use schemes::cassandra::CassandraPartitioner;
use schemes::elasticsearch::ElasticsearchPartitioner;
use schemes::hash::ModHashPartitioner;
use schemes::kafka::KafkaPartitioner;
use schemes::layout::RadixIndex;
use schemes::pinned_hash::hash64;
use schemes::range::RangePartitioner;
use schemes::redis_cluster::RedisClusterPartitioner;
use schemes::ring::RingPartitioner;
use schemes::salted::SaltedRangePartitioner;
use schemes::{BuildContext, SchemeSpec};
use schemes::{Partitioner, ShardId};
use workloads::KeyType;

/// Keys routed per timed iteration.
const BATCH: usize = 1 << 20;

/// Range counts of the range groups.
const RANGES: [usize; 3] = [1_000, 100_000, 1_000_000];

/// Shards of every scheme.
const SHARDS: u32 = 16;

/// A fixed pseudo-random sequence (splitmix64).
fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// `n - 1` sorted distinct random split points (with the implicit start 0: `n` ranges).
fn split_points(n: usize) -> Vec<u64> {
    let mut splits = splitmix(n as u64, n - 1);
    splits.sort_unstable();
    splits.dedup();
    splits
}

/// A range partitioner with the given splits, owners contiguous over [`SHARDS`].
fn range_partitioner(splits: &[u64]) -> RangePartitioner {
    let splits = splits.iter().map(|s| s.to_be_bytes().to_vec()).collect();
    RangePartitioner::from_splits("range", SHARDS, splits).unwrap()
}

/// Runs `route` over the batch of keys as one timed iteration.
fn bench_keys<K>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    n: usize,
    keys: &[K],
    route: impl Fn(&K) -> usize,
) {
    group.bench_with_input(BenchmarkId::new(name, n), keys, |b, keys| {
        b.iter(|| {
            let mut sum = 0usize;
            for key in keys {
                sum = sum.wrapping_add(route(black_box(key)));
            }
            black_box(sum)
        })
    });
}

/// Random `u64` keys against `n` ranges: the range index (predecessor search).
fn range_lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("range_lookup");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH as u64));
    let keys = splitmix(7, BATCH);
    let byte_keys: Vec<[u8; 8]> = keys.iter().map(|k| k.to_be_bytes()).collect();
    for n in RANGES {
        let splits = Box::new(split_points(n));
        let tree: Box<BTreeMap<u64, u32>> = Box::new(
            splits
                .iter()
                .enumerate()
                .map(|(i, &s)| (s, i as u32 + 1))
                .collect(),
        );
        let radix = Box::new(RadixIndex::new(&splits));
        let range = Box::new(range_partitioner(&splits));
        let starts = Box::new(range.starts().to_vec());
        bench_keys(&mut group, "partition_point", n, &keys, |&x| {
            splits.partition_point(|&s| s <= x)
        });
        bench_keys(&mut group, "btreemap", n, &keys, |&x| {
            tree.range(..=x).next_back().map_or(0, |(_, &i)| i as usize)
        });
        bench_keys(&mut group, "radix", n, &keys, |&x| radix.rank_le(x));
        // Through the scheme's byte-key API: the old layout (partition_point over the
        // Vec<Vec<u8>> starts) and the current one.
        bench_keys(&mut group, "bytes_partition_point", n, &byte_keys, |k| {
            starts.partition_point(|s| s.as_slice() <= &k[..]) - 1
        });
        bench_keys(&mut group, "range_shard_of", n, &byte_keys, |k| {
            range.shard_of(k) as usize
        });
    }
    group.finish();
}

/// A sorted batch of random keys against `n` ranges: per-key lookups against the merge walk.
fn merge_walk(c: &mut Criterion) {
    let mut group = c.benchmark_group("sorted_batch");
    let mut keys = splitmix(11, 1 << 20);
    keys.sort_unstable();
    let byte_keys: Vec<[u8; 8]> = keys.iter().map(|k| k.to_be_bytes()).collect();
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(keys.len() as u64));
    for n in RANGES {
        let splits = Box::new(split_points(n));
        let range = Box::new(range_partitioner(&splits));
        let mut out: Vec<ShardId> = Vec::with_capacity(keys.len());
        group.bench_function(BenchmarkId::new("partition_point", n), |b| {
            b.iter(|| {
                out.clear();
                out.extend(
                    keys.iter()
                        .map(|&x| splits.partition_point(|&s| s <= x) as ShardId),
                );
                black_box(out.len())
            })
        });
        group.bench_function(BenchmarkId::new("range_shard_of", n), |b| {
            b.iter(|| {
                out.clear();
                out.extend(byte_keys.iter().map(|k| range.shard_of(k)));
                black_box(out.len())
            })
        });
        group.bench_function(BenchmarkId::new("merge_walk_u64", n), |b| {
            b.iter(|| {
                out.clear();
                range.shards_of_sorted_u64(&keys, &mut out);
                black_box(out.len())
            })
        });
        group.bench_function(BenchmarkId::new("merge_walk_bytes", n), |b| {
            b.iter(|| {
                out.clear();
                range.shards_of_sorted(&byte_keys, &mut out);
                black_box(out.len())
            })
        });
    }
    group.finish();
}

/// Mod-N hashing of 8-byte keys: the scheme against the crate's XXH3 and `%`.
fn hash_lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("hash_lookup");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH as u64));
    let keys: Vec<[u8; 8]> = splitmix(13, BATCH)
        .iter()
        .map(|k| k.to_be_bytes())
        .collect();
    let hash = Box::new(ModHashPartitioner::new("hash", SHARDS).unwrap());
    let n = u64::from(black_box(SHARDS));
    bench_keys(
        &mut group,
        "xxh3_crate_mod_n",
        SHARDS as usize,
        &keys,
        |k| (xxhash_rust::xxh3::xxh3_64(k) % n) as usize,
    );
    bench_keys(&mut group, "hash_shard_of", SHARDS as usize, &keys, |k| {
        hash.shard_of(k) as usize
    });
    group.finish();
}

/// A ring of 16 shards x 256 vnodes: the scheme against hash + `partition_point`.
fn ring_lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("ring_lookup");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH as u64));
    let keys: Vec<[u8; 8]> = splitmix(17, BATCH)
        .iter()
        .map(|k| k.to_be_bytes())
        .collect();
    let ring = Box::new(RingPartitioner::new("ring", SHARDS, 256).unwrap());
    let points = Box::new(ring.points().to_vec());
    let n = points.len();
    bench_keys(&mut group, "partition_point", n, &keys, |k| {
        let h = hash64(k);
        let i = points.partition_point(|p| p.0 < h);
        points.get(i).unwrap_or(&points[0]).1 as usize
    });
    bench_keys(&mut group, "ring_shard_of", n, &keys, |k| {
        ring.shard_of(k) as usize
    });
    group.finish();
}

/// Salted ranges (16 buckets) against plain ranges with the same number of ranges, and the
/// old salted path (salt into a small vector, then the inner lookup).
fn salted_lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("salted_lookup");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH as u64));
    let keys: Vec<[u8; 8]> = splitmix(19, BATCH)
        .iter()
        .map(|k| k.to_be_bytes())
        .collect();
    let warmup: Vec<Vec<u8>> = {
        let mut w: Vec<Vec<u8>> = splitmix(23, 400_000)
            .iter()
            .map(|k| k.to_be_bytes().to_vec())
            .collect();
        w.sort_unstable();
        w
    };
    for per_shard in [8u64, 6_250] {
        let salted = Box::new(
            SaltedRangePartitioner::learn("salted", SHARDS, SHARDS, per_shard, &warmup).unwrap(),
        );
        let ranges = salted.inner().range_count();
        let range = Box::new(RangePartitioner::learn("range", SHARDS, per_shard, &warmup).unwrap());
        let inner = Box::new(salted.inner().clone());
        let starts = Box::new(inner.starts().to_vec());
        bench_keys(&mut group, "range_shard_of", ranges, &keys, |k| {
            range.shard_of(k) as usize
        });
        bench_keys(&mut group, "salted_shard_of", ranges, &keys, |k| {
            salted.shard_of(k) as usize
        });
        bench_keys(
            &mut group,
            "salt_then_partition_point",
            ranges,
            &keys,
            |k| {
                let s = salted.salt(k);
                inner.owners()[starts.partition_point(|x| x.as_slice() <= &s[..]) - 1] as usize
            },
        );
    }
    group.finish();
}

/// The real systems' placements on 16 shards (16 tokens per Cassandra node), beside `hash`,
/// on 8-byte keys: what replaying a trace through them costs per key (`nginx-chash`, which
/// needs a servers file, is `ketama`'s kind of continuum with 160 points per server).
fn systems_lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("systems_lookup");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH as u64));
    let keys: Vec<[u8; 8]> = splitmix(29, BATCH)
        .iter()
        .map(|k| k.to_be_bytes())
        .collect();
    let schemes: [(&str, Box<dyn Partitioner>); 5] = [
        (
            "hash_shard_of",
            Box::new(ModHashPartitioner::new("hash", SHARDS).unwrap()),
        ),
        (
            "redis_cluster_shard_of",
            Box::new(RedisClusterPartitioner::created("redis-cluster", SHARDS).unwrap()),
        ),
        (
            "kafka_shard_of",
            Box::new(KafkaPartitioner::new("kafka", SHARDS, None).unwrap()),
        ),
        (
            "cassandra_shard_of",
            Box::new(CassandraPartitioner::random("cassandra", SHARDS, 16, 0).unwrap()),
        ),
        (
            "elasticsearch_shard_of",
            Box::new(ElasticsearchPartitioner::new("elasticsearch", SHARDS).unwrap()),
        ),
    ];
    for (name, scheme) in &schemes {
        bench_keys(&mut group, name, SHARDS as usize, &keys, |k| {
            scheme.shard_of(k) as usize
        });
    }
    // Elasticsearch routes by text ids: the same keys as 16-byte ASCII document ids (the
    // line above reads the 8-byte binary keys as text, mostly U+FFFD).
    let ids: Vec<[u8; 16]> = splitmix(29, BATCH)
        .iter()
        .map(|k| {
            let mut id = [0u8; 16];
            id.copy_from_slice(format!("doc-{:012}", k % 1_000_000_000_000).as_bytes());
            id
        })
        .collect();
    let es = ElasticsearchPartitioner::new("elasticsearch", SHARDS).unwrap();
    bench_keys(
        &mut group,
        "elasticsearch_text_id_shard_of",
        SHARDS as usize,
        &ids,
        |k| es.shard_of(k) as usize,
    );
    // The proxies' and clients' placements, from their specs, keys as bytes (`vitess-hash`
    // reads them as u64, the only key type it takes).
    let built: [(&str, &str, KeyType); 11] = [
        ("ketama_shard_of", "ketama", KeyType::Bytes),
        ("twemproxy_fnv1a_64_shard_of", "twemproxy", KeyType::Bytes),
        (
            "twemproxy_md5_shard_of",
            "twemproxy:hash=md5",
            KeyType::Bytes,
        ),
        (
            "python_memcached_shard_of",
            "python-memcached",
            KeyType::Bytes,
        ),
        (
            "pymemcache_rendezvous_shard_of",
            "pymemcache-rendezvous",
            KeyType::Bytes,
        ),
        ("vitess_hash_shard_of", "vitess-hash", KeyType::U64),
        ("vitess_xxhash_shard_of", "vitess-xxhash", KeyType::Bytes),
        ("postgres_hash_shard_of", "postgres-hash", KeyType::Bytes),
        ("couchbase_shard_of", "couchbase", KeyType::Bytes),
        (
            "librdkafka_murmur2_random_shard_of",
            "librdkafka:partitioner=murmur2_random",
            KeyType::Bytes,
        ),
        (
            "librdkafka_consistent_shard_of",
            "librdkafka:partitioner=consistent",
            KeyType::Bytes,
        ),
    ];
    for (name, spec, key_type) in built {
        let scheme = scheme(spec, key_type);
        bench_keys(&mut group, name, SHARDS as usize, &keys, |k| {
            scheme.shard_of(k) as usize
        });
    }
    group.finish();
}

/// One of our schemes for [`SHARDS`] shards, from its spec, keys read as `key_type`, boxed as
/// the replay holds it.
fn scheme(spec: &str, key_type: KeyType) -> Box<dyn Partitioner> {
    let ctx = BuildContext {
        shards: SHARDS,
        warmup_keys: &[],
        key_type,
        weights: None,
    };
    SchemeSpec::parse_list(spec).unwrap()[0]
        .build(&ctx)
        .unwrap()
}

/// The consistent-hashing family on random `u64` keys, the hash included, each beside the
/// `hash-rings` crate's implementation of the same algorithm (its default hasher,
/// SipHash-1-3, on the `u64`; ours XXH3-64 on its 8 big-endian bytes), 16 shards; jump and
/// AnchorHash also beside the `jumphash` and `anchorhash` crates.
fn family_lookup(c: &mut Criterion) {
    use hash_rings::{jump, maglev, mpc, rendezvous, weighted_rendezvous};
    let mut group = c.benchmark_group("family_lookup");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(BATCH as u64));
    let keys = splitmix(29, BATCH);
    let n = SHARDS as usize;
    let nodes: Vec<u32> = (0..SHARDS).collect();
    let ours = |group: &mut criterion::BenchmarkGroup<'_, _>, name: &str, spec: &str| {
        let p = scheme(spec, KeyType::U64);
        bench_keys(group, name, n, &keys, |k| {
            p.shard_of(&k.to_be_bytes()) as usize
        });
    };
    let crate_jump = Box::new(jump::Ring::new(SHARDS));
    bench_keys(&mut group, "crate_jump", n, &keys, |k| {
        crate_jump.get_node(k) as usize
    });
    let crate_jumphash = Box::new(jumphash::JumpHasher::new_with_keys(0, 0));
    bench_keys(&mut group, "crate_jumphash", n, &keys, |k| {
        crate_jumphash.slot(k, SHARDS) as usize
    });
    ours(&mut group, "jump", "jump");
    ours(&mut group, "jump_hash_none", "jump:hash=none");
    let mut crate_hrw = Box::new(rendezvous::Ring::new());
    nodes.iter().for_each(|id| crate_hrw.insert_node(id, 1));
    bench_keys(&mut group, "crate_rendezvous", n, &keys, |k| {
        *crate_hrw.get_node(k) as usize
    });
    let mut crate_whrw = Box::new(weighted_rendezvous::Ring::new());
    nodes.iter().for_each(|id| crate_whrw.insert_node(id, 1.0));
    bench_keys(&mut group, "crate_weighted_rendezvous", n, &keys, |k| {
        *crate_whrw.get_node(k) as usize
    });
    ours(&mut group, "rendezvous", "rendezvous");
    let weighted = {
        let w = vec![1.0; n];
        let ctx = BuildContext {
            shards: SHARDS,
            warmup_keys: &[],
            key_type: KeyType::U64,
            weights: Some(&w),
        };
        SchemeSpec::parse_list("rendezvous").unwrap()[0]
            .build(&ctx)
            .unwrap()
    };
    bench_keys(&mut group, "rendezvous_weighted", n, &keys, |k| {
        weighted.shard_of(&k.to_be_bytes()) as usize
    });
    let crate_maglev = Box::new(maglev::Ring::new(nodes.iter().collect()));
    bench_keys(&mut group, "crate_maglev_1601", n, &keys, |k| {
        *crate_maglev.get_node(k) as usize
    });
    let crate_maglev_big = Box::new(maglev::Ring::with_capacity_hint(
        nodes.iter().collect(),
        65_537,
    ));
    bench_keys(&mut group, "crate_maglev_65537", n, &keys, |k| {
        *crate_maglev_big.get_node(k) as usize
    });
    ours(&mut group, "maglev_1601", "maglev:table=1601");
    ours(&mut group, "maglev_65537", "maglev");
    let mut crate_mpc = Box::new(mpc::Ring::new(21));
    nodes.iter().for_each(|id| crate_mpc.insert_node(id));
    bench_keys(&mut group, "crate_multiprobe", n, &keys, |k| {
        *crate_mpc.get_node(k) as usize
    });
    ours(&mut group, "multiprobe", "multiprobe");
    // The `anchorhash` crate at our default capacity, with its default hasher (SipHash-1-3)
    // and with the FNV hasher its documentation recommends.
    let crate_anchor = Box::new(
        anchorhash::Builder::default()
            .with_resources(0..SHARDS)
            .build(1024),
    );
    bench_keys(&mut group, "crate_anchorhash", n, &keys, |k| {
        crate_anchor.get_resource(*k).map_or(0, |&r| r as usize)
    });
    let crate_anchor_fnv = Box::new(
        anchorhash::Builder::with_hasher(fnv::FnvBuildHasher::default())
            .with_resources(0..SHARDS)
            .build(1024),
    );
    bench_keys(&mut group, "crate_anchorhash_fnv", n, &keys, |k| {
        crate_anchor_fnv.get_resource(*k).map_or(0, |&r| r as usize)
    });
    ours(&mut group, "anchor", "anchor");
    ours(&mut group, "anchor_capacity_32", "anchor:capacity=32");
    ours(&mut group, "bounded_unlearned", "bounded");
    ours(&mut group, "ring", "ring");
    group.finish();
}

criterion_group! {
    name = lookups;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(10);
    targets = range_lookup, merge_walk, hash_lookup, ring_lookup, salted_lookup, systems_lookup, family_lookup
}
criterion_main!(lookups);
