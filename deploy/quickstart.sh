#!/usr/bin/env bash
# Installs the Debian packages, builds hopmap, and maps a sample job in-process:
# a 4096-rank 3D halo exchange onto a fragmented allocation of the Kraken-like
# 25x16x24 torus (12 cores per node), then prints the placement's report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh
mkdir -p out
hopmap=build/client/hopmap
$hopmap gen stencil3d-7 --dims 16x16x16 --wrap --bytes 65536 -o out/sample-stencil.edgelist
# 400 nodes in three pieces, as a busy scheduler hands them out: 4800 slots.
nodes="nid[00100-00299],nid[02000-02099],nid[05000-05099]"
common=(--local --machine kraken --nodes "$nodes" --graph out/sample-stencil.edgelist)
$hopmap map "${common[@]}" -o out/sample.json                       # the full JSON report
$hopmap map "${common[@]}" --format rankfile -o out/sample.rankfile  # for mpirun --rankfile
$hopmap eval "${common[@]}" --mapping out/sample.json --format text
echo "report: out/sample.json   Open MPI rankfile: out/sample.rankfile"
