#!/usr/bin/env bash
# hopmap against SharedMap (Schulz and Woydt 2025, the best published mapper onto
# hierarchical machines), side by side in one run, on the same balanced problem and
# instances as bench/hierarchy_scotch.sh: n objects onto k = a1 x ... x al PEs, each PE
# at most ceil((1 + eps) n / k) objects, minimising sum w(u,v) * D(PE(u), PE(v)) with
# H = a1:a2:a3 (lowest level first), D = 1:10:100, eps = 3%.
# hopmap runs exactly as in hierarchy_scotch.sh (`map --balance` on the
# `hierarchy:A1xA2xA3:distances=1,10,100` machine); SharedMap runs as
# `SharedMap -g G.graph -m OUT -h A1:A2:A3 -d 1:10:100 -e 0.03 -c CONFIG -t THREADS
# -s nb_layer --seed SEED` on the same graph written in METIS format by `hopmap convert`.
# Its output (line i: the PE of object i; its PE ids put the lowest level fastest, as
# hopmap's hierarchy does) is a hopmap perm; each tool's cost is recomputed by
# `hopmap eval` (hop_bytes), and SharedMap's own "Final QAP", which counts every edge in
# both directions, is checked to be twice that number.
#
# Usage: bash bench/hierarchy_sharedmap.sh [quick|instances|full]
#   quick: random geometric 2^15 and a 3D grid 32^3 onto 4:16:16; instances: the six
#          graphs of data/instances/ onto 4:16:16; full: 2^15-2^17 random geometric,
#          2D 256x256 and 3D 32^3 grids and those six onto 4:16:16, 4:16:64, 4:8:6.
# Build SharedMap first: bash bench/sharedmap/build.sh (about 20 minutes on 2 cores).
# Environment: BUILD (build), SHAREDMAP (the SharedMap binary; default
#   ${BUILD_ROOT:-/tmp/sharedmap-build}/SharedMap/build/SharedMap), SM_CONFIG (strong:
#   fast, eco or strong), SM_THREADS (1: its serial KaFFPa path, the same answer every
#   run for a seed; with more threads it uses Mt-KaHyPar and varies run to run),
#   SM_SEED (1), REPS (1: each tool once; more: the median time, the last run's cost),
#   TIME_LIMIT (hopmap's budget; unset: its default), KEEP_TMP=1 (keep the temp dir).
# Wall times are of each whole process, reading the graph included.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() {
  echo "${0##*/}: $*" >&2
  exit 1
}

BUILD=${BUILD:-build}
HOPMAP=$(realpath -m "$BUILD/client/hopmap")
SHAREDMAP=${SHAREDMAP:-${BUILD_ROOT:-/tmp/sharedmap-build}/SharedMap/build/SharedMap}
SM_CONFIG=${SM_CONFIG:-strong}
SM_THREADS=${SM_THREADS:-1}
SM_SEED=${SM_SEED:-1}
REPS=${REPS:-1}
mode=${1:-quick}
EPS=0.03

[[ -x $HOPMAP ]] || die "hopmap binary $HOPMAP not found: build it with 'bash deploy/build.sh'"
[[ -x $SHAREDMAP ]] ||
  die "SharedMap binary $SHAREDMAP not found: build it with 'bash bench/sharedmap/build.sh' (or set SHAREDMAP)"
for tool in jq bc awk; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (apt-get install jq bc gawk)"
done
[[ $SM_CONFIG =~ ^(fast|eco|strong)$ ]] || die "SM_CONFIG must be fast, eco or strong, got '$SM_CONFIG'"
[[ $SM_THREADS =~ ^[1-9][0-9]*$ ]] || die "SM_THREADS must be a positive integer, got '$SM_THREADS'"
[[ $SM_SEED =~ ^[0-9]+$ ]] || die "SM_SEED must be a non-negative integer, got '$SM_SEED'"
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer, got '$REPS'"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hierarchy_sharedmap.XXXXXX")
if [[ ${KEEP_TMP:-0} == 1 ]]; then
  echo "${0##*/}: keeping $TMP" >&2
else
  trap 'rm -rf "$TMP"' EXIT
fi

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Runs "$@" REPS times (stdout in $TMP/last.out); prints the median wall seconds.
timed() {
  local r t0 t1
  for ((r = 0; r < REPS; r++)); do
    t0=$(now)
    "$@" >"$TMP/last.out" 2>"$TMP/last.err" || {
      cat "$TMP/last.out" "$TMP/last.err" >&2
      die "failed: $*"
    }
    t1=$(now)
    echo "$t1 - $t0" | bc -l
  done | median
}

# shellcheck source=bench/hierarchy_common.sh
source bench/hierarchy_common.sh
select_instances "$mode"

echo "SharedMap: -c $SM_CONFIG -t $SM_THREADS -s nb_layer --seed $SM_SEED; hopmap: map --balance, ${TIME_LIMIT:+--time-limit $TIME_LIMIT}${TIME_LIMIT:-default budget}; REPS=$REPS"
echo
printf '| graph | H | hopmap cost | SharedMap cost | cost ratio | hopmap s | SharedMap s | time ratio | most per PE <= ceil((1+eps)n/k): hopmap / SharedMap |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
ratios=() time_ratios=()
for g in "${graphs[@]}"; do
  gen_graph "$g"
  "$HOPMAP" convert "$TMP/$g.edgelist" -o "$TMP/$g.graph" >/dev/null
  n=$(awk '!/^%/ {print $1; exit}' "$TMP/$g.graph")
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "cannot read the object count of $TMP/$g.graph"
  for h in "${hierarchies[@]}"; do
    set_hierarchy "$h" "$n"
    t_hm=$(timed hopmap_map "$TMP/$g.edgelist" "$TMP/hm.json")
    t_sm=$(timed "$SHAREDMAP" -g "$TMP/$g.graph" -m "$TMP/sm.map" -h "${h}" \
      -d "${distances//,/:}" -e "$EPS" -c "$SM_CONFIG" -t "$SM_THREADS" -s nb_layer \
      --seed "$SM_SEED")
    qap=$(sed -n 's/^Final QAP *: *\([0-9]*\).*/\1/p' "$TMP/last.out")
    lmax=$(sed -n 's/^Lmax *: *\([0-9]*\).*/\1/p' "$TMP/last.out")
    [[ -n $qap ]] || die "no 'Final QAP' in SharedMap's output on $g onto $h"
    [[ $lmax == "$cap" ]] || die "SharedMap's cap Lmax ($lmax) is not ceil((1+eps)n/k) = $cap"
    awk -v n="$n" -v k="$k" '
      { if ($1 !~ /^[0-9]+$/ || $1 >= k) bad = 1 }
      END { if (NR != n || bad) exit 1 }' "$TMP/sm.map" ||
      die "SharedMap's mapping of $g onto $h is not $n PE ids below $k"
    eval_mapping "$TMP/$g.edgelist" "$TMP/hm.json" >"$TMP/hm.eval"
    eval_mapping "$TMP/$g.edgelist" "$TMP/sm.map" >"$TMP/sm.eval"
    c_hm=$(jq -r .hop_bytes "$TMP/hm.eval")
    c_sm=$(jq -r .hop_bytes "$TMP/sm.eval")
    # SharedMap's own cost counts each edge from both ends: twice hopmap eval's.
    [[ $qap == $((2 * c_sm)) ]] ||
      die "SharedMap's Final QAP of $g onto $h ($qap) is not twice hopmap eval's cost ($c_sm): the PE numbering or the graph differs"
    b_hm=$(balance_note "$TMP/hm.eval")
    b_sm=$(balance_note "$TMP/sm.eval")
    ratio=$(echo "scale=4; $c_hm / $c_sm" | bc -l)
    tratio=$(echo "scale=3; $t_hm / $t_sm" | bc -l)
    ratios+=("$ratio")
    time_ratios+=("$tratio")
    printf '| %s (n=%d) | %s (k=%d) | %d | %d | %.3f | %.2f | %.2f | %.2f | %s / %s (cap %d) |\n' \
      "$g" "$n" "$h" "$k" "$c_hm" "$c_sm" "$ratio" "$t_hm" "$t_sm" "$tratio" "$b_hm" "$b_sm" "$cap"
  done
done
echo
echo "geometric mean over ${#ratios[@]} rows: cost $(geo "${ratios[@]}")x SharedMap's, time $(geo "${time_ratios[@]}")x"
