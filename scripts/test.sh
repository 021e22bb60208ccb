#!/usr/bin/env bash
# Builds Ledger and runs every test: unit tests, the lit suite and a bounded
# fuzz run, all through CTest, whose summary is the last line printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release
