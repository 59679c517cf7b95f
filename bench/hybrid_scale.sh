#!/usr/bin/env bash
# hybrid vs auto from 16384 to 1048576 tasks (issue 6): random geometric, 2D 5-point
# and 3D 7-point stencils onto tori with 1 and 4 cores per node, at the time limit
# the default budget will have (3 s at 16k, 8 s at 65k, 20 s at 262k, 45 s at 1M).
# Prints one row per run: wall seconds and peak RSS of the whole `hopmap map`
# process (reading the graph and writing the report included), the solve's own
# seconds (the report's solve_seconds), hop-bytes, and in-order's hop-bytes.
# Usage: bash bench/hybrid_scale.sh [SIZES...]   (default: all four; needs
# build/client/hopmap; graphs are generated into $HYBRID_SCALE_DIR, default /tmp)
set -euo pipefail
HOPMAP=${HOPMAP:-build/client/hopmap}
DIR=${HYBRID_SCALE_DIR:-/tmp/hybrid_scale}
ALGORITHMS=${ALGORITHMS:-"hybrid auto"}
mkdir -p "$DIR"
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(16384 65536 262144 1048576)
printf "%-9s %-18s %-24s %-7s %8s %8s %9s %15s %15s\n" tasks graph machine algo wall_s solve_s peak_MB \
  hop_bytes in_order
for n in "${SIZES[@]}"; do
  case $n in
    16384) d2=128x128; d3=32x32x16; t1=32x32x16; t4=16x16x16; limit=3 ;;
    65536) d2=256x256; d3=64x32x32; t1=64x32x32; t4=32x32x16; limit=8 ;;
    262144) d2=512x512; d3=64x64x64; t1=64x64x64; t4=64x32x32; limit=20 ;;
    1048576) d2=1024x1024; d3=128x128x64; t1=128x128x64; t4=64x64x64; limit=45 ;;
    *) echo "unknown size $n" >&2; exit 2 ;;
  esac
  for g in rg s2d s3d; do
    f=$DIR/$g$n.graph
    if [[ ! -s $f ]]; then
      case $g in
        rg) "$HOPMAP" gen random-geometric --tasks "$n" -o "$f" ;;
        s2d) "$HOPMAP" gen stencil2d-5 --dims $d2 -o "$f" ;;
        s3d) "$HOPMAP" gen stencil3d-7 --dims $d3 -o "$f" ;;
      esac
    fi
    for m in torus:$t1 torus:$t4:cores=4; do
      for a in $ALGORITHMS; do
        out=$(mktemp)
        /usr/bin/time -f "%e %M" -o "$out.time" "$HOPMAP" map --local --machine "$m" --graph "$f" \
          --algorithm "$a" --threads 2 --time-limit "$limit" > "$out"
        read -r wall rss < "$out.time"
        hb=$(grep -m1 '"hop_bytes"' "$out" | tr -dc 0-9)
        base=$(grep -m1 '"baseline_hop_bytes"' "$out" | tr -dc 0-9)
        solve=$(grep -m1 '"solve_seconds"' "$out" | tr -dc 0-9.)
        printf "%-9s %-18s %-24s %-7s %8s %8.2f %9d %15s %15s\n" "$n" "$g" "$m" "$a" "$wall" \
          "$solve" $((rss / 1024)) "$hb" "$base"
        rm -f "$out" "$out.time"
      done
    done
  done
done
