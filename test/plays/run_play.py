#!/usr/bin/env python3
"""Runs one play file on both engines and compares their journals.

usage: run_play.py LEDGER PLAY_FILE

Passes when every play passes on the reference engine and on the compiled
engine, and the two journals are identical event by event; on a difference,
prints the first line where they part.
"""
import subprocess
import sys
import tempfile
import os


def run(ledger, play, engine, journal):
    proc = subprocess.run([ledger, "play", play, "--engine", engine, "--journal", journal],
                          capture_output=True, text=True)
    sys.stdout.write(f"--- {engine} engine\n{proc.stdout}{proc.stderr}")
    return proc.returncode


def main():
    ledger, play = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        ref, comp = os.path.join(tmp, "reference.journal"), os.path.join(tmp, "compiled.journal")
        failed = run(ledger, play, "reference", ref) != 0
        failed |= run(ledger, play, "compiled", comp) != 0
        if failed:
            return 1
        with open(ref) as a, open(comp) as b:
            left, right = a.read().splitlines(), b.read().splitlines()
        for i, (x, y) in enumerate(zip(left, right)):
            if x != y:
                print(f"journals differ at entry {i + 1}:\n  reference: {x}\n  compiled:  {y}")
                return 1
        if len(left) != len(right):
            print(f"journals differ in length: reference {len(left)}, compiled {len(right)}")
            return 1
        print(f"journals match: {len(left)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
