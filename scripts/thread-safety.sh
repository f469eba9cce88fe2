#!/usr/bin/env bash
# Builds tierfs with clang and -Wthread-safety -Werror into ./build-clang: clang's
# thread-safety analysis checks the lock rules written into the code
# (common/thread_annotations.h: GUARDED_BY, REQUIRES, EXCLUDES...) and any
# warning fails the build. Compiles only, runs nothing (docs/testing-tools.md).
#
#   scripts/thread-safety.sh          the production libraries and programs
#   scripts/thread-safety.sh --all    the test suites too
#   JOBS=4 scripts/thread-safety.sh   build parallelism (default 2)
#
# -O0 and no debug information: the analysis runs in the front end, so code
# generation is only what CMake's targets need, kept as cheap as it gets.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=OFF
if [ "${1:-}" = "--all" ]; then
  tests=ON
  shift
fi
command -v clang++ >/dev/null || bash scripts/install-deps.sh
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B build-clang -G Ninja -DTIERFS_THREAD_SAFETY=ON \
  -DTIERFS_BUILD_TESTS=$tests -DTIERFS_TEST_HOOKS=$tests -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 \
  -DCMAKE_CXX_FLAGS_DEBUG=-O0 "${launcher[@]}" >/dev/null
cmake --build build-clang -j"${JOBS:-2}"
echo "thread-safety: clean ($(($(date +%s) - start)) s)"
