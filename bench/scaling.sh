#!/usr/bin/env bash
# The issue-6 scaling table: `auto` and `hybrid` with their DEFAULT budgets (no
# --time-limit is passed) from 1k to 1M tasks, Scotch 7 side by side on the same
# problems. Prints Markdown tables.
#
# Graphs (for each size n, a power of two):
#  - stencil2d-5 sqrt(n) x sqrt(n), periodic         (hopmap gen)
#  - stencil3d-7 a x b x c = n, periodic             (hopmap gen)
#  - random-geometric n tasks, seed 1 (mean degree ~8) (hopmap gen)
#  - the real graphs cnca_minife_1024 and cnca_lulesh_1000 (data/commgraphs,
#    the largest ones that fit 1k slots) replicated: floor(n / size) disjoint copies,
#    joined into a ring by light (1-byte) edges from the last task of one copy to the
#    first of the next; lulesh therefore has fewer tasks than slots (1000 per 1024).
# Targets (node counts chosen so the slots equal n):
#  - torus c1: a 3D torus of n nodes, 1 core per node   Scotch: torus3D X Y Z
#  - torus c4: a 3D torus of n/4 nodes, 4 cores per node
#        Scotch: torus3D of the n/4 nodes with -b0: every node gets exactly 4 tasks (its
#        terminals have equal weight); task k on a node becomes core k.
#  - frag c1: a fragmented allocation: every other block of a 2n-node 3D torus (16
#    blocks of n/16 nodes, stride n/8), 1 core per node
#        Scotch: sub n <node ids> torus3D X Y Z of the 2n-node torus.
# Scotch runs `scotch_gmap-int64 -Cd -b0` (DESIGN.md, Peers) on the same graph (.grf from
# `hopmap convert`) and target; its mapping becomes slots and `hopmap eval` recomputes its
# hop-bytes on the same machine and allocation (Scotch's printed cost is not used).
#
# Columns: wall seconds and peak RSS of the whole process (/usr/bin/time: reading the
# graph, solving, writing the report), hop-bytes, gap = hop-bytes / lower bound and the
# improvement over in-order (both from the JSON report), Scotch's hop-bytes and seconds,
# hop-bytes / Scotch's. Flags mark what misses issue 6's targets:
#   T10   65,536 tasks took > 10 s
#   T60   1M tasks took > 60 s
#   MEM   1M tasks peak RSS > 4 GB
#   R85   hop-bytes > 0.85 x Scotch's on an irregular graph (rgg, minife, lulesh) or the
#         fragmented allocation
#   IO    hop-bytes above in-order
#
# Usage: bash bench/scaling.sh [ROW_FILTER_REGEX]   (matched against "ALGO GRAPH TARGET N")
# Environment:
#   MAX_TASKS (default 1048576): largest size; SIZES (default "1024 4096 16384 65536 262144
#   1048576"): the sizes, powers of two >= 1024; ALGORITHMS (default "auto hybrid");
#   GRAPHS (default "stencil2d stencil3d rgg minife lulesh"); TARGETS (default "torus-c1
#   torus-c4 frag-c1"); SCOTCH_MAX_TASKS (default MAX_TASKS): no Scotch above this size;
#   SCALING_CACHE (default a temp dir, removed at the end): generated graphs and targets,
#   kept between runs when set; HOPMAP (default build/client/hopmap); THREADS (default 0:
#   hopmap's default); SCOTCH_LIB; DATA (default data/ in the repository); KEEP_TMP=1.
# Quick mode: MAX_TASKS=4096 bash bench/scaling.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

HOPMAP=${HOPMAP:-build/client/hopmap}
SCOTCH_LIB=${SCOTCH_LIB:-/usr/lib/x86_64-linux-gnu/scotch-int64}
REPS=1
MAX_TASKS=${MAX_TASKS:-1048576}
SIZES=${SIZES:-1024 4096 16384 65536 262144 1048576}
ALGORITHMS=${ALGORITHMS:-auto hybrid}
GRAPHS=${GRAPHS:-stencil2d stencil3d rgg minife lulesh}
TARGETS=${TARGETS:-torus-c1 torus-c4 frag-c1}
SCOTCH_MAX_TASKS=${SCOTCH_MAX_TASKS:-$MAX_TASKS}
THREADS=${THREADS:-0}
DATA=${DATA:-data}
FILTER=${1:-.}

source bench/scotch_common.sh

[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
[[ -d $DATA/commgraphs ]] || die "no $DATA/commgraphs (set DATA)"
if [[ -n ${SCALING_CACHE:-} ]]; then
  CACHE=$SCALING_CACHE
  mkdir -p "$CACHE"
else
  CACHE=$TMP/cache
  mkdir -p "$CACHE"
fi

# log2 of a power of two >= 1, or fails.
log2() {
  local n=$1 e=0
  while ((n > 1)); do
    ((n % 2 == 0)) || return 1
    n=$((n / 2))
    e=$((e + 1))
  done
  echo "$e"
}
# 3D dims "X Y Z" of 2^e nodes, as even as they go, the largest last.
dims3() {
  local e=$1 a b c
  a=$((e / 3))
  b=$(((e - a) / 2))
  c=$((e - a - b))
  echo "$((1 << a)) $((1 << b)) $((1 << c))"
}

# Makes the graph $1 with about $2 tasks in CACHE (edge list and Scotch .grf); prints
# the edge list's path.
make_graph() {
  local kind=$1 n=$2 e base f
  e=$(log2 "$n")
  base="$CACHE/$kind.$n"
  if [[ ! -s $base.edgelist ]]; then
    case $kind in
      stencil2d)
        local s=$((1 << (e / 2)))
        "$HOPMAP" gen stencil2d-5 --dims "${s}x$((n / s))" --wrap -o "$base.edgelist"
        ;;
      stencil3d)
        read -r x y z < <(dims3 "$e")
        "$HOPMAP" gen stencil3d-7 --dims "${x}x${y}x${z}" --wrap -o "$base.edgelist"
        ;;
      rgg)
        "$HOPMAP" gen random-geometric --tasks "$n" --seed 1 -o "$base.edgelist"
        ;;
      minife | lulesh)
        if [[ $kind == minife ]]; then f=$DATA/commgraphs/cnca_minife_1024.edgelist; else
          f=$DATA/commgraphs/cnca_lulesh_1000.edgelist
        fi
        # Copies of the graph with ids shifted, a ring of 1-byte edges between them.
        awk -v n="$n" '
          FNR == NR { if ($0 !~ /^#/ && NF >= 2) { u[m] = $1; v[m] = $2; w[m] = (NF >= 3 ? $3 : 1); m++
                        if ($1 + 1 > size) size = $1 + 1; if ($2 + 1 > size) size = $2 + 1 }
                      next }
          END {
            k = int(n / size)
            printf "# %d copies of a %d-task real graph joined by a ring of 1-byte edges\n", k, size
            printf "# tasks: %d\n", k * size
            for (c = 0; c < k; c++) {
              off = c * size
              for (i = 0; i < m; i++) printf "%d %d %s\n", u[i] + off, v[i] + off, w[i]
              if (k > 1) printf "%d %d 1\n", off + size - 1, ((c + 1) % k) * size
            }
          }' "$f" /dev/null >"$base.edgelist.tmp"
        mv "$base.edgelist.tmp" "$base.edgelist"
        ;;
      *) die "unknown graph '$kind' (stencil2d, stencil3d, rgg, minife, lulesh)" ;;
    esac
  fi
  [[ -s $base.grf ]] || "$HOPMAP" convert "$base.edgelist" -o "$base.grf" >/dev/null
  echo "$base.edgelist"
}

# Sets machine, nodes, cores, nnodes and writes the Scotch target file tgt for target
# $1 at $2 slots.
make_target() {
  local kind=$1 n=$2 e x y z
  e=$(log2 "$n")
  tgt="$CACHE/$kind.$n.tgt"
  case $kind in
    torus-c1 | torus-c4)
      if [[ $kind == torus-c1 ]]; then cores=1; else cores=4; fi
      nnodes=$((n / cores))
      read -r x y z < <(dims3 "$(log2 "$nnodes")")
      machine="torus:${x}x${y}x${z}:cores=$cores"
      nodes="0-$((nnodes - 1))"
      [[ -s $tgt ]] || echo "torus3D $x $y $z" >"$tgt"
      ;;
    frag-c1)
      cores=1
      nnodes=$n
      read -r x y z < <(dims3 "$((e + 1))")
      machine="torus:${x}x${y}x${z}:cores=1"
      local b=$((n / 16))
      nodes=$(blocks 16 "$b" $((2 * b)))
      if [[ ! -s $tgt ]]; then
        {
          echo "sub $n"
          awk -v b="$b" 'BEGIN { for (i = 0; i < 16; i++) for (j = 0; j < b; j++) print 2 * b * i + j }'
          echo "torus3D $x $y $z"
        } >"$tgt"
      fi
      ;;
    *) die "unknown target '$kind' (torus-c1, torus-c4, frag-c1)" ;;
  esac
}

# Scotch mapping (target = position in the allocation) -> perm of slots: the k-th task
# on a node gets its core k; fails if a node gets more than `cores` tasks.
scotch_to_slots() {
  local map=$1 ntasks=$2 npos=$3 cores=$4 perm=$5
  tail -n +2 "$map" | sort -n -k1,1 | awk -v n="$ntasks" -v m="$npos" -v c="$cores" '
    { if ($1 != NR - 1 || $2 < 0 || $2 >= m || used[$2] >= c) bad = 1
      print $2 * c + used[$2]++ }
    END { if (NR != n || bad) exit 1 }' >"$perm"
}

# Runs "$@" under /usr/bin/time; sets wall (s) and rss_mb. Output to $TMP/last.{out,err}.
run_timed() {
  if ! /usr/bin/time -f "%e %M" -o "$TMP/time" "$@" >"$TMP/last.out" 2>"$TMP/last.err"; then
    tail -5 "$TMP/last.err" >&2
    return 1
  fi
  read -r wall rss_kb <"$TMP/time"
  rss_mb=$((rss_kb / 1024))
}

threads_flag=()
((THREADS > 0)) && threads_flag=(--threads "$THREADS")

echo "Scaling (issue 6): hopmap ${ALGORITHMS// /, } with default budgets (no --time-limit)," \
  "threads ${THREADS/#0/default}; Scotch 7 -Cd -b0 up to $SCOTCH_MAX_TASKS tasks." \
  "$(date -u +%F), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| algo | graph | target | tasks | s | RSS MB | hop-bytes | gap to LB (bound) | vs in-order | Scotch HB | Scotch s | Scotch MB | HB / Scotch | misses |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"

rows=0 missed=0
for n in $SIZES; do
  log2 "$n" >/dev/null && ((n >= 1024)) || die "size $n is not a power of two >= 1024"
  ((n <= MAX_TASKS)) || continue
  for g in $GRAPHS; do
    for t in $TARGETS; do
      # Anything to run here?
      any=0
      for a in $ALGORITHMS; do [[ "$a $g $t $n" =~ $FILTER ]] && any=1; done
      ((any)) || continue
      graph=$(make_graph "$g" "$n")
      make_target "$t" "$n"
      id="$g.$t.$n"
      # Scotch once per problem, for both algorithms.
      sc_hb="-" sc_s="-" sc_mb="-"
      if ((n <= SCOTCH_MAX_TASKS)); then
        if run_timed scotch_gmap-int64 -Cd -b0 "${graph%.edgelist}.grf" "$tgt" "$TMP/$id.map"; then
          sc_s=$wall sc_mb=$rss_mb
          ntasks=$(head -1 "$TMP/$id.map")
          if scotch_to_slots "$TMP/$id.map" "$ntasks" "$nnodes" "$cores" "$TMP/$id.perm"; then
            sc_hb=$(eval_hop_bytes "$machine" "$nodes" "$graph" "$TMP/$id.perm")
          else
            sc_hb="invalid"
          fi
        else
          sc_hb="failed"
        fi
      else
        sc_hb="skipped (> SCOTCH_MAX_TASKS)"
      fi
      for a in $ALGORITHMS; do
        [[ "$a $g $t $n" =~ $FILTER ]] || continue
        rows=$((rows + 1))
        if ! run_timed "$HOPMAP" map --local --machine "$machine" --nodes "$nodes" --graph "$graph" \
          --algorithm "$a" "${threads_flag[@]}" --format json -q -o "$TMP/$id.$a.json"; then
          echo "| $a | $g | $t | $n | failed | | | | | $sc_hb | $sc_s | $sc_mb | | FAILED |"
          missed=$((missed + 1))
          continue
        fi
        read -r ntasks hb inorder lb method improvement < <(jq -r \
          '[.tasks, .hop_bytes, .baseline_hop_bytes, .lower_bound, .lower_bound_method, .improvement] | @tsv' \
          "$TMP/$id.$a.json")
        if ((lb > 0)); then gap=$(printf '%.3f' "$(echo "$hb / $lb" | bc -l)"); else gap="-"; fi
        ratio="-"
        misses=()
        if [[ $sc_hb =~ ^[0-9]+$ ]] && ((sc_hb > 0)); then
          ratio=$(printf '%.3f' "$(echo "$hb / $sc_hb" | bc -l)")
          if [[ $g == rgg || $g == minife || $g == lulesh || $t == frag-* ]] &&
            (($(echo "$ratio > 0.85" | bc -l))); then misses+=(R85); fi
        fi
        if ((n == 65536)) && (($(echo "$wall > 10" | bc -l))); then misses+=(T10); fi
        if ((n >= 1048576)) && (($(echo "$wall > 60" | bc -l))); then misses+=(T60); fi
        if ((n >= 1048576 && rss_mb > 4096)); then misses+=(MEM); fi
        if ((hb > inorder)); then misses+=(IO); fi
        ((${#misses[@]} == 0)) || missed=$((missed + 1))
        printf '| %s | %s | %s | %s | %.2f | %s | %s | %s (%s) | %.1f%% | %s | %s | %s | %s | %s |\n' \
          "$a" "$g" "$t" "$ntasks" "$wall" "$rss_mb" "$hb" "$gap" "$method" \
          "$(echo "100 * $improvement" | bc -l)" "$sc_hb" "$sc_s" "$sc_mb" "$ratio" "${misses[*]:-}"
      done
    done
  done
done
echo
echo "Misses: T10 65,536 tasks in > 10 s; T60 1M tasks in > 60 s; MEM 1M tasks over 4 GB RSS;" \
  "R85 hop-bytes > 0.85 x Scotch's on an irregular graph (rgg, minife, lulesh) or the fragmented" \
  "allocation; IO hop-bytes above in-order."
echo "Rows: $rows; rows missing a target: $missed. Wall times and RSS are whole processes" \
  "(/usr/bin/time), one run each, on a shared machine: noisy."
