#!/usr/bin/env bash
# Issue 45: hopmap beside Slurm 26's own node ranking, read from a real Slurm 26.05
# (third_party/slurm, built by deploy/slurm/build-slurm.sh) that runs on loopback
# with one slurmd per node and a topology.yaml of three topologies over the same
# nodes: torus3d, tree (leaf switches) and block. Per job, Slurm ranks the job's nodes
# (srun, one task per node), hopmap maps the same graph onto the same nodes, and both
# placements are measured the same way: hop-bytes, communication time predicted by
# hopmap simulate (SimGrid), and the bytes that cross leaf switches or blocks.
# bench/slurm_ranking.py says how.
#   quick  64 nodes (4x4x4 torus; 8 leaves and 8 blocks of 8): a whole torus, one
#          fragmented torus allocation, one tree and one block job
#   full   512 nodes (8x8x8 torus, seed 000's Blue Gene/P partition; 32 leaves and 32
#          blocks of 16): the whole torus and four fragmented allocations of 3 to 5
#          pieces, four tree jobs over partial leaf switches, three block jobs over
#          partial blocks and one over 16 scattered whole blocks
# On each job: a 3D halo, a 2D 9-point stencil and an irregular graph (random
# geometric), 4 tasks per node, each with 1 KiB messages (hopmap gen's default:
# latency-bound) and with 64 KiB messages (bandwidth-bound). The jobs of 1,024 slots
# (fragmented-256n-4p, partial-leaves-256n-4p, scattered-blocks-256n) also get four
# graphs recorded from real applications (data/commgraphs: MiniFE, MiniMD, NPB CG and
# MG at 1,024 ranks, their own message sizes; message_bytes "recorded").
# Writes {"runs": [{"topology", "allocation", "nodes", "graph", "message_bytes",
# "tasks", "placement", "hop_bytes", "comm_time_s", "longest_route_hops",
# "estimated_time_s", "crossing_bytes"}]} (placement slurm, hopmap,
# hopmap-congestion, hopmap-dilation or hopmap-time, the last three `hopmap map
# --objective congestion`, `dilation` and `time`; longest_route_hops: the hops of the
# placement's most dilated edge; estimated_time_s: the report's exchange_seconds,
# the time objective's estimate; crossing_bytes null on the torus) to FILE and prints
# the table and the issue's targets. quick takes about 1 minute, full about 20
# minutes (2 cores).
#
# Usage: bash bench/slurm_ranking.sh quick|full -o FILE.json
# Environment: BUILD (build); KEEP_WORK=DIR keeps the cluster's files and the graphs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
usage() { echo "usage: bash bench/slurm_ranking.sh quick|full -o FILE.json" >&2; exit 2; }
[[ $# -eq 3 && $2 == -o ]] || usage
MODE=$1
OUT_JSON=$3
[[ $MODE == quick || $MODE == full ]] || usage
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
[[ -x $HOPMAP ]] || { echo "${0##*/}: build hopmap first (bash deploy/build.sh)" >&2; exit 1; }
PREFIX=$(bash deploy/slurm/build-slurm.sh | tail -1)
WORK=${KEEP_WORK:-$(mktemp -d)}
mkdir -p "$WORK"
chmod 755 "$WORK"  # munged wants its socket's directories searchable by all
[[ -n ${KEEP_WORK:-} ]] || trap 'rm -rf "$WORK"' EXIT
python3 bench/slurm_ranking.py "$MODE" --hopmap "$HOPMAP" --slurm-prefix "$PREFIX" \
  --repo "$PWD" --work "$WORK/cluster" -o "$OUT_JSON"
