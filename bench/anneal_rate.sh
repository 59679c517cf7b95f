#!/usr/bin/env bash
# How fast `anneal` scans edges on this machine, by job size: the figures behind
# auto's nominal annealing rate (PortfolioPlan::anneal_edge_rate / sqrt(tasks)).
#
# For each size n: a random geometric graph (hopmap gen, seed 1) on a whole 1-core 3D
# torus of n nodes; `refine` gives the start (auto anneals refined mappings too); then
# `anneal` from it, 1 thread (2 chains one after the other), with --iterations 1 and
# with --iterations M. The difference of the two wall times is M - 1 moves per task of
# 2 chains; a move scans the edges of the two tasks exchanged (4 E / n edges on
# average), so edges/s = 2 (M - 1) n x 4 E / n / seconds. Prints a Markdown table
# with the model's figure beside each.
#
# Usage: bash bench/anneal_rate.sh
# Environment: SIZES (default "1024 4096 16384 65536 262144"); HOPMAP (default
# build/client/hopmap); RATE (default 4.2e9, the model's constant); KEEP_TMP=1.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

HOPMAP=${HOPMAP:-build/client/hopmap}
SIZES=${SIZES:-1024 4096 16384 65536 262144}
RATE=${RATE:-4.2e9}
[[ -x $HOPMAP ]] || { echo "anneal_rate.sh: no $HOPMAP (build first)" >&2; exit 1; }
TMP=$(mktemp -d)
[[ ${KEEP_TMP:-0} == 1 ]] || trap 'rm -rf "$TMP"' EXIT

# Three dims whose product is 2^e, as even as possible (smallest first).
dims3() {
  local e=$1 a b c
  a=$((e / 3)) b=$(((e + 1) / 3)) c=$((e - a - b))
  echo "$((1 << a)) $((1 << b)) $((1 << c))"
}

wall() {  # prints the wall seconds of the command
  /usr/bin/time -f %e -o "$TMP/t" "$@" >/dev/null 2>&1 || { echo "anneal_rate.sh: failed: $*" >&2; exit 1; }
  cat "$TMP/t"
}

echo "Annealing rate: hopmap anneal, 1 thread, from refine's mapping, random geometric graph on a whole 1-core torus. $(date +%F), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| tasks | torus | edges | moves per task | s | moves/s (1 thread) | edges/s | model $RATE / sqrt(n) |"
echo "|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  e=0
  while ((1 << e < n)); do e=$((e + 1)); done
  ((1 << e == n)) || { echo "anneal_rate.sh: $n is not a power of two" >&2; exit 1; }
  read -r x y z < <(dims3 "$e")
  machine="torus:${x}x${y}x${z}:cores=1"
  graph="$TMP/rgg.$n.edgelist"
  "$HOPMAP" gen random-geometric --tasks "$n" --seed 1 -o "$graph"
  "$HOPMAP" map --local --machine "$machine" --graph "$graph" --algorithm refine \
    --format perm -o "$TMP/start.perm" -q
  edges=$(grep -vc '^#' "$graph")
  # About 2 s of moves at the model's rate.
  moves=$(awk -v r="$RATE" -v n="$n" -v m="$edges" 'BEGIN {
    v = int(2 * r / sqrt(n) / (8 * m)); if (v < 5) v = 5; print v }')
  run=("$HOPMAP" map --local --machine "$machine" --graph "$graph" --algorithm anneal
    --initial "$TMP/start.perm" --threads 1 --time-limit 900 --format perm -o /dev/null -q)
  t1=$(wall "${run[@]}" --iterations 1)
  tm=$(wall "${run[@]}" --iterations "$moves")
  awk -v n="$n" -v m="$edges" -v k="$moves" -v a="$t1" -v b="$tm" -v r="$RATE" -v t="${x}x${y}x${z}" 'BEGIN {
    s = b - a; mv = 2 * (k - 1) * n / s
    printf "| %d | %s | %d | %d | %.2f | %.2fM | %.3g | %.3g |\n", n, t, m, k, s, mv / 1e6, mv * 4 * m / n, r / sqrt(n) }'
done
