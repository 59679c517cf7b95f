#!/usr/bin/env bash
# Issue 45: the time hopmap-prolog takes inside Slurm 26.05 against Debian's 22.05,
# for the same job, in the same run. Two clusters on loopback side by side
# (tests/slurm/slurm_cluster.sh: eight slurmd n1..n8 each, 2 CPUs per node), one
# hopmapd, the same two-switch tree (n[1-4] | n[5-8]): 22.05 reads it from
# topology.conf (HOPMAP_MACHINE=slurm:topology.conf), 26.05 from topology.yaml, where
# the partition names the topology (HOPMAP_MACHINE=slurm-topology:topology.yaml, so
# the prolog also asks scontrol for the partition's Topology=). Each slurmctld runs the
# prolog as PrologSlurmctld through a wrapper that records its start and end; jobs
# (sbatch -N8 -n16 --comment=hopmap:GRAPH, a 3D stencil of 16 ranks) go to the two
# clusters in turn, RUNS each after one untimed warm-up job. Prints p50/p99/max per
# Slurm and the ratio of the medians (target: 26.05 within 1.2x of 22.05).
#
# Usage: bash bench/slurm_prolog_versions.sh
# Environment: RUNS (default 30), BUILD (build), KEEP_TMP=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build}
HOPMAP=$(realpath "$BUILD/client/hopmap")
HOPMAPD=$(realpath "$BUILD/server/hopmapd/hopmapd")
RUNS=${RUNS:-30}
REPO=$PWD
die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
[[ -x $HOPMAP && -x $HOPMAPD ]] || die "build hopmap and hopmapd first (bash deploy/build.sh)"
PREFIX=$(bash deploy/slurm/build-slurm.sh | tail -1)
source bench/hopmapd_common.sh

TMP=$(mktemp -d "${TMPDIR:-/tmp}/slurm_prolog_versions.XXXXXX")
chmod 755 "$TMP"  # munged wants its socket's directories searchable by all
HOPMAPD_PID=""
cleanup() {
  bash tests/slurm/slurm_cluster.sh stop "$TMP/s22" >/dev/null 2>&1 || true
  HOPMAP_SLURM_PREFIX=$PREFIX bash tests/slurm/slurm_cluster.sh stop "$TMP/s26" >/dev/null 2>&1 || true
  [[ -n $HOPMAPD_PID ]] && kill "$HOPMAPD_PID" 2>/dev/null || true
  [[ ${KEEP_TMP:-0} == 1 ]] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT
free_ports() {
  python3 -c "
import socket
socks = [socket.socket() for _ in range($1)]
for s in socks: s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in socks))"
}

start_hopmapd "$TMP/hopmapd.out" "$TMP/hopmapd.log"
mkdir -p "$TMP/s22" "$TMP/s26" "$TMP/jobs"
"$HOPMAP" gen stencil3d-7 --dims 4x2x2 -o "$TMP/jobs/g16.mtx"
printf 'SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-8]\nSwitchName=top Switches=s[1-2]\n' \
  >"$TMP/s22/topology.conf"
cat >"$TMP/s26/topology.yaml" <<'YAML'
---
- topology: tree
  cluster_default: true
  tree:
    switches:
      - switch: top
        children: s[1-2]
      - switch: s1
        nodes: n[1-4]
      - switch: s2
        nodes: n[5-8]
YAML
echo "PartitionName=tree Nodes=ALL Default=YES Topology=tree MaxTime=INFINITE State=UP" \
  >"$TMP/s26/partitions.conf"
for v in 22 26; do
  d=$TMP/s$v
  mkdir -p "$d/hostfiles"
  if [[ $v == 22 ]]; then
    machine="slurm:$d/topology.conf"
    extra=""
  else
    machine="slurm-topology:$d/topology.yaml"
    extra="HOPMAP_SCONTROL=$PREFIX/bin/scontrol
SLURM_CONF=$d/slurm.conf"
  fi
  cat >"$d/prolog.conf" <<CONF
HOPMAP_SERVER=$HOPMAPD_ADDRESS
HOPMAP_MACHINE=$machine
HOPMAP_DEADLINE=5
HOPMAP_HOSTFILE_DIR=$d/hostfiles
HOPMAP_BIN=$HOPMAP
HOPMAP_LOG_FILE=$d/prolog.log
$extra
CONF
  # The wrapper slurmctld runs: the prolog's own start and end, per job.
  cat >"$d/prolog" <<SH
#!/bin/sh
start=\$(date +%s.%N)
HOPMAP_PROLOG_CONF=$d/prolog.conf $REPO/deploy/slurm/hopmap-prolog
echo "\$SLURM_JOB_ID \$start \$(date +%s.%N)" >>$d/times
SH
  printf '#!/bin/sh\nHOPMAP_PROLOG_CONF=%s exec %s\n' "$d/prolog.conf" "$REPO/deploy/slurm/hopmap-epilog" >"$d/epilog"
  chmod +x "$d/prolog" "$d/epilog"
done
bash tests/slurm/slurm_cluster.sh start "$TMP/s22" $(free_ports 10) "$TMP/s22/prolog" "$TMP/s22/epilog" ||
  die "Debian's Slurm did not start"
HOPMAP_SLURM_PREFIX=$PREFIX bash tests/slurm/slurm_cluster.sh start "$TMP/s26" $(free_ports 10) \
  "$TMP/s26/prolog" "$TMP/s26/epilog" || die "Slurm 26.05 did not start"

submit() {  # VERSION: one job, waited for
  local v=$1 d=$TMP/s$1 path=$PATH id
  [[ $v == 26 ]] && path=$PREFIX/bin:$PATH
  id=$(SLURM_CONF=$d/slurm.conf PATH=$path sbatch --parsable -N8 -n16 -D "$TMP/jobs" \
    -o /dev/null --comment=hopmap:g16.mtx --wrap true)
  for _ in $(seq 600); do
    [[ -z $(SLURM_CONF=$d/slurm.conf PATH=$path squeue -h -j "$id" -o %T 2>/dev/null) ]] && return 0
    sleep 0.1
  done
  die "job $id on Slurm $v did not end in 60 s"
}
for v in 22 26; do submit $v; : >"$TMP/s$v/times"; done  # warm-up, untimed
for _ in $(seq "$RUNS"); do
  submit 22
  submit 26
done
version() { SLURM_CONF=$TMP/s$1/slurm.conf PATH=$([[ $1 == 26 ]] && echo "$PREFIX/bin:")$PATH sinfo --version; }
echo "hopmapd $HOPMAPD_ADDRESS; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ); $RUNS jobs per Slurm"
echo
echo "| Slurm | machine | jobs mapped | p50 s | p99 s | max s |"
echo "|---|---|---|---|---|---|"
for v in 22 26; do
  d=$TMP/s$v
  mapped=$(grep -c ": mapped 16 ranks" "$d/prolog.log" || true)
  awk '{ printf "%.4f\n", $3 - $2 }' "$d/times" | sort -n | awk -v label="$(version $v)" \
    -v machine="$(sed -n 's/^HOPMAP_MACHINE=\(slurm[^:]*\):.*/\1/p' "$d/prolog.conf")" -v mapped="$mapped" '
    { t[NR] = $1 }
    END {
      p50 = t[int((NR + 1) / 2)]; i99 = int(0.99 * NR + 0.999); if (i99 < 1) i99 = 1
      printf "| %s | %s | %d of %d | %.3f | %.3f | %.3f |\n", label, machine, mapped, NR + 1, p50, t[i99], t[NR]
      print p50 > "/dev/stderr"
    }' 2>"$d/p50"
done
awk -v a="$(cat "$TMP/s22/p50")" -v b="$(cat "$TMP/s26/p50")" \
  'BEGIN { printf "\nmedian prolog time, 26.05 / 22.05: %.2fx (target <= 1.20x)\n", b / a }'
