#!/usr/bin/env bash
# The time hopmap-prolog adds at job start (issue 16): runs deploy/slurm/hopmap-prolog
# RUNS times per case with the environment slurmctld gives it (SLURM_JOB_NODELIST,
# SLURM_JOB_CPUS_PER_NODE, SLURM_JOB_COMMENT, ...), against a real hopmapd (warm: one
# untimed run first), and prints p50/p99/max wall seconds per case. The machine is a
# two-level tree from a generated topology.conf: 32 leaf switches of 32 nodes
# (c0000..c1023), 32 CPUs per node. Jobs: 3D stencils of 64 (2 nodes), 1,024 (32
# nodes) and 16,384 ranks (512 nodes); then the 1,024-rank job with the daemon down.
# slurmctld waits for PrologSlurmctld before the job starts, so this is the delay.
#
# Usage: bash bench/slurm_prolog.sh
# Environment: RUNS (default 50), TIME_LIMIT (the prolog's HOPMAP_TIME_LIMIT,
# default 1), HOPMAP, HOPMAPD (default build/...), KEEP_TMP=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HOPMAP=$(realpath "${HOPMAP:-build/client/hopmap}")
HOPMAPD=$(realpath "${HOPMAPD:-build/server/hopmapd/hopmapd}")
RUNS=${RUNS:-50}
PROLOG=$PWD/deploy/slurm/hopmap-prolog
die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
[[ -x $HOPMAP && -x $HOPMAPD ]] || die "build hopmap and hopmapd first"
source bench/hopmapd_common.sh

TMP=$(mktemp -d "${TMPDIR:-/tmp}/slurm_prolog.XXXXXX")
daemon_pid=""
cleanup() {
  [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null || true
  [[ ${KEEP_TMP:-0} == 1 ]] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT

{
  for s in $(seq 0 31); do
    printf 'SwitchName=leaf%02d Nodes=c[%04d-%04d]\n' "$s" $((s * 32)) $((s * 32 + 31))
  done
  echo "SwitchName=spine Switches=leaf[00-31]"
} >"$TMP/topology.conf"
"$HOPMAP" gen stencil3d-7 --dims 4x4x4 --wrap -o "$TMP/g64.mtx"
"$HOPMAP" gen stencil3d-7 --dims 16x8x8 --wrap -o "$TMP/g1024.mtx"
"$HOPMAP" gen stencil3d-7 --dims 32x32x16 --wrap -o "$TMP/g16384.mtx"

start_hopmapd "$TMP/hopmapd.out" "$TMP/hopmapd.log"
daemon_pid=$HOPMAPD_PID
address=$HOPMAPD_ADDRESS
mkdir -p "$TMP/hostfiles"

write_conf() {  # SERVER
  cat >"$TMP/prolog.conf" <<CONF
HOPMAP_SERVER=$1
HOPMAP_MACHINE=slurm:$TMP/topology.conf
HOPMAP_DEADLINE=5
HOPMAP_TIME_LIMIT=${TIME_LIMIT:-1}
HOPMAP_HOSTFILE_DIR=$TMP/hostfiles
HOPMAP_BIN=$HOPMAP
HOPMAP_LOG_FILE=$TMP/prolog.log
CONF
}

# One case: RANKS NODELIST NODES LABEL; prints a table row.
run_case() {
  local ranks=$1 nodelist=$2 nodes=$3 label=$4
  local times=()
  for i in $(seq 0 "$RUNS"); do
    local start end
    start=$(date +%s.%N)
    env -i HOPMAP_PROLOG_CONF="$TMP/prolog.conf" SLURM_JOB_ID="$ranks$i" \
      SLURM_JOB_NODELIST="$nodelist" SLURM_JOB_CPUS_PER_NODE="32(x$nodes)" \
      SLURM_JOB_COMMENT="hopmap:$TMP/g$ranks.mtx" SLURM_JOB_UID="$(id -u)" \
      SLURM_JOB_GID="$(id -g)" SLURM_JOB_WORK_DIR="$TMP" "$PROLOG" 2>/dev/null
    end=$(date +%s.%N)
    [[ $i -eq 0 ]] && continue  # warm-up: the daemon builds and caches the allocation
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')")
  done
  local mapped
  mapped=$(grep -c "job $ranks[0-9]*: mapped" "$TMP/prolog.log" || true)
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$RUNS" -v mapped="$mapped" '
    { t[NR] = $1 }
    END {
      p50 = t[int((NR + 1) / 2)]; i99 = int(0.99 * NR + 0.999); if (i99 < 1) i99 = 1
      printf "| %s | %d | %.3f | %.3f | %.3f | %s |\n", label, n, p50, t[i99], t[NR], mapped
    }'
  : >"$TMP/prolog.log"
}

echo "hopmapd $address; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ); HOPMAP_TIME_LIMIT=${TIME_LIMIT:-1}"
echo
echo "| job | runs | p50 s | p99 s | max s | log lines 'mapped' (incl. warm-up) |"
echo "|---|---|---|---|---|---|"
write_conf "$address"
run_case 64 "c[0040-0041]" 2 "64 ranks, 2 nodes, daemon warm"
run_case 1024 "c[0100-0131]" 32 "1,024 ranks, 32 nodes, daemon warm"
run_case 16384 "c[0200-0711]" 512 "16,384 ranks, 512 nodes, daemon warm"
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null || true
daemon_pid=""
write_conf "$address"  # the same address, nobody listening
run_case 1024 "c[0100-0131]" 32 "1,024 ranks, daemon down"
