#!/usr/bin/env bash
# Issue 48: where the ranks of a training job go on a GPU cluster. For each cluster,
# allocation and job, three placements of the same job, each simulated with NCCL's
# collectives for one training step (hopmap simulate --pattern training:SPEC):
#   hostname         hosts in name order, ranks in order: torchrun's default (the
#                    allocation is listed in name order, so this is the in-order run)
#   topology-sorted  hosts by block (leaf group), NVLink domain, then name: what the
#                    clouds' host-sorting scripts and Slurm 26's block and tree ranking do
#   hopmap           hopmap map --keep-blocks G --objective time (a host's ranks stay one
#                    block of G, so torchrun can launch it; placements ranked by the
#                    estimated exchange time, which sees how much each host's rails
#                    carry, docs/gpu.md), default budget
# The clusters are kubectl node lists with cloud-style host names and GKE's topology
# labels (bench/gpu_cluster_nodes.py), read by the gpu-k8s machine kind. Allocations
# named whole-* are whole blocks; fragmented-* are hosts drawn at random from several
# blocks (partial blocks, leaf switches and NVLink domains).
#   quick  an H100 rail-optimized cluster (4 blocks of 32 hosts x 8 GPUs): a dense
#          TP x PP x DP job and a mixture-of-experts job of 512 GPUs, on a whole and a
#          fragmented allocation
#   full   quick, plus a GB200 NVL72 cluster (racks of 18 hosts x 4 GPUs, 8 racks per
#          block) with both jobs at 576 GPUs, larger fragmented allocations, and the
#          time to map a 16,384-GPU job
# Writes {"runs": [{"job", "gpus", "allocation", "placement", "step_comm_time_s",
# "cross_spine_bytes"}]} to FILE (full adds "map_16384_gpus_s") and prints the table.
# cross_spine_bytes: bytes per step that go up from a leaf group to the spine (half of
# simulate's spine link class, which counts the way up and the way down).
#
# Usage: bash bench/gpu_training.sh quick|full -o FILE.json
# Environment: BUILD (build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
usage() { echo "usage: bash bench/gpu_training.sh quick|full -o FILE.json" >&2; exit 2; }
[[ $# -eq 3 && $2 == -o ]] || usage
MODE=$1
OUT_JSON=$3
[[ $MODE == quick || $MODE == full ]] || usage
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
[[ -x $HOPMAP ]] || { echo "${0##*/}: build hopmap first (bash deploy/build.sh)" >&2; exit 1; }
WORK=${KEEP_WORK:-$(mktemp -d)}
mkdir -p "$WORK"
[[ -n ${KEEP_WORK:-} ]] || trap 'rm -rf "$WORK"' EXIT
ROWS=$WORK/rows.jsonl
: >"$ROWS"

# cluster NAME GROUPS HOSTS_PER_GROUP GPUS DOMAIN: writes $WORK/NAME.json, its machine
# spec in SPECS[NAME].
declare -A SPECS
cluster() {
  local name=$1 groups=$2 per=$3 gpus=$4 domain=$5
  python3 bench/gpu_cluster_nodes.py --groups "$groups" --hosts-per-group "$per" \
    --gpus "$gpus" --domain "$domain" --pool "$name" -o "$WORK/$name.json"
  SPECS[$name]="gpu-k8s:$WORK/$name.json"
  if ((domain > 1)); then
    SPECS[$name]+=":sub-block-label=cloud.google.com/gce-topology-subblock"
  fi
}

# run CLUSTER ALLOC_NAME KIND HOSTS SPAN JOB_NAME JOB_SPEC EXTRA_SPEC_OPTIONS [LABEL]: the
# rows' allocation is ALLOC_NAME@LABEL (LABEL: the cluster's name unless given).
run() {
  local cluster=$1 alloc=$2 kind=$3 hosts=$4 span=$5 job=$6 jobspec=$7 fabric=$8
  local label=${9:-$cluster}
  local tag=$WORK/$label-$alloc-$job
  python3 bench/gpu_training_setup.py --nodes "$WORK/$cluster.json" --hosts "$hosts" \
    --kind "$kind" --span "$span" --seed 7 --alloc-out "$tag.alloc" --sorted-out "$tag.sorted"
  local gpus_per_host
  gpus_per_host=$(jq -r '.items[0].status.capacity["nvidia.com/gpu"]' "$WORK/$cluster.json")
  local machine="${SPECS[$cluster]}$fabric"
  local problem=(--local --machine "$machine" --nodes "@$tag.alloc" --graph "$tag.graph")
  "$HOPMAP" gen training --job "$jobspec" -o "$tag.graph"
  "$HOPMAP" map "${problem[@]}" --keep-blocks "$gpus_per_host" --objective time --seed 1 -q \
    -o "$tag.hopmap.json"
  "$HOPMAP" simulate "${problem[@]}" --pattern "training:$jobspec" \
    --mapping "$tag.sorted" --mapping "$tag.hopmap.json" --format json >"$tag.sim.json"
  local gpus=$((hosts * gpus_per_host))
  jq -c --arg job "$job" --argjson gpus "$gpus" --arg alloc "$alloc@$label" '
    [("hostname", "topology-sorted", "hopmap")] as $names
    | .simulations | to_entries[]
    | {job: $job, gpus: $gpus, allocation: $alloc, placement: $names[.key],
       step_comm_time_s: .value.time_s,
       cross_spine_bytes: ((.value.link_class_bytes.spine // 0) / 2)}' \
    "$tag.sim.json" >>"$ROWS"
}

# A 70B-parameter dense model (Llama-2-70B's shape: hidden 8192, 80 layers), 4,096
# tokens, 8 micro-batches per step, and a mixture of experts (Mixtral-8x7B's shape:
# hidden 4096, 32 layers, 8 experts, top-2).
dense512="tp=8,pp=4,dp=16,hidden=8192,layers=80,seq=4096,micro-batches=8,dtype=bf16"
moe512="tp=2,pp=4,dp=64,ep=8,hidden=4096,layers=32,seq=4096,micro-batches=8,experts=8,moe-topk=2,dtype=bf16"
h100=":nvlink-bandwidth=450e9:rail-bandwidth=50e9"

cluster h100 4 32 8 1
run h100 whole-2blocks whole 64 0 dense-tp8pp4dp16 "$dense512" "$h100"
run h100 fragmented-4blocks fragmented 64 4 dense-tp8pp4dp16 "$dense512" "$h100"
run h100 whole-2blocks whole 64 0 moe-ep8 "$moe512" "$h100"
run h100 fragmented-4blocks fragmented 64 4 moe-ep8 "$moe512" "$h100"

if [[ $MODE == full ]]; then
  dense576="tp=4,pp=4,dp=36,hidden=8192,layers=80,seq=4096,micro-batches=8,dtype=bf16"
  moe576="tp=4,pp=4,dp=36,ep=4,hidden=4096,layers=32,seq=4096,micro-batches=8,experts=8,moe-topk=2,dtype=bf16"
  gb200=":nvlink-bandwidth=900e9:rail-bandwidth=50e9"
  cluster gb200 4 144 4 18
  run gb200 whole-8racks whole 144 0 dense-tp4pp4dp36 "$dense576" "$gb200"
  run gb200 fragmented-4blocks fragmented 144 4 dense-tp4pp4dp36 "$dense576" "$gb200"
  run gb200 whole-8racks whole 144 0 moe-ep4 "$moe576" "$gb200"
  run gb200 fragmented-4blocks fragmented 144 4 moe-ep4 "$moe576" "$gb200"
  # The same H100 cluster with its leaf-to-spine capacity a quarter of the hosts' (4:1
  # oversubscribed between blocks, as clusters built of non-blocking blocks can be).
  run h100 fragmented-4blocks fragmented 64 4 dense-tp8pp4dp16 "$dense512" "$h100:oversubscription=4" \
    h100-oversub4
  run h100 fragmented-4blocks fragmented 64 4 moe-ep8 "$moe512" "$h100:oversubscription=4" \
    h100-oversub4
  cluster h100big 8 32 8 1
  run h100big fragmented-8blocks fragmented 128 8 dense-tp8pp4dp32 \
    "tp=8,pp=4,dp=32,hidden=8192,layers=80,seq=4096,micro-batches=8,dtype=bf16" "$h100"
fi

SPEED=null
if [[ $MODE == full ]]; then
  # 16,384 GPUs: a GPT-3-175B-shaped job (hidden 12288, 96 layers) as TP 8 x PP 8 x DP 256
  # on 2,048 hosts of 8 GPUs (64 blocks of 32), every host allocated, default budget.
  cluster h100huge 64 32 8 1
  big="tp=8,pp=8,dp=256,hidden=12288,layers=96,seq=4096,micro-batches=16,dtype=bf16"
  "$HOPMAP" gen training --job "$big" -o "$WORK/big.graph"
  start=$(date +%s.%N)
  "$HOPMAP" map --local --machine "${SPECS[h100huge]}$h100" --graph "$WORK/big.graph" --keep-blocks 8 \
    --objective time --seed 1 -q -o "$WORK/big.json"
  SPEED=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  printf 'map of 16,384 GPUs (2,048 hosts, --keep-blocks 8 --objective time): %.2f s wall, hop-bytes %.4f of in-order\n' \
    "$SPEED" "$(jq '.hop_bytes / .baseline_hop_bytes' "$WORK/big.json")"
fi

jq -s --argjson speed "$SPEED" '{runs: .} + (if $speed == null then {} else {map_16384_gpus_s: $speed} end)' \
  "$ROWS" >"$OUT_JSON"
echo "| job | gpus | allocation | placement | step comm (s) | vs topology-sorted | cross-spine GB |"
echo "|---|---:|---|---|---:|---:|---:|"
jq -r '.runs | group_by(.job + .allocation)[] as $g
  | ($g[] | select(.placement == "topology-sorted") | .step_comm_time_s) as $sorted
  | $g[] | "| \(.job) | \(.gpus) | \(.allocation) | \(.placement) | \(.step_comm_time_s * 1e4 | round / 1e4) | \(.step_comm_time_s / $sorted * 1000 | round / 1000) | \(.cross_spine_bytes / 1e9 * 100 | round / 100) |"' \
  "$OUT_JSON"
