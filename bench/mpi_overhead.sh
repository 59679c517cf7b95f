#!/usr/bin/env bash
# Issue 19's overhead targets: recording with libhopmap_mpi adds < 5% to a message-
# rate microbenchmark (8-byte messages, one pair) and < 1% to a bandwidth one (1 MiB
# messages). Runs build/bench/mpi_rate (2 ranks bound to a core each, so the machine
# needs 2 cores; Open MPI's mpirun; the best of 10
# timed blocks of 128,000 8-byte or 160 1-MiB messages per run) ROUNDS times in
# three variants per round, in a rotating order so that drift hits all alike:
#   plain      no library;
#   preloaded  LD_PRELOAD=libhopmap_mpi.so, HOPMAP_RECORD unset (the wrappers only);
#   recording  LD_PRELOAD and HOPMAP_RECORD (counting, and the file at the end);
# and, in the same round, one recording run whose blocks alternate MPI_Pcontrol(1)
# and MPI_Pcontrol(0) (counting on, paused: same process, same placement, so the
# counting's own cost is measured without the launch-to-launch noise).
# Prints each variant's median rate and the median over rounds of variant / plain
# in the same round, and the median of on / paused (ratios, not absolute times:
# these machines are shared, and runs of the same binary differ by 10-30%).
#
# MPI=mpich measures libhopmap_mpi_mpich.so instead, with mpi_rate_mpich under MPICH's
# hydra (mpiexec.mpich -bind-to core, -genv for the variables).
#
# Usage: bash bench/mpi_overhead.sh     Environment: ROUNDS (default 9), BUILD (build),
#                                       MPI (openmpi, default; or mpich).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
MPI=${MPI:-openmpi}
case $MPI in
  openmpi) suffix= ;;
  mpich) suffix=_mpich ;;
  *) echo "${0##*/}: MPI must be openmpi or mpich, not '$MPI'" >&2; exit 2 ;;
esac
RATE=$(realpath "$BUILD/bench/mpi_rate$suffix")
LIB=$(realpath "$BUILD/client/mpi/libhopmap_mpi$suffix.so")
ROUNDS=${ROUNDS:-9}
[[ -x $RATE && -f $LIB ]] || { echo "${0##*/}: build mpi_rate and hopmap_mpi first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpi_overhead.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# run VARIANT BYTES WINDOW ITERATIONS -> messages per second (pcontrol: on / paused)
run() {
  local env=() extra=()
  case $1 in
    preloaded) env=(-x "LD_PRELOAD=$LIB") ;;
    recording) env=(-x "LD_PRELOAD=$LIB" -x "HOPMAP_RECORD=$TMP/record.edgelist") ;;
    pcontrol)
      env=(-x "LD_PRELOAD=$LIB" -x "HOPMAP_RECORD=$TMP/record.edgelist")
      extra=(20 pcontrol)
      ;;
  esac
  local launch=(mpirun -np 2 --bind-to core)
  if [[ $MPI == mpich ]]; then
    launch=(mpiexec.mpich -n 2 -bind-to core)
    local hydra=() kv
    for ((i = 0; i < ${#env[@]}; i += 2)); do  # -x NAME=VALUE -> -genv NAME VALUE
      kv=${env[i + 1]}
      hydra+=(-genv "${kv%%=*}" "${kv#*=}")
    done
    env=("${hydra[@]}")
  fi
  env -u HOPMAP_RECORD -u LD_PRELOAD "${launch[@]}" "${env[@]}" "$RATE" "$2" "$3" "$4" \
    "${extra[@]}" | awk '/^messages_per_second/ {print $2} /^on_messages/ {print $2 / $4}'
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

variants=(plain preloaded recording)
printf "%-10s %-10s %16s %18s %10s\n" bench variant "median msgs/s" "median vs plain" target
for spec in "rate 8 64 2000 5%" "bandwidth 1048576 16 10 1%"; do
  read -r name bytes window iterations target <<<"$spec"
  : >"$TMP/$name.rows"
  for ((round = 0; round < ROUNDS; ++round)); do
    declare -A got=()
    for ((k = 0; k < 3; ++k)); do
      v=${variants[$(((round + k) % 3))]}
      got[$v]=$(run "$v" "$bytes" "$window" "$iterations")
    done
    got[pcontrol]=$(run pcontrol "$bytes" "$window" "$iterations")
    echo "${got[plain]} ${got[preloaded]} ${got[recording]} ${got[pcontrol]}" >>"$TMP/$name.rows"
      [[ -n ${VERBOSE:-} ]] && echo "  $name round $round: plain preloaded recording on/paused = ${got[plain]} ${got[preloaded]} ${got[recording]} ${got[pcontrol]}" >&2
  done
  if [[ $name == bandwidth ]]; then scale=$bytes; else scale=1; fi
  for i in 1 2 3; do
    v=${variants[$((i - 1))]}
    rate=$(awk -v c="$i" '{print $c}' "$TMP/$name.rows" | median)
    ratio=$(awk -v c="$i" '{print $c / $1}' "$TMP/$name.rows" | median)
    printf "%-10s %-10s %16.0f %18.4f %10s\n" "$name" "$v" "$rate" "$ratio" \
      "$([[ $v == plain ]] && echo - || echo "< $target")"
  done
  printf "%-10s %-10s %16s %18.4f %10s\n" "$name" "on/paused" "(same process)" \
    "$(awk '{print $4}' "$TMP/$name.rows" | median)" "< $target"
  [[ $name == bandwidth ]] && echo "(bandwidth: $bytes-byte messages: bytes/s = msgs/s x $bytes)"
done
echo "MPI: $MPI; rounds: $ROUNDS; ratios are rates (higher is better): 0.97 means 3% slower"
