#!/usr/bin/env python3
"""The skirmish's instructions an event, on each engine and by hand.

    instructions.py LEDGER BENCH_SKIRMISH OUTDIR [--actors N] [--seconds S]

Builds the skirmish's pack once (`ledger build`), then runs
ledger_bench_skirmish on it under callgrind, one run a kind: the reference
engine and the compiled one with their journals hashed, the compiled one
with its journal off, and the hand code. Only the orders and the advances
are counted (World::act and World::advance; the hand code's strike and
advance), so a count is the same on every run of a build, whatever else
the machine does. Prints each kind's instructions, an event (the journal
entries the engines add; the hand code's divided by the same number) and
its ratio to the hand code's.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

KINDS = [
    # name, journal, the benchmark's options, what callgrind collects
    ("reference", "hashed", ["--engine", "reference"], ["ledger::rt::World::act(*", "ledger::rt::World::advance(*"]),
    ("compiled", "hashed", ["--engine", "compiled"], ["ledger::rt::World::act(*", "ledger::rt::World::advance(*"]),
    ("compiled", "off", ["--engine", "compiled", "--journal-off"], ["ledger::rt::World::act(*", "ledger::rt::World::advance(*"]),
    ("hand", "none", ["--engine", "hand"], ["skirmish_hand::Skirmish::strike(*", "skirmish_hand::Skirmish::advance(*"]),
]


def counted(out_file):
    with open(out_file) as f:
        for line in f:
            m = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(1))
    raise SystemExit(f"instructions.py: no totals in {out_file}")


def events_of(report, engine, journal):
    # The benchmark's row: engine journal N sim/wall events/s events ...
    for line in report.splitlines():
        cols = line.split()
        if len(cols) > 5 and cols[0] == engine and cols[1] == journal and cols[5].isdigit():
            return int(cols[5])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ledger")
    ap.add_argument("bench")
    ap.add_argument("outdir")
    ap.add_argument("--actors", type=int, default=300)
    ap.add_argument("--seconds", type=int, default=10)
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        print("instructions: valgrind isn't installed (bash scripts/setup.sh installs it): no counts")
        return 0
    os.makedirs(args.outdir, exist_ok=True)
    catalog = os.path.join(HERE, "skirmish.ledger")
    pack = os.path.join(args.outdir, "skirmish.so")
    subprocess.run([args.ledger, "build", catalog, "-o", pack], check=True)

    rows = []
    for engine, journal, options, collect in KINDS:
        out = os.path.join(args.outdir, f"callgrind.{engine}.{journal}.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        cmd += [f"--toggle-collect={c}" for c in collect]
        cmd += [args.bench, "--pack", pack, "--catalog", catalog, "--actors", str(args.actors),
                "--seconds", str(args.seconds), "--repeat", "1"] + options
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            raise SystemExit(f"instructions.py: {engine} ({journal}) failed")
        rows.append((engine, journal, counted(out), events_of(run.stdout, engine, journal)))

    events = next(e for _, _, _, e in rows if e)
    hand = next(n for engine, _, n, _ in rows if engine == "hand")
    print(f"instructions: N = {args.actors}, {args.seconds} simulated s, {events:,} events; "
          "callgrind, inside the orders and the advances alone")
    print(f"{'engine':<10} {'journal':<8} {'instructions':>14} {'an event':>9} {'/hand':>7}")
    for engine, journal, n, _ in rows:
        print(f"{engine:<10} {journal:<8} {n:>14,} {n / events:>9.0f} {n / hand:>6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
