#!/usr/bin/env python3
"""Times `ledger build` on generated catalogs of N definitions.

usage: time_build.py LEDGER OUTDIR N... [--repeat K] [--jobs J]

For each N, writes OUTDIR/genN.ledger with gen_catalog.py, checks it
(`ledger check`), then builds it K times (`ledger build --time`) and prints
the median wall and CPU seconds of the builds (CPU: every thread's, user and
system), the pack's size and, for the median run, where the time went.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_build(ledger, catalog, pack, jobs):
    command = [ledger, "build", catalog, "-o", pack, "--time"]
    if jobs:
        command += ["--jobs", str(jobs)]
    cpu, wall = children_cpu(), time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if run.returncode != 0:
        sys.exit(f"ledger build {catalog} failed:\n{run.stderr}")
    return wall, cpu, run.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger")
    parser.add_argument("outdir")
    parser.add_argument("definitions", type=int, nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=0, help="threads; 0: one a core")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    rows = []
    for n in args.definitions:
        catalog = os.path.join(args.outdir, f"gen{n}.ledger")
        pack = os.path.join(args.outdir, f"gen{n}.so")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_catalog.py"), str(n), catalog],
                       check=True)
        check = subprocess.run([args.ledger, "check", catalog], capture_output=True, text=True)
        if check.returncode != 0:
            sys.exit(f"ledger check refuses {catalog}:\n{check.stderr}")
        runs = sorted(timed_build(args.ledger, catalog, pack, args.jobs)
                      for _ in range(args.repeat))
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        median_run = runs[len(runs) // 2]
        print(f"== {n} definitions: median of {args.repeat} builds, {wall:.2f} s wall, "
              f"{cpu:.2f} s CPU; the median's stages:")
        print(median_run[2], end="", flush=True)
        rows.append((n, wall, cpu, min(r[0] for r in runs), os.path.getsize(pack)))
    print(f"\n{'definitions':>11}  {'wall s':>7}  {'CPU s':>7}  {'best wall s':>11}  "
          f"{'pack MB':>7}")
    for n, wall, cpu, best, size in rows:
        print(f"{n:>11}  {wall:>7.2f}  {cpu:>7.2f}  {best:>11.2f}  {size / 1e6:>7.1f}")
    print(f"({os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the end)")


if __name__ == "__main__":
    main()
