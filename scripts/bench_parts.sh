#!/usr/bin/env bash
# A run cut into parts on Dask against the single run, on one machine (BENCHMARKS.md, "Beyond
# one machine"): a Zipf(1.0) trace over 1M keys of EVENTS events (default 100M) in 8
# oracle-general files, replayed whole (`shardlab run`) and by scripts/shardlab_dask.py on a
# LocalCluster of 2 workers (1 thread each), ROUNDS times interleaved. Prints, per run, the
# wall time, the peak memory, and for Dask the driver's step timings (count, replay, merge and
# the merge's share of the total) and each step's peak memory per command, and the merge (the
# Dask step, and the command alone) against the single run's end phases (remap, latency,
# report); then checks that
# the two runs' summary.csv, shards.csv and windows.csv agree (timing rows aside).
#
#   scripts/bench_parts.sh [DIR] [ROUNDS]      (needs target/release/shardlab and a Python
#                                               with dask and distributed, e.g.
#                                               PYTHON=target/dask-venv/bin/python)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/shardlab-bench-parts}
rounds=${2:-3}
events=${EVENTS:-100000000}
shardlab=${SHARDLAB:-$repo/target/release/shardlab}
python=${PYTHON:-$repo/target/dask-venv/bin/python}
mkdir -p "$dir"
cd "$dir"
per_file=$((events / 8))
# The files are reused when they hold EVENTS events (the count is kept beside them).
if [ ! -f day.7.oracleGeneral.bin ] || [ "$(cat events 2> /dev/null)" != "$events" ]; then
    rm -f day.*.oracleGeneral.bin events
    "$shardlab" gen "zipf:s=1.0,keys=1000000" --events "$events" --format oracle-general -q -o all.oracleGeneral.bin
    split -b $((per_file * 24)) -d -a 1 all.oracleGeneral.bin day.
    for i in 0 1 2 3 4 5 6 7; do mv "day.$i" "day.$i.oracleGeneral.bin"; done
    rm all.oracleGeneral.bin
    echo "$events" > events
fi
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# The same two parts made once by the commands the Dask tasks run, for the merge command
# to be timed alone (outside Dask, whose step adds the spawn of the command by a worker).
rm -rf alone.parts
for i in 0 1; do
    "$shardlab" run --trace 'day.*.oracleGeneral.bin' -q --threads 1 --part "$i/2" --out "alone.parts/count-$i"
done
for i in 0 1; do
    "$shardlab" run --trace 'day.*.oracleGeneral.bin' -q --threads 1 --part "$i/2" \
        --counts 'alone.parts/count-*' --out "alone.parts/part-$i"
done
# The single run's end phases (remap, latency, report: everything after its replay) from its
# `time:` line, against the merge, which does the same work after merging the parts.
printed=$(mktemp)
trap 'rm -f "$printed"' EXIT
for r in $(seq "$rounds"); do
    /usr/bin/time -f "round $r single: wall %e s, user %U s, sys %S s, peak %M KB" \
        "$shardlab" run --trace 'day.*.oracleGeneral.bin' --out single --force > "$printed"
    end=$(sed -n 's/.*remap \([0-9.]*\) s, latency \([0-9.]*\) s, report \([0-9.]*\) s.*/\1 \2 \3/p' "$printed" |
        awk '{ printf "%.2f", $1 + $2 + $3 }')
    echo "round $r single end phases (remap + latency + report): $end s"
    rm -rf dask.parts
    /usr/bin/time -f "round $r dask:   wall %e s, user %U s (driver), peak %M KB (driver)" \
        "$python" "$repo/scripts/shardlab_dask.py" --workers 2 --shardlab "$shardlab" \
        --trace 'day.*.oracleGeneral.bin' -q --out dask --force 2>&1 | grep -E "^(round|timings)" |
        tee "$printed"
    merge=$(sed -n 's/.*merge \([0-9.]*\) s.*/\1/p' "$printed")
    echo "round $r merge step against the single run's end phases: $merge / $end = $(awk -v m="$merge" -v e="$end" 'BEGIN { printf "%.2f", m / e }')x"
    /usr/bin/time -f "%e" -o "$printed" "$shardlab" merge -q alone.parts/part-* --out merged --force
    alone=$(cat "$printed")
    echo "round $r merge command alone against the single run's end phases: $alone / $end = $(awk -v m="$alone" -v e="$end" 'BEGIN { printf "%.2f", m / e }')x"
done
rm -rf alone.parts merged
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in summary shards windows; do
    if cmp -s <(grep -v -E 'lookup|build_ns' "single/$f.csv") <(grep -v -E 'lookup|build_ns' "dask/$f.csv"); then
        echo "$f.csv: the same (timing rows aside)"
    else
        echo "$f.csv: DIFFERENT"
        exit 1
    fi
done
