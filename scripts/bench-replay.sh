#!/usr/bin/env bash
# Replay throughput benchmark (issue 6).
#
# Generates a Zipf trace in libCacheSim's oracle-general binary format (24-byte records) with
# `shardlab gen`, then times `shardlab run --trace` on it through each scheme alone and all four
# together, on one and on two worker threads. Runs are interleaved (every configuration once per
# round, REPS rounds) so that a noisy neighbour slows all of them alike; the table shows medians.
#
#   scripts/bench-replay.sh                    # 100M events, 3 rounds (~15 min on 2 cores)
#   EVENTS=10000000 REPS=5 scripts/bench-replay.sh
#
# Columns: wall_s = median wall time of the whole `run` (warm-up, replay, remap, files written);
# events_per_s = trace events / wall_s; scheme_events_per_s = events_per_s x schemes replayed;
# cpu_s = median user+system time; rss_mib = the largest peak RSS of the rounds
# (/usr/bin/time -v); speedup = one-thread median / this median for the same schemes;
# replay_s, replay_events_per_s = the replay phase alone (the measured events through the
# schemes, key counts and windows; from the run's `time:` line), and replay_speedup its
# one-thread median over this one.
#
# Environment: EVENTS (100000000), KEYS (1000000, the Zipf key space), ZIPF_S (0.99),
# REPS (3), THREADS ("1 2"), SCHEMES ("range hash ring salted range,hash,ring,salted"),
# DIR (target/bench-replay, where the trace and runs go; the trace is reused when present).
set -euo pipefail
cd "$(dirname "$0")/.."

EVENTS=${EVENTS:-100000000}
KEYS=${KEYS:-1000000}
ZIPF_S=${ZIPF_S:-0.99}
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
SCHEMES=${SCHEMES:-"range hash ring salted range,hash,ring,salted"}
DIR=${DIR:-target/bench-replay}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
BIN="$TARGET_DIR/release/shardlab"

command -v /usr/bin/time >/dev/null || { echo "error: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p bench-cli
mkdir -p "$DIR"

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(uname -r)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

WORKLOAD="zipf:keys=$KEYS,s=$ZIPF_S"
TRACE="$DIR/zipf-k$KEYS-s$ZIPF_S-$EVENTS.oracleGeneral.bin"
if [ ! -s "$TRACE" ]; then
  echo "generating $TRACE ($WORKLOAD, $EVENTS events)"
  "$BIN" gen "$WORKLOAD" --events "$EVENTS" --format oracle-general --out "$TRACE" --force --quiet
fi
echo "trace: $TRACE ($(stat -c %s "$TRACE") bytes)"

RESULTS="$DIR/results.tsv"
: > "$RESULTS"
for round in $(seq 1 "$REPS"); do
  for schemes in $SCHEMES; do
    for threads in $THREADS; do
      stats=$(mktemp)
      /usr/bin/time -v -o "$stats" "$BIN" run --trace "$TRACE" --schemes "$schemes" \
        --threads "$threads" --no-latency --out "$DIR/run" --force > "$stats.out"
      # The replay phase alone, from the run's "time:" line: "replay 3.21 s (28.0 M events/s)".
      replay=$(sed -n 's/.*replay \([0-9.]*\) s (\([0-9.]*\) M events\/s).*/\1 \2/p' "$stats.out")
      wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$stats" \
        | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
      user=$(sed -n 's/.*User time (seconds): //p' "$stats")
      sys=$(sed -n 's/.*System time (seconds): //p' "$stats")
      rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$stats")
      rm -f "$stats" "$stats.out"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$schemes" "$threads" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" ${replay:-0 0} >> "$RESULTS"
      echo "round $round: $schemes threads=$threads wall=${wall}s rss=${rss}KB" >&2
    done
  done
done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %7s %8s %8s %14s %20s %8s %8s %9s %17s %15s\n' schemes threads wall_s cpu_s events_per_s scheme_events_per_s rss_mib speedup replay_s replay_events_per_s replay_speedup
awk -F'\t' -v events="$EVENTS" '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {
    key = $1 SUBSEP $2
    if (!(key in walls)) order[++count] = key
    walls[key] = walls[key] " " $3; cpus[key] = cpus[key] " " $4
    replays[key] = replays[key] " " $6; rates[key] = rates[key] " " $7
    if ($5 > rss[key]) rss[key] = $5
  }
  END {
    for (i = 1; i <= count; i++) {
      split(order[i], k, SUBSEP)
      w = median(walls[order[i]]); c = median(cpus[order[i]])
      r = median(replays[order[i]]); rate = median(rates[order[i]])
      if (k[2] == 1) { one[k[1]] = w; one_replay[k[1]] = r }
      schemes = split(k[1], parts, ",")
      speedup = (k[1] in one) ? sprintf("%.2f", one[k[1]] / w) : "-"
      replay_speedup = (k[1] in one_replay && r > 0) ? sprintf("%.2f", one_replay[k[1]] / r) : "-"
      printf "%-26s %7s %8.2f %8.2f %14.0f %20.0f %8.0f %8s %9.2f %15.1f M %15s\n", k[1], k[2], w, c, events / w, events * schemes / w, rss[order[i]] / 1024, speedup, r, rate, replay_speedup
    }
  }' "$RESULTS"
