#!/usr/bin/env bash
# Issue 35: what hopmap simulate predicts for the seeds' timed experiments, for the
# quickstart's sample job, and how long a simulation takes.
#   seed001   MPI_Allgather by recursive doubling, 1 KB blocks, 128 Kraken nodes (one
#             process each) scattered over the 25x16x24 torus: in-order, gge, emahd,
#             grasp, auto. The graph is the allgather's (round k: 2^k KB each way);
#             the simulation runs its 7 phases (--pattern allgather:1024).
#   seed000   WRF's 2D halo exchange on a 32x32 process grid, one process per node on
#             a 1,024-node Blue Gene/P torus (8x8x16), in-order (XYZ) against fold and
#             auto; halo messages of 32 KiB (the paper gives no size: an assumption).
#   stencil   the same paper's 2D stencil benchmark: 4,096 processes (4 per node, TXYZ
#             in order) on 8x8x16, a 32x128 grid, 8 KB messages; in-order against fold.
#   sample    the quickstart's job: a 4,096-rank 3D halo of 64 KiB on 400 Kraken nodes
#             in three pieces; in-order against auto.
#   speed     wall time on this machine: 4,096 tasks (3D halo, 64 KiB) on a 16^3 torus,
#             10 iterations, in-order and auto's answer; random placements of 512 to
#             2,048 tasks (the contended worst case); 32,768 tasks on 32^3.
# Each mapping is made by `hopmap map --local` with a fixed seed and a 10 s budget.
#
# Usage: bash bench/simulate_seeds.sh [seed001|seed000|stencil|sample|speed]...
# Environment: BUILD (build). Writes out/simulate/ (ignored by git).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
[[ -x $HOPMAP ]] || { echo "${0##*/}: build hopmap first (bash deploy/build.sh)" >&2; exit 1; }
OUT=out/simulate
mkdir -p "$OUT"
cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=(seed001 seed000 stencil sample speed)

# map NAME ALGORITHM PROBLEM...: writes $OUT/NAME.json.
map() {
  local name=$1 algorithm=$2
  shift 2
  "$HOPMAP" map --local "$@" --algorithm "$algorithm" --seed 1 --time-limit 10 -q \
    -o "$OUT/$name.json"
}

# table PROBLEM... -- MAPPING...: hops per byte (eval) and the simulated time.
table() {
  local problem=() mappings=()
  while [[ $1 != -- ]]; do problem+=("$1"); shift; done
  shift
  for m in "$@"; do mappings+=(--mapping "$OUT/$m.json"); done
  "$HOPMAP" simulate --local "${problem[@]}" "${mappings[@]}" --format json >"$OUT/sim.json"
  printf '| %-10s | %12s | %14s | %14s | %12s |\n' mapping avg_hops "time/iter (s)" "vs in-order" \
    "busiest share"
  printf '|%s|%s|%s|%s|%s|\n' ------------ -------------- ---------------- ---------------- \
    --------------
  local i=0
  for name in in-order "$@"; do
    local hops
    if [[ $name == in-order ]]; then
      hops=$(jq -r '(.baseline_hop_bytes / .total_bytes)' "$OUT/$1.json")
    else
      hops=$(jq -r '.avg_hops_per_byte' "$OUT/$name.json")
    fi
    jq -r --argjson i "$i" --arg name "$name" --arg hops "$hops" \
      '.simulations[$i] | "| \($name) | \($hops | tonumber * 1000 | round / 1000) | \(.time_s) | \(.ratio_to_in_order * 10000 | round / 10000) | \(if .busiest_link then (.busiest_link.share * 100 | round | tostring) + "%" else "-" end) |"' \
      "$OUT/sim.json"
    i=$((i + 1))
  done
}

for c in "${cases[@]}"; do
  case $c in
    seed001)
      echo "### seed001: allgather (recursive doubling, 1 KB), 128 scattered Kraken nodes"
      # 128 of Kraken's 9,600 nodes, scattered (a fixed shuffle): non-contiguous, as the
      # paper's allocations were.
      nodes=$(seq 0 9599 | shuf -n 128 --random-source=<(yes hopmap) | sort -n | paste -sd,)
      {
        echo "# tasks: 128"
        for ((r = 0; r < 128; r++)); do
          for ((d = 1; d < 128; d *= 2)); do
            ((r < (r ^ d))) && echo "$r $((r ^ d)) $((2 * 1024 * d))"
          done
        done
      } >"$OUT/allgather128.edgelist"
      problem=(--machine kraken --cores 1 --nodes "$nodes" --graph "$OUT/allgather128.edgelist")
      for a in gge emahd grasp auto; do map "seed001-$a" "$a" "${problem[@]}"; done
      table "${problem[@]}" --pattern allgather:1024 -- seed001-gge seed001-emahd seed001-grasp \
        seed001-auto
      ;;
    seed000)
      echo "### seed000: WRF-like 2D halo, 32x32 processes on 1,024 BG/P nodes (8x8x16)"
      "$HOPMAP" gen stencil2d-5 --dims 32x32 --bytes 32768 -o "$OUT/wrf32.edgelist"
      problem=(--machine torus:8x8x16:link-bandwidth=425e6:link-latency=100e-9 --graph
        "$OUT/wrf32.edgelist")
      for a in fold auto; do map "seed000-$a" "$a" "${problem[@]}"; done
      table "${problem[@]}" -- seed000-fold seed000-auto
      ;;
    stencil)
      echo "### seed000's 2D stencil: 32x128 processes, 4 per node on 8x8x16, 8 KB"
      "$HOPMAP" gen stencil2d-5 --dims 32x128 --bytes 8192 -o "$OUT/stencil32x128.edgelist"
      problem=(--machine torus:8x8x16:cores=4:link-bandwidth=425e6:link-latency=100e-9 --graph
        "$OUT/stencil32x128.edgelist")
      map stencil-fold fold "${problem[@]}"
      table "${problem[@]}" -- stencil-fold
      ;;
    sample)
      echo "### the quickstart's sample: 4,096-rank 3D halo (64 KiB) on 400 Kraken nodes"
      "$HOPMAP" gen stencil3d-7 --dims 16x16x16 --wrap --bytes 65536 -o "$OUT/sample.edgelist"
      problem=(--machine kraken --nodes "nid[00100-00299],nid[02000-02099],nid[05000-05099]"
        --graph "$OUT/sample.edgelist")
      map sample-auto auto "${problem[@]}"
      table "${problem[@]}" -- sample-auto
      ;;
    speed)
      echo "### speed: wall seconds on this machine ($(nproc) cores)"
      "$HOPMAP" gen stencil3d-7 --dims 16x16x16 --wrap --bytes 65536 -o "$OUT/s16.edgelist"
      map speed-auto auto --machine torus:16x16x16:cores=4 --nodes 0-1023 \
        --graph "$OUT/s16.edgelist"
      # The target: 4,096 tasks, 10 iterations, in-order and an answer (4 tasks per
      # node on 1,024 nodes of a 16^3 torus: contention in order).
      /usr/bin/time -f "4096 tasks, 10 iterations, in-order + auto: %e s, peak %M KB" \
        "$HOPMAP" simulate --local --machine torus:16x16x16:cores=4 --nodes 0-1023 \
        --graph "$OUT/s16.edgelist" --mapping "$OUT/speed-auto.json" --iterations 10 \
        --format json >"$OUT/speed16.json"
      jq -r '.simulations[] | "  \(.mapping): \(.time_s) s per iteration"' "$OUT/speed16.json"
      # One task per node on the whole torus: in-order is contention-free.
      /usr/bin/time -f "4096 tasks on 4096 nodes, 10 iterations, in-order: %e s, peak %M KB" \
        "$HOPMAP" simulate --local --machine torus:16x16x16 --graph "$OUT/s16.edgelist" \
        --iterations 10 --format json >/dev/null
      # The worst case: random placements, every message crossing ~3/4 of the
      # diameter, every link shared: SimGrid re-solves the sharing at each of
      # thousands of completions (at 4,096 tasks this takes more than 7 minutes).
      for dims in 8x8x8 16x8x8 16x16x8; do
        "$HOPMAP" gen stencil3d-7 --dims "$dims" --wrap --bytes 65536 -o "$OUT/r$dims.edgelist"
        map "random-$dims" random --machine "torus:$dims" --graph "$OUT/r$dims.edgelist"
        /usr/bin/time -f "torus $dims, 1 iteration, in-order + random: %e s, peak %M KB" \
          "$HOPMAP" simulate --local --machine "torus:$dims" --graph "$OUT/r$dims.edgelist" \
          --mapping "$OUT/random-$dims.json" --threads 1 --format json >"$OUT/random$dims.json"
      done
      "$HOPMAP" gen stencil3d-7 --dims 32x32x32 --wrap --bytes 65536 -o "$OUT/s32.edgelist"
      /usr/bin/time -f "32768 tasks on 32768 nodes, 10 iterations, in-order: %e s, peak %M KB" \
        "$HOPMAP" simulate --local --machine torus:32x32x32 --graph "$OUT/s32.edgelist" \
        --iterations 10 --format json >/dev/null
      map speed32-auto auto --machine torus:32x32x32:cores=4 --nodes 0-8191 \
        --graph "$OUT/s32.edgelist"
      /usr/bin/time -f "32768 tasks, 10 iterations, in-order + auto: %e s, peak %M KB" \
        "$HOPMAP" simulate --local --machine torus:32x32x32:cores=4 --nodes 0-8191 \
        --graph "$OUT/s32.edgelist" --mapping "$OUT/speed32-auto.json" --iterations 10 \
        --format json >"$OUT/speed32.json"
      jq -r '.simulations[] | "  \(.mapping): \(.time_s) s per iteration"' "$OUT/speed32.json"
      ;;
    *)
      echo "${0##*/}: unknown case '$c' (seed001, seed000, stencil, sample, speed)" >&2
      exit 1
      ;;
  esac
done
