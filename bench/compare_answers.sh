#!/usr/bin/env bash
# Two builds of hopmap give the same answers: a fixed set of map, balance, eval and
# simulate requests (in this process with --local, and through a hopmapd of the same
# build), plus a few refused ones, run with each build's CLI; the whole JSON answers
# (the error message and exit code of a refused request) compared byte for byte,
# with only the measured times taken out ("seconds", "solve_seconds", any
# "*_seconds" but the budget "time_limit_seconds", which the requests fix).
# A refactoring must change none. bench/compare_builds.sh compares hop-bytes and
# times instead.
#
#   bash bench/compare_answers.sh OLD_BUILD_DIR NEW_BUILD_DIR
#   e.g. the build before a change, beside this one:
#     git worktree add --detach /tmp/hopmap-old HEAD~1 && bash /tmp/hopmap-old/deploy/build.sh
#     bash bench/compare_answers.sh /tmp/hopmap-old/build build
#
# NEW runs twice first: a request whose two answers differ is not deterministic,
# and its OLD/NEW comparison says nothing. Every search is seeded, runs on 2 threads
# and ends on an iteration count (--iterations) well inside a 120 s budget.
# Prints a table (request, where, NEW twice, OLD and NEW), then the first differing lines
# of each difference. Exits 1 on any difference, or when a request meant to succeed
# fails (or one meant to fail succeeds). Takes about 4 minutes on 2 cores.
set -euo pipefail
usage="usage: compare_answers.sh OLD_BUILD_DIR NEW_BUILD_DIR"
old_dir=$(realpath "${1:?$usage}")
new_dir=$(realpath "${2:?$usage}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DATA=$(realpath "${DATA:-data}")
source bench/hopmapd_common.sh
for dir in "$old_dir" "$new_dir"; do
  for exe in client/hopmap server/hopmapd/hopmapd sim/hopmap-simgrid; do
    [[ -x $dir/$exe ]] || die "$dir/$exe is missing: build the whole tree (ninja -C $dir)"
  done
done
hopmapd_workdir hopmap-answers  # TMP, removed at exit with the daemon we started

# The inputs, written once by NEW and read by both builds (the JSON of simulate
# names its mapping files: the same paths for both).
in=$TMP/in
mkdir -p "$in"
gen() { "$new_dir/client/hopmap" gen "$@"; }
gen random-geometric --tasks 256 --seed 5 -o "$in/rgg256.edgelist"
gen random-geometric --tasks 1024 --seed 3 -o "$in/rgg1024.edgelist"
gen stencil3d-7 --dims 8x8x4 --wrap -o "$in/s3d256.edgelist"
gen stencil2d-5 --dims 16x16 -o "$in/s2d256.edgelist"
gen stencil2d-5 --dims 64x32 -o "$in/objects2048.edgelist"
gen stencil3d-7 --dims 4x4x4 --wrap --bytes 65536 -o "$in/s3d64.edgelist"
gen stencil3d-7 --dims 4x4x4 --wrap -o "$in/s3d64small.edgelist"
lulesh64=$DATA/commgraphs/cnca_lulesh_64.edgelist
lulesh1000=$DATA/commgraphs/cnca_lulesh_1000.edgelist
# 2048 objects of loads 1..5 on 64 slots; their current placement: blocks of 32.
awk 'BEGIN { for (i = 0; i < 2048; ++i) print 1 + (i * 7) % 5 }' >"$in/loads2048"
awk 'BEGIN { for (i = 0; i < 2048; ++i) print int(i / 32) }' >"$in/blocks2048.perm"
awk 'BEGIN { for (i = 0; i < 5; ++i) print 1 }' >"$in/loads5"
# One task per slot: 64 tasks strided over 64 slots, 256 reversed.
awk 'BEGIN { for (i = 0; i < 64; ++i) print (i * 5) % 64 }' >"$in/stride64.perm"
awk 'BEGIN { for (i = 0; i < 256; ++i) print 255 - i }' >"$in/rev256.perm"

# 64 nodes on a line: a machine without links.
awk 'BEGIN { for (i = 0; i < 64; ++i) { row = ""; for (j = 0; j < 64; ++j) row = row " " (i > j ? i - j : j - i); print row } }' >"$in/line64.hops"

torus=torus:8x8x4
# 256 of a 512-node torus's nodes, in two pieces: no candidate reaches the lower
# bound at once (auto stops the constructions after one that does, and how far each
# got names it differently: cart-greedy or cart-greedy(g0,g1)).
fragment=0-99,150-305
fattree=fattree:16x16
hierarchy=hierarchy:4x8x8:distances=1,10,100
levels=torus:4x4:node=2x8:node-distances=1,5
search=(--seed 7 --iterations 20 --time-limit 120 --threads 2)

# name | where (local: --local; server: this build's hopmapd) | ok or error | arguments
requests=(
  "map rgg256 torus auto|local|ok|map --machine $torus --graph $in/rgg256.edgelist --algorithm auto"
  "map rgg256 torus grasp|local|ok|map --machine $torus --graph $in/rgg256.edgelist --algorithm grasp"
  "map stencil3d fragmented torus auto|local|ok|map --machine torus:8x8x8 --nodes $fragment --graph $in/s3d256.edgelist --algorithm auto"
  "map rgg1024 torus:8x8x8:cores=2 rec-bisect|local|ok|map --machine torus:8x8x8:cores=2 --graph $in/rgg1024.edgelist --algorithm rec-bisect"
  "map rgg1024 torus:8x8x8:cores=2 hybrid|local|ok|map --machine torus:8x8x8:cores=2 --graph $in/rgg1024.edgelist --algorithm hybrid"
  "map rgg256 torus refine from initial|local|ok|map --machine $torus --graph $in/rgg256.edgelist --algorithm refine --initial $in/rev256.perm"
  "map rgg256 fattree auto|local|ok|map --machine $fattree --graph $in/rgg256.edgelist --algorithm auto"
  "map rgg256 fattree gge|local|ok|map --machine $fattree --graph $in/rgg256.edgelist --algorithm gge"
  "map rgg256 hierarchy auto|local|ok|map --machine $hierarchy --graph $in/rgg256.edgelist --algorithm auto"
  "map rgg256 hierarchy mahd|local|ok|map --machine $hierarchy --graph $in/rgg256.edgelist --algorithm mahd"
  "map rgg256 node levels auto|local|ok|map --machine $levels --graph $in/rgg256.edgelist --algorithm auto"
  "map stencil2d node levels rec-bisect|local|ok|map --machine $levels --graph $in/s2d256.edgelist --algorithm rec-bisect"
  "map lulesh64 torus:4x4x4 auto|local|ok|map --machine torus:4x4x4 --graph $lulesh64 --algorithm auto"
  "map lulesh1000 torus:8x8x8:cores=2 rec-bisect|local|ok|map --machine torus:8x8x8:cores=2 --graph $lulesh1000 --algorithm rec-bisect"
  "map lulesh1000 congestion gge|local|ok|map --machine torus:8x8x8:cores=2 --graph $lulesh1000 --algorithm gge --objective congestion"
  "map rgg256 torus auto|server|ok|map --machine $torus --graph $in/rgg256.edgelist --algorithm auto"
  "map rgg256 hierarchy auto|server|ok|map --machine $hierarchy --graph $in/rgg256.edgelist --algorithm auto"
  "map rgg256 node levels auto|server|ok|map --machine $levels --graph $in/rgg256.edgelist --algorithm auto"
  "map lulesh64 torus:4x4x4 auto|server|ok|map --machine torus:4x4x4 --graph $lulesh64 --algorithm auto"
  "balance 2048 on 64 auto|local|ok|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --algorithm auto"
  "balance 2048 on 64 partition|local|ok|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --algorithm partition"
  "balance 2048 on 64 migrate|local|ok|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --initial $in/blocks2048.perm --max-migrations 200 --algorithm migrate"
  "balance 2048 on 64 auto, current|local|ok|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --initial $in/blocks2048.perm --algorithm auto"
  "balance 2048 on hierarchy partition|local|ok|map --machine hierarchy:4x4x4:distances=1,10,100 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --algorithm partition"
  "balance 2048 on node levels partition|local|ok|map --machine torus:2x2:node=2x8:node-distances=1,5 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --algorithm partition"
  "balance 2048 on 64 migrate|server|ok|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --initial $in/blocks2048.perm --max-migrations 200 --algorithm migrate"
  "eval stencil3d strided|local|ok|eval --machine torus:4x4x4 --graph $in/s3d64small.edgelist --mapping $in/stride64.perm"
  "eval rgg256 reversed on node levels|local|ok|eval --machine torus:4x4:node=2x8:node-distances=1,5 --graph $in/rgg256.edgelist --mapping $in/rev256.perm"
  "eval balance 2048 blocks|local|ok|eval --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads2048 --mapping $in/blocks2048.perm"
  "eval stencil3d strided|server|ok|eval --machine torus:4x4x4 --graph $in/s3d64small.edgelist --mapping $in/stride64.perm"
  "simulate stencil3d strided|local|ok|simulate --machine torus:4x4x4 --graph $in/s3d64.edgelist --mapping $in/stride64.perm --format json"
  "simulate stencil3d alltoall|local|ok|simulate --machine torus:4x4x4 --graph $in/s3d64.edgelist --mapping $in/stride64.perm --pattern alltoall:4096 --iterations 2 --format json"
  "simulate stencil3d strided|server|ok|simulate --machine torus:4x4x4 --graph $in/s3d64.edgelist --mapping $in/stride64.perm --format json"
  "refused: more tasks than slots|local|error|map --machine torus:4x4 --graph $in/rgg256.edgelist"
  "refused: more tasks than slots|server|error|map --machine torus:4x4 --graph $in/rgg256.edgelist"
  "refused: unknown algorithm|local|error|map --machine $torus --graph $in/rgg256.edgelist --algorithm magic"
  "refused: unknown algorithm|server|error|map --machine $torus --graph $in/rgg256.edgelist --algorithm magic"
  "refused: negative time limit|local|error|map --machine $torus --graph $in/rgg256.edgelist --time-limit -1"
  "refused: a mapper as balancer|local|error|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --algorithm grasp"
  "refused: loads of 5 for 2048|local|error|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads5"
  "refused: loads of 5 for 2048|server|error|map --machine torus:4x4x4 --graph $in/objects2048.edgelist --balance --loads $in/loads5"
  "refused: congestion without links|local|error|map --machine matrix:$in/line64.hops --graph $in/s3d64small.edgelist --objective congestion"
  "refused: congestion without links|server|error|map --machine matrix:$in/line64.hops --graph $in/s3d64small.edgelist --objective congestion"
)

# The answer with its measured times replaced by "-" (the CLI prints JSON one key a
# line), the rest byte for byte. time_limit_seconds is the budget the request fixed.
strip_times() {
  sed -E '/^ *"time_limit_seconds": /! s/^( *"([A-Za-z_]*_)?seconds"): [^,]*(,?)$/\1: "-"\3/' \
    "$1" >"$2"
}

# run_requests BUILD_DIR TAG: every request with BUILD_DIR's CLI (its own SimGrid
# worker and hopmapd) into $TMP/TAG/<index>: the stripped JSON, or "exit N" and the
# message of a refused request. $TMP/TAG/<index>.wrong says it ended otherwise than
# meant.
run_requests() {
  local dir=$1 tag=$2 i entry name where expect rest out rc ended
  local -a args mode
  mkdir -p "$TMP/$tag"
  export HOPMAP_SIMGRID_WORKER=$dir/sim/hopmap-simgrid
  HOPMAPD=$dir/server/hopmapd/hopmapd
  start_hopmapd "$TMP/$tag/hopmapd.out" "$TMP/$tag/hopmapd.log" --threads 2
  for i in "${!requests[@]}"; do
    entry=${requests[$i]}
    IFS='|' read -r name where expect rest <<<"$entry"
    read -r -a args <<<"$rest"
    if [[ $where == server ]]; then mode=(--server "$HOPMAPD_ADDRESS"); else mode=(--local); fi
    if [[ ${args[0]} == map ]]; then args+=("${search[@]}" --quiet --format json); fi
    out=$TMP/$tag/$i
    rc=0
    "$dir/client/hopmap" "${args[@]}" "${mode[@]}" -o "$out.raw" 2>"$out.err" || rc=$?
    if ((rc == 0)); then
      strip_times "$out.raw" "$out"
    else
      { echo "exit $rc"; cat "$out.err"; } >"$out"
    fi
    ended=ok
    ((rc == 0)) || ended=error
    if [[ $ended != "$expect" ]]; then
      { echo "meant to end $expect, ended with exit $rc:"; head -3 "$out.err"; } >"$out.wrong"
    elif [[ $ended == ok && $(head -c 1 "$out.raw") != "{" ]]; then
      echo "answered no JSON" >"$out.wrong"
    fi
  done
  kill "$HOPMAPD_PID"
  wait "$HOPMAPD_PID" 2>/dev/null || true
  HOPMAPD_PID=""
}

echo "running ${#requests[@]} requests with NEW ($new_dir), twice, then OLD ($old_dir)" >&2
run_requests "$new_dir" new
run_requests "$new_dir" again
run_requests "$old_dir" old

status=0
details=""
# same TAG_A TAG_B INDEX LABEL: prints same or DIFFERENT; a difference's first lines
# go to $details.
same() {
  if cmp -s "$TMP/$1/$3" "$TMP/$2/$3"; then
    cell=same
  else
    cell=DIFFERENT
    status=1
    details+=$(printf '\n%s, %s: %s\n%s' "$name" "$where" "$4" \
      "$(diff "$TMP/$1/$3" "$TMP/$2/$3" | head -12)")$'\n'
  fi
}
echo "| request | where | NEW twice | OLD and NEW |"
echo "|---|---|:-:|:-:|"
for i in "${!requests[@]}"; do
  IFS='|' read -r name where _ <<<"${requests[$i]}"
  same new again "$i" "NEW twice (< first run, > second)"
  repeat=$cell
  same old new "$i" "OLD and NEW (< OLD, > NEW)"
  across=$cell
  for tag in new again old; do
    if [[ -f $TMP/$tag/$i.wrong ]]; then
      status=1
      across="$across, FAILED ($tag)"
      details+=$(printf '\n%s, %s: %s %s' "$name" "$where" "$tag" "$(cat "$TMP/$tag/$i.wrong")")$'\n'
    fi
  done
  echo "| $name | $where | $repeat | $across |"
done
printf '%s' "$details"
exit "$status"
