#!/usr/bin/env bash
# Configures and builds tierfs into ./build (Ninja, -j2: the project's machines have 2 cores).
# The programs only, without test hooks: what `cmake --install build` installs.
# scripts/test.sh builds the same tree with the test suites and the hooks
# (TIERFS_BUILD_TESTS=ON TIERFS_TEST_HOOKS=ON in the environment).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache when installed (scripts/install-deps.sh installs it): the package
# builds of scripts/install-check.sh then reuse these objects.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DTIERFS_BUILD_TESTS="${TIERFS_BUILD_TESTS:-OFF}" -DTIERFS_TEST_HOOKS="${TIERFS_TEST_HOOKS:-OFF}" \
  "${launcher[@]}" >/dev/null
cmake --build build -j"${JOBS:-2}"
