#!/usr/bin/env bash
# Two builds of hopmap side by side: the same map and balance problems solved by
# each build's CLI (--local, seeded, iteration-capped so that the searches end on
# counts), their hop-bytes compared (a refactoring must give the same answers), and
# the whole command timed in pairs (alternating runs, medians).
#
#   bash bench/compare_builds.sh OLD_HOPMAP NEW_HOPMAP [RUNS=5]
#   e.g. keep a copy of build/client/hopmap before a change, rebuild, then
#        bash bench/compare_builds.sh /tmp/before/hopmap build/client/hopmap
#
# Prints a markdown table: problem, algorithm, hop-bytes old / new (must match),
# median seconds old / new, and the ratio new / old. Exits 1 if any answer differs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
old=${1:?usage: compare_builds.sh OLD_HOPMAP NEW_HOPMAP [RUNS]}
new=${2:?usage: compare_builds.sh OLD_HOPMAP NEW_HOPMAP [RUNS]}
runs=${3:-5}
DATA=${DATA:-data}
work=$(mktemp -d "${TMPDIR:-/tmp}/hopmap-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$new" gen stencil2d-5 --dims 64x64 --wrap -o "$work/s2d.edgelist"
"$new" gen stencil3d-7 --dims 16x16x16 -o "$work/s3d.edgelist"
"$new" gen random-geometric --tasks 4096 --seed 3 -o "$work/rgg.edgelist"
"$new" gen random-geometric --tasks 256 --seed 5 -o "$work/rgg256.edgelist"
"$new" gen stencil2d-5 --dims 128x128 -o "$work/objects.edgelist"

# name | map arguments
problems=(
  "stencil2d 64x64 on torus 16x16x16|--machine torus:16x16x16 --graph $work/s2d.edgelist --algorithm auto"
  "stencil3d 16^3 on torus 8x8x8x4c|--machine torus:8x8x8:cores=8 --graph $work/s3d.edgelist --algorithm auto"
  "rgg 4096 on torus 16x16x16|--machine torus:16x16x16 --graph $work/rgg.edgelist --algorithm auto"
  "rgg 256 on torus 8x8x4 (grasp phase)|--machine torus:8x8x4 --graph $work/rgg256.edgelist --algorithm auto"
  "lulesh 1000 on BG/P 8x8x8x4c|--machine torus:8x8x8:cores=4 --graph $DATA/commgraphs/cnca_lulesh_1000.edgelist --algorithm auto"
  "rgg 4096 rec-bisect|--machine torus:16x16x16 --graph $work/rgg.edgelist --algorithm rec-bisect"
  "rgg 4096 hybrid|--machine torus:16x16x16 --graph $work/rgg.edgelist --algorithm hybrid"
  "rgg 256 grasp|--machine torus:8x8x4 --graph $work/rgg256.edgelist --algorithm grasp"
  "16384 objects on 256 slots (partition)|--machine torus:8x8x4 --graph $work/objects.edgelist --balance --algorithm partition"
)
common=(--local --seed 7 --iterations 20 --time-limit 120 --threads 2 --format json --quiet)

hop_bytes() { grep -m1 '"hop_bytes"' "$1" | tr -dc '0-9'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
seconds() {  # runs "$@", prints the wall seconds
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

status=0
echo "| problem | hop-bytes old | hop-bytes new | same | median s old | median s new | new/old |"
echo "|---|---:|---:|:-:|---:|---:|---:|"
for entry in "${problems[@]}"; do
  name=${entry%%|*}
  read -r -a args <<<"${entry#*|}"
  "$old" map "${args[@]}" "${common[@]}" -o "$work/old.json"
  "$new" map "${args[@]}" "${common[@]}" -o "$work/new.json"
  ho=$(hop_bytes "$work/old.json")
  hn=$(hop_bytes "$work/new.json")
  same=yes
  if [[ $ho != "$hn" ]]; then same=NO; status=1; fi
  : >"$work/t.old"
  : >"$work/t.new"
  for ((r = 0; r < runs; ++r)); do  # alternating, so both see the same load
    seconds "$old" map "${args[@]}" "${common[@]}" >>"$work/t.old"
    seconds "$new" map "${args[@]}" "${common[@]}" >>"$work/t.new"
  done
  to=$(median <"$work/t.old")
  tn=$(median <"$work/t.new")
  printf '| %s | %s | %s | %s | %.3f | %.3f | %.3f |\n' "$name" "$ho" "$hn" "$same" "$to" "$tn" \
    "$(echo "$tn / $to" | bc -l)"
done
exit "$status"
