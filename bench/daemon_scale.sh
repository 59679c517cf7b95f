#!/usr/bin/env bash
# Large Maps through the daemon (issue 6): starts a real hopmapd on a free loopback port
# with its default limits, and maps 65,536 and 1,048,576 tasks through it with
# `hopmap map --server` under a pseudo-terminal (script -qc), so the client draws its
# progress bar. For each request it checks the reply (a JSON report with every task
# placed and hop-bytes equal to `hopmap eval`'s recomputation on the returned mapping)
# and prints: the request's size, client wall seconds and peak RSS, the daemon's own
# seconds for the call (its log line) and its peak RSS so far, and the distinct best
# hop-bytes the progress bar showed, in order.
#
# Graphs: 3D 7-point stencils 32x32x64 and 64x128x128 (periodic; in-order is already at
# the lower bound there, so the progress shows one value) and random geometric graphs of
# 65,536 and 1,048,576 tasks (mean degree ~8: ~8.4M directed CSR entries at 1M); machine:
# a 3D torus with one slot per task and 1 core per node (32x32x64, 64x128x128).
#
# Usage: bash bench/daemon_scale.sh
# Environment: HOPMAP (default build/client/hopmap), HOPMAPD (default
# build/server/hopmapd/hopmapd), ALGORITHM (default auto), TIME_LIMIT (default: none
# passed, the CLI's default), CASES (regex on the case names, default all), KEEP_TMP=1,
# SCALING_CACHE (graphs kept there between runs; default the temp dir).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

HOPMAP=$(realpath "${HOPMAP:-build/client/hopmap}")
HOPMAPD=$(realpath "${HOPMAPD:-build/server/hopmapd/hopmapd}")
ALGORITHM=${ALGORITHM:-auto}
CASES=${CASES:-.}

die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
[[ -x $HOPMAP ]] || die "no $HOPMAP (ninja -C build hopmap)"
[[ -x $HOPMAPD ]] || die "no $HOPMAPD (ninja -C build hopmapd)"
for tool in jq script /usr/bin/time; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/daemon_scale.XXXXXX")
DAEMON_PID=
cleanup() {
  [[ -n $DAEMON_PID ]] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
  if [[ ${KEEP_TMP:-0} == 1 ]]; then echo "daemon_scale: keeping $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
CACHE=${SCALING_CACHE:-$TMP}
mkdir -p "$CACHE"

# name | hopmap gen arguments | machine
CASE_LIST=(
  "stencil3d 65536|stencil3d-7 --dims 32x32x64 --wrap|torus:32x32x64:cores=1"
  "random-geometric 65536|random-geometric --tasks 65536 --seed 1|torus:32x32x64:cores=1"
  "stencil3d 1048576|stencil3d-7 --dims 64x128x128 --wrap|torus:64x128x128:cores=1"
  "random-geometric 1048576|random-geometric --tasks 1048576 --seed 1|torus:64x128x128:cores=1"
)

# The daemon, default limits, its log in TMP; the port from its "listening on" line.
source bench/hopmapd_common.sh
start_hopmapd "$TMP/daemon.out" "$TMP/daemon.log"
DAEMON_PID=$HOPMAPD_PID
ADDRESS=$HOPMAPD_ADDRESS
daemon_rss_mb() { echo $(($(awk '/^VmHWM/ {print $2}' "/proc/$DAEMON_PID/status") / 1024)); }

time_flag=()
[[ -n ${TIME_LIMIT:-} ]] && time_flag=(--time-limit "$TIME_LIMIT")

echo "hopmapd at $ADDRESS (default limits), hopmap map --server --algorithm $ALGORITHM" \
  "${time_flag[*]:-(default budget)}; $(date -u +%F), $(nproc) cores, load" \
  "$(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| case | graph file MB | directed edges | client s | client MB | daemon call s | daemon peak MB | hop-bytes | eval agrees | progress: best hop-bytes seen |"
echo "|---|---|---|---|---|---|---|---|---|---|"
failed=0
for c in "${CASE_LIST[@]}"; do
  IFS='|' read -r name gen machine <<<"$c"
  [[ $name =~ $CASES ]] || continue
  id=$(echo "$name" | tr -c 'A-Za-z0-9' '_')
  graph="$CACHE/daemon.$id.edgelist"
  # shellcheck disable=SC2086
  [[ -s $graph ]] || "$HOPMAP" gen $gen -o "$graph"
  mb=$(($(stat -c %s "$graph") / 1048576))
  lines_before=$(wc -l <"$TMP/daemon.log")
  cmd=$(printf '%q ' /usr/bin/time -f "%e %M" -o "$TMP/$id.time" "$HOPMAP" map --server "$ADDRESS" \
    --machine "$machine" --graph "$graph" --algorithm "$ALGORITHM" "${time_flag[@]}" \
    --format json -o "$TMP/$id.json")
  # The pty makes stderr a terminal: the progress bar is drawn into the typescript.
  if ! script -qec "$cmd" "$TMP/$id.tty" >/dev/null 2>&1 || [[ ! -s $TMP/$id.json ]]; then
    echo "| $name | $mb | | FAILED | | | | | | $(tr '\r' '\n' <"$TMP/$id.tty" | tail -2 | tr '\n' ' ') |"
    failed=$((failed + 1))
    continue
  fi
  read -r wall rss_kb <"$TMP/$id.time"
  read -r tasks hb < <(jq -r '[.tasks, .hop_bytes] | @tsv' "$TMP/$id.json")
  edges=$((2 * $(grep -vc '^#' "$graph")))
  jq -r '.slot_of_task[]' "$TMP/$id.json" >"$TMP/$id.perm"
  placed=$(wc -l <"$TMP/$id.perm")
  distinct=$(sort -un "$TMP/$id.perm" | wc -l)
  hb_eval=$("$HOPMAP" eval --local --machine "$machine" --graph "$graph" --mapping "$TMP/$id.perm" \
    --format json | jq -r .hop_bytes)
  agrees=no
  [[ $placed == "$tasks" && $distinct == "$tasks" && $hb_eval == "$hb" ]] && agrees=yes
  [[ $agrees == yes ]] || failed=$((failed + 1))
  call_s=$(tail -n +"$((lines_before + 1))" "$TMP/daemon.log" | sed -n 's/.*method=MapStream.* seconds=\([0-9.]*\).*/\1/p' | tail -1)
  # Progress lines are separated by '\r'; keep the distinct best hop-bytes in order.
  progress=$(tr '\r' '\n' <"$TMP/$id.tty" | sed -n 's/.*best hop-bytes \([0-9][0-9]*\).*/\1/p' |
    uniq | paste -sd '>' | sed 's/>/ > /g')
  printf '| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s |\n' "$name" "$mb" "$edges" \
    "$wall" "$((rss_kb / 1024))" "${call_s:-?}" "$(daemon_rss_mb)" "$hb" "$agrees" "${progress:--}"
done
echo
echo "Daemon log:"
sed 's/^/    /' "$TMP/daemon.log"
((failed == 0)) || die "$failed case(s) failed"
