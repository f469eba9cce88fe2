#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, -fsanitize=fuzzer,address,undefined)
# into ./build-fuzz and runs each for a bounded time with its seed corpus and
# dictionary. Run by hand, not by CI (docs/testing-tools.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   default: 60 s each, every target
#   scripts/fuzz.sh 600 policy_fuzzer       ten minutes of the policy loader only
#   JOBS=2 scripts/fuzz.sh                  build parallelism (default 2)
#
# Targets: policy_fuzzer (policy::LoadPolicy and the engine over what loads) and
# control_fuzzer (request lines through the real ControlServer and ControlHandlers
# of an unmounted file system). The corpus grows in build-fuzz/corpus/<target>
# (kept between runs; the seeds are read from the source tree, never written);
# a crash, leak, timeout or UBSan finding stops the target, and its input is saved
# as build-fuzz/findings/<target>/crash-*|leak-*|timeout-*. Reproduce one with
#   build-fuzz/tests/fuzz/<target> build-fuzz/findings/<target>/crash-...
# Exits non-zero when any target found something.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build-fuzz
jobs=${JOBS:-2}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(policy_fuzzer control_fuzzer)

bash scripts/install-deps.sh || exit 1
extra=()
command -v clang++ >/dev/null || extra+=(clang)
fuzzer_rt=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
[ -f "$fuzzer_rt" ] || extra+=(libclang-rt-dev)
command -v llvm-symbolizer >/dev/null || extra+=(llvm)
if [ ${#extra[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "fuzz: installing ${extra[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${extra[@]}" >/dev/null || exit 1
fi

start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DTIERFS_FUZZ=ON -DTIERFS_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  >/dev/null || exit 1
cmake --build "$build" -j"$jobs" --target "${targets[@]}" || { echo "fuzz: build failed"; exit 1; }
echo "fuzz: build took $(( $(date +%s) - start )) s"

symbolizer=$(command -v llvm-symbolizer)
export ASAN_SYMBOLIZER_PATH=$symbolizer
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:\
check_initialization_order=1:external_symbolizer_path=$symbolizer"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:external_symbolizer_path=$symbolizer"

# Seed directories per target (read only) and extra libFuzzer flags.
seeds_of() {
  case $1 in
    policy_fuzzer) echo "$root/tests/fuzz/policy_corpus $root/docs/examples $root/tests/policy/data" ;;
    control_fuzzer) echo "$root/tests/fuzz/control_corpus" ;;
  esac
}
flags_of() {
  case $1 in
    policy_fuzzer) echo "-dict=$root/tests/fuzz/policy.dict -max_len=16384 -timeout=10" ;;
    control_fuzzer) echo "-dict=$root/tests/fuzz/control.dict -max_len=16384 -timeout=30" ;;
  esac
}

# Scratch space of the targets (control_fuzzer's file system), emptied before each run:
# a target that crashes cannot clean up after itself.
export TMPDIR=$build/tmp
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"

failed=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  findings=$build/findings/$t
  mkdir -p "$corpus" "$findings"
  log=$build/findings/$t.log
  echo "fuzz: $t for $seconds s (log $log)"
  # shellcheck disable=SC2046
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$findings/" $(flags_of "$t") "$corpus" $(seeds_of "$t") >"$log" 2>&1
  rc=$?
  grep -E '^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' "$log" |
    sed "s/^/fuzz: $t /"
  echo "fuzz: $t corpus $(find "$corpus" -type f | wc -l) inputs, exit $rc"
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    grep -m3 -E 'ERROR: |runtime error|control_fuzzer:|policy_fuzzer:|Test unit written' "$log" |
      sed "s/^/fuzz: $t: /"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FOUND problems in ${failed[*]}: inputs in $build/findings/<target>/, logs next to them"
  exit 1
fi
echo "fuzz: OK, nothing found (${targets[*]}, $seconds s each)"
