#!/usr/bin/env bash
# Makes the Python virtual environment the browser integration test uses
# (tests/integration/tier_report_test.cc runs tests/integration/report_browser_check.py
# with it): Playwright from PyPI, driving Debian's chromium (scripts/install-deps.sh
# installs it). Playwright's own browsers are never downloaded.
#
# The place: $TIERFS_TEST_VENV, else ~/.cache/tierfs-test-venv (the test looks there
# too). Does nothing when the pinned version is already there.
set -euo pipefail
playwright_version=1.65.2
venv="${TIERFS_TEST_VENV:-${HOME:-/root}/.cache/tierfs-test-venv}"
if "$venv/bin/python3" -c "import importlib.metadata as m, sys
sys.exit(m.version('playwright') != '$playwright_version')" 2>/dev/null; then
  echo "test-venv: playwright $playwright_version present in $venv"
  exit 0
fi
echo "test-venv: installing playwright $playwright_version into $venv"
# Debian's python3 (python3-venv), whatever python3 comes first on PATH (pyenv...).
/usr/bin/python3 -m venv "$venv"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$venv/bin/pip" install -q --disable-pip-version-check \
  "playwright==$playwright_version"
