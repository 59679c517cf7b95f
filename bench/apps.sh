#!/usr/bin/env bash
# Does the job run faster? Real MPI applications (third_party/apps: LULESH 2.0, HPCG,
# miniGhost), recorded, mapped and run on simulated machines (issue 44; docs/apps.md).
# For every application and machine, deploy/apps/run_app.py records the graph with
# MPICH, measures the compute bursts once under SMPI, and runs the SMPI build once
# per placement (in-order, Slurm 26's ranking, Scotch 7, hopmap auto) replaying each
# code region's median burst over ranks and repeats.
#
# Usage: bash bench/apps.sh quick|full -o FILE.json
#   quick: LULESH at 64 ranks on a Kraken allocation in three pieces
#   full:  the three applications at 512 ranks on bgp-8x8x8 (whole partition), Kraken
#          in three pieces, fattree-64x64 over partial leaf switches and dragonfly-xc
# Writes {"runs": [{"app", "ranks", "machine", "placement", "run_time_s",
# "mpi_time_s", "hop_bytes", ...}]} and prints the table with each placement's run
# time against in-order's. Recordings and profiles are kept in out/apps (WORK).
# Environment: HOPMAP (default build/client/hopmap), WORK (default out/apps).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() {
  echo "apps.sh: $*" >&2
  exit 1
}
MODE=${1:-}
[[ $MODE == quick || $MODE == full ]] || die "usage: bash bench/apps.sh quick|full -o FILE.json"
shift
OUT=
while [[ $# -gt 0 ]]; do
  case $1 in
    -o | --output) OUT=${2:?}; shift 2 ;;
    *) die "unknown argument $1 (usage: bash bench/apps.sh quick|full -o FILE.json)" ;;
  esac
done
[[ -n $OUT ]] || die "usage: bash bench/apps.sh quick|full -o FILE.json"
HOPMAP=${HOPMAP:-build/client/hopmap}
WORK=${WORK:-out/apps}
mkdir -p "$WORK"
bash deploy/apps/build-apps.sh >/dev/null

# machine | allocation (node ids)
if [[ $MODE == quick ]]; then
  CASES=("lulesh 64|kraken|1000-1019,3000-3021,7000-7021")
else
  # Kraken: three pieces of a 25x16x24 torus; the fat tree: 32 nodes on each of 16
  # leaf switches of 64; the dragonfly: parts of three groups of 384 nodes.
  MACHINES=("bgp-8x8x8|0-511"
    "kraken|1000-1199,3000-3155,7000-7155"
    "fattree-64x64|$(for l in $(seq 0 15); do echo "$((l * 64))-$((l * 64 + 31))"; done | paste -sd,)"
    "dragonfly-xc|0-171,384-555,768-935")
  CASES=()
  for app in "lulesh 512" "hpcg 512" "minighost 512"; do
    for m in "${MACHINES[@]}"; do CASES+=("$app|$m"); done
  done
fi

started=$(date +%s)
parts=()
for c in "${CASES[@]}"; do
  IFS='|' read -r app machine nodes <<<"$c"
  read -r name ranks <<<"$app"
  part="$WORK/rows-$name-$ranks-${machine//:/_}.json"
  python3 deploy/apps/run_app.py "$name" "$ranks" --machine "$machine" --nodes "$nodes" \
    --work "$WORK" --hopmap "$HOPMAP" -o "$part" >&2 || die "$name on $machine failed (above)"
  parts+=("$part")
done
jq -s --arg date "$(date -u +%F)" --arg mode "$MODE" --argjson seconds $(($(date +%s) - started)) \
  '{date: $date, mode: $mode, wall_seconds: $seconds, runs: (map(.runs) | add)}' "${parts[@]}" \
  >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
python3 - "$OUT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"bench/apps.sh {d['mode']} ({d['date']}, {d['wall_seconds']} s)\n")
print("| app | ranks | machine | placement | run time (s) | vs in-order | MPI time (s) | in collectives (s) | hop-bytes |")
print("|---|---|---|---|---|---|---|---|---|")
base = {}
for r in d["runs"]:
    key = (r["app"], r["machine"])
    if r["placement"] == "in-order":
        base[key] = r["run_time_s"]
    same = " (= in-order)" if r.get("same_as_in_order") else ""
    print(f"| {r['app']} | {r['ranks']} | {r['machine']} | {r['placement']}{same} | "
          f"{r['run_time_s']:.6f} | {r['run_time_s'] / base[key]:.3f} | {r['mpi_time_s']:.6f} | "
          f"{r.get('collective_s', 0.0):.6f} | {r['hop_bytes']} |")
EOF
