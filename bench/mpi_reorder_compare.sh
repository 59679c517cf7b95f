#!/usr/bin/env bash
# Issues 19 and 36: Open MPI's own topo/treematch reorder and MPICH's answer against
# libhopmap_mpi's, on the same model. Runs tests/client/mpi's reorder_check `distg`
# (MPI_Dist_graph_create, each process giving its own edges, reorder=1; a periodic
# 2-D or 3-D grid, weight 1 along x, 10 along y, 100 along z) with 4 ranks per model
# node (HOPMAP_NODE = rank / 4):
#   identity   reorder honoured by nothing (Open MPI's basic topo component);
#   treematch  mpirun --mca topo treematch, shown a node of one package per model node
#              (HWLOC_SYNTHETIC="pack:N/4 core:4 pu:1" with HWLOC_THISSYSTEM=0, so that
#              it counts the ranks as unbound and the fake cores as enough; with the
#              real topology, 2 cores, it never reorders); treematch implements only
#              MPI_Dist_graph_create (not _adjacent), and Open MPI 4.1 gives each
#              reordered process its old rank's neighbour list (open-mpi/ompi#11756,
#              fixed after 4.1): its placement is measured, its neighbours not
#              exchanged (REORDER_CHECK_NO_EXCHANGE=1: they would hang);
#   hopmap     libhopmap_mpi asking a real hopmapd (HOPMAP_SERVER);
# and, when MPICH's build is there (tests/client/mpi/mpich), under MPICH's hydra:
#   mpich      MPICH's own answer (it never reorders: the identity);
#   hopmap-mpich  libhopmap_mpi_mpich asking the same hopmapd.
# Each run prints which vertex each rank took; the placement's hop-bytes on the model
# is measured by `hopmap eval` (a perm file: vertex -> slot).
#
# Usage: bash bench/mpi_reorder_compare.sh      Environment: BUILD (build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
HOPMAPD=$(realpath "$BUILD/server/hopmapd/hopmapd")
CHECK=$(realpath "$BUILD/tests/client/mpi/mpi_reorder_check")
[[ -x $HOPMAP && -x $HOPMAPD && -x $CHECK ]] || { echo "${0##*/}: build hopmap, hopmapd and mpi_reorder_check first" >&2; exit 1; }
CHECK_MPICH=$BUILD/tests/client/mpi/mpich/mpi_reorder_check_mpich
ways=(identity treematch hopmap)
if [[ -x $CHECK_MPICH ]]; then
  CHECK_MPICH=$(realpath "$CHECK_MPICH")
  ways+=(mpich hopmap-mpich)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source bench/hopmapd_common.sh
hopmapd_workdir mpi_reorder
start_hopmapd "$TMP/d.out" "$TMP/d.log" --threads 2

# The pattern as hopmap reads it: both directions of every edge summed (weights 1
# along x, 10 along y, 100 along z, as reorder_check gives them).
write_graph() {  # NX NY NZ FILE
  awk -v nx="$1" -v ny="$2" -v nz="$3" 'BEGIN {
    for (v = 0; v < nx * ny * nz; ++v) {
      x = v % nx; y = int(v / nx) % ny; z = int(v / (nx * ny))
      print v, (x + 1) % nx + (y + z * ny) * nx, 2
      print v, x + (((y + 1) % ny) + z * ny) * nx, 20
      if (nz > 1) print v, x + (y + ((z + 1) % nz) * ny) * nx, 200
    }
  }' >"$4"
}

# run WAY NX NY NZ MACHINE -> the perm file of the placement, and the reported line
run() {
  local way=$1 nx=$2 ny=$3 nz=$4 machine=$5 extra=() dims="$2 $3"
  [[ $nz -gt 1 ]] && dims="$dims $nz"
  local kind=distg n=$((nx * ny * nz))
  case $way in
    treematch)
      extra=(--mca topo treematch -x HWLOC_THISSYSTEM -x HWLOC_SYNTHETIC
        -x REORDER_CHECK_NO_EXCHANGE=1)
      ;;
    hopmap) extra=(-x "HOPMAP_SERVER=$HOPMAPD_ADDRESS" -x "HOPMAP_MACHINE=$machine" -x HOPMAP_VERBOSE=1) ;;
    identity) extra=(--mca topo basic) ;;
  esac
  local launch=(mpirun --oversubscribe -np "$n") rank=OMPI_COMM_WORLD_RANK check=$CHECK
  case $way in
    mpich | hopmap-mpich)
      launch=(mpiexec.mpich -n "$n")
      rank=PMI_RANK
      check=$CHECK_MPICH
      extra=()
      if [[ $way == hopmap-mpich ]]; then
        extra=(-genv HOPMAP_SERVER "$HOPMAPD_ADDRESS" -genv HOPMAP_MACHINE "$machine"
          -genv HOPMAP_VERBOSE 1)
      fi
      ;;
  esac
  local fake=()  # what treematch (and mpirun, which binds) sees as this machine
  [[ $way == treematch ]] && fake=(HWLOC_THISSYSTEM=0 "HWLOC_SYNTHETIC=pack:$((n / 4)) core:4 pu:1")
  env -u HOPMAP_SERVER "${fake[@]}" "${launch[@]}" "${extra[@]}" sh -c \
    "HOPMAP_NODE=\$(($rank / 4)) exec $check $kind $dims" \
    >"$TMP/$way.out" 2>"$TMP/$way.err" || {
    # reorder_check exits 1 when a rank saw wrong neighbours: treematch's do (above);
    # its placement still counts when every rank reported one.
    if [[ $way != treematch || $(grep -c '^vertex' "$TMP/$way.out") -ne $n ]]; then
      echo "$way failed:"
      cat "$TMP/$way.err"
      return 1
    fi
  }
  # vertex -> slot: node x 4 + the vertex's order among its node's vertices.
  awk '/^vertex/ {print $2, $4}' "$TMP/$way.out" | sort -n |
    awk '{slot[$1] = $2 * 4 + used[$2]++} END {for (v = 0; v < NR; ++v) print slot[v]}' >"$TMP/$way.perm"
}

printf "%-6s %-24s %-12s %10s %12s  %s\n" grid machine reorder hop-bytes "vs identity" note
for spec in "4 4 1 torus:2x2:cores=4" "8 4 1 torus:2x2x2:cores=4" "8 8 1 torus:4x4:cores=4" \
  "4 4 2 torus:2x2x2:cores=4" "4 4 4 torus:4x4:cores=4"; do
  read -r nx ny nz machine <<<"$spec"
  write_graph "$nx" "$ny" "$nz" "$TMP/g.edgelist"
  base=""
  for way in "${ways[@]}"; do
    run "$way" "$nx" "$ny" "$nz" "$machine"
    hb=$("$HOPMAP" eval --local --graph "$TMP/g.edgelist" --machine "$machine" \
      --mapping "$TMP/$way.perm" | jq .hop_bytes)
    [[ -z $base ]] && base=$hb
    note=""
    if [[ $way == hopmap || $way == hopmap-mpich ]]; then
      note=$(sed -n 's/.*\(reordered by hopmapd (.*)\): hop-bytes.*/\1/p' "$TMP/$way.err" | sed -n 1p)
    fi
    if [[ $way == treematch ]] && cmp -s "$TMP/treematch.perm" "$TMP/identity.perm"; then
      note="same placement as identity"
    fi
    bad=$(grep -c BAD "$TMP/$way.out" || true)
    [[ $bad -gt 0 ]] && note="${note:+$note; }$bad ranks saw wrong neighbours"
    grid=${nx}x${ny}
    [[ $nz -gt 1 ]] && grid=${grid}x${nz}
    printf "%-6s %-24s %-12s %10s %12s  %s\n" "$grid" "$machine" "$way" "$hb" \
      "$(awk -v a="$hb" -v b="$base" 'BEGIN {printf "%.3f", a / b}')" "$note"
  done
done
