#!/usr/bin/env bash
# Installs everything tierfs needs to build, test and run, from Debian's packages.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libfuse3-dev fuse3 libsqlite3-dev sqlite3 libxml2-dev libxml2-utils libxxhash-dev xxhash
  liburing-dev                                   # --io_uring (fs/fuse/uring_transport.h)
  libgflags-dev libgtest-dev googletest nlohmann-json3-dev
  prometheus-cpp-dev python3-prometheus-client   # metrics endpoint; its test's parser
  libspdlog-dev                                  # the daemon's log, to its file and syslog
  libcurl4-openssl-dev libssl-dev                # the S3 client (fs/objstore): HTTP, SigV4, MD5
  # A real S3 store for the object-volume tests: a single-node Ceph with its
  # RADOS Gateway, started by the tests (tests/ceph/ceph_cluster.sh); rclone is
  # the reference client the object-class benchmarks compare with.
  ceph-mon ceph-osd radosgw ceph-common rclone
  libbpf-dev bpftool clang                       # the passthrough I/O counter (fs/bpf/README.md)
  attr rsync git procps man-db curl
  btrfs-progs                                    # a btrfs volume, which the page-cache counter cannot count
  ccache                                         # rebuilds (tests, package, the earlier release's package)
  clang                                          # scripts/thread-safety.sh: the lock annotations' check
  debootstrap                                    # scripts/install-check.sh: a clean Debian 12 root
  chromium python3-venv   # the browser test of `fsppadm report --html` (scripts/test-venv.sh)
  # tests/integration/postgresql_test.cc: initdb, pg_ctl, postgres, psql, pgbench and
  # the amcheck extension are all in this package on Debian 12 (it also starts
  # Debian's own cluster on port 5432, which the test leaves alone)
  postgresql-15
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Playwright (the browser test) and moto (an S3 server like AWS) from PyPI, in a
# venv: not Debian packages.
bash "$(dirname "$0")/test-venv.sh"
