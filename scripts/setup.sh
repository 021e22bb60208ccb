#!/usr/bin/env bash
# Installs the Debian packages Ledger's build and tests need, only those missing.
# Quiet and quick when everything is there. Run as root on Debian 12.
set -euo pipefail

packages=(
  cmake ninja-build
  clang-19 lld-19 llvm-19-dev llvm-19-tools liblld-19-dev libclang-19-dev
  libclang-rt-19-dev
  libfmt-dev libgtest-dev libgmock-dev
  libjemalloc-dev
  python3 pkgconf
  valgrind
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: these packages are missing and installing them needs root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
