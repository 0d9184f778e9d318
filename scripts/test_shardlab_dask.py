#!/usr/bin/env python3
"""Checks of the Dask driver (scripts/shardlab_dask.py) on a LocalCluster of 2 workers, on a
trace generated here as 3 files of different compressions. Run by `cargo test -p bench-cli
--test dask` (which finds the Python of target/dask-venv and the shardlab binary):

  SHARDLAB=target/debug/shardlab python scripts/test_shardlab_dask.py parts
  SHARDLAB=target/debug/shardlab python scripts/test_shardlab_dask.py merge

`parts`: every part is counted and replayed as Dask tasks, each reading its share: together
the parts hold every file once, in order, with the trace's events, and each replayed part
knows the warm-up. `merge`: the driver's run directory has the
summary.csv of `shardlab run` (timing rows and the workload label aside).
"""

import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shardlab_dask  # noqa: E402

SHARDLAB = os.environ.get("SHARDLAB", "shardlab")
EVENTS = 30000
RUN = ["--no-latency", "--window", "1000", "--schemes", "range,hash,ring", "--shards", "5"]


def sh(*cmd):
    subprocess.run([SHARDLAB, *cmd], check=True, capture_output=True)


def make_trace(dir):
    """A zipf trace with scans and timestamps, whole and cut into 3 files (plain, zstd, gzip)."""
    whole = os.path.join(dir, "whole.csv")
    sh("gen", "zipf:keys=3000,s=1.1,scans=0.05,rate=10000", "--events", str(EVENTS), "-q", "-o", whole)
    with open(whole) as f:
        header, *rows = f.read().splitlines()
    cuts = [0, 9001, 20017, len(rows)]
    for i, ext in enumerate(["csv", "csv.zst", "csv.gz"]):
        plain = os.path.join(dir, f"piece{i}.plain.csv")
        with open(plain, "w") as f:
            f.write("\n".join([header, *rows[cuts[i]:cuts[i + 1]]]) + "\n")
        sh("convert", plain, "-q", "-o", os.path.join(dir, f"trace.{i}.{ext}"))
        os.remove(plain)
    return whole, os.path.join(dir, "trace.*")


def check_parts(dir):
    from dask.distributed import Client, LocalCluster

    _, pattern = make_trace(dir)
    work = os.path.join(dir, "work")
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        counted, replayed, dirs = shardlab_dask.run_parts(client, SHARDLAB, [*RUN, "--trace", pattern], work, 3)
        results = client.gather(counted) + client.gather(replayed)
    for status, _, errors, *_ in results:
        assert status == 0, errors
    files = []
    for i, d in enumerate(dirs):
        with open(os.path.join(d, "partial.json")) as f:
            header = json.load(f)
        assert header["part"] == {"index": i, "count": 3}, header
        assert header["stage"] == "replayed", header
        assert header["warmup_events"] == EVENTS // 10, header
        assert os.path.exists(os.path.join(d, "state-0.bin")), d
        files += header["files"]
    assert [f["position"] for f in files] == [0, 1, 2], files
    assert sum(f["events"] for f in files) == EVENTS, files
    print("parts: 3 parts on 2 workers, counted and replayed, hold the 3 files once, in order, with every event")


def summary_rows(run_dir):
    with open(os.path.join(run_dir, "summary.csv")) as f:
        rows = list(csv.reader(f))
    timing = {"lookup_ns_p50", "lookup_ns_p99", "lookup_ns_p999", "lookup_ns_mean", "lookups_per_sec", "build_ns"}
    return [r[1:] for r in rows if r[3] not in timing]


def check_merge(dir):
    whole, pattern = make_trace(dir)
    single = os.path.join(dir, "single")
    sh("run", *RUN, "-q", "--trace", whole, "--out", single)
    merged = os.path.join(dir, "merged")
    status = shardlab_dask.main(["--workers", "2", "--parts", "3", "--shardlab", SHARDLAB, *RUN, "-q", "--trace", pattern, "--out", merged])
    assert status == 0, f"the driver exited with {status}"
    a, b = summary_rows(single), summary_rows(merged)
    assert len(a) > 20 and a == b, "summary.csv differs from the single run's"
    assert not os.path.exists(merged + ".parts"), "the work directory is removed"
    print(f"merge: summary.csv equals the single run's ({len(a)} rows)")


def main(argv):
    checks = {"parts": check_parts, "merge": check_merge}
    if len(argv) != 1 or argv[0] not in checks:
        print(f"usage: {sys.argv[0]} {'|'.join(checks)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as dir:
        checks[argv[0]](dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
