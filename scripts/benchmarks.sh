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
#   LONG=1 scripts/benchmarks.sh         # and the longer cases (below): 6 minutes in all at 10M
#
# LONG=1 adds: reading each trace format (LONG_EVENTS events, default 20M: generated, or
# the fixtures' real samples repeated), `shardlab keys` on an `orders` trace as CSV and
# Parquet (LONG_EVENTS rows), and a run in parts on Dask against the single run
# (scripts/bench_parts.sh with EVENTS=5 x LONG_EVENTS; needs DASK_PYTHON, default
# target/dask-venv/bin/python).
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
    "before, $load_after after; $rounds round(s), medians; \`QUICK=${quick:-0} LONG=${LONG:-0}${LONG_EVENTS:+ LONG_EVENTS=$LONG_EVENTS} scripts/benchmarks.sh\`."
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

[ -n "${LONG:-}" ] || exit 0
long_events=${LONG_EVENTS:-$([ -n "$quick" ] && echo 200000 || echo 20000000)}
long=$dir/long
mkdir -p "$long"
cargo build --release -q -p workloads --example read_trace
reader=${CARGO_TARGET_DIR:-target}/release/examples/read_trace
# The inputs, each made once: FILE FORMAT KEY_TYPE per line.
inputs=$long/inputs.txt
: > "$inputs"
z=$long/zipf$long_events
[ -s "$z.csv" ] || "$bin" gen zipf:s=1.0 --events "$long_events" --quiet --force -o "$z.csv"
[ -s "$z.oracleGeneral.bin" ] || "$bin" gen zipf:s=1.0 --events "$long_events" --quiet --force \
    --format oracle-general -o "$z.oracleGeneral.bin"
[ -s "$z.txt" ] || "$bin" convert "$z.oracleGeneral.bin" --format text --quiet --force -o "$z.txt"
[ -s "$z.oracleGeneral.bin.zst" ] || zstd -q -T2 -3 -f "$z.oracleGeneral.bin"
[ -s "$z.csv.zst" ] || zstd -q -T2 -3 -f "$z.csv"
[ -s "$z.oracleGeneral.bin.gz" ] || gzip -1 -c "$z.oracleGeneral.bin" > "$z.oracleGeneral.bin.gz"
for sample in twitter_sample msr_cambridge_sample; do
    out=$long/$sample$long_events.csv
    # yes stops on a broken pipe once head has its lines, which pipefail would count.
    [ -s "$out" ] || (yes "$(cat "tests/fixtures/traces/$sample.csv")" || true) | head -n "$long_events" > "$out"
done
cat >> "$inputs" <<INPUTS
$z.oracleGeneral.bin oracle-general u64
$z.oracleGeneral.bin.zst oracle-general u64
$z.oracleGeneral.bin.gz oracle-general u64
$z.txt text u64
$z.csv csv u64
$z.csv.zst csv u64
$long/twitter_sample$long_events.csv twitter bytes
$long/msr_cambridge_sample$long_events.csv msr bytes
INPUTS
reads=$long/reads.tsv
: > "$reads"
for r in $(seq "$rounds"); do
    while read -r file format key_type; do
        stats=$(mktemp)
        line=$(/usr/bin/time -f "%M" -o "$stats" "$reader" "$file" "$format" "$key_type" | tail -1)
        # "S s, E M events/s, B MB/s of file"
        printf '%s\t%s\t%s\t%s\n' "$(basename "$file")" \
            "$(echo "$line" | sed -n 's/.*, \([0-9.]*\) M events\/s.*/\1/p')" \
            "$(echo "$line" | sed -n 's/.*, \([0-9.]*\) MB\/s of file.*/\1/p')" \
            "$(cat "$stats")" >> "$reads"
        rm -f "$stats"
    done < "$inputs"
done
echo
echo "### Reading each trace format ($long_events events)"
echo
echo "\`cargo run --release -p workloads --example read_trace -- FILE FORMAT KEY_TYPE\` (decompress, parse, build event chunks; nothing else); peak resident set from \`/usr/bin/time -f %M\`; medians of $rounds rounds."
echo
echo "| file | M events/s | MB/s of file | peak RSS MB |"
echo "| --- | ---: | ---: | ---: |"
awk -F'\t' '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    !($1 in ev) { order[++n] = $1 }
    { ev[$1] = ev[$1] " " $2; mb[$1] = mb[$1] " " $3; rss[$1] = rss[$1] " " $4 }
    END { for (i = 1; i <= n; i++) { k = order[i]; printf "| %s | %.1f | %.0f | %.1f |\n", k, median(ev[k]), median(mb[k]), median(rss[k]) / 1024 } }
' "$reads"

# shardlab keys on an orders trace, CSV and Parquet.
orders=$long/orders$long_events
[ -s "$orders.csv" ] || "$bin" gen orders --events "$long_events" --quiet --force -o "$orders.csv"
[ -s "$orders.parquet" ] || "$bin" gen orders --events "$long_events" --quiet --force -o "$orders.parquet"
echo
echo "### \`shardlab keys\` on an orders trace ($long_events rows)"
echo
echo "\`shardlab keys --trace FILE --candidates 'tenant; tenant,user' --schemes hash --shards 16 -q\`; medians of $rounds rounds."
echo
echo "| input | file MB | wall s | M rows/s | peak RSS MB |"
echo "| --- | ---: | ---: | ---: | ---: |"
for input in "$orders.csv" "$orders.parquet"; do
    walls=""; peaks=""
    for r in $(seq "$rounds"); do
        stats=$(mktemp)
        rm -rf "$long/keys"
        /usr/bin/time -f "%e %M" -o "$stats" "$bin" keys --trace "$input" \
            --candidates 'tenant; tenant,user' --schemes hash --shards 16 -q --out "$long/keys"
        read -r wall peak < "$stats"
        walls="$walls $wall"; peaks="$peaks $peak"
        rm -f "$stats"
    done
    echo "$walls|$peaks" | awk -F'|' -v name="$(basename "$input")" -v rows="$long_events" \
        -v mb="$(($(stat -c %s "$input") / 1000000))" '
        function median(list,   n, a, i, j, t) {
            n = split(list, a, " ")
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { w = median($1); printf "| %s | %d | %.2f | %.2f | %.1f |\n", name, mb, w, rows / w / 1e6, median($2) / 1024 }'
done

# A run in parts on Dask against the single run.
echo
echo "### A run in parts on Dask against the single run ($((5 * long_events)) events)"
echo
echo "\`EVENTS=$((5 * long_events)) scripts/bench_parts.sh DIR $rounds\` (8 oracle-general files; single: \`shardlab run\` on 2 threads; Dask: \`scripts/shardlab_dask.py --workers 2\`; its check that both give the same files)"
echo
echo '```text'
EVENTS=$((5 * long_events)) SHARDLAB="$PWD/$bin" PYTHON=${DASK_PYTHON:-$PWD/target/dask-venv/bin/python} \
    scripts/bench_parts.sh "$PWD/$long/parts" "$rounds" 2>&1
echo '```'
