#!/usr/bin/env bash
# A throwaway Slurm cluster on loopback for tests: munged, slurmctld and four slurmd
# (n1..n4, 2 CPUs each, all on 127.0.0.1: Debian's slurmd runs several per host with
# -N), everything (config, key, state, spool, logs, pid files) under DIR.
#
#   slurm_cluster.sh start DIR CTLD_PORT SLURMD_PORT NODE_PORT1..4 PROLOG EPILOG
#       writes DIR/slurm.conf, starts the daemons, waits (60 s at most) until the four
#       nodes are idle; exit 1 with the logs' tails if they do not come up.
#   slurm_cluster.sh stop DIR
#       cancels every job, then stops what start started, by the pids it recorded
#       (SIGTERM, then SIGKILL after 10 s), slurmstepd and slurmscriptd included.
# Runs as root (slurmd needs it); the tests run as root here.
set -uo pipefail
cmd=${1:?start|stop}
dir=${2:?DIR}
export SLURM_CONF=$dir/slurm.conf

tails() {
  for f in "$dir"/log/*.log "$dir"/munge/munged.log; do
    [[ -f $f ]] && { echo "--- $f"; tail -5 "$f"; }
  done
}

stop() {
  if [[ -f $SLURM_CONF ]] && [[ -f $dir/run/slurmctld.pid ]]; then
    scancel --full --quiet --partition=debug 2>/dev/null
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
node_ports=("${5:?}" "${6:?}" "${7:?}" "${8:?}")
prolog=${9:?}
epilog=${10:?}
for tool in munged mungekey slurmctld slurmd sinfo sbatch srun scancel squeue; do
  command -v "$tool" >/dev/null || { echo "$tool not found: bash deploy/install-deps.sh installs Slurm and munge" >&2; exit 1; }
done
rm -rf "$dir"/{state,spool,run,log,munge}
mkdir -p "$dir"/{state,run,log,munge} "$dir"/spool/n{1,2,3,4}
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
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
PrologSlurmctld=$prolog
EpilogSlurmctld=$epilog
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=${node_ports[0]} CPUs=2 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=${node_ports[1]} CPUs=2 State=UNKNOWN
NodeName=n3 NodeHostname=localhost NodeAddr=127.0.0.1 Port=${node_ports[2]} CPUs=2 State=UNKNOWN
NodeName=n4 NodeHostname=localhost NodeAddr=127.0.0.1 Port=${node_ports[3]} CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" || { tails; exit 1; }
slurmctld -f "$SLURM_CONF" || { tails; stop; exit 1; }
for n in n1 n2 n3 n4; do
  slurmd -N "$n" -f "$SLURM_CONF" || { tails; stop; exit 1; }
done
for _ in $(seq 600); do
  [[ $(sinfo -h -o "%T %D" 2>/dev/null) == "idle 4" ]] && exit 0
  sleep 0.1
done
echo "the nodes did not become idle within 60 s: $(sinfo 2>&1 | tr '\n' ' ')" >&2
tails
stop
exit 1
