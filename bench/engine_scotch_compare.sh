#!/usr/bin/env bash
# The general mapping engine vs Scotch (issue 4): 4096-node targets, irregular and regular
# graphs. For each case hopmap's `auto` (every applicable mapper, then refine) runs with
# a 10 s budget and Scotch 7 runs side by side with `scotch_gmap-int64 -Cd -b0`
# (DESIGN.md, Peers); hop-bytes of both are recomputed with `hopmap eval` on the same
# machine, allocation and graph. Prints a Markdown table.
#
# Targets (one core per node):
#  - torus 16x16x16, the whole machine            Scotch: torus3D 16 16 16
#  - Kraken-like torus 25x16x24, a fragmented 4096-node allocation (8 blocks of 512,
#    stride 1200)                                   Scotch: sub 4096 <ids> torus3D 25 16 24
#  - fat tree 64x64 (64 leaf switches of 64 nodes: 2 hops inside a switch, 4 across)
#                                                   Scotch: tleaf 2 64 4 64 2
# Graphs: 2D 5-point 64x64 and 3D 7-point 16^3 stencils (periodic), a 4096-task random
# geometric graph, and the ~1000-rank real graphs of data/commgraphs as they
# are (fewer tasks than nodes: nodes stay empty; in-order fills the first ones).
#
# Usage: bash bench/engine_scotch_compare.sh [CASE_FILTER_REGEX]
# Environment: HOPMAP (default build/client/hopmap), TIME_LIMIT (hopmap budget, default
# 10), ALGORITHM (default auto), REPS (timed runs, default 1), SCOTCH_LIB, KEEP_TMP=1,
# DATA (default data/ in the repository).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

HOPMAP=${HOPMAP:-build/client/hopmap}
SCOTCH_LIB=${SCOTCH_LIB:-/usr/lib/x86_64-linux-gnu/scotch-int64}
REPS=${REPS:-1}
TIME_LIMIT=${TIME_LIMIT:-10}
ALGORITHM=${ALGORITHM:-auto}
DATA=${DATA:-data}
FILTER=${1:-.}

source bench/scotch_common.sh

[[ -d $DATA/commgraphs ]] || die "no $DATA/commgraphs (set DATA)"

# Scotch mapping -> hopmap perm for a graph of $2 tasks onto $3 targets (targets may
# stay empty): fails unless every task has a distinct target in range.
scotch_to_perm_sparse() {
  local map=$1 ntasks=$2 ntargets=$3 perm=$4
  tail -n +2 "$map" | sort -n -k1,1 | awk -v n="$ntasks" -v m="$ntargets" '
    { if ($1 != NR - 1 || $2 < 0 || $2 >= m || seen[$2]++) bad = 1; print $2 }
    END { if (NR != n || bad) exit 1 }' >"$perm" ||
    die "Scotch's mapping $map does not place each of $ntasks tasks on its own target"
}

# target name | hopmap machine | hopmap nodes | Scotch target file body
KRAKEN_NODES=$(blocks 8 512 1200)
TARGETS=(
  "torus 16x16x16|torus:16x16x16:cores=1|0-4095|torus3D 16 16 16"
  "kraken 25x16x24, 8 blocks of 512|torus:25x16x24:cores=1|$KRAKEN_NODES|sub 4096 $(expand_nodes "$KRAKEN_NODES") torus3D 25 16 24"
  "fat tree 64x64|fattree:64x64:cores=1|0-4095|tleaf 2 64 4 64 2"
)

# graph name | file (generated into TMP when it starts with gen:)
GRAPHS=(
  "stencil2d-5 64x64|gen:stencil2d-5 --dims 64x64 --wrap"
  "stencil3d-7 16^3|gen:stencil3d-7 --dims 16x16x16 --wrap"
  "random-geometric 4096|gen:random-geometric --tasks 4096 --seed 1"
)
for f in "$DATA"/commgraphs/cnca_*_1[0-9][0-9][0-9].edgelist; do
  b=$(basename "$f" .edgelist)
  GRAPHS+=("${b#cnca_}|$f")
done

echo "Budget: hopmap --time-limit $TIME_LIMIT --algorithm $ALGORITHM; Scotch -Cd -b0. $(date -u +%F)"
echo
echo "| target | graph | tasks | in-order HB | hopmap HB (winner) | Scotch HB | hopmap / Scotch | <= 0.85 | 0.85 x Scotch >= LB | <= in-order | gap to LB (bound) | hopmap s | Scotch s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"

fails_085=0 fails_inorder=0 cases=0 unreachable=0
for t in "${TARGETS[@]}"; do
  IFS='|' read -r tname machine nodes scotch_target <<<"$t"
  tid=$(echo "$tname" | tr -c 'A-Za-z0-9' '_')
  echo "$scotch_target" >"$TMP/$tid.tgt"
  for g in "${GRAPHS[@]}"; do
    IFS='|' read -r gname gsrc <<<"$g"
    [[ "$tname $gname" =~ $FILTER ]] || continue
    gid=$(echo "$gname" | tr -c 'A-Za-z0-9' '_')
    edges="$TMP/$gid.edgelist"
    grf="$TMP/$gid.grf"
    if [[ ! -f $edges ]]; then
      if [[ $gsrc == gen:* ]]; then
        # shellcheck disable=SC2086
        "$HOPMAP" gen ${gsrc#gen:} -o "$edges"
      else
        cp "$gsrc" "$edges"
      fi
      "$HOPMAP" convert "$edges" -o "$grf"
    fi
    id="$tid.$gid"
    t_hop=$(timed "$HOPMAP" map --local --machine "$machine" --nodes "$nodes" --graph "$edges" \
      --algorithm "$ALGORITHM" --time-limit "$TIME_LIMIT" --format json -o "$TMP/$id.json")
    read -r ntasks hb inorder lb method winner < <(jq -r \
      '[.tasks, .hop_bytes, .baseline_hop_bytes, .lower_bound, .lower_bound_method, .algorithm] | @tsv' \
      "$TMP/$id.json")
    t_sc=$(timed scotch_gmap-int64 -Cd -b0 "$grf" "$TMP/$tid.tgt" "$TMP/$id.map")
    scotch_to_perm_sparse "$TMP/$id.map" "$ntasks" 4096 "$TMP/$id.perm"
    hb_sc=$(eval_hop_bytes "$machine" "$nodes" "$edges" "$TMP/$id.perm")
    ratio=$(echo "scale=6; $hb / $hb_sc" | bc -l)
    ok=$(echo "$ratio <= 0.85" | bc -l)
    if [[ $ok == 1 ]]; then ok=yes; else ok=no; fails_085=$((fails_085 + 1)); fi
    if ((hb <= inorder)); then io=yes; else io=no; fails_inorder=$((fails_inorder + 1)); fi
    # Where 0.85 x Scotch is below the lower bound, no mapping can meet the target.
    if (($(echo "0.85 * $hb_sc >= $lb" | bc -l))); then reachable=yes; else
      reachable="no: LB is $(echo "scale=3; $lb / $hb_sc" | bc -l) x Scotch"
      unreachable=$((unreachable + 1))
    fi
    if ((lb > 0)); then gap=$(echo "scale=3; $hb / $lb" | bc -l); else gap="-"; fi
    cases=$((cases + 1))
    printf '| %s | %s | %s | %s | %s (%s) | %s | %.3f | %s | %s | %s | %s (%s) | %.2f | %.2f |\n' \
      "$tname" "$gname" "$ntasks" "$inorder" "$hb" "$winner" "$hb_sc" "$ratio" "$ok" "$reachable" "$io" \
      "$gap" "$method" "$t_hop" "$t_sc"
  done
done
echo
echo "Cases: $cases; hopmap above 0.85x Scotch: $fails_085 (in $unreachable of all cases 0.85x" \
  "Scotch is below the lower bound: no mapping can reach it); hopmap above in-order: $fails_inorder" \
  "(wall times: whole processes including I/O, median of $REPS)."
