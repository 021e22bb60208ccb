#!/usr/bin/env bash
# Builds Ledger and runs its main job on the bundled sample game: the duel's
# catalog compiled into a native content pack, and its plays run on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ledger=build/release/tools/ledger/ledger
mkdir -p build/sample
$ledger build stdlib-ledger/duel -o build/sample/duel.so
$ledger play stdlib-ledger/duel/plays/duel.play --pack build/sample/duel.so
# The arena uses the whole language, phases, piles and the space among it:
# checked here, built once the engines run those forms (docs/unsupported.md).
$ledger check stdlib-ledger/sample/plays/arena.play
echo "sample: the duel's pack is built and its plays pass; the arena is accepted"
