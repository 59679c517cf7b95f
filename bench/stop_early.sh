#!/usr/bin/env bash
# Issue 46, "stop when the remaining work cannot improve the answer": the same jobs
# mapped by two builds' CLIs with the default budget (`hopmap map --local`, no
# --time-limit, no --iterations: as a user runs it), one run each, side by side:
# hop-bytes, wall seconds, and whether the new build skipped searches (a candidate
# listed "not run: ..."). Stencils from `hopmap gen` and graphs recorded from real
# applications (data/commgraphs) on whole and fragmented tori, Kraken, Blue Gene/P,
# fat trees, a dragonfly and a hierarchy; `large` adds the 1M-task stencils (each
# about 45 s with the budget the old build spends).
#
# Usage: bash bench/stop_early.sh OLD_HOPMAP NEW_HOPMAP [small|large|all]
#   e.g. git worktree add --detach /tmp/hopmap-old HEAD~1 && bash /tmp/hopmap-old/deploy/build.sh
#        bash bench/stop_early.sh /tmp/hopmap-old/build/client/hopmap build/client/hopmap
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: bash bench/stop_early.sh OLD_HOPMAP NEW_HOPMAP [small|large|all]" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2") MODE=${3:-small}
[[ $MODE == small || $MODE == large || $MODE == all ]] || { echo "stop_early.sh: mode is small, large or all, not '$MODE'" >&2; exit 2; }
for h in "$OLD" "$NEW"; do [[ -x $h ]] || { echo "stop_early.sh: $h is not an executable" >&2; exit 1; }; done
command -v jq >/dev/null || { echo "stop_early.sh: jq not found (apt-get install jq)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CG=data/commgraphs
gen() {  # NAME KIND DIMS
  [[ -f $TMP/$1.edgelist ]] || "$NEW" gen "$2" --dims "$3" -o "$TMP/$1.edgelist" >/dev/null
}
small_jobs=(
  "s2d5-64x64 torus:16x16x16 -" "s2d9-64x64 torus:16x16x16 -" "s3d7-16x16x16 torus:8x8x8:cores=8 -"
  "s3d27-16x16x16 torus:16x16x16 -" "s2d5-128x128 torus:16x16x16:cores=4 -"
  "s3d7-32x32x16 torus:16x16x16:cores=4 -" "s2d5-64x64 torus:24x24x24 0-4095"
  "s3d7-16x16x16 torus:24x24x24 0-999,2000-3999,5000-6095"
  "s2d9-64x64 kraken 0-340,1000-1500,3000-3200" "s3d7-32x32x16 kraken 0-700,2000-2700"
  "s2d5-64x64 fattree-64x64 0-255" "s3d27-16x16x16 fattree:64x64 -"
  "s2d5-64x64 hierarchy:4x16x64:distances=1,10,100 -" "s3d7-16x16x16 dragonfly-xc 0-170"
  "s2d5-64x32 bgp-8x8x8 -" "s3d7-32x32x32 torus:32x32x32 -" "s2d5-128x128 kraken 0-1400"
  "$CG/cnca_minife_1024 bgp-8x8x8 0-255" "$CG/cnca_lulesh_1000 bgp-8x8x8 0-249"
  "$CG/cnca_npb_mg_C_1024 bgp-8x8x8 0-255" "$CG/cnca_cloverleaf_1152 bgp-8x8x8 0-287"
  "$CG/cnca_amg2013_1000 kraken 0-90" "$CG/cnca_miniamr_1000 fattree-64x64 0-70"
  "$CG/cnca_npb_bt_C_1024 bgp-8x8x8 0-255" "$CG/cnca_npb_lu_C_1024 kraken 0-50,400-450"
  "$CG/cnca_npb_cg_C_1024 bgp-8x8x8 0-255" "$CG/cnca_minimd_1024 dragonfly-xc 0-50"
  "$CG/cnca_cloverleaf_1152 kraken 0-95" "s2d5-512x512 torus:32x32x64:cores=4 -"
)
large_jobs=(
  "s2d5-1024x1024 torus:64x64x64:cores=4 -" "s2d5-1024x1024 torus:128x128x64 -"
  "s3d7-128x128x64 torus:64x64x64:cores=4 -" "s3d7-128x128x64 torus:128x128x64 -"
  "s2d5-1024x1024 torus:128x128x128 0-599999,1000000-1448575"
)
jobs=()
[[ $MODE != large ]] && jobs+=("${small_jobs[@]}")
[[ $MODE != small ]] && jobs+=("${large_jobs[@]}")
printf '| graph | machine | nodes | old hop-bytes | new hop-bytes | new/old | old s | new s | new skipped |\n'
printf '|---|---|---|---:|---:|---:|---:|---:|---|\n'
differ=0
for job in "${jobs[@]}"; do
  read -r g m n <<<"$job"
  if [[ $g == "$CG"/* ]]; then
    graph=$g.edgelist
  else
    kind=${g%%-*} dims=${g#*-}
    case $kind in
      s2d5) gen "$g" stencil2d-5 "$dims" ;;
      s2d9) gen "$g" stencil2d-9 "$dims" ;;
      s3d7) gen "$g" stencil3d-7 "$dims" ;;
      s3d27) gen "$g" stencil3d-27 "$dims" ;;
    esac
    graph=$TMP/$g.edgelist
  fi
  args=(map --local --machine "$m" --graph "$graph" --format json)
  [[ $n != - ]] && args+=(--nodes "$n")
  /usr/bin/time -f %e -o "$TMP/old.t" "$OLD" "${args[@]}" -o "$TMP/old.json"
  /usr/bin/time -f %e -o "$TMP/new.t" "$NEW" "${args[@]}" -o "$TMP/new.json"
  ho=$(jq .hop_bytes "$TMP/old.json") hn=$(jq .hop_bytes "$TMP/new.json")
  [[ $ho == "$hn" ]] || differ=$((differ + 1))
  skipped=$(jq -r '[.candidates[] | select((.error // "") | startswith("not run:")) | .algorithm] | join(", ")' "$TMP/new.json")
  printf '| %s | %s | %s | %s | %s | %.4f | %s | %s | %s |\n' "${g##*/}" "$m" "$n" "$ho" "$hn" \
    "$(echo "$hn / $ho" | bc -l)" "$(cat "$TMP/old.t")" "$(cat "$TMP/new.t")" "${skipped:--}"
done
echo
echo "${#jobs[@]} jobs, $differ with other hop-bytes"
