#!/usr/bin/env bash
# The acceptance lines of issue 19 measured in one sitting (BENCHMARKS.md, "End to end"):
# every command once per round, ROUNDS rounds interleaved, medians printed at the end.
#
#   scripts/bench_issue19.sh [ROUNDS]        (default 5; needs target/release/shardlab, and
#                                            PYTHON with pandas + numpy for the comparison)
#
#  1. the default suite: `shardlab run`;
#  2. the 5M-event CSV (scripts/gen_perf_csv.sh) with `--key-type u64`, against
#     scripts/pandas_loads.py on the same file;
#  3. the four-scheme replay of a 20M-event oracle-general trace (Zipf 1.0 over 1M keys) on
#     1 and 2 threads: the replay phase (from the run's `time:` line) and the whole process;
#  4. `shardlab plan` of the issue.
#
# Environment: DIR (target/bench-issue19: inputs and outputs), PYTHON (python3),
# SHARDLAB (target/release/shardlab).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
dir=${DIR:-target/bench-issue19}
python=${PYTHON:-python3}
bin=${SHARDLAB:-target/release/shardlab}
mkdir -p "$dir"
csv=$dir/perf5m.csv
bin20=$dir/z20.oracleGeneral.bin
[ -s "$csv" ] || SHARDLAB=$bin scripts/gen_perf_csv.sh "$csv"
[ -s "$bin20" ] || "$bin" gen zipf:s=1.0,keys=1000000 --events 20000000 --format oracle-general \
    --quiet --force -o "$bin20"
results=$dir/results.tsv
: > "$results"

# Runs a command once: appends "name wall user+sys replay_s" to the results.
measure() {
    local name=$1
    shift
    local stats out
    stats=$(mktemp)
    out=$(mktemp)
    /usr/bin/time -f "%e %U %S" -o "$stats" "$@" > "$out" 2>&1
    local replay
    replay=$(sed -n 's/.*replay \([0-9.]*\) s (.*/\1/p' "$out" | head -1)
    read -r wall user sys < "$stats"
    printf '%s\t%s\t%s\t%s\n' "$name" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
        "${replay:--}" >> "$results"
    rm -f "$stats" "$out"
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
    measure "default suite" "$bin" run --out "$dir/default" --force
    measure "5M csv: shardlab" "$bin" run --trace "$csv" --key-type u64 --out "$dir/csv" --force
    measure "5M csv: pandas" "$python" scripts/pandas_loads.py "$csv"
    for t in 1 2; do
        measure "20M binary, 4 schemes, $t thread(s)" "$bin" run --trace "$bin20" \
            --schemes range,hash,ring,salted --shards 16 --threads "$t" --out "$dir/bin$t" --force
    done
    measure "plan" "$bin" plan --workload zipf:s=1.0 --rate 200000 --capacity 20000 \
        --growth 1,3 --replicas 3 --failures 1 --quiet --out "$dir/plan" --force
    echo "round $r done (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { if (!($1 in wall)) order[++n] = $1; wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3
      if ($4 != "-") replay[$1] = replay[$1] " " $4 }
    END {
        printf "%-38s %10s %12s %10s   %s\n", "command", "wall_s", "user+sys_s", "replay_s", "wall of each round"
        for (i = 1; i <= n; i++) {
            k = order[i]
            printf "%-38s %10.2f %12.2f %10s  %s\n", k, median(wall[k]), median(cpu[k]), \
                (k in replay) ? sprintf("%.2f", median(replay[k])) : "-", wall[k]
        }
    }' "$results"
