#!/usr/bin/env bash
# Issue 46, answers that do not depend on the numbering: each (graph, hierarchy) row
# of bench/hierarchy_scotch.sh mapped by `hopmap map --balance --imbalance 0.03` (the
# default budget) as given and after 5 random renumberings of its tasks
# (bench/relabel_graph.py, seeds 1-5); the median of the 5 costs against the cost as
# given (issue 46's target: within 2% on every row).
#
# Usage: bash bench/hierarchy_relabel.sh [quick|instances|full]   (quick: the default)
# Environment: BUILD (build), TIME_LIMIT (hopmap's budget; unset: its default).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
die() { echo "hierarchy_relabel.sh: $*" >&2; exit 1; }
[[ -x $HOPMAP ]] || die "hopmap binary $HOPMAP not found: build it with 'bash deploy/build.sh'"
command -v jq >/dev/null 2>&1 || die "jq not found (apt-get install jq)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
EPS=0.03
# shellcheck source=bench/hierarchy_common.sh
source bench/hierarchy_common.sh
select_instances "${1:-quick}"
cost() { # GRAPH -> hopmap's cost of its mapping onto the current hierarchy
  hopmap_map "$1" "$TMP/m.json"
  eval_mapping "$1" "$TMP/m.json" | jq -r .hop_bytes
}
printf '| graph | H | cost as given | costs renumbered (seeds 1-5) | median / as given |\n'
printf '|---|---|---:|---|---:|\n'
ratios=()
for g in "${graphs[@]}"; do
  gen_graph "$g"
  n=$(grep -m1 '^# tasks:' "$TMP/$g.edgelist" | awk '{print $3}')
  for seed in 1 2 3 4 5; do
    [[ -f $TMP/$g.r$seed.edgelist ]] ||
      python3 bench/relabel_graph.py "$TMP/$g.edgelist" "$TMP/$g.r$seed.edgelist" "$seed"
  done
  for h in "${hierarchies[@]}"; do
    set_hierarchy "$h" "$n"
    c0=$(cost "$TMP/$g.edgelist")
    costs=()
    for seed in 1 2 3 4 5; do costs+=("$(cost "$TMP/$g.r$seed.edgelist")"); done
    median=$(printf '%s\n' "${costs[@]}" | sort -n | sed -n 3p)
    ratio=$(echo "scale=4; $median / $c0" | bc -l)
    ratios+=("$ratio")
    printf '| %s (n=%d) | %s | %d | %s | %.3f |\n' "$g" "$n" "$h" "$c0" "${costs[*]}" "$ratio"
  done
done
echo
echo "median / as given: geometric mean $(geo "${ratios[@]}"), rows outside 0.98-1.02:" \
  "$(printf '%s\n' "${ratios[@]}" | awk '$1 < 0.98 || $1 > 1.02' | wc -l) of ${#ratios[@]}"
