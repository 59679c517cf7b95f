#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, build-fuzz/) and runs each for
# RUNS executions (default 1,000,000), starting from the seed corpus in
# bench/fuzz/corpus (map_request: bench/fuzz/seeds, text protos encoded with protoc).
# Findings and the grown corpus go to $FUZZ_DIR (default /tmp/hopmap-fuzz); the
# repository's corpus is not changed. Prints one line per target; exits 1 if any
# target found a crash, a leak, a timeout or an out-of-memory input.
# MAX_TIME=S also stops each target after S seconds (libFuzzer -max_total_time; the
# execs column then says how far it got).
# Usage: bash bench/fuzz.sh [TARGET...]     e.g. RUNS=100000 bash bench/fuzz.sh fuzz_hostlist
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-1000000}
MAX_TIME=${MAX_TIME:-0}
WORK=${FUZZ_DIR:-/tmp/hopmap-fuzz}
ALL=(fuzz_graph_mm fuzz_graph_metis fuzz_graph_scotch fuzz_graph_edgelist fuzz_graph_dense
  fuzz_qaplib fuzz_slurm_topology fuzz_switch_graph fuzz_distance_matrix fuzz_machine_json
  fuzz_hostlist fuzz_map_request fuzz_gpu_slurm fuzz_gpu_k8s)
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL[@]}")

bash deploy/install-deps.sh
# clang and its libFuzzer runtime: only this script needs them.
bash deploy/install-deps.sh clang libclang-rt-14-dev

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHOPMAP_FUZZ=ON -DHOPMAP_BUILD_TESTS=OFF -DHOPMAP_BUILD_BENCH=OFF >/dev/null
ninja -C build-fuzz -j "${HOPMAP_JOBS:-$(nproc)}" "${TARGETS[@]}"

mkdir -p "$WORK"
failed=0
printf "%-22s %-8s %10s %8s %s\n" target result execs seconds note
for t in "${TARGETS[@]}"; do
  name=${t#fuzz_}
  seeds=bench/fuzz/corpus/$name
  if [[ $name == map_request ]]; then
    seeds=$WORK/seeds-map_request
    mkdir -p "$seeds"
    for f in bench/fuzz/seeds/map_request/*.txtpb; do
      protoc -Iproto --encode=hopmap.v1.MapRequest hopmap/v1/mapper.proto <"$f" \
        >"$seeds/$(basename "$f" .txtpb).bin"
    done
  fi
  mkdir -p "$WORK/$t"
  start=$(date +%s)
  set +e
  "build-fuzz/bench/fuzz/$t" -runs="$RUNS" -max_total_time="$MAX_TIME" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$WORK/$t-" -print_final_stats=1 "$WORK/$t" "$seeds" >"$WORK/$t.log" 2>&1
  rc=$?
  set -e
  seconds=$(($(date +%s) - start))
  execs=$(awk '/stat::number_of_executed_units/ {print $NF}' "$WORK/$t.log")
  if [[ $rc -eq 0 ]]; then
    printf "%-22s %-8s %10s %8s\n" "$t" ok "${execs:-?}" "$seconds"
  else
    failed=1
    note=$(grep -m1 -E 'ERROR: |==[0-9]+== ?ERROR|runtime error|deadly signal' "$WORK/$t.log" || true)
    printf "%-22s %-8s %10s %8s %s (log: %s)\n" "$t" FAILED "${execs:-?}" "$seconds" "$note" \
      "$WORK/$t.log"
  fi
done
exit $failed
