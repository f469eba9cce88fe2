#!/usr/bin/env bash
# Installs what the build needs, builds tierfs, checks the lock rules with
# clang's thread-safety analysis (scripts/thread-safety.sh: compile only, about
# 2 minutes with a warm ccache) and runs every test: unit tests and
# integration tests that mount a real tierfs under /tmp (they need /dev/fuse and
# fusermount3), then the package's install, upgrade and removal in a clean
# Debian 12 root (scripts/install-check.sh, as root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh   # a fresh machine has none of the build's packages
# The test suites, and the hooks their fault tests need (never in an install).
TIERFS_BUILD_TESTS=ON TIERFS_TEST_HOOKS=ON bash scripts/build.sh
scripts/thread-safety.sh
ctest --test-dir build --output-on-failure -j2 --timeout 600
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO scripts/install-check.sh
