#!/usr/bin/env bash
# Issue 36's overhead target: reordering a 256-process communicator through hopmapd
# adds under 50 ms at MPI_Cart_create (the daemon warm), and how that grows with the
# number of processes. Runs tests/client/mpi's reorder_check (`cart NX NY`, a periodic
# grid of all the ranks, 4 ranks per model node: HOPMAP_NODE = rank / 4) under Open
# MPI's mpirun, oversubscribed on this machine's cores, two ways per round:
#   identity  HOPMAP_SERVER unset (the library loaded, MPI's own constructor);
#   hopmap    libhopmap_mpi asking a real hopmapd (warmed by one request first);
# and reads reorder_check's create_seconds (the slowest process's time in
# MPI_Cart_create, from a barrier). Prints per size the median of each way and the
# median over rounds of hopmap - identity in the same round (the added time), with
# hopmapd's own answer time (its log) beside it. Oversubscription makes every
# collective wait for the scheduler: the identity's own time grows with it too.
#
# Usage: bash bench/mpi_reorder_overhead.sh   Environment: ROUNDS (default 3),
#                                             SIZES (default "16 64 256"), BUILD (build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-16 64 256}
HOPMAPD=$(realpath "$BUILD/server/hopmapd/hopmapd")
CHECK=$(realpath "$BUILD/tests/client/mpi/mpi_reorder_check")
[[ -x $HOPMAPD && -x $CHECK ]] || {
  echo "${0##*/}: build hopmapd and mpi_reorder_check first" >&2
  exit 1
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source bench/hopmapd_common.sh
hopmapd_workdir mpi_reorder_overhead
start_hopmapd "$TMP/d.out" "$TMP/d.log" --threads 2

# The grid and the model torus for N ranks (4 per node).
shape() {  # N -> "NX NY MACHINE"
  case $1 in
    16) echo "4 4 torus:2x2:cores=4" ;;
    64) echo "8 8 torus:4x4:cores=4" ;;
    256) echo "16 16 torus:8x8:cores=4" ;;
    1024) echo "32 32 torus:16x16:cores=4" ;;
    *) die "no grid for $1 ranks (16, 64, 256 or 1024)" ;;
  esac
}

# create_seconds WAY N -> the slowest process's seconds in MPI_Cart_create
create_seconds() {
  local way=$1 n=$2 nx ny machine extra=()
  read -r nx ny machine <<<"$(shape "$n")"
  [[ $way == hopmap ]] && extra=(-x "HOPMAP_SERVER=$HOPMAPD_ADDRESS" -x "HOPMAP_MACHINE=$machine")
  env -u HOPMAP_SERVER mpirun --oversubscribe -np "$n" "${extra[@]}" sh -c \
    "HOPMAP_NODE=\$((OMPI_COMM_WORLD_RANK / 4)) exec $CHECK cart $nx $ny" \
    >"$TMP/run.out" 2>"$TMP/run.err" || die "$way on $n ranks failed: $(tail -3 "$TMP/run.err")"
  if grep -q BAD "$TMP/run.out"; then die "$way on $n ranks: $(grep -m1 BAD "$TMP/run.out")"; fi
  if [[ $way == hopmap ]] && grep -q "not reordered" "$TMP/run.err"; then
    die "hopmap on $n ranks: $(grep -m1 "not reordered" "$TMP/run.err")"
  fi
  sed -n 's/^create_seconds //p' "$TMP/run.out"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

create_seconds hopmap 16 >/dev/null  # warm: the first request, connections and catalog
printf "%6s %14s %14s %14s %18s\n" ranks "identity ms" "hopmap ms" "added ms" "hopmapd answer ms"
for n in $SIZES; do
  : >"$TMP/identity" && : >"$TMP/hopmap" && : >"$TMP/added"
  : >"$TMP/d.log"
  for _ in $(seq "$ROUNDS"); do
    i=$(create_seconds identity "$n")
    h=$(create_seconds hopmap "$n")
    echo "$i" >>"$TMP/identity"
    echo "$h" >>"$TMP/hopmap"
    awk -v a="$h" -v b="$i" 'BEGIN {print a - b}' >>"$TMP/added"
  done
  # hopmapd logs each call's wall time ("... method=Map ... seconds=0.012 ...").
  answer=$(grep -a 'method=Map' "$TMP/d.log" | grep -ao 'seconds=[0-9.]*' | cut -d= -f2 | median |
    awk '{printf "%.1f", $1 * 1000}')
  printf "%6s %14.1f %14.1f %14.1f %18s\n" "$n" \
    "$(median <"$TMP/identity" | awk '{print $1 * 1000}')" \
    "$(median <"$TMP/hopmap" | awk '{print $1 * 1000}')" \
    "$(median <"$TMP/added" | awk '{print $1 * 1000}')" "${answer:--}"
done
