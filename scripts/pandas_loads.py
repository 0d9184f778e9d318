#!/usr/bin/env python3
"""The pandas + numpy side of the end-to-end comparison in BENCHMARKS.md (issue 19).

Reads a numeric csv trace (`timestamp,op,key,end`, u64 keys, gets only, as written by
scripts/gen_perf_csv.sh) and computes the per-shard request counts of shardlab's four
default schemes on 16 shards, the core of what `shardlab run --trace FILE` reports:

- range: 8 ranges per shard, boundaries at the quantiles of the distinct keys of the first
  10% of events (the warm-up), range i of K on shard floor(i * N / K);
- hash: a 64-bit mix of the key, mod N;
- ring: 256 virtual nodes per shard at hashed points; a key goes to the first point
  clockwise of its hash;
- salted: bucket = hash mod N, then range partitioning of (bucket, key) with boundaries
  learned as for range.

The hash is SplitMix64's finaliser (numpy has no XXH3), so shard numbers differ from
shardlab's; the work per event is the same kind. Needs pandas and numpy (not a dependency
of shardlab or of CI):

    python3 -m venv /tmp/pdvenv && /tmp/pdvenv/bin/pip install pandas numpy
    /tmp/pdvenv/bin/python scripts/pandas_loads.py /tmp/perf5m.csv
"""

import sys
import time

import numpy as np
import pandas as pd

SHARDS = 16
RANGES_PER_SHARD = 8
VNODES = 256
WARMUP = 0.10


def mix(x):
    """SplitMix64's finaliser on a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def learned_range_loads(keys, warmup_keys):
    """Per-shard counts of range partitioning on boundaries learned from `warmup_keys`."""
    distinct = np.unique(warmup_keys)
    ranges = SHARDS * RANGES_PER_SHARD
    cuts = distinct[(np.arange(1, ranges) * len(distinct)) // ranges]
    range_of = np.searchsorted(cuts, keys, side="right")
    owner = (range_of * SHARDS) // ranges
    return np.bincount(owner, minlength=SHARDS)


def main(path):
    started = time.perf_counter()
    trace = pd.read_csv(
        path,
        dtype={"timestamp": np.uint64, "op": "category", "key": np.uint64, "end": "object"},
    )
    gets = trace[trace["op"].str.lower() == "get"]
    keys = gets["key"].to_numpy(dtype=np.uint64)
    read = time.perf_counter()
    warm = int(len(keys) * WARMUP)
    measured, warmup = keys[warm:], keys[:warm]
    hashed = mix(measured)

    loads = {"range": learned_range_loads(measured, warmup)}
    loads["hash"] = np.bincount(hashed % np.uint64(SHARDS), minlength=SHARDS)

    ids = np.arange(SHARDS * VNODES, dtype=np.uint64)
    points = mix(ids ^ np.uint64(0x5EED))
    order = np.argsort(points)
    points, owners = points[order], (ids[order] // np.uint64(VNODES)).astype(np.int64)
    at = np.searchsorted(points, hashed, side="left") % len(points)
    loads["ring"] = np.bincount(owners[at], minlength=SHARDS)

    # (bucket, key) ordered as one number: the bucket in the top 4 bits, the key's top 60.
    def salted(k):
        bucket = mix(k) % np.uint64(SHARDS)
        return (bucket << np.uint64(60)) | (k >> np.uint64(4))

    loads["salted"] = learned_range_loads(salted(measured), salted(warmup))
    done = time.perf_counter()

    for scheme, per_shard in loads.items():
        mean = per_shard.mean()
        print(
            f"{scheme:7s} max/mean {per_shard.max() / mean:.3f}  "
            f"hottest share {per_shard.max() / per_shard.sum():.4f}  "
            f"shards {' '.join(str(int(n)) for n in per_shard)}"
        )
    print(
        f"{len(keys)} events; read {read - started:.2f} s, loads {done - read:.2f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/perf5m.csv")
