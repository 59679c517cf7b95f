#!/usr/bin/env bash
# Issue 17's service target: a remap of 100,000 objects on 1,024 slots answers in
# < 2 s through the daemon. Starts a real hopmapd, builds a 3D 7-point stencil of
# 50x50x40 objects with a hot-spot load, places it once (hopmap map --server
# --loads, the partition balancer), then doubles the load of 10% of the objects
# (scattered, then a region) and times `hopmap map --server --loads --initial
# CURRENT` (wall time of the whole CLI call: reading the files, the request, the
# solve, the reply) RUNS times each, with the default budget and with
# --max-migrations 15%. Prints p50/max wall seconds, the daemon's solve seconds,
# hop-bytes, max/avg load and the objects moved.
#
# Usage: bash bench/balance_remap.sh        Environment: RUNS (default 5), HOPMAP, HOPMAPD.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HOPMAP=$(realpath "${HOPMAP:-build/client/hopmap}")
HOPMAPD=$(realpath "${HOPMAPD:-build/server/hopmapd/hopmapd}")
RUNS=${RUNS:-5}
die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
[[ -x $HOPMAP && -x $HOPMAPD ]] || die "build hopmap and hopmapd first"
command -v jq >/dev/null || die "jq not found (apt-get install jq)"
source bench/hopmapd_common.sh
hopmapd_workdir balance_remap
start_hopmapd "$TMP/d.out" "$TMP/d.log" --threads 2
MACHINE="--server $HOPMAPD_ADDRESS --machine torus:8x8x4:cores=4"

"$HOPMAP" gen stencil3d-7 --dims 50x50x40 -o "$TMP/g.edgelist"
python3 - "$TMP" <<'PY'
import math, random, sys
tmp = sys.argv[1]
n, dims = 100000, (50, 50, 40)
loads = []
for t in range(n):
    x, y, z = t % 50, (t // 50) % 50, t // 2500
    r2 = (x / 50 - .3) ** 2 + (y / 50 - .3) ** 2 + (z / 40 - .3) ** 2
    loads.append(1 + 2 * math.exp(-r2 / 0.125))
open(f"{tmp}/loads.txt", "w").write("\n".join(f"{l:.6f}" for l in loads) + "\n")
random.seed(1)
scattered = list(loads)
for t in random.sample(range(n), n // 10):
    scattered[t] *= 2
open(f"{tmp}/scattered.txt", "w").write("\n".join(f"{l:.6f}" for l in scattered) + "\n")
near = sorted(range(n), key=lambda t: (t % 50 / 50 - .6) ** 2 + ((t // 50) % 50 / 50 - .6) ** 2
              + (t // 2500 / 40 - .6) ** 2)
region = list(loads)
for t in near[: n // 10]:
    region[t] *= 2
open(f"{tmp}/region.txt", "w").write("\n".join(f"{l:.6f}" for l in region) + "\n")
PY
# The current placement.
$HOPMAP map $MACHINE --graph "$TMP/g.edgelist" --loads "$TMP/loads.txt" --algorithm partition \
  --format json -o "$TMP/current.json"
echo "current placement: $(jq -r '"hop-bytes \(.hop_bytes), max/avg \(.balance.max_over_avg), \(.solve_seconds) s"' "$TMP/current.json")"

now() { date +%s.%N; }
echo
echo "| shift | options | wall p50 s | wall max s | solve s (last) | hop-bytes (last) | vs current | max/avg | objects moved |"
echo "|---|---|---|---|---|---|---|---|---|"
for shift in scattered region; do
  for opts in "" "--max-migrations 15000"; do
    times=()
    for ((r = 0; r < RUNS; r++)); do
      t0=$(now)
      $HOPMAP map $MACHINE --graph "$TMP/g.edgelist" --loads "$TMP/$shift.txt" \
        --initial "$TMP/current.json" $opts --format json -o "$TMP/out.json"
      t1=$(now)
      times+=("$(echo "$t1 - $t0" | bc -l)")
    done
    sorted=$(printf "%s\n" "${times[@]}" | sort -g)
    p50=$(echo "$sorted" | awk -v n="$RUNS" 'NR == int((n + 1) / 2) {print}')
    max=$(echo "$sorted" | tail -1)
    read -r solve hb base ratio moved < <(jq -r '"\(.solve_seconds) \(.hop_bytes) \(.baseline_hop_bytes) \(.balance.max_over_avg) \(.balance.migrated_objects)"' "$TMP/out.json")
    printf "| %s | %s | %.2f | %.2f | %.2f | %s | %.3f | %.3f | %s (%.1f%%) |\n" "$shift" \
      "${opts:-default}" "$p50" "$max" "$solve" "$hb" "$(echo "$hb / $base" | bc -l)" "$ratio" \
      "$moved" "$(echo "100 * $moved / 100000" | bc -l)"
  done
done
