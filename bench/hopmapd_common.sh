# Shared by the scripts that benchmark a real hopmapd (bench/daemon_scale.sh,
# bench/load.sh, bench/slurm_prolog.sh, bench/balance_remap.sh,
# bench/mpi_reorder_compare.sh, bench/charm_compare.sh). Source it after setting
# HOPMAPD; it defines die() unless the script did.
#
# hopmapd_workdir NAME: makes TMP, a temporary directory, and removes it at exit
# together with the daemon start_hopmapd started (for scripts with nothing else to
# clean up).
#
# start_hopmapd OUT LOG [ARGS...]: starts $HOPMAPD on a free loopback port with ARGS,
# stdout to OUT and stderr to LOG, and waits (30 s at most) for its "listening on"
# line. Sets HOPMAPD_PID and HOPMAPD_ADDRESS (HOST:PORT).
declare -F die >/dev/null || die() {
  echo "${0##*/}: $*" >&2
  exit 1
}

hopmapd_workdir() {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  HOPMAPD_PID=""
  trap '[[ -n $HOPMAPD_PID ]] && kill "$HOPMAPD_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
}

start_hopmapd() {
  local out=$1 log=$2
  shift 2
  "$HOPMAPD" --listen 127.0.0.1:0 "$@" >"$out" 2>"$log" &
  HOPMAPD_PID=$!
  for _ in $(seq 300); do
    grep -q "listening on" "$out" 2>/dev/null && break
    kill -0 "$HOPMAPD_PID" 2>/dev/null || die "hopmapd exited: $(tail -3 "$log")"
    sleep 0.1
  done
  HOPMAPD_ADDRESS=$(sed -n 's/^hopmapd: listening on //p' "$out" | head -1)
  if [[ -z $HOPMAPD_ADDRESS ]]; then
    kill "$HOPMAPD_PID" 2>/dev/null  # the callers' cleanup does not know it yet
    die "hopmapd did not say where it listens"
  fi
}
