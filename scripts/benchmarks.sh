#!/usr/bin/env bash
# Every case of BENCHMARKS.md's current tables, measured in one sitting and printed as
# Markdown tables (one per case, each with its command), for BENCHMARKS.md to be rewritten
# from: the machine, the default suite, the 5M-event CSV against the pandas + numpy script,
# the 20M-event binary trace on 1 and 2 threads, `plan`, and the lookups against the peer
# crates. Every command runs once per round, ROUNDS rounds interleaved, so that a noisy
# neighbour slows all of them alike; the tables give medians. About 10 minutes on 2 cores.
#
#   scripts/benchmarks.sh                # ROUNDS=5
#   QUICK=1 scripts/benchmarks.sh        # a smoke run: 1 round, small inputs, short benches
#
# Environment: ROUNDS (5), DIR (target/benchmarks: inputs and outputs, inputs reused when
# present), SHARDLAB (target/release/shardlab, built when missing), PYTHON (python3; the
# pandas row is left out when it cannot import pandas and numpy).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${QUICK:-}
rounds=${ROUNDS:-$([ -n "$quick" ] && echo 1 || echo 5)}
dir=${DIR:-target/benchmarks${quick:+-quick}}
python=${PYTHON:-python3}
bin=${SHARDLAB:-target/release/shardlab}
csv_events=$([ -n "$quick" ] && echo 200000 || echo 5000000)
bin_events=$([ -n "$quick" ] && echo 1000000 || echo 20000000)
mkdir -p "$dir"
[ -x "$bin" ] || cargo build --release -q -p bench-cli
csv=$dir/perf$csv_events.csv
trace=$dir/z$bin_events.oracleGeneral.bin
[ -s "$csv" ] || SHARDLAB=$bin scripts/gen_perf_csv.sh "$csv" "$csv_events" >&2
[ -s "$trace" ] || "$bin" gen zipf:s=1.0,keys=1000000 --events "$bin_events" \
    --format oracle-general --quiet --force -o "$trace"
pandas=
"$python" -c 'import pandas, numpy' 2> /dev/null && pandas=1
results=$dir/results.tsv
: > "$results"

# Runs a command once: appends "case, wall s, CPU % (user+sys over wall), replay s" to the
# results (the replay phase from the run's `time:` line, when it prints one).
measure() {
    local name=$1
    shift
    local stats out wall user sys replay
    stats=$(mktemp)
    out=$(mktemp)
    /usr/bin/time -f "%e %U %S" -o "$stats" "$@" > "$out" 2>&1
    replay=$(sed -n 's/.*replay \([0-9.]*\) s (.*/\1/p' "$out" | head -1)
    read -r wall user sys < "$stats"
    printf '%s\t%s\t%s\t%s\n' "$name" "$wall" \
        "$(awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", 100 * (u + s) / w }')" \
        "${replay:--}" >> "$results"
    rm -f "$stats" "$out"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
    measure "default suite" "$bin" run --out "$dir/default" --force
    measure "CSV: shardlab" "$bin" run --trace "$csv" --key-type u64 --out "$dir/csv" --force
    [ -z "$pandas" ] || measure "CSV: pandas + numpy" "$python" scripts/pandas_loads.py "$csv"
    for t in 1 2; do
        measure "binary: $t thread(s)" "$bin" run --trace "$trace" --schemes range,hash,ring,salted \
            --shards 16 --threads "$t" --no-latency --out "$dir/bin$t" --force
    done
    measure "plan" "$bin" plan --workload zipf:s=1.0 --rate 200000 --capacity 20000 \
        --growth 1,3 --replicas 3 --failures 1 --quiet --out "$dir/plan" --force
    echo "round $r of $rounds done (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
done

# The lookups: criterion's medians per key (one run: criterion takes its own samples).
if [ -n "$quick" ]; then
    bench_time=(--warm-up-time 0.2 --measurement-time 0.5)
else
    bench_time=(--warm-up-time 1 --measurement-time 3)
fi
lookups='family_lookup/(crate_jump|jump/|crate_jumphash|crate_anchorhash|anchor/|crate_maglev_65537|maglev_65537|crate_rendezvous|rendezvous/|ring/)|systems_lookup/(elasticsearch|redis_cluster|hash_shard_of)'
cargo bench -q -p schemes --bench lookup -- "$lookups" "${bench_time[@]}" > "$dir/lookup.log" 2>&1
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load average $load_before" \
    "before, $load_after after; $rounds round(s), medians; \`QUICK=${quick:-0} scripts/benchmarks.sh\`."
echo
awk -F'\t' -v csv_events="$csv_events" -v bin_events="$bin_events" -v csv="$csv" \
    -v trace="$trace" -v bin="$bin" '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function row(k, events) {
        printf "| %s | %.2f | %d%% | %s | %s |\n", k, median(wall[k]), median(cpu[k]), \
            (k in replay) ? sprintf("%.2f", median(replay[k])) : "-", \
            events ? sprintf("%.1f", events / median(wall[k]) / 1e6) : "-"
    }
    { wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3; if ($4 != "-") replay[$1] = replay[$1] " " $4 }
    END {
        head = "| case | wall s | CPU | replay phase s | M events/s (whole run) |\n| --- | ---: | ---: | ---: | ---: |"
        printf "### The default suite\n\n`%s run`\n\n%s\n", bin, head; row("default suite", 0)
        printf "\n### The CSV trace (%d events)\n\n`%s run --trace %s --key-type u64` against `scripts/pandas_loads.py %s`\n\n%s\n", \
            csv_events, bin, csv, csv, head
        row("CSV: shardlab", csv_events)
        if ("CSV: pandas + numpy" in wall) {
            row("CSV: pandas + numpy", csv_events)
            printf "\nshardlab is %.1fx faster than pandas + numpy.\n", median(wall["CSV: pandas + numpy"]) / median(wall["CSV: shardlab"])
        }
        printf "\n### Two cores (%d-event binary trace, four schemes)\n\n`%s run --trace %s --schemes range,hash,ring,salted --shards 16 --threads T --no-latency`\n\n%s\n", \
            bin_events, bin, trace, head
        row("binary: 1 thread(s)", bin_events); row("binary: 2 thread(s)", bin_events)
        printf "\nTwo threads over one: %.2fx (whole run).\n", median(wall["binary: 1 thread(s)"]) / median(wall["binary: 2 thread(s)"])
        printf "\n### plan\n\n`%s plan --workload zipf:s=1.0 --rate 200000 --capacity 20000 --growth 1,3 --replicas 3 --failures 1`\n\n%s\n", bin, head
        row("plan", 0)
    }' "$results"
echo
echo "### Lookups (ns per key, criterion median, one core)"
echo
echo "\`cargo bench -p schemes --bench lookup -- '$lookups' ${bench_time[*]}\`"
echo
echo "| bench | ns/key |"
echo "| --- | ---: |"
criterion=${CARGO_TARGET_DIR:-target}/criterion
for estimates in "$criterion"/{family,systems}_lookup/*/16/new/estimates.json; do
    [ "$estimates" -nt "$results" ] || continue
    name=${estimates#"$criterion"/}
    name=${name%/16/new/estimates.json}
    # Each iteration routes 2^20 keys: the median in ns per iteration over 2^20.
    "$python" -c 'import json, sys; print("| %s | %.2f |" % (sys.argv[2], json.load(open(sys.argv[1]))["median"]["point_estimate"] / 2**20))' \
        "$estimates" "$name"
done
