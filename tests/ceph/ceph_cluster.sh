#!/usr/bin/env bash
# A throw-away single-node Ceph cluster with an S3 gateway, for tests.
#
#   ceph_cluster.sh start DIR RGW_PORT [--owner PID] [--tls TLS_PORT]
#   ceph_cluster.sh stop DIR
#   ceph_cluster.sh stop-rgw DIR [--kill]  # the gateway alone (fault tests);
#                                          # --kill: SIGKILL, as in a crash
#   ceph_cluster.sh start-rgw DIR          # it again, waits until S3 answers
#   ceph_cluster.sh freeze-rgw DIR         # SIGSTOP: connections open, nothing answers
#   ceph_cluster.sh thaw-rgw DIR           # SIGCONT
#   ceph_cluster.sh quota DIR BUCKET BYTES # the bucket takes no more than BYTES
#
# `start` makes one monitor, one OSD whose data lives in memory (memstore) and a
# RADOS Gateway (radosgw, beast frontend) on 127.0.0.1:RGW_PORT, with every
# file (configuration, monitor store, sockets, logs, pid files) under DIR, which
# must not exist yet. The monitor listens on RGW_PORT+1. It creates the S3 user
# "tierfs-test" with the fixed keys below, waits until the gateway answers
# (at most CEPH_START_TIMEOUT seconds, default 60) and prints, one per line:
#   endpoint=http://127.0.0.1:RGW_PORT
#   access_key=...
#   secret_key=...
# No manager daemon: S3 does not need one, and it triples the start time and
# the memory. With --owner PID, a watcher stops the cluster once process PID
# is gone, so a test binary that crashes or is killed does not leave daemons
# behind. With --tls TLS_PORT, the gateway also serves HTTPS on
# 127.0.0.1:TLS_PORT (beast's ssl_endpoint) with a certificate for 127.0.0.1
# and localhost signed by a throw-away CA that the script makes with openssl
# in DIR/tls (never trusted by the system), and prints two more lines:
#   https_endpoint=https://127.0.0.1:TLS_PORT
#   ca_file=DIR/tls/ca.pem
#
# `stop` signals exactly the daemons this script started in DIR (their pids are
# in DIR/pids, checked against /proc/PID/cmdline so a reused pid is never
# signalled): SIGTERM, then SIGKILL after CEPH_STOP_TIMEOUT seconds (default 10),
# waits for them to be gone, and removes DIR.
#
# Exit status: 0 on success; 1 with the reason and the tail of the daemon's log
# on standard error when a step fails or the time runs out (the daemons already
# started are stopped then, and DIR is kept for the logs); 2 for a usage error;
# 3 when the Ceph packages are missing (scripts/install-deps.sh installs them).
#
# Settings, and why each is needed (docs/testing-tools.md):
# - auth none, and every messenger mode "crc": without authentication radosgw
#   still asks the monitor for a secure connection and hangs at start.
# - paxos_propose_interval 0.05 / paxos_min_wait 0.01: every pool the gateway
#   creates is a monitor proposal, each waiting about a second by default.
# - objecter_tick_interval 0.2: a client (radosgw-admin, the gateway) that
#   asks for an object before the OSD is up learns that it came up only at
#   its next tick, 5 s by default: one start in three took 7 s instead of 2.
# - pools of size 1, 8 placement groups, no autoscaler, mon_max_pg_per_osd 1000,
#   chooseleaf type 0: one OSD must hold the gateway's eight pools.
# - mon_data_avail_warn/crit low: a nearly full /tmp must not stop the monitor.
# - rgw_cache_enabled false: the gateway's metadata cache keeps a watch on
#   RADOS objects to hear of other gateways' changes; a gateway killed with
#   SIGKILL leaves its watches behind for 30 s, and every bucket creation or
#   removal waits for them (26 s measured) after a restart. One gateway needs
#   no cache coherence.
# - rgw_gc_obj_min_wait 0, rgw_gc_processor_period 2: the gateway frees a
#   deleted object's data in the background, by default after two hours;
#   the OSD holds data in memory, so tests that write and delete much would
#   grow it without bound.
# - A full store is a bucket quota (`quota`: the gateway answers 403
#   QuotaExceeded at once), not a full OSD: without a manager nothing marks
#   the OSD full, and writes to it wait for room that never comes (the client
#   sees a stall, not an error).
# - Ceph daemons bind ports 6800-7300 (ms_bind_port_min..max): the gateway's
#   and the monitor's ports must lie outside (tests take ephemeral ports).
set -euo pipefail

readonly ACCESS_KEY="TIERFSTESTACCESSKEY0"
readonly SECRET_KEY="tierfs-test-secret-key-0123456789abcdefgh"
START_TIMEOUT="${CEPH_START_TIMEOUT:-60}"
STOP_TIMEOUT="${CEPH_STOP_TIMEOUT:-10}"
# Memory the OSD may hold (bytes); tests that fill the pool pass a smaller one.
MEMSTORE_BYTES="${CEPH_MEMSTORE_BYTES:-2147483648}"

die() {
  echo "ceph_cluster: $*" >&2
  exit 1
}
usage() {
  sed -n '3,12p' "$0" >&2
  exit 2
}

# The last lines of a daemon's log (and its standard output), for a failure
# message. `name` is a pid file's name (mon, osd, rgw) or a step's (osd-mkfs).
log_tail() {
  local dir=$1 name=$2 f log
  case "$name" in
    mon) log=mon.a.log ;;
    osd) log=osd.0.log ;;
    rgw) log=client.rgw.log ;;
    *) log=$name.log ;;
  esac
  local shown=0
  for f in "$dir/log/$log" "$dir/log/$name.out"; do
    if [ -s "$f" ]; then
      echo "--- last lines of $f:" >&2
      tail -n 25 "$f" >&2
      shown=1
    fi
  done
  [ "$shown" = 1 ] || echo "--- $dir/log/$log: nothing logged yet" >&2
}

# Seconds since the epoch with milliseconds, for the deadline checks.
now_ms() { date +%s%3N; }

# Whether the pid recorded for `name` is alive and still runs the program we
# started (a pid is reused once its process is reaped).
pid_is_ours() {
  local dir=$1 name=$2 pid prog
  [ -s "$dir/pids/$name.pid" ] || return 1
  read -r pid prog <"$dir/pids/$name.pid"
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$prog" || return 1
  # A zombie (exited, not yet reaped by its parent) counts as gone.
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]
}

# Starts a daemon in the foreground of a background job, so that $! is its own
# pid (the daemon's own fork would hide it), with its output in DIR/log.
spawn() {
  local dir=$1 name=$2
  shift 2
  # setsid: the daemons leave the caller's process group and terminal, so a
  # Ctrl-C of the test run reaches the test binary, whose fixture then stops them.
  setsid "$@" </dev/null >"$dir/log/$name.out" 2>&1 &
  echo "$! $1" >"$dir/pids/$name.pid"
}

# Sends SIGTERM to the named daemons, SIGKILL to those still there after
# STOP_TIMEOUT, and waits (bounded) until all are gone.
stop_daemons() {
  local dir=$1
  shift
  local name pid prog deadline
  for name in "$@"; do
    if pid_is_ours "$dir" "$name"; then
      read -r pid prog <"$dir/pids/$name.pid"
      kill -TERM "$pid" 2>/dev/null || true
      # A frozen daemon (freeze-rgw) acts on SIGTERM only once it runs again.
      kill -CONT "$pid" 2>/dev/null || true
    fi
  done
  deadline=$(($(now_ms) + STOP_TIMEOUT * 1000))
  for name in "$@"; do
    while pid_is_ours "$dir" "$name" && [ "$(now_ms)" -lt "$deadline" ]; do
      sleep 0.05
    done
    if pid_is_ours "$dir" "$name"; then
      read -r pid prog <"$dir/pids/$name.pid"
      echo "ceph_cluster: $name (pid $pid) still running after ${STOP_TIMEOUT}s: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      local kill_deadline=$(($(now_ms) + 5000))
      while pid_is_ours "$dir" "$name" && [ "$(now_ms)" -lt "$kill_deadline" ]; do
        sleep 0.05
      done
    fi
    rm -f "$dir/pids/$name.pid"
  done
}

# Stops every daemon, one at a time, gateway first: the gateway's own shutdown
# talks to the monitor and the OSD, and hangs until SIGKILL when they are gone
# already.
stop_all() {
  stop_daemons "$1" rgw
  stop_daemons "$1" osd
  stop_daemons "$1" mon
}

# Waits until the gateway answers an anonymous GET / with any HTTP status, or
# fails with its log after the deadline (milliseconds since the epoch).
wait_for_s3() {
  local dir=$1 deadline=$2 port
  port=$(cat "$dir/rgw_port")
  until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; do
    if ! pid_is_ours "$dir" rgw; then
      log_tail "$dir" rgw
      return 1
    fi
    if [ "$(now_ms)" -ge "$deadline" ]; then
      echo "ceph_cluster: the gateway did not answer on port $port within ${START_TIMEOUT}s" >&2
      log_tail "$dir" rgw
      return 1
    fi
    sleep 0.05
  done
}

# Whole seconds left until `deadline` (milliseconds since the epoch), at least 1.
seconds_left() {
  local left=$((($1 - $(now_ms)) / 1000))
  [ "$left" -ge 1 ] && echo "$left" || echo 1
}

# Appends the time and `what` to DIR/log/steps: where a slow start spent its time.
step() { echo "$(date +%T.%3N) $2" >>"$1/log/steps"; }

# Runs `ceph` against this cluster, bounded by the start's deadline.
ceph_cmd() {
  local dir=$1 deadline=$2
  shift 2
  timeout "$(seconds_left "$deadline")" ceph -c "$dir/ceph.conf" \
    --connect-timeout "$(seconds_left "$deadline")" "$@"
}

start_rgw() {
  local dir=$1
  spawn "$dir" rgw radosgw -f -c "$dir/ceph.conf" -n client.rgw
}

# Makes DIR/tls: a CA (ca.pem, its key ca.key) and the gateway's certificate
# and key (server.pem, server.key), for 127.0.0.1 and localhost, valid 2 days.
# EC keys: made in milliseconds, where RSA ones take a second on a slow machine.
make_tls() {
  local tls=$1/tls
  mkdir -p "$tls"
  {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$tls/ca.key" -out "$tls/ca.pem" -days 2 -subj "/CN=tierfs test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=127.0.0.1"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' \
      >"$tls/server.ext"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
      -CAcreateserial -out "$tls/server.pem" -days 2 -extfile "$tls/server.ext"
  } >"$1/log/openssl.out" 2>&1 ||
    { log_tail "$1" openssl; die "openssl failed to make the certificates"; }
  chmod 600 "$tls"/*.key
}

cmd_start() {
  local dir=$1 port=$2 owner=$3 tls_port=$4
  local p
  for p in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph curl uuidgen \
    ${tls_port:+openssl}; do
    command -v "$p" >/dev/null || {
      echo "ceph_cluster: $p not found; install ceph-mon ceph-osd radosgw ceph-common" \
        "(scripts/install-deps.sh)" >&2
      exit 3
    }
  done
  [[ $port =~ ^[0-9]+$ ]] && [ "$port" -gt 0 ] && [ "$port" -lt 65535 ] || usage
  if [ "$port" -ge 6799 ] && [ "$port" -le 7300 ]; then
    die "port $port (or the monitor's, one above) lies in 6800-7300, which the OSD binds"
  fi
  [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ] && die "$dir exists and is not empty"
  local mon_port=$((port + 1))
  local deadline=$(($(now_ms) + START_TIMEOUT * 1000))
  mkdir -p "$dir"/{mon,osd,run,log,pids,tmp}
  dir=$(cd "$dir" && pwd)
  echo "$port" >"$dir/rgw_port"
  local frontend="beast endpoint=127.0.0.1:$port"
  if [ -n "$tls_port" ]; then
    [[ $tls_port =~ ^[0-9]+$ ]] && [ "$tls_port" -gt 0 ] && [ "$tls_port" -lt 65536 ] || usage
    make_tls "$dir"
    frontend+=" ssl_endpoint=127.0.0.1:$tls_port ssl_certificate=$dir/tls/server.pem"
    frontend+=" ssl_private_key=$dir/tls/server.key"
  fi
  local fsid
  fsid=$(uuidgen)
  cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$mon_port
mon_initial_members = a
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_cluster_mode = crc
ms_service_mode = crc
ms_client_mode = crc
ms_mon_cluster_mode = crc
ms_mon_service_mode = crc
ms_mon_client_mode = crc
run_dir = $dir/run
admin_socket = $dir/run/\$name.asok
log_file = $dir/log/\$name.log
keyring = /dev/null
mon_data = $dir/mon/\$id
osd_data = $dir/osd/\$id
osd_objectstore = memstore
memstore_device_bytes = $MEMSTORE_BYTES
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
objecter_tick_interval = 0.2
mon_data_avail_warn = 2
mon_data_avail_crit = 1
[client.rgw]
rgw_frontends = $frontend
rgw_cache_enabled = false
rgw_gc_obj_min_wait = 0
rgw_gc_processor_period = 2
rgw_data = $dir/rgw
EOF
  mkdir -p "$dir/rgw"
  # From here on a failure stops what was started; DIR stays for its logs.
  trap 'stop_all "$dir"' ERR
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" \
    >"$dir/log/monmaptool.out" 2>&1 || { log_tail "$dir" monmaptool; die "monmaptool failed"; }
  ceph-mon -c "$dir/ceph.conf" --mkfs -i a --monmap "$dir/monmap" \
    >"$dir/log/mon-mkfs.out" 2>&1 || { log_tail "$dir" mon-mkfs; die "ceph-mon --mkfs failed"; }
  spawn "$dir" mon ceph-mon -f -c "$dir/ceph.conf" -i a
  step "$dir" "monitor started"
  local osd_uuid osd_id
  osd_uuid=$(uuidgen)
  osd_id=$(ceph_cmd "$dir" "$deadline" osd create "$osd_uuid" 2>"$dir/log/osd-create.out") ||
    { log_tail "$dir" osd-create; log_tail "$dir" mon; stop_all "$dir"; die "ceph osd create failed"; }
  step "$dir" "osd $osd_id created"
  mkdir -p "$dir/osd/$osd_id"
  ceph-osd -c "$dir/ceph.conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" \
    >"$dir/log/osd-mkfs.out" 2>&1 ||
    { log_tail "$dir" osd-mkfs; stop_all "$dir"; die "ceph-osd --mkfs failed"; }
  spawn "$dir" osd ceph-osd -f -c "$dir/ceph.conf" -i "$osd_id"
  step "$dir" "osd started"
  # The user first, then the gateway: both create the gateway's pools when
  # they are missing, so that one client alone makes them. radosgw-admin
  # waits for the OSD to come up.
  timeout "$(seconds_left "$deadline")" radosgw-admin -c "$dir/ceph.conf" user create --uid tierfs-test \
    --display-name "tierfs tests" --access-key "$ACCESS_KEY" --secret-key "$SECRET_KEY" \
    >"$dir/log/user-create.out" 2>&1 ||
    { log_tail "$dir" user-create; log_tail "$dir" osd; stop_all "$dir";
      die "radosgw-admin user create failed"; }
  step "$dir" "user created"
  start_rgw "$dir"
  wait_for_s3 "$dir" "$deadline" || { stop_all "$dir"; die "start failed"; }
  step "$dir" "S3 answers"
  trap - ERR
  if [ -n "$owner" ]; then
    # The watcher: polls the owner every half second; stops the cluster when it is gone.
    setsid bash -c '
      while kill -0 "$1" 2>/dev/null; do sleep 0.5; done
      exec "$2" stop "$3"' watcher "$owner" "$(readlink -f "$0")" "$dir" \
      </dev/null >"$dir/log/watcher.out" 2>&1 &
    echo "$! bash" >"$dir/pids/watcher.pid"
  fi
  echo "endpoint=http://127.0.0.1:$port"
  echo "access_key=$ACCESS_KEY"
  echo "secret_key=$SECRET_KEY"
  if [ -n "$tls_port" ]; then
    echo "https_endpoint=https://127.0.0.1:$tls_port"
    echo "ca_file=$dir/tls/ca.pem"
  fi
}

cmd_stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  # An empty directory: a start that found no Ceph made nothing in it.
  if [ -z "$(ls -A "$dir")" ]; then
    rmdir "$dir"
    return 0
  fi
  [ -f "$dir/ceph.conf" ] || die "$dir does not hold a cluster made by this script"
  # The watcher is not signalled when it is the one stopping (it runs this).
  local me=$$ pid prog
  if [ -s "$dir/pids/watcher.pid" ]; then
    read -r pid prog <"$dir/pids/watcher.pid"
    [ "$pid" = "$me" ] || stop_daemons "$dir" watcher
  fi
  stop_all "$dir"
  local name
  for name in rgw osd mon; do
    pid_is_ours "$dir" "$name" && die "$name is still running; $dir kept"
  done
  rm -rf "$dir"
}

[ $# -ge 2 ] || usage
command=$1
dir=$2
case "$command" in
  start)
    [ $# -ge 3 ] || usage
    start_port=$3
    owner="" tls_port=""
    set -- "${@:4}"
    while [ $# -ge 2 ]; do
      case "$1" in
        --owner) owner=$2 ;;
        --tls) tls_port=$2 ;;
        *) usage ;;
      esac
      shift 2
    done
    [ $# -eq 0 ] || usage
    cmd_start "$dir" "$start_port" "$owner" "$tls_port"
    ;;
  stop) cmd_stop "$dir" ;;
  stop-rgw)
    if [ "${3:-}" = "--kill" ] && pid_is_ours "$dir" rgw; then
      read -r pid prog <"$dir/pids/rgw.pid"
      kill -KILL "$pid"
    fi
    stop_daemons "$dir" rgw
    ;;
  freeze-rgw | thaw-rgw)
    pid_is_ours "$dir" rgw || die "the gateway is not running"
    read -r pid prog <"$dir/pids/rgw.pid"
    if [ "$command" = freeze-rgw ]; then kill -STOP "$pid"; else kill -CONT "$pid"; fi
    ;;
  start-rgw)
    pid_is_ours "$dir" rgw && die "the gateway is running already"
    start_rgw "$dir"
    wait_for_s3 "$dir" $(($(now_ms) + START_TIMEOUT * 1000)) || die "the gateway did not come back"
    ;;
  quota)
    [ $# -eq 4 ] || usage
    timeout 30 radosgw-admin -c "$dir/ceph.conf" quota set --quota-scope=bucket \
      --bucket="$3" --max-size="$4" >"$dir/log/quota.out" 2>&1 &&
      timeout 30 radosgw-admin -c "$dir/ceph.conf" quota enable --quota-scope=bucket \
        --bucket="$3" >>"$dir/log/quota.out" 2>&1 ||
      { cat "$dir/log/quota.out" >&2; die "quota of bucket $3 failed"; }
    ;;
  *) usage ;;
esac
