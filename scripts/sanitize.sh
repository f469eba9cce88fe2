#!/usr/bin/env bash
# Builds tierfs and its whole test suite with AddressSanitizer (+ LeakSanitizer) and
# UndefinedBehaviorSanitizer into ./build-asan, and runs every ctest test under them:
# the unit tests, and the integration tests together with the real `tierfs` daemon and
# the tools they start, which are the sanitized binaries of the same build.
# With --thread, the same with ThreadSanitizer instead, into ./build-tsan: data races
# and lock-order inversions between the daemon's FUSE workers, its writeback,
# relocation and group-commit threads, and in the unit tests' concurrent cases.
# Run by hand, not by CI (docs/testing-tools.md): on 2 cores the first build takes ~20
# minutes (ASan) or ~8 (TSan), the suite ~2 minutes (ASan) or ~2.5 (TSan).
#
#   scripts/sanitize.sh               build, run everything
#   scripts/sanitize.sh --thread      the same under ThreadSanitizer
#   scripts/sanitize.sh -R Policy     extra arguments go to ctest (here: a subset)
#   JOBS=4 scripts/sanitize.sh        build and test parallelism (default 2)
#
# Compiler: clang (the fuzz targets, scripts/fuzz.sh, need it anyway, so one compiler
# and one runtime serve both; its UBSan also checks vptr and function-pointer types).
#
# Reports: the daemon forks, detaches and points stderr at /dev/null, so a report on
# stderr would be lost. Every sanitized process therefore writes its reports to
# build-asan/sanitizer-logs/report.<program>.<pid> (build-tsan/... with --thread;
# log_path). UBSan is compiled with -fno-sanitize-recover (CMakeLists.txt) and ASan and
# TSan run with halt_on_error, so the first finding ends the process with a report and
# a failing exit code. Exits non-zero when any test failed or any report was written,
# and prints where the reports are.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=address
if [ "${1:-}" = "--thread" ]; then
  mode=thread
  shift
fi
if [ $mode = thread ]; then
  build=$root/build-tsan
  cmake_flag=-DTIERFS_TSAN=ON
  runtime=tsan
else
  build=$root/build-asan
  cmake_flag=-DTIERFS_SANITIZE=ON
  runtime=asan
fi
logs=$build/sanitizer-logs
jobs=${JOBS:-2}

bash scripts/install-deps.sh || exit 1
# clang, the sanitizer runtimes (libclang-rt-*-dev on Debian 12) and llvm-symbolizer
# (function names and lines in the reports).
extra=()
command -v clang++ >/dev/null || extra+=(clang)
clang_rt=$(clang++ -print-file-name=libclang_rt.$runtime-x86_64.a 2>/dev/null || true)
[ -f "$clang_rt" ] || extra+=(libclang-rt-dev)
command -v llvm-symbolizer >/dev/null || extra+=(llvm)
if [ ${#extra[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "sanitize: installing ${extra[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${extra[@]}" >/dev/null || exit 1
fi

# Debug keeps assert() on; -O1 keeps the suite fast enough and the stacks readable.
start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja "$cmake_flag" \
  -DTIERFS_BUILD_TESTS=ON -DTIERFS_TEST_HOOKS=ON \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  >/dev/null || exit 1
cmake --build "$build" -j"$jobs" || { echo "sanitize: build failed"; exit 1; }
built=$(date +%s)
echo "sanitize: build took $((built - start)) s"

rm -rf "$logs"
mkdir -p "$logs"
symbolizer=$(command -v llvm-symbolizer)
# The options reach every process: ctest, the test binaries, and what they exec
# (tierfs, mkdstfs, fsppadm...), which inherit the environment.
export ASAN_SYMBOLIZER_PATH=$symbolizer
# Not strict_string_checks: it reports libfuse 3.14's fuse_req_getgroups, whose strstr
# runs over an unterminated /proc buffer (harmless, the pattern is always found first;
# fixed in libfuse 3.16, libfuse PR #966), and kills every daemon that checks groups.
export ASAN_OPTIONS="log_path=$logs/report:log_exe_name=1:halt_on_error=1:detect_leaks=1:\
detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:\
detect_odr_violation=2:external_symbolizer_path=$symbolizer"
export UBSAN_OPTIONS="log_path=$logs/report:log_exe_name=1:halt_on_error=1:print_stacktrace=1:\
external_symbolizer_path=$symbolizer"
# ThreadSanitizer sees the synchronization of the uninstrumented libraries (libfuse's
# worker loop, SQLite, spdlog) through their pthread calls, which it intercepts;
# second_deadlock_stack shows where both locks of an inversion were taken.
export TSAN_OPTIONS="log_path=$logs/report:log_exe_name=1:halt_on_error=1:\
second_deadlock_stack=1:external_symbolizer_path=$symbolizer"

ctest --test-dir "$build" --output-on-failure -j"$jobs" --timeout 1200 "$@"
ctest_rc=$?
finished=$(date +%s)
echo "sanitize: tests took $((finished - built)) s"

mapfile -t reports < <(find "$logs" -type f -size +0 | sort)
if [ ${#reports[@]} -gt 0 ]; then
  echo "sanitize: ${#reports[@]} sanitizer report(s) in $logs:"
  for r in "${reports[@]}"; do
    echo "  $r: $(grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$r" | cut -c1-160)"
  done
fi
if [ $ctest_rc -ne 0 ] || [ ${#reports[@]} -gt 0 ]; then
  echo "sanitize: FAILED (ctest exit $ctest_rc, ${#reports[@]} report(s))"
  exit 1
fi
echo "sanitize: OK, no test failed and no sanitizer report (logs: $logs)"
