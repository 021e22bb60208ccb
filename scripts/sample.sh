#!/usr/bin/env bash
# Builds Ledger and runs its main job on the bundled sample game: the duel's
# catalog compiled into a native content pack, and its plays run on it; then
# the duel as a game, built against Ledger installed as a game's build
# would use it, and one fight played.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ledger=build/release/tools/ledger/ledger
mkdir -p build/sample
$ledger build stdlib-ledger/duel -o build/sample/duel.so
$ledger play stdlib-ledger/duel/plays/duel.play --pack build/sample/duel.so
cmake --install build/release --prefix build/sample/prefix >/dev/null
cmake -S stdlib-ledger/duel/game -B build/sample/duel-game -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_PREFIX_PATH="$PWD/build/sample/prefix" >/dev/null
cmake --build build/sample/duel-game >/dev/null
build/sample/duel-game/duel_game build/sample/duel-game/duel.so 7 | tail -n 3
# The arena uses the whole language, phases, piles and the space among it:
# checked here, built once the engines run those forms (docs/unsupported.md).
$ledger check stdlib-ledger/sample/plays/arena.play
echo "sample: the duel's pack is built and its plays pass, the duel game is played; the arena is accepted"
