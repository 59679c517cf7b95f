#!/usr/bin/env bash
# Issue 19's peer: Open MPI's own topo/treematch reorder against libhopmap_mpi's, on
# the same model. Runs tests/client/mpi's reorder_check (MPI_Dist_graph_create_adjacent,
# reorder=1, a periodic NX x NY grid with weight 10 between vertical and 1 between
# horizontal neighbours) under mpirun with 4 ranks per model node (HOPMAP_NODE =
# rank / 4) three ways:
#   identity   reorder honoured by nothing (Open MPI's basic topo component);
#   treematch  mpirun --mca topo treematch (no hopmapd);
#   hopmap     libhopmap_mpi asking a real hopmapd (HOPMAP_SERVER);
# and, when MPICH's build is there (tests/client/mpi/mpich), under MPICH's hydra:
#   mpich      MPICH's own answer (it never reorders: the identity);
#   hopmap-mpich  libhopmap_mpi_mpich asking the same hopmapd.
# Each run prints which vertex each rank took; the placement's hop-bytes on the model
# is measured by `hopmap eval` (a perm file: vertex -> slot). treematch sees the
# real machine through hwloc, not the model: what it does here is reported as is.
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

# The pattern as hopmap reads it: both directions of every edge summed.
write_graph() {  # NX NY FILE
  awk -v nx="$1" -v ny="$2" 'BEGIN {
    for (v = 0; v < nx * ny; ++v) {
      x = v % nx; y = int(v / nx)
      print v, (x + 1) % nx + y * nx, 2
      print v, x + ((y + 1) % ny) * nx, 20
    }
  }' >"$3"
}

# run WAY NX NY MACHINE -> the perm file of the placement, and the reported line
run() {
  local way=$1 nx=$2 ny=$3 machine=$4 extra=()
  case $way in
    treematch) extra=(--mca topo treematch) ;;
    hopmap) extra=(-x "HOPMAP_SERVER=$HOPMAPD_ADDRESS" -x "HOPMAP_MACHINE=$machine" -x HOPMAP_VERBOSE=1) ;;
    identity) extra=(--mca topo basic) ;;
  esac
  local launch=(mpirun --oversubscribe -np $((nx * ny))) rank=OMPI_COMM_WORLD_RANK check=$CHECK
  case $way in
    mpich | hopmap-mpich)
      launch=(mpiexec.mpich -n $((nx * ny)))
      rank=PMI_RANK
      check=$CHECK_MPICH
      extra=()
      if [[ $way == hopmap-mpich ]]; then
        extra=(-genv HOPMAP_SERVER "$HOPMAPD_ADDRESS" -genv HOPMAP_MACHINE "$machine"
          -genv HOPMAP_VERBOSE 1)
      fi
      ;;
  esac
  env -u HOPMAP_SERVER "${launch[@]}" "${extra[@]}" sh -c \
    "HOPMAP_NODE=\$(($rank / 4)) exec $check dist $nx $ny" \
    >"$TMP/$way.out" 2>"$TMP/$way.err" || { echo "$way failed:"; cat "$TMP/$way.err"; return 1; }
  # vertex -> slot: node x 4 + the vertex's order among its node's vertices.
  awk '/^vertex/ {print $2, $4}' "$TMP/$way.out" | sort -n |
    awk '{slot[$1] = $2 * 4 + used[$2]++} END {for (v = 0; v < NR; ++v) print slot[v]}' >"$TMP/$way.perm"
}

printf "%-6s %-24s %-12s %10s %12s  %s\n" grid machine reorder hop-bytes "vs identity" note
for spec in "4 4 torus:2x2:cores=4" "8 4 torus:2x2x2:cores=4" "8 8 torus:4x4:cores=4"; do
  read -r nx ny machine <<<"$spec"
  write_graph "$nx" "$ny" "$TMP/g.edgelist"
  base=""
  for way in "${ways[@]}"; do
    run "$way" "$nx" "$ny" "$machine"
    hb=$("$HOPMAP" eval --local --graph "$TMP/g.edgelist" --machine "$machine" \
      --mapping "$TMP/$way.perm" | jq .hop_bytes)
    [[ -z $base ]] && base=$hb
    note=""
    if [[ $way == hopmap || $way == hopmap-mpich ]]; then
      note=$(grep -o 'reordered by hopmapd ([^)]*)' "$TMP/$way.err" | head -1)
    fi
    if [[ $way == treematch ]] && cmp -s "$TMP/treematch.perm" "$TMP/identity.perm"; then
      note="same placement as identity"
    fi
    bad=$(grep -c BAD "$TMP/$way.out" || true)
    [[ $bad -gt 0 ]] && note="$note; $bad ranks saw wrong neighbours"
    printf "%-6s %-24s %-12s %10s %12s  %s\n" "${nx}x${ny}" "$machine" "$way" "$hb" \
      "$(awk -v a="$hb" -v b="$base" 'BEGIN {printf "%.3f", a / b}')" "$note"
  done
done
