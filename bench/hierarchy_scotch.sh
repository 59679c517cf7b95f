#!/usr/bin/env bash
# Issue 34's benchmark against the field, side by side in one run: the balanced
# problem on hierarchical machines (n objects onto k = a1 x ... x al PEs, each PE at
# most (1 + eps) of the average load, minimising sum w(u,v) * D(PE(u), PE(v))), as
# the process-mapping literature measures it (H = a1:a2:...:al, D = d1:d2:...:dl,
# eps = 3%), with hopmap's `hierarchy:` machine and `map --balance`, against Scotch 7's
# `tleaf` target with the same levels and costs. tleaf lists its levels top first and
# its link costs add up along the path, so H = 4:16:16 with D = 1:10:100 is
# `tleaf 3 16 90 16 9 4 1` (a pair's cost is the sum of the level values from the
# bottom up to their lowest common level: 1, 1 + 9 = 10, 1 + 9 + 90 = 100;
# Scotch's gmtst-int64 on its own mapping gives the same cost as hopmap's eval, checked
# below).
# The cost of each tool's mapping is recomputed by `hopmap eval` (hop-bytes on the
# hierarchy: w x D summed over edges), and the balance is checked there too.
#
# Usage: bash bench/hierarchy_scotch.sh [quick|instances|full|one-per-pe]
#   quick: random geometric 2^15 and a 3D grid 32^3 onto 4:16:16 (the issue's two
#          figures); instances: the six graphs of data/instances/ (KaHIP's, Walshaw's
#          and DIMACS10's) onto 4:16:16; full: 2^15-2^17 random geometric, 2D 256x256
#          and 3D 32^3 grids and those six onto 4:16:16, 4:16:64 and 4:8:6; one-per-pe: as many objects as PEs (a
#          random geometric graph and a 2D grid onto each hierarchy), one per PE:
#          `hopmap map` without --balance against Scotch with -b0.
# Environment: BUILD (build), REPS (1: each tool once), TIME_LIMIT (hopmap's budget;
# unset: its default).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
REPS=${REPS:-1}
SCOTCH_LIB=${SCOTCH_LIB:-/usr/lib/x86_64-linux-gnu/scotch-int64}
# shellcheck source=bench/scotch_common.sh
source bench/scotch_common.sh
mode=${1:-quick}
EPS=0.03

# The tleaf target of arities a1..al (lowest first) and distances d1..dl: levels top
# first, each level's link value the difference of its distance and the next lower.
tleaf() {
  local arities=$1 distances=$2
  IFS=x read -ra a <<<"$arities"
  IFS=, read -ra d <<<"$distances"
  local l=${#a[@]} i value
  local out="tleaf $l"
  for ((i = l - 1; i >= 0; i--)); do
    if ((i == 0)); then value=${d[0]}; else value=$((d[i] - d[i - 1])); fi
    out+=" ${a[i]} $value"
  done
  echo "$out"
}

# shellcheck source=bench/hierarchy_common.sh
source bench/hierarchy_common.sh
# (graph, hierarchy) pairs: every graph onto every hierarchy, or for one-per-pe a graph
# of k objects onto each.
pairs=()
if [[ $mode == one-per-pe ]]; then
  EPS=0 ONE_PER_PE=1
  pairs=(rgg-1024/4:16:16 grid2d-32x32/4:16:16 rgg-4096/4:16:64 grid2d-64x64/4:16:64
    rgg-192/4:8:6 grid2d-16x12/4:8:6)
else
  select_instances "$mode"
  for g in "${graphs[@]}"; do
    for h in "${hierarchies[@]}"; do pairs+=("$g/$h"); done
  done
fi

printf '| graph | H | hopmap cost | Scotch cost | cost ratio | hopmap s | Scotch s | time ratio | most per PE <= ceil((1+eps)n/k): hopmap / Scotch |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
ratios=() time_ratios=()
for pair in "${pairs[@]}"; do
  g=${pair%/*} h=${pair#*/}
  gen_graph "$g"
  [[ -f $TMP/$g.grf ]] || "$HOPMAP" convert "$TMP/$g.edgelist" -o "$TMP/$g.grf" >/dev/null
  n=$(head -2 "$TMP/$g.grf" | tail -1 | awk '{print $1}')
  {
    set_hierarchy "$h" "$n"
    tleaf "$arities" "$distances" >"$TMP/$h.tgt"
    t_hm=$(timed hopmap_map "$TMP/$g.edgelist" "$TMP/hm.json")
    t_sc=$(timed scotch_gmap-int64 -b"$EPS" "$TMP/$g.grf" "$TMP/$h.tgt" "$TMP/sc.map")
    # Scotch's "count" then "vertex target" lines -> line i: the PE of object i.
    tail -n +2 "$TMP/sc.map" | sort -n -k1,1 | awk '{print $2}' >"$TMP/sc.perm"
    [[ $(wc -l <"$TMP/sc.perm") -eq $n ]] || die "Scotch's mapping of $g has the wrong size"
    eval_mapping "$TMP/$g.edgelist" "$TMP/hm.json" >"$TMP/hm.eval"
    eval_mapping "$TMP/$g.edgelist" "$TMP/sc.perm" >"$TMP/sc.eval"
    c_hm=$(jq -r .hop_bytes "$TMP/hm.eval")
    c_sc=$(jq -r .hop_bytes "$TMP/sc.eval")
    # Scotch's own cost of its mapping (gmtst's CommExpan) must be the same number.
    c_gmtst=$(gmtst-int64 "$TMP/$g.grf" "$TMP/$h.tgt" "$TMP/sc.map" |
      sed -n 's/.*CommExpan=[^(]*(\([0-9]*\)).*/\1/p')
    [[ $c_gmtst == "$c_sc" ]] ||
      die "gmtst's cost of Scotch's mapping ($c_gmtst) is not hopmap eval's ($c_sc): the target differs"
    # The field's balance: at most `cap` objects per PE.
    b_hm=$(balance_note "$TMP/hm.eval")
    b_sc=$(balance_note "$TMP/sc.eval")
    ratio=$(echo "scale=4; $c_hm / $c_sc" | bc -l)
    tratio=$(echo "scale=3; $t_hm / $t_sc" | bc -l)
    ratios+=("$ratio")
    time_ratios+=("$tratio")
    printf '| %s (n=%d) | %s (k=%d) | %d | %d | %.3f | %.2f | %.2f | %.2f | %s/%s |\n' "$g" "$n" \
      "$h" "$k" "$c_hm" "$c_sc" "$ratio" "$t_hm" "$t_sc" "$tratio" "$b_hm" "$b_sc"
  }
done
echo
echo "geometric mean: cost $(geo "${ratios[@]}")x Scotch's, time $(geo "${time_ratios[@]}")x"
