#!/usr/bin/env python3
"""CPU time of a replay's trace-reader thread and worker threads (BENCHMARKS.md, "Two cores").

On a shared machine wall times measure the neighbours; CPU time per thread does not. Record
the run with a CPU-clock sampler (one sample per millisecond of CPU time), then read it:

    perf record -e task-clock -F 1000 -o run.data -- \
        target/release/shardlab run --trace TRACE --threads 2 --quiet --out OUT --force
    scripts/replay_thread_cpu.py run.data OUT/manifest.json

Prints reader_ms (the thread that reads the trace), workers_ms (all replay workers),
worker_max_ms (the busiest), checksum_ms (the thread checksumming the input beside the replay) and the replay phase's wall time from the manifest. On an idle
machine with C cores the replay takes about max(worker_max, reader, (workers + reader) / C).
"""
import collections
import json
import re
import subprocess
import sys


def phase_secs(node, name):
    """The first number called `name` in the manifest (the phase times)."""
    if isinstance(node, dict):
        if isinstance(node.get(name), (int, float)):
            return node[name]
        node = list(node.values())
    if isinstance(node, list):
        for child in node:
            found = phase_secs(child, name)
            if found is not None:
                return found
    return None


def main(data, manifest):
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "pid,sym",
         "-F", "sample,pid,sym"],
        capture_output=True, text=True, check=True).stdout
    threads = collections.defaultdict(collections.Counter)
    for line in report.splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+):\S+\s+\[.\]\s+(.*)", line)
        if m:
            threads[m.group(2)][m.group(3)] += int(m.group(1))
    reader, workers, checksum = 0, [], 0
    for symbols in threads.values():
        text = " ".join(symbols)
        # The reader decodes (before issue 19) or moves raw pieces and profiles the
        # trace's first events (after).
        decoding = sum(n for s, n in symbols.items()
                       if "Reader" in s and "::fill" in s or "Profiler" in s)
        if "record_run" in text and ("add_hashed" in text or "add_each_hashed" in text
                                    or "add_each_routed" in text):
            workers.append(sum(symbols.values()))
        elif decoding > 10:
            reader = max(reader, sum(symbols.values()))
        elif sum(n for s, n in symbols.items() if "xxh3" in s) > 10:
            checksum = max(checksum, sum(symbols.values()))
    replay = phase_secs(json.load(open(manifest)), "replay") or 0.0
    print(f"reader_ms={reader} workers_ms={sum(workers)} "
          f"worker_max_ms={max(workers, default=0)} workers={len(workers)} "
          f"checksum_ms={checksum} "
          f"replay_wall_s={replay:.2f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
