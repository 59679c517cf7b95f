#!/usr/bin/env bash
# Checks that a clone of this repository is the whole project: clones the current
# commit into an empty temporary folder (nothing beside it, so nothing outside the
# repository can be read by accident), then runs the README's two commands there,
#   bash deploy/quickstart.sh
#   bash deploy/test.sh
# and prints how long each took and how much disk the clone, its build and the
# Charm++ cache use. Stops the daemon the quickstart left running (by its pid file)
# and removes the clone unless KEEP=1.
#
# Usage: bash deploy/fresh-clone-check.sh
# Environment:
#   FRESH_CHARM=1   build Charm++ into an empty temporary cache, as a new machine
#                   would (about 5 minutes more), instead of the machine's cache
#                   (~/.cache/hopmap/charm)
#   FRESH_SLURM=1   the same for Slurm 26.05 (about 5 minutes more) instead of
#                   ~/.cache/hopmap/slurm
#   KEEP=1          keep the temporary folder (its path is printed)
#   HOPMAP_ADDRESS  where the quickstart's daemon listens (default 127.0.0.1:50051)
# Commit first: uncommitted changes are not in the clone (the script says so).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
commit=$(git rev-parse HEAD)
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
  echo "fresh-clone-check: uncommitted changes are not checked (the clone is of $commit)" >&2
fi

top=$(mktemp -d "${TMPDIR:-/tmp}/hopmap-fresh.XXXXXX")
clone=$top/hopmap
charm_cache=""
slurm_cache=""
daemon_pid=""
cleanup() {
  if [[ -f $clone/out/hopmapd.pid ]]; then
    daemon_pid=$(cat "$clone/out/hopmapd.pid")
    kill "$daemon_pid" 2>/dev/null || true
  fi
  if [[ ${KEEP:-0} == 1 ]]; then
    echo "fresh-clone-check: kept $top ${charm_cache} ${slurm_cache}"
  else
    rm -rf "$top" ${charm_cache:+"$charm_cache"} ${slurm_cache:+"$slurm_cache"}
  fi
}
trap cleanup EXIT

git clone --quiet --no-local "$repo" "$clone"
git -C "$clone" checkout --quiet "$commit"
if [[ ${FRESH_CHARM:-0} == 1 ]]; then
  # Its own temporary folder, not beside the clone.
  charm_cache=$(mktemp -d "${TMPDIR:-/tmp}/hopmap-fresh-charm.XXXXXX")
  export HOPMAP_CHARM_CACHE=$charm_cache
fi
if [[ ${FRESH_SLURM:-0} == 1 ]]; then
  slurm_cache=$(mktemp -d "${TMPDIR:-/tmp}/hopmap-fresh-slurm.XXXXXX")
  export HOPMAP_SLURM_CACHE=$slurm_cache
fi
echo "fresh-clone-check: $commit in $clone (nothing beside it)"

declare -A seconds
run() {
  local name=$1
  shift
  local start
  start=$(date +%s)
  echo "fresh-clone-check: ---- $* ----"
  if ! (cd "$clone" && "$@"); then
    echo "fresh-clone-check: FAILED: $* (after $(($(date +%s) - start)) s)" >&2
    exit 1
  fi
  seconds[$name]=$(($(date +%s) - start))
}
run quickstart bash deploy/quickstart.sh
run test bash deploy/test.sh

charm_dir=${HOPMAP_CHARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hopmap/charm}
slurm_dir=${HOPMAP_SLURM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hopmap/slurm}
echo "fresh-clone-check: passed at $commit on $(nproc) cores"
echo "  bash deploy/quickstart.sh  ${seconds[quickstart]} s"
echo "  bash deploy/test.sh        ${seconds[test]} s"
echo "  disk: clone with build/ and out/ $(du -sh "$clone" | cut -f1)," \
  "build/ $(du -sh "$clone/build" | cut -f1), Charm++ cache $(du -sh "$charm_dir" | cut -f1)," \
  "Slurm cache $(du -sh "$slurm_dir" | cut -f1)"
