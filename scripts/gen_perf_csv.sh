#!/bin/sh
# Writes the numeric csv trace of issue 19 (BENCHMARKS.md, "CSV at the speed of the bytes"):
# header `timestamp,op,key,end`, 5,000,000 gets of a Zipf(1.0) workload over 1,000,000 keys,
# each key id spread over the whole u64 range (SplitMix64), 13-digit timestamps; about 194 MB.
#
#   scripts/gen_perf_csv.sh [OUT] [EVENTS]      # default: /tmp/perf5m.csv, 5000000
#
# Needs a release build of shardlab (cargo build --release -p bench-cli) and python3.
set -eu
out=${1:-/tmp/perf5m.csv}
events=${2:-5000000}
bin=${SHARDLAB:-target/release/shardlab}
"$bin" gen zipf:s=1.0 --events "$events" --seed 42 --quiet --force -o - | python3 -c '
import sys
M = (1 << 64) - 1
def mix(x):
    z = (x + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
inp = sys.stdin
inp.readline()  # key:u64,op,end,timestamp,size
out = sys.stdout
out.write("timestamp,op,key,end\n")
lines = []
for line in inp:
    key, op, _end, t, _size = line.split(",")
    lines.append("%d,%s,%d,\n" % (1600000000000 + int(t), op, mix(int(key))))
    if len(lines) == 65536:
        out.write("".join(lines))
        lines.clear()
out.write("".join(lines))
' > "$out"
ls -l "$out"
