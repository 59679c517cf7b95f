#!/usr/bin/env bash
# Issue 44: the speed of `hopmap simulate` at a real job's size, and proof that the
# worker's shortcuts (docs/simulate.md#speed: redundant links dropped, alike flows
# merged, a time step relative to each phase) leave the times where they were.
#   compare    the same `hopmap simulate` run twice per case, with the reference
#              model (HOPMAP_SIMGRID_REFERENCE=1: one flow per message over every
#              link, 1 ns steps) and with the worker's defaults: 3D halos and
#              irregular graphs (random-geometric) of 512 to 2,048 tasks, 64 KiB and
#              1 KiB messages, whole tori and fragmented allocations, in-order,
#              hopmap's answer (auto) and a random placement; an allgather over
#              several phases. Prints each time both ways, their relative difference
#              and the largest, and each run's wall seconds (about 25 minutes on 2
#              cores, nearly all of it the reference).
#   target     the issue's target: an irregular graph of 4,096 tasks (random-geometric,
#              64 KiB, then 1 KiB) on 342 fragmented nodes of a 16^3 torus (12 per
#              node): in-order, a random placement and auto's answer in one
#              `hopmap simulate`, wall seconds and peak memory.
#   target-reference
#              the target's 64 KiB case with the reference model (in-order and random
#              at once: about 40 minutes on 2 cores) and the differences from
#              target's run.
# Each mapping is made by `hopmap map --local` with seed 1 (auto: 10 s budget).
#
# Usage: bash bench/simulate_speed.sh [compare|target|target-reference]...
# Environment: BUILD (build); KEEP_REFERENCE=1 reuses the mappings and reference runs
# a previous run left in out/simulate_speed/ (the reference does not depend on the
# worker's defaults; auto's answer within a time budget may differ from run to run).
# Writes out/simulate_speed/ (ignored by git).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
[[ -x $HOPMAP ]] || { echo "${0##*/}: build hopmap first (bash deploy/build.sh)" >&2; exit 1; }
command -v jq >/dev/null || bash deploy/install-deps.sh jq
OUT=out/simulate_speed
mkdir -p "$OUT"
modes=("$@")
[[ ${#modes[@]} -gt 0 ]] || modes=(compare target)

# A fragmented allocation of the 16^3 torus: pieces of different sizes, nowhere a
# whole plane.
FRAG256=0-63,700-763,2000-2063,3500-3563
FRAG342=0-40,300-379,1100-1161,2048-2111,2900-2949,3700-3744

# mapping NAME ALGORITHM PROBLEM...: writes $OUT/NAME.json.
mapping() {
  local name=$1 algorithm=$2
  shift 2
  [[ ${KEEP_REFERENCE:-0} == 1 && -f $OUT/$name.json ]] && return
  "$HOPMAP" map --local "$@" --algorithm "$algorithm" --seed 1 --time-limit 10 -q \
    -o "$OUT/$name.json"
}

# run LABEL REFERENCE(0|1) PROBLEM... -- MAPPING...: one hopmap simulate, its JSON in
# $OUT/LABEL.json and its wall seconds in $OUT/LABEL.wall.
run() {
  local label=$1 reference=$2 problem=() mappings=()
  shift 2
  while [[ $1 != -- ]]; do problem+=("$1"); shift; done
  shift
  for m in "$@"; do mappings+=(--mapping "$OUT/$m.json"); done
  [[ $reference == 1 && ${KEEP_REFERENCE:-0} == 1 && -f $OUT/$label.json ]] && return
  local start end
  start=$(date +%s.%N)
  HOPMAP_SIMGRID_REFERENCE=$reference "$HOPMAP" simulate --local "${problem[@]}" \
    "${mappings[@]}" --format json >"$OUT/$label.json"
  end=$(date +%s.%N)
  echo "$start $end" | awk '{printf "%.2f\n", $2 - $1}' >"$OUT/$label.wall"
}

# compare_case LABEL NAME PROBLEM... -- MAPPING...: both runs ($OUT/LABEL-ref.json,
# $OUT/LABEL-new.json), one table row per placement.
compare_case() {
  local label=$1 name=$2
  shift 2
  run "$label-ref" 1 "$@"
  run "$label-new" 0 "$@"
  jq -r -n --arg name "$name" --slurpfile ref "$OUT/$label-ref.json" \
    --slurpfile new "$OUT/$label-new.json" \
    --arg ref_wall "$(cat "$OUT/$label-ref.wall")" --arg new_wall "$(cat "$OUT/$label-new.wall")" '
    [$ref[0].simulations, $new[0].simulations] | transpose | to_entries[] |
    .key as $i | .value as [$r, $n] |
    "| \(if $i == 0 then $name else "" end) | \(if $i == 0 then $ref[0].tasks | tostring else "" end) | \($r.mapping | sub(".*/"; "") | sub(".json$"; "")) | \($r.time_s) | \($n.time_s) | \((($n.time_s / $r.time_s - 1) * 1e6 | round) / 1e4)% | \(if $i == 0 then "\($ref_wall) -> \($new_wall)" else "" end) |"'
  jq -n --slurpfile ref "$OUT/$label-ref.json" --slurpfile new "$OUT/$label-new.json" \
    '[$ref[0].simulations, $new[0].simulations] | transpose[] | (.[1].time_s / .[0].time_s - 1)' \
    >>"$OUT/differences"
}

for mode in "${modes[@]}"; do
  case $mode in
    compare)
      echo "### compare: reference model against the worker's defaults ($(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
      : >"$OUT/differences"
      printf '| case | tasks | placement | reference time_s | new time_s | difference | wall s (reference -> new) |\n'
      printf '|---|---|---|---|---|---|---|\n'
      # A 3D halo on a whole 8^3 torus, one task per node.
      "$HOPMAP" gen stencil3d-7 --dims 8x8x8 --wrap --bytes 65536 -o "$OUT/halo512.edgelist"
      problem=(--machine torus:8x8x8 --graph "$OUT/halo512.edgelist")
      mapping halo512-auto auto "${problem[@]}"
      mapping halo512-random random "${problem[@]}"
      compare_case halo512 "halo 8^3, 64 KiB, whole torus" "${problem[@]}" -- halo512-auto \
        halo512-random
      # The same torus, recursive-doubling allgather of 64 KiB blocks (9 phases).
      compare_case allgather512 "allgather 64 KiB, 8^3" "${problem[@]}" --pattern allgather:65536 -- \
        halo512-auto halo512-random
      # A 3D halo of 1,024 tasks on 256 fragmented nodes of 16^3, 4 per node.
      "$HOPMAP" gen stencil3d-7 --dims 16x8x8 --wrap --bytes 65536 -o "$OUT/halo1024.edgelist"
      problem=(--machine torus:16x16x16:cores=4 --nodes "$FRAG256" --graph "$OUT/halo1024.edgelist")
      mapping halo1024-auto auto "${problem[@]}"
      mapping halo1024-random random "${problem[@]}"
      compare_case halo1024 "halo 16x8x8, 64 KiB, fragmented, 4/node" "${problem[@]}" -- halo1024-auto \
        halo1024-random
      # Irregular graphs (task order unrelated to the geometry: in-order is scattered).
      for spec in 1024:4:65536 2048:8:65536 2048:8:1024; do
        IFS=: read -r tasks per_node bytes <<<"$spec"
        name=rgg$tasks-$bytes
        "$HOPMAP" gen random-geometric --tasks "$tasks" --seed 1 --bytes "$bytes" \
          -o "$OUT/$name.edgelist"
        problem=(--machine "torus:16x16x16:cores=$per_node" --nodes "$FRAG256"
          --graph "$OUT/$name.edgelist")
        mapping "$name-auto" auto "${problem[@]}"
        mapping "$name-random" random "${problem[@]}"
        compare_case "$name" "irregular $tasks, $((bytes / 1024)) KiB, fragmented, $per_node/node" \
          "${problem[@]}" -- "$name-auto" "$name-random"
      done
      # The contended worst case of simulate_seeds.sh speed: 2,048 tasks placed at
      # random on a whole 16x16x8 torus.
      "$HOPMAP" gen stencil3d-7 --dims 16x16x8 --wrap --bytes 65536 -o "$OUT/halo2048.edgelist"
      problem=(--machine torus:16x16x8 --graph "$OUT/halo2048.edgelist")
      mapping halo2048-random random "${problem[@]}"
      compare_case halo2048 "halo 16x16x8, 64 KiB, whole torus" "${problem[@]}" -- halo2048-random
      echo
      echo "largest difference: $(sort -g "$OUT/differences" | sed -n '1p;$p' |
        awk '{a = $1 < 0 ? -$1 : $1; if (a > m) {m = a; s = $1}} END {printf "%.4f%%", s * 100}')" \
        "over $(wc -l <"$OUT/differences") placements"
      ;;
    target | target-reference)
      echo "### $mode: 4,096 tasks (random-geometric) on 342 fragmented nodes of 16^3, 12 per node ($(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
      byte_sizes=(65536 1024)
      [[ $mode == target ]] || byte_sizes=(65536)
      for bytes in "${byte_sizes[@]}"; do
        name=target-$bytes
        "$HOPMAP" gen random-geometric --tasks 4096 --seed 1 --bytes "$bytes" \
          -o "$OUT/$name.edgelist"
        problem=(--machine torus:16x16x16:cores=12 --nodes "$FRAG342"
          --graph "$OUT/$name.edgelist")
        [[ -f $OUT/target-auto.json ]] || mapping target-auto auto "${problem[@]}"
        [[ -f $OUT/target-random.json ]] || mapping target-random random "${problem[@]}"
        if [[ $mode == target ]]; then
          /usr/bin/time -f "$((bytes / 1024)) KiB: in-order + random + auto: %e s wall, peak %M KB" \
            "$HOPMAP" simulate --local "${problem[@]}" --mapping "$OUT/target-random.json" \
            --mapping "$OUT/target-auto.json" --format json >"$OUT/$name.json"
          jq -r '.simulations[] | "  \(.mapping | sub(".*/"; "")): \(.time_s) s"' "$OUT/$name.json"
        else
          [[ -f $OUT/$name.json ]] || { echo "${0##*/}: run the target mode first" >&2; exit 1; }
          run "$name-ref" 1 "${problem[@]}" -- target-random target-auto
          echo "  reference run: $(cat "$OUT/$name-ref.wall") s wall"
          jq -r -n --slurpfile ref "$OUT/$name-ref.json" --slurpfile new "$OUT/$name.json" '
            [$ref[0].simulations, $new[0].simulations] | transpose[] | .[0] as $r | .[1] as $n |
            "  \($r.mapping | sub(".*/"; "")): reference \($r.time_s) s, new \($n.time_s) s (\((($n.time_s / $r.time_s - 1) * 1e6 | round) / 1e4)%)"'
        fi
      done
      ;;
    *)
      echo "${0##*/}: unknown mode '$mode' (compare, target, target-reference)" >&2
      exit 1
      ;;
  esac
done
