#!/usr/bin/env bash
# Builds Ledger and runs every test: unit tests, the lit suite and a bounded
# fuzz run, all through CTest, whose summary is the last line printed.
# `scripts/test.sh asan` does the same under AddressSanitizer and
# UndefinedBehaviorSanitizer, in a build of its own (build/asan).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
case "$preset" in
  release|asan) ;;
  *) echo "scripts/test.sh: the preset is release or asan, not $preset" >&2; exit 2 ;;
esac
bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)"
