#!/usr/bin/env bash
# Load and soak (issue 15): starts a real hopmapd on a free loopback port with its
# default limits (--max-concurrent 2, --max-queued 64) and --threads 1, then runs
# bench/load_generator against it: a closed-loop calibration (CALIBRATE seconds, the
# sustainable rate R), then an open loop at OVERLOAD x R for DURATION seconds with a
# mix of 64- to 32,768-task Maps. The generator checks every answer, that every
# refusal is RESOURCE_EXHAUSTED, and that the daemon's RSS stops growing; this script
# then stops the daemon with SIGTERM (it must exit 0) and counts its log lines by
# status. Exits 1 if any check failed.
#
# Usage: bash bench/load.sh
# Environment: DURATION (default 600), CALIBRATE (default 30), OVERLOAD (default 2),
# HOPMAPD (default build/server/hopmapd/hopmapd), LOAD_GENERATOR (default
# build/bench/load_generator), HOPMAPD_ARGS (extra daemon flags), KEEP_TMP=1.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

HOPMAPD=$(realpath "${HOPMAPD:-build/server/hopmapd/hopmapd}")
LOAD_GENERATOR=$(realpath "${LOAD_GENERATOR:-build/bench/load_generator}")
DURATION=${DURATION:-600}
CALIBRATE=${CALIBRATE:-30}
OVERLOAD=${OVERLOAD:-2}

die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
[[ -x $HOPMAPD ]] || die "no $HOPMAPD (ninja -C build hopmapd)"
[[ -x $LOAD_GENERATOR ]] || die "no $LOAD_GENERATOR (ninja -C build load_generator)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hopmap_load.XXXXXX")
daemon_pid=""
cleanup() {
  [[ -n $daemon_pid ]] && kill -9 "$daemon_pid" 2>/dev/null || true
  [[ ${KEEP_TMP:-0} == 1 ]] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT

source bench/hopmapd_common.sh
# shellcheck disable=SC2086
start_hopmapd "$TMP/hopmapd.out" "$TMP/hopmapd.log" --threads 1 ${HOPMAPD_ARGS:-}
daemon_pid=$HOPMAPD_PID
address=$HOPMAPD_ADDRESS
echo "hopmapd $address (pid $daemon_pid), $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"

status=0
"$LOAD_GENERATOR" --server "$address" --pid "$daemon_pid" --duration "$DURATION" \
  --calibrate "$CALIBRATE" --overload "$OVERLOAD" || status=1

peak_kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$daemon_pid/status" 2>/dev/null || echo "?")
kill -TERM "$daemon_pid"
daemon_status=0
wait "$daemon_pid" || daemon_status=$?
daemon_pid=""
echo
echo "hopmapd peak RSS (VmHWM): $((peak_kb / 1024)) MB; exit status after SIGTERM: $daemon_status"
[[ $daemon_status -eq 0 ]] || status=1
echo "hopmapd log lines by status:"
grep -o 'status=[A-Z_]*' "$TMP/hopmapd.log" | sort | uniq -c | sed 's/^/  /'
exit $status
