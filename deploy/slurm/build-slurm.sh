#!/usr/bin/env bash
# Builds Slurm from the vendored release source (third_party/slurm/slurm-*.tar.bz2,
# checked against its SHA256SUMS) into a cache keyed by the tarball's hash, so a
# machine builds it once. Prints the install prefix (sbin/slurmctld, sbin/slurmd,
# bin/srun, ...) on the last line of standard output; the build's log goes to
# PREFIX.log. Debian's own Slurm (22.05, from install-deps.sh) is left alone: this
# one lives only under the cache and is found by path.
#
# Built with --enable-multiple-slurmd (the tests run several slurmd on one host,
# each with -N NAME) and with libyaml (topology.yaml is read through Slurm's YAML
# serializer), munge (auth/munge) and json-c.
#
# Usage: bash deploy/slurm/build-slurm.sh [--find]
#   --find: only print the prefix if it is already built; exit 3 if not (the tests
#           use this: they never build Slurm themselves; deploy/test.sh builds it
#           before them).
# Environment:
#   HOPMAP_SLURM_CACHE   the cache (default ${XDG_CACHE_HOME:-~/.cache}/hopmap/slurm)
#   HOPMAP_VENDOR_DIR    where the tarball is (default third_party/slurm in the repository)
#   HOPMAP_JOBS          parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FIND_ONLY=0
[[ ${1:-} == --find ]] && FIND_ONLY=1
VENDOR=${HOPMAP_VENDOR_DIR:-third_party/slurm}
JOBS=${HOPMAP_JOBS:-2}
CACHE=${HOPMAP_SLURM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hopmap/slurm}
die() {
  echo "build-slurm: $*" >&2
  exit 1
}

source deploy/vendored_tarball.sh
vendored_tarball "$VENDOR" 'slurm-*.tar.bz2'
tarball=$TARBALL
version=${TARBALL_NAME%.tar.bz2}
actual=$TARBALL_SHA256

tree="$CACHE/${actual:0:16}"
prefix="$tree/$version"
if [[ -f $prefix/.hopmap-built ]]; then
  echo "$prefix"
  exit 0
fi
[[ $FIND_ONLY -eq 0 ]] || exit 3

# What Slurm's configure and make need from Debian, and munge to run it.
bash deploy/install-deps.sh build-essential pkg-config python3 libmunge-dev munge \
  libyaml-dev libjson-c-dev libhwloc-dev libreadline-dev liblz4-dev zlib1g-dev >&2

mkdir -p "$tree"
work=$(mktemp -d "$tree/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar xjf "$tarball" -C "$work"
src="$work/$version"
[[ -d $src ]] || die "$tarball did not unpack to $version/"
start=$(date +%s)
log="$prefix.log"
echo "build-slurm: building $version into $prefix (log: $log)" >&2
# The prefix is removed first: a build that stopped halfway installs again whole.
rm -rf "$prefix"
if ! (cd "$src" &&
  ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" \
    --enable-multiple-slurmd 2>&1 &&
  make -j"$JOBS" 2>&1 && make install 2>&1) >"$log"; then
  tail -20 "$log" >&2
  die "the build failed; see $log"
fi
for tool in sbin/slurmctld sbin/slurmd bin/srun bin/sbatch bin/scontrol lib/slurm/topology_torus3d.so lib/slurm/serializer_yaml.so; do
  [[ -e $prefix/$tool ]] || die "the build did not install $tool (see $log)"
done
seconds=$(($(date +%s) - start))
echo "$seconds" >"$prefix/.hopmap-build-seconds"
touch "$prefix/.hopmap-built"
echo "build-slurm: built in ${seconds} s" >&2
echo "$prefix"
