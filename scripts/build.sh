#!/usr/bin/env bash
# Configures and builds tierfs into ./build (Ninja, -j2: the project's machines have 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache when installed (scripts/install-deps.sh installs it): the package
# builds of scripts/install-check.sh then reuse these objects.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "${launcher[@]}" >/dev/null
cmake --build build -j"${JOBS:-2}"
