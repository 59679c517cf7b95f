# Shared by the Scotch side-by-side scripts (bench/scotch_compare.sh,
# bench/engine_scotch_compare.sh): tool checks, a temp dir, timing and the Scotch
# mapping -> hopmap perm conversion. Source it after setting HOPMAP and REPS.
die() {
  echo "${0##*/}: $*" >&2
  exit 1
}

for tool in scotch_gmap-int64 amk_grf-int64 gmk_m3-int64; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "Scotch is not installed ($tool not found): apt-get install scotch (Scotch 7, int64 build)"
done
[[ -d $SCOTCH_LIB ]] || die "Scotch int64 libraries not found in $SCOTCH_LIB (set SCOTCH_LIB)"
[[ -x $HOPMAP ]] || die "hopmap binary $HOPMAP not found: build it with 'bash deploy/build.sh'"
command -v jq >/dev/null 2>&1 || die "jq not found (apt-get install jq)"
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer, got '$REPS'"

export LD_LIBRARY_PATH="$SCOTCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/scotch_compare.XXXXXX")
if [[ ${KEEP_TMP:-0} == 1 ]]; then
  echo "scotch_compare: keeping $TMP" >&2
else
  trap 'rm -rf "$TMP"' EXIT
fi

now() { date +%s.%N; }
# Median of the numbers on stdin.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# "0-3,7" -> "0 1 2 3 7"
expand_nodes() {
  local part out=()
  IFS=',' read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then
      local range
      mapfile -t range < <(seq "${part%-*}" "${part#*-}")
      out+=("${range[@]}")
    else
      out+=("$part")
    fi
  done
  echo "${out[*]}"
}
# k blocks of b nodes starting at 0, stride s: "0-(b-1),s-(s+b-1),..."
blocks() {
  local k=$1 b=$2 s=$3 i spec=""
  for ((i = 0; i < k; i++)); do spec+="${spec:+,}$((i * s))-$((i * s + b - 1))"; done
  echo "$spec"
}
# Scotch mapping ("count" line, then "task target" lines) -> hopmap perm (line i: slot of
# task i); fails unless it is a permutation of 0..n-1.
scotch_to_perm() {
  local map=$1 n=$2 perm=$3
  tail -n +2 "$map" | sort -n -k1,1 | awk -v n="$n" '
    { if ($1 != NR - 1 || $2 < 0 || $2 >= n || seen[$2]++) bad = 1; print $2 }
    END { if (NR != n || bad) exit 1 }' >"$perm" ||
    die "Scotch's mapping $map is not one task per node of the $n-node allocation"
}
eval_hop_bytes() { # machine nodes graph perm
  "$HOPMAP" eval --local --machine "$1" --nodes "$2" --graph "$3" --mapping "$4" \
    --format json | jq -r .hop_bytes
}
# Runs "$@" REPS times; prints the median wall seconds. Output files are overwritten.
timed() {
  local r t0 t1
  for ((r = 0; r < REPS; r++)); do
    t0=$(now)
    "$@" >"$TMP/last.out" 2>"$TMP/last.err" || {
      cat "$TMP/last.err" >&2
      die "failed: $*"
    }
    t1=$(now)
    echo "$t1 - $t0" | bc -l
  done | median
}

