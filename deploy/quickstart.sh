#!/usr/bin/env bash
# Installs the Debian packages, builds hopmap, starts the hopmapd daemon and maps a
# sample job through it: a 4096-rank 3D halo exchange onto a fragmented allocation of
# the Kraken-like 25x16x24 torus (12 cores per node). The daemon keeps running.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh
mkdir -p out/state
hopmap=build/client/hopmap
hopmapd=build/server/hopmapd/hopmapd
address="${HOPMAP_ADDRESS:-127.0.0.1:50051}"

# Start the daemon unless one already answers there.
if [ -f out/hopmapd.pid ] && kill -0 "$(cat out/hopmapd.pid)" 2>/dev/null; then
  echo "hopmapd already running (pid $(cat out/hopmapd.pid))"
else
  $hopmapd --listen "$address" --state-dir out/state >out/hopmapd.out 2>out/hopmapd.log &
  echo $! > out/hopmapd.pid
  for _ in $(seq 1 100); do
    grep -q "listening on" out/hopmapd.out 2>/dev/null && break
    if ! kill -0 "$(cat out/hopmapd.pid)" 2>/dev/null; then
      echo "hopmapd did not start:" >&2; cat out/hopmapd.log >&2; exit 1
    fi
    sleep 0.1
  done
  cat out/hopmapd.out
fi

$hopmap gen stencil3d-7 --dims 16x16x16 --wrap --bytes 65536 -o out/sample-stencil.edgelist
# 400 nodes in three pieces, as a busy scheduler hands them out: 4800 slots.
nodes="nid[00100-00299],nid[02000-02099],nid[05000-05099]"
common=(--server "$address" --machine kraken --nodes "$nodes" --graph out/sample-stencil.edgelist)
$hopmap map "${common[@]}" -q -o out/sample.json                       # the full JSON report
$hopmap map "${common[@]}" -q --format rankfile -o out/sample.rankfile  # for mpirun --rankfile
$hopmap eval "${common[@]}" --mapping out/sample.json --format text
echo "report: out/sample.json   Open MPI rankfile: out/sample.rankfile"
echo "hopmapd is serving on $address (pid $(cat out/hopmapd.pid), log out/hopmapd.log);"
echo "stop it with: kill \$(cat out/hopmapd.pid)"
