#!/usr/bin/env bash
# Scale-out (issue 21): requests/s and latency of 1,024-task Maps against 1, 2 and 3
# hopmapd replicas sharing a catalog in a real etcd, all on this machine. Each
# replica runs one solve at a time on one thread (--threads 1 --max-concurrent 1,
# the share of a pod asking for one core; queued calls wait); the client
# (bench/replica_throughput) keeps CLIENTS calls outstanding, spread round-robin
# over the replicas. Prints, per replica count: requests/s, p50, p99, failures,
# the calls each replica served, and each replica's peak resident memory (VmHWM).
# On a 2-core machine the rate cannot grow past two replicas' worth: the point is
# to see where it stops, and that the spreading itself costs nothing. One replica
# with --max-concurrent 2 (REFERENCE=1, the default daemon's concurrency) is the
# reference for two cores in one process.
#
# Usage: bash bench/replicas.sh
# Environment: CLIENTS (8), DURATION (20 s per count), COUNTS ("1 2 3"), REFERENCE
#   (1: also one replica with --max-concurrent 2), BUILD (build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
CLIENTS=${CLIENTS:-8}
DURATION=${DURATION:-20}
COUNTS=${COUNTS:-1 2 3}
HOPMAPD=$(realpath "$BUILD/server/hopmapd/hopmapd")
GENERATOR=$(realpath "$BUILD/bench/replica_throughput")
die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
command -v etcd >/dev/null || die "etcd not found (bash deploy/install-deps.sh)"
[[ -x $GENERATOR ]] || die "no $GENERATOR (ninja -C $BUILD replica_throughput)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/replicas.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
client_port=$(free_port)
peer_port=$(free_port)
etcd --name bench --data-dir "$TMP/etcd" --listen-client-urls "http://127.0.0.1:$client_port" \
  --advertise-client-urls "http://127.0.0.1:$client_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "bench=http://127.0.0.1:$peer_port" >"$TMP/etcd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$client_port") 2>/dev/null && break
  sleep 0.1
done

echo "1,024-task Maps (stencil2d 32x32 on 256 nodes of bgp-8x8x8, rec-bisect), $CLIENTS clients, ${DURATION} s per count, $(nproc) cores"
runs=()
for count in $COUNTS; do runs+=("$count:1"); done
[[ ${REFERENCE:-1} == 1 ]] && runs+=("1:2")
for run in "${runs[@]}"; do
  count=${run%%:*}
  concurrent=${run##*:}
  replica_pids=()
  addresses=()
  for i in $(seq "$count"); do
    "$HOPMAPD" --listen 127.0.0.1:0 --catalog "etcd://127.0.0.1:$client_port/bench" \
      --threads 1 --max-concurrent "$concurrent" >"$TMP/r$count-$i.out" 2>"$TMP/r$count-$i.log" &
    replica_pids+=($!)
    pids+=($!)
  done
  for i in $(seq "$count"); do
    for _ in $(seq 300); do
      grep -q "listening on" "$TMP/r$count-$i.out" 2>/dev/null && break
      sleep 0.1
    done
    addresses+=("$(sed -n 's/^hopmapd: listening on //p' "$TMP/r$count-$i.out")")
  done
  list=$(IFS=,; echo "${addresses[*]}")
  result=$("$GENERATOR" --server "$list" --clients "$CLIENTS" --duration "$DURATION" || true)
  served=()
  memory=()
  for i in $(seq "$count"); do
    served+=("$(grep -c 'method=Map .*status=OK' "$TMP/r$count-$i.log" || true)")
    memory+=("$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/${replica_pids[$((i - 1))]}/status")")
  done
  echo "$count replica(s), --max-concurrent $concurrent: $result; served ${served[*]}; peak RSS MiB ${memory[*]}"
  for p in "${replica_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
done
