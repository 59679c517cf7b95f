#!/usr/bin/env bash
# Issue 18's comparison: HopmapLB beside the strategies Charm++ users pick today, on a
# real Charm++ program. Runs tests/client/charm/jacobi2d (BX x BY chares of BLOCK^2
# doubles, a drifting hot spot, AtSync every LB_EVERY iterations) on P PEs taken as
# the P nodes of MACHINE (one PE per node), once per strategy, and reports per
# strategy: hop-bytes of the final placement on the model and max/avg load (both by
# `hopmap eval --balance`, with each chare's mean work factor over the iterations
# before the last balancing step as its load), objects migrated over all steps, the mean LB step time (AtSync to
# ResumeFromSync, mean over chares) and the mean iteration time (noisy on a shared
# 2-core machine: reported, not asserted).
#
# CHARM_TARGET=netlrts-linux-x86_64 runs P processes through charmrun ++local with
# +skip_cpu_topology, so that Charm++ counts each process as a physical node and its
# TopoManager reports a P x 1 x 1 torus: ScotchTopoLB then maps onto the same ring
# as the model, torus:P (the default MACHINE there). The multicore build (default) is
# one process: TopoManager reports 1 x 1 x 1 and ScotchTopoLB puts everything on PE 0.
#
# Needs a built Charm++ (bash deploy/charm/build-charm.sh, with the same CHARM_TARGET)
# and the CMake build.
# Usage: bash bench/charm_compare.sh
# Environment: CHARM_TARGET (multicore-linux-x86_64), P (8), MACHINE
#   (torus:2x2x2:cores=1; netlrts: torus:P:cores=1), BX, BY (16), BLOCK (128),
#   ITERATIONS (60), LB_EVERY (10), STRATEGIES ("GreedyLB RefineLB MetisLB ScotchLB
#   ScotchTopoLB HopmapLB"; the Scotch ones need libscotch-dev when client/charm/build.sh runs),
#   HOPMAPLB_OPTIONS (more +hopmap... options, e.g. "+hopmapMaxMigrations 64"),
#   REPEAT (1: runs of every strategy, in turn, a row each; then the median of the
#   hop-bytes and migrated of each strategy),
#   BUILD (build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
TARGET=${CHARM_TARGET:-multicore-linux-x86_64}
P=${P:-8}
if [[ $TARGET == netlrts-* ]]; then
  MACHINE=${MACHINE:-torus:$P:cores=1}
else
  MACHINE=${MACHINE:-torus:2x2x2:cores=1}
fi
BX=${BX:-16}
BY=${BY:-16}
BLOCK=${BLOCK:-128}
ITERATIONS=${ITERATIONS:-60}
LB_EVERY=${LB_EVERY:-10}
STRATEGIES=${STRATEGIES:-GreedyLB RefineLB MetisLB ScotchLB ScotchTopoLB HopmapLB}
REPEAT=${REPEAT:-1}
HOPMAP=$(realpath "$BUILD/client/hopmap")
HOPMAPD=$(realpath "$BUILD/server/hopmapd/hopmapd")
charm=$(CHARM_TARGET=$TARGET bash deploy/charm/build-charm.sh --find) || {
  echo "${0##*/}: Charm++ ($TARGET) is not built: CHARM_TARGET=$TARGET bash deploy/charm/build-charm.sh" >&2
  exit 1
}
command -v jq >/dev/null || { echo "${0##*/}: jq not found" >&2; exit 1; }
source bench/hopmapd_common.sh
hopmapd_workdir charm_compare
bash client/charm/build.sh "$charm" "$BUILD" "$TMP/bin" >"$TMP/build.log" 2>&1 ||
  { cat "$TMP/build.log"; exit 1; }
start_hopmapd "$TMP/d.out" "$TMP/d.log" --threads 2
"$HOPMAP" gen stencil2d-5 --dims "${BX}x${BY}" --wrap --bytes $((BLOCK * 8)) -o "$TMP/g.edgelist"

if [[ $TARGET == netlrts-* ]]; then
  launch=("$TMP/bin/charmrun" ++local +p"$P" "$TMP/bin/jacobi2d")
  charm_flags=(+skip_cpu_topology)
else
  launch=("$TMP/bin/jacobi2d" +p"$P")
  charm_flags=()
fi
charm_flags+=(+setcpuaffinity)
echo "jacobi2d ${BX}x${BY} chares of ${BLOCK}^2, $ITERATIONS iterations, LB every $LB_EVERY, +p$P ($TARGET) as $MACHINE"
printf "%-12s %12s %8s %9s %12s %12s  %s\n" strategy hop-bytes max/avg migrated "lb step s" "iteration s" note
rows=()
for round in $(seq "$REPEAT"); do
for lb in $STRATEGIES; do
  extra=()
  # shellcheck disable=SC2206  # the options are words
  [[ $lb == HopmapLB ]] && extra=(+hopmapServer "$HOPMAPD_ADDRESS" +hopmapMachine "$MACHINE"
    +hopmapPesPerNode 1 ${HOPMAPLB_OPTIONS:-})
  "${launch[@]}" "${charm_flags[@]}" "$BX" "$BY" "$BLOCK" "$ITERATIONS" "$LB_EVERY" \
    "$TMP/$lb.txt" +balancer "$lb" "${extra[@]}" >"$TMP/$lb.out" 2>&1 ||
    { echo "$lb failed:"; tail -20 "$TMP/$lb.out"; continue; }
  awk '!/^#/ {print $2}' "$TMP/$lb.txt" >"$TMP/$lb.perm"
  awk '!/^#/ {print $3}' "$TMP/$lb.txt" >"$TMP/$lb.loads"
  "$HOPMAP" eval --local --machine "$MACHINE" --graph "$TMP/g.edgelist" --balance \
    --loads "$TMP/$lb.loads" --mapping "$TMP/$lb.perm" >"$TMP/$lb.json"
  hb=$(jq .hop_bytes "$TMP/$lb.json")
  ratio=$(jq '.balance.max_over_avg' "$TMP/$lb.json")
  migrated=$(awk '/^lb step [0-9]+:/ {m += $4} END {print m + 0}' "$TMP/$lb.out")
  lbtime=$(awk '/^lb step [0-9]+:/ {s += $6; n++} END {printf "%.4f", n ? s / n : 0}' "$TMP/$lb.out")
  iter=$(sed -n 's/^done: [0-9]* iterations, \([0-9.]*\) s per iteration.*/\1/p' "$TMP/$lb.out")
  note=""
  if [[ $lb == HopmapLB ]]; then
    # What hopmapd reported at each step, on the loads Charm++ measured.
    note="steps' max/avg as measured: $(sed -n 's/.*max\/avg load \([0-9.]*\).*/\1/p' "$TMP/$lb.out" | paste -sd' ')"
    unbalanced=$(grep -m1 -o 'not balanced: [^;]*' "$TMP/$lb.out" || true)
    [[ -z $unbalanced ]] || note="$note; $unbalanced"
    kept=$(grep -c 'placement kept' "$TMP/$lb.out" || true)
    [[ $kept -eq 0 ]] || note="$note; $kept steps kept the placement"
  fi
  printf "%-12s %12s %8.3f %9s %12s %12s  %s\n" "$lb" "$hb" "$ratio" "$migrated" "$lbtime" "$iter" "$note"
  rows+=("$lb $hb $migrated $ratio")
done
done
if [[ $REPEAT -gt 1 ]]; then
  echo "median over $REPEAT runs:"
  printf "%-12s %12s %9s %8s\n" strategy hop-bytes migrated "max/avg"
  median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
  for lb in $STRATEGIES; do
    mine=$(printf '%s\n' "${rows[@]}" | awk -v lb="$lb" '$1 == lb')
    printf "%-12s %12s %9s %8.3f\n" "$lb" "$(awk '{print $2}' <<<"$mine" | median)" \
      "$(awk '{print $3}' <<<"$mine" | median)" "$(awk '{print $4}' <<<"$mine" | median)"
  done
fi
