#!/usr/bin/env bash
# hopmap draw at scale (issue 20's target: 1M tasks draw in < 10 s, the file < 5 MB).
# For each job: a mapping made once by a fast algorithm (axis-order for the stencil,
# round-robin for the random geometric graph, whose rcm takes minutes at 1M), then `hopmap eval` (the
# peer: it reads the same graph and mapping and computes hop-bytes, link loads and
# the lower bound) and `hopmap draw` for every picture, SVG and PNG. Prints wall
# seconds and peak RSS of each whole process (reading the graph included), the
# file size, and draw's wall time as a ratio to eval's in the same run.
# Usage: bash bench/draw_scale.sh [SIZES...]  (default: 65536 1048576; needs
# build/client/hopmap; graphs and mappings go to $DRAW_SCALE_DIR, default /tmp/draw_scale)
set -euo pipefail
HOPMAP=${HOPMAP:-build/client/hopmap}
DIR=${DRAW_SCALE_DIR:-/tmp/draw_scale}
mkdir -p "$DIR"
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(65536 1048576)

# time_run OUT CMD...: runs CMD, leaves "wall_s peak_MB" in OUT.
time_run() {
  local out=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null
  awk '{printf "%s %.0f\n", $1, $2 / 1024}' "$out" >"$out.fmt"
}

printf "%-8s %-10s %-22s %-10s %-4s %7s %8s %9s %9s\n" tasks graph machine picture fmt wall_s peak_MB size_MB vs_eval
for n in "${SIZES[@]}"; do
  case $n in
    65536) d3=64x32x32; torus=torus:64x32x32; tree=fattree:16x64x64; df=dragonfly:32,32,64 ;;
    262144) d3=64x64x64; torus=torus:64x64x64; tree=fattree:64x64x64; df=dragonfly:64,64,64 ;;
    1048576) d3=128x128x64; torus=torus:128x128x64; tree=fattree:64x128x128; df=dragonfly:128,64,128 ;;
    *) echo "unknown size $n" >&2; exit 2 ;;
  esac
  s3d=$DIR/s3d$n.mtx
  rgg=$DIR/rgg$n.mtx
  [[ -s $s3d ]] || "$HOPMAP" gen stencil3d-7 --dims "$d3" -o "$s3d"
  [[ -s $rgg ]] || "$HOPMAP" gen random-geometric --tasks "$n" -o "$rgg"
  for job in "s3d $torus axis-order" "rgg $tree round-robin" "rgg $df round-robin"; do
    read -r g machine algorithm <<<"$job"
    graph=$DIR/$g$n.mtx
    perm=$DIR/$g$n.${machine%%:*}.perm
    [[ -s $perm ]] || "$HOPMAP" map --local --machine "$machine" --graph "$graph" \
      --algorithm "$algorithm" --format perm -q -o "$perm"
    problem=(--local --machine "$machine" --graph "$graph" --mapping "$perm")
    time_run "$DIR/t" "$HOPMAP" eval "${problem[@]}" --format text
    read -r eval_s eval_mb <"$DIR/t.fmt"
    printf "%-8s %-10s %-22s %-10s %-4s %7s %8s %9s %9s\n" "$n" "$g" "$machine" "(eval)" - \
      "$eval_s" "$eval_mb" - 1.00
    for what in placement links hops compare; do
      for fmt in svg png; do
        out=$DIR/$g$n.${machine%%:*}.$what.$fmt
        time_run "$DIR/t" "$HOPMAP" draw "${problem[@]}" --what "$what" -o "$out"
        read -r wall mb <"$DIR/t.fmt"
        size=$(stat -c %s "$out")
        awk -v n="$n" -v g="$g" -v m="$machine" -v w="$what" -v f="$fmt" -v t="$wall" -v mb="$mb" \
          -v size="$size" -v e="$eval_s" 'BEGIN {
            printf "%-8s %-10s %-22s %-10s %-4s %7s %8s %9.2f %9.2f\n", n, g, m, w, f, t, mb,
              size / 1e6, (e > 0 ? t / e : 0) }'
      done
    done
  done
done
