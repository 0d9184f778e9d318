#!/usr/bin/env python3
"""Run `shardlab run` on a Dask cluster: the parts as Dask tasks, then the merge.

Takes the options of `shardlab run` (with a trace given as files: `--trace` repeated or a
quoted glob) and these of its own:

  --scheduler ADDRESS   a running Dask scheduler (tcp://host:8786); without it a LocalCluster
                        of --workers worker processes is started on this machine
  --workers N           LocalCluster workers (default 2)
  --parts K             parts to cut the run into (default: the number of workers)
  --shardlab PATH       the shardlab binary, at the same path on every worker
                        (default: $SHARDLAB, else `shardlab` on the PATH)
  --work-dir DIR        where the parts write their partial results, on storage every worker
                        and this driver see (default: DIR.parts beside --out)

A run cut into K parts takes three steps, each a set of Dask tasks that call the shardlab
binary (the partial results are files, independent of Dask):
  1. count:  `shardlab run ... --part I/K --out WORK/count-I`, one task per part, each
             reading only its share of the trace files (part 0 also learns the warm-up);
  2. replay: `shardlab run ... --part I/K --counts WORK/count-* --out WORK/part-I`, one task
             per part, each depending on every count task;
  3. merge:  `shardlab merge WORK/part-* --out DIR`, one task depending on every replay,
             which writes the ordinary run directory.
The wall time of each step is printed on stderr (`timings:`). The same driver reaches
Slurm/PBS (dask-jobqueue) or Kubernetes (dask-kubernetes): start that cluster, then pass its
scheduler address.

  scripts/shardlab_dask.py --workers 2 --trace 'cluster52.*.zst' --schemes range,hash --out review
  scripts/shardlab_dask.py --scheduler tcp://10.0.0.5:8786 --parts 64 --trace '/data/c52.*.zst' --out /data/review

Exit status: that of the first `shardlab` command that failed (2 for a usage error, 1 for bad
data), with its error; 0 when the run directory is written.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time


def shardlab(cmd):
    """Runs one shardlab command (on a worker): its exit status, stdout, stderr, the times it
    started and ended (seconds since the epoch) and the peak memory (MiB) of the largest
    command this worker process has run so far."""
    start = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return done.returncode, done.stdout, done.stderr, start, time.time(), peak


def after(previous, cmd):
    """Runs `cmd` once every previous task is done, unless one failed: then its result."""
    for result in previous:
        if result[0] != 0:
            return result
    return shardlab(cmd)


def count_parts(client, binary, run_args, count_dirs):
    """Step 1: submits `shardlab run RUN_ARGS --part I/K --out COUNT_DIRS[I]` for every part;
    returns the futures (each gives the command's exit status, stdout, stderr, times)."""
    parts = len(count_dirs)
    return [
        client.submit(
            shardlab,
            [binary, "run", *run_args, "--quiet", "--part", f"{i}/{parts}", "--out", d],
            key=f"shardlab-count-{i}-of-{parts}",
            pure=False,
        )
        for i, d in enumerate(count_dirs)
    ]


def replay_parts(client, binary, run_args, counted, count_dirs, part_dirs):
    """Step 2: submits `shardlab run RUN_ARGS --part I/K --counts COUNT_DIRS --out
    PART_DIRS[I]` for every part, each after every count (the futures `counted`)."""
    parts = len(part_dirs)
    return [
        client.submit(
            after,
            counted,
            [binary, "run", *run_args, "--quiet", "--part", f"{i}/{parts}", "--counts", *count_dirs, "--out", d],
            key=f"shardlab-replay-{i}-of-{parts}",
            pure=False,
        )
        for i, d in enumerate(part_dirs)
    ]


def run_parts(client, binary, run_args, work, parts):
    """Steps 1 and 2 for `parts` parts under `work`: the futures of the replays and the
    part directories."""
    count_dirs = [os.path.join(work, f"count-{i}") for i in range(parts)]
    part_dirs = [os.path.join(work, f"part-{i}") for i in range(parts)]
    counted = count_parts(client, binary, run_args, count_dirs)
    return counted, replay_parts(client, binary, run_args, counted, count_dirs, part_dirs), part_dirs


def step_times(results):
    """The wall time of a step: from its first task's start to its last task's end."""
    return max(r[4] for r in results) - min(r[3] for r in results)


def split_args(argv):
    """The driver's own options, and the `run` options with --out/--force taken apart."""
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--scheduler")
    own.add_argument("--workers", type=int, default=2)
    own.add_argument("--parts", type=int)
    own.add_argument("--shardlab", default=os.environ.get("SHARDLAB", "shardlab"))
    own.add_argument("--work-dir")
    own.add_argument("-h", "--help", action="store_true")
    opts, rest = own.parse_known_args(argv)
    out_parser = argparse.ArgumentParser(add_help=False)
    out_parser.add_argument("-o", "--out")
    out_parser.add_argument("--force", action="store_true")
    out_parser.add_argument("-q", "--quiet", action="store_true")
    out, run_args = out_parser.parse_known_args(rest)
    return opts, out, run_args


def main(argv):
    opts, out, run_args = split_args(argv)
    if opts.help:
        print(__doc__)
        return 0
    if not out.out:
        print("error: --out DIR is required (the run directory the merge writes)", file=sys.stderr)
        return 2
    binary = shutil.which(opts.shardlab) or opts.shardlab
    work = opts.work_dir or out.out.rstrip("/") + ".parts"
    if os.path.exists(work):
        print(f"error: the work directory '{work}' exists; remove it or pass --work-dir", file=sys.stderr)
        return 2

    # Imported here so that --help works without Dask installed.
    from dask.distributed import Client, LocalCluster

    cluster = None
    if opts.scheduler:
        client = Client(opts.scheduler)
        workers = max(1, len(client.scheduler_info()["workers"]))
    else:
        cluster = LocalCluster(
            n_workers=opts.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        client = Client(cluster)
        workers = opts.workers
        # Results do not depend on the thread count: share this machine's cores.
        if "--threads" not in run_args:
            run_args += ["--threads", str(max(1, (os.cpu_count() or 1) // workers))]
    parts = opts.parts or workers
    try:
        os.makedirs(work)
        started = time.time()
        counted, replayed, part_dirs = run_parts(client, binary, run_args, work, parts)
        merge_cmd = [binary, "merge", "--quiet", *part_dirs, "--out", out.out] + (["--force"] if out.force else [])
        # The merge waits for every replay (its futures are its dependencies).
        merged = client.submit(after, replayed, merge_cmd, key="shardlab-merge", pure=False)
        status, printed, errors = merged.result()[:3]
        sys.stderr.write(errors)
        if status != 0:
            print(f"(partial results kept in {work})", file=sys.stderr)
            return status
        steps = [client.gather(counted), client.gather(replayed), [merged.result()]]
        count_s, replay_s, merge_s = (step_times(r) for r in steps)
        peaks = [max(r[5] for r in step) for step in steps]
        total = time.time() - started
        print(
            f"timings: count {count_s:.2f} s, replay {replay_s:.2f} s, merge {merge_s:.2f} s "
            f"({100 * merge_s / total:.1f}% of {total:.2f} s), {parts} parts; peak memory of "
            f"one command: count {peaks[0]:.0f} MiB, replay {peaks[1]:.0f} MiB, merge "
            f"{peaks[2]:.0f} MiB",
            file=sys.stderr,
        )
        if not out.quiet:
            sys.stdout.write(printed)
            print(f"report: {out.out}")
        shutil.rmtree(work)
        return 0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
