#!/usr/bin/env bash
# Makes the Python virtual environment of the tests that need PyPI packages:
#  - Playwright, for the browser integration test (tests/integration/tier_report_test.cc
#    runs tests/integration/report_browser_check.py with it), driving Debian's
#    chromium (scripts/install-deps.sh installs it). Playwright's own browsers are
#    never downloaded.
#  - moto[server], the S3 server that behaves like AWS on regions, virtual-hosted
#    addressing and session tokens (tests/support/moto_server.h starts its
#    bin/moto_server for objstore_moto_tests and store_tests).
#
# The place: $TIERFS_TEST_VENV, else ~/.cache/tierfs-test-venv (the tests look there
# too). Does nothing when the pinned versions are already there.
set -euo pipefail
playwright_version=1.65.2
moto_version=5.2.5
venv="${TIERFS_TEST_VENV:-${HOME:-/root}/.cache/tierfs-test-venv}"
if "$venv/bin/python3" -c "import importlib.metadata as m, sys
sys.exit(m.version('playwright') != '$playwright_version' or
         m.version('moto') != '$moto_version')" 2>/dev/null &&
  [ -x "$venv/bin/moto_server" ]; then
  echo "test-venv: playwright $playwright_version and moto $moto_version present in $venv"
  exit 0
fi
echo "test-venv: installing playwright $playwright_version and moto $moto_version into $venv"
# Debian's python3 (python3-venv), whatever python3 comes first on PATH (pyenv...).
/usr/bin/python3 -m venv "$venv"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$venv/bin/pip" install -q --disable-pip-version-check \
  "playwright==$playwright_version" "moto[server]==$moto_version"
