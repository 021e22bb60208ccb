#!/usr/bin/env bash
# Builds Ledger and runs its main job on the bundled sample game.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
build/release/tools/ledger/ledger check stdlib-ledger/sample
build/release/tools/ledger/ledger check stdlib-ledger/sample/plays/arena.play
echo "sample: the catalog and its plays are accepted"
