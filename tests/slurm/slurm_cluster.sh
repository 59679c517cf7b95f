#!/usr/bin/env bash
# A throwaway Slurm cluster on loopback for tests: munged, slurmctld and N slurmd
# (n1..nN, 2 CPUs each, all on 127.0.0.1: a slurmd built with multiple-slurmd support
# runs several per host with -N), everything (config, key, state, spool, logs, pid
# files) under DIR.
#
#   slurm_cluster.sh start DIR CTLD_PORT SLURMD_PORT NODE_PORT1..N PROLOG EPILOG
#       writes DIR/slurm.conf, starts the daemons, waits (60 s at most, or
#       $HOPMAP_SLURM_START_WAIT) until the N nodes are idle; exit 1 with the logs' tails if they do not come up. A
#       DIR/topology.yaml written before start is Slurm's (26.05 reads it beside
#       slurm.conf); DIR/partitions.conf, if present, replaces the one default
#       partition "debug" (e.g. one partition per topology: Topology=NAME).
#   slurm_cluster.sh stop DIR
#       cancels every job, then stops what start started, by the pids it recorded
#       (SIGTERM, then SIGKILL after 10 s), slurmstepd and slurmscriptd included.
# Which Slurm: HOPMAP_SLURM_PREFIX=PREFIX (deploy/slurm/build-slurm.sh's install:
# PREFIX/bin, PREFIX/sbin) or, unset, the one on PATH (Debian's 22.05). Slurm 24.05
# and later dropped the "none" plugins 22.05 wants named; the file differs there.
# Runs as root (slurmd needs it); the tests run as root here.
set -uo pipefail
cmd=${1:?start|stop}
dir=${2:?DIR}
export SLURM_CONF=$dir/slurm.conf
if [[ -n ${HOPMAP_SLURM_PREFIX:-} ]]; then
  export PATH=$HOPMAP_SLURM_PREFIX/bin:$HOPMAP_SLURM_PREFIX/sbin:$PATH
fi

tails() {
  for f in "$dir"/log/*.log "$dir"/munge/munged.log; do
    [[ -f $f ]] && { echo "--- $f"; tail -5 "$f"; }
  done
}

stop() {
  if [[ -f $SLURM_CONF ]] && [[ -f $dir/run/slurmctld.pid ]]; then
    scancel --full --quiet --user=root 2>/dev/null
    # Jobs outlive the daemons (slurmstepd ignores SIGTERM): let them end first.
    for _ in $(seq 50); do
      [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.1
    done
  fi
  local pids=()
  for f in "$dir"/run/slurmd.*.pid "$dir"/run/slurmctld.pid "$dir"/munge/munged.pid; do
    [[ -f $f ]] || continue
    local p
    p=$(cat "$f")
    [[ $p =~ ^[0-9]+$ ]] || continue
    pids+=("$p")
    # slurmctld's slurmscriptd, slurmd's slurmstepd: children, gone with them or killed.
    while read -r child; do [[ -n $child ]] && pids+=("$child"); done < <(ps -o pid= --ppid "$p" 2>/dev/null)
  done
  [[ ${#pids[@]} -eq 0 ]] && return 0
  kill -TERM "${pids[@]}" 2>/dev/null
  for _ in $(seq 100); do
    local alive=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
    [[ ${#alive[@]} -eq 0 ]] && return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null
  return 0
}

if [[ $cmd == stop ]]; then
  stop
  exit 0
fi

[[ $cmd == start ]] || { echo "usage: $0 start|stop DIR ..." >&2; exit 2; }
ctld_port=${3:?}
slurmd_port=${4:?}
shift 4
[[ $# -ge 3 ]] || { echo "usage: $0 start DIR CTLD_PORT SLURMD_PORT NODE_PORT... PROLOG EPILOG" >&2; exit 2; }
args=("$@")
prolog=${args[-2]}
epilog=${args[-1]}
node_ports=("${args[@]:0:$(($# - 2))}")
nodes=()
for i in "${!node_ports[@]}"; do nodes+=("n$((i + 1))"); done
for tool in munged mungekey slurmctld slurmd sinfo sbatch srun scancel squeue; do
  command -v "$tool" >/dev/null || { echo "$tool not found: bash deploy/install-deps.sh installs Slurm and munge" >&2; exit 1; }
done
rm -rf "$dir"/{state,spool,run,log,munge}
mkdir -p "$dir"/{state,run,log,munge}
for n in "${nodes[@]}"; do mkdir -p "$dir/spool/$n"; done
chmod 755 "$dir" "$dir/munge"  # munged wants its socket's directory searchable by all
mungekey -c -k "$dir/munge/munge.key" || exit 1
cat >"$SLURM_CONF" <<CONF
ClusterName=hopmaptest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
PrologSlurmctld=$prolog
EpilogSlurmctld=$epilog
CONF
version=$(slurmctld -V | awk '{print $2}')
if [[ ${version%%.*} -lt 24 ]]; then
  printf '%s\n' TaskPlugin=task/none JobCompType=jobcomp/none \
    AccountingStorageType=accounting_storage/none JobAcctGatherType=jobacct_gather/none \
    SwitchType=switch/none >>"$SLURM_CONF"
fi
for i in "${!nodes[@]}"; do
  echo "NodeName=${nodes[$i]} NodeHostname=localhost NodeAddr=127.0.0.1 Port=${node_ports[$i]} CPUs=2 State=UNKNOWN" >>"$SLURM_CONF"
done
if [[ -f $dir/partitions.conf ]]; then
  cat "$dir/partitions.conf" >>"$SLURM_CONF"
else
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$SLURM_CONF"
fi
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" || { tails; exit 1; }
slurmctld -f "$SLURM_CONF" || { tails; stop; exit 1; }
for n in "${nodes[@]}"; do
  slurmd -N "$n" -f "$SLURM_CONF" || { tails; stop; exit 1; }
done
wait_s=${HOPMAP_SLURM_START_WAIT:-60}
for _ in $(seq $((wait_s * 10))); do
  [[ $(sinfo -h -N -o "%N %T" 2>/dev/null | awk '$2 == "idle" {print $1}' | sort -u | wc -l) -eq ${#nodes[@]} ]] && exit 0
  sleep 0.1
done
echo "the ${#nodes[@]} nodes did not become idle within ${wait_s} s: $(sinfo 2>&1 | tr '\n' ' ')" >&2
tails
stop
exit 1
