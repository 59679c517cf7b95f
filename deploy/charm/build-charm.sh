#!/usr/bin/env bash
# Builds Charm++ from the vendored source (third_party/charm/charm-*.tar.gz, checked
# against its SHA256SUMS) into a cache keyed by the tarball's hash and the target, so
# a machine builds it once. Prints the build's directory (charmc is in its bin/) on
# the last line of standard output; the build's log goes to DIR.log.
#
# Usage: bash deploy/charm/build-charm.sh [--find]
#   --find: only print the build's directory if it is already built; exit 3 if not
#           (the tests use this: they never build Charm++ themselves; deploy/test.sh
#           builds it before them).
# Environment:
#   CHARM_TARGET         multicore-linux-x86_64 (default) or netlrts-linux-x86_64
#   HOPMAP_CHARM_CACHE   the cache (default ${XDG_CACHE_HOME:-~/.cache}/hopmap/charm)
#   HOPMAP_VENDOR_DIR    where the tarball is (default third_party/charm in the repository)
#   HOPMAP_JOBS          parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FIND_ONLY=0
[[ ${1:-} == --find ]] && FIND_ONLY=1
VENDOR=${HOPMAP_VENDOR_DIR:-third_party/charm}
TARGET=${CHARM_TARGET:-multicore-linux-x86_64}
JOBS=${HOPMAP_JOBS:-2}
CACHE=${HOPMAP_CHARM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hopmap/charm}
die() {
  echo "build-charm: $*" >&2
  exit 1
}

source deploy/vendored_tarball.sh
vendored_tarball "$VENDOR" 'charm-*.tar.gz'
tarball=$TARBALL
name=$TARBALL_NAME
actual=$TARBALL_SHA256

# The source is unpacked once per tarball and built in place (the build directory
# links back into its source tree).
tree="$CACHE/${actual:0:16}"
dest="$tree/${name%.tar.gz}/$TARGET"
if [[ -f $dest/.hopmap-built ]]; then
  echo "$dest"
  exit 0
fi
[[ $FIND_ONLY -eq 0 ]] || exit 3

# What the build needs (CMake drives Charm++'s build since 7.0), and Scotch for
# Charm++'s ScotchLB and ScotchTopoLB (client/charm/build.sh compiles them).
bash deploy/install-deps.sh build-essential cmake python3 libscotch-dev >&2

mkdir -p "$CACHE"
if [[ ! -d $tree ]]; then
  work=$(mktemp -d "$CACHE/.unpack.XXXXXX")
  tar xzf "$tarball" -C "$work"
  mv "$work" "$tree"
fi
src="$tree/${name%.tar.gz}"
[[ -d $src ]] || die "$tarball did not unpack to ${name%.tar.gz}/"
start=$(date +%s)
echo "build-charm: building $TARGET in $src (log: $tree/$TARGET.log)" >&2
if [[ -d $dest ]]; then
  # An earlier build stopped before it was marked: Charm++'s build script refuses to
  # configure again, and says to run make in the build directory.
  build=(make -C "$dest" -j"$JOBS")
else
  build=(./build charm++ "$TARGET" --with-production -j"$JOBS")
fi
if ! (cd "$src" && "${build[@]}") >"$tree/$TARGET.log" 2>&1; then
  tail -20 "$tree/$TARGET.log" >&2
  die "the build failed; see $tree/$TARGET.log"
fi
seconds=$(($(date +%s) - start))
echo "$seconds" >"$dest/.hopmap-build-seconds"
touch "$dest/.hopmap-built"
echo "build-charm: built in ${seconds} s" >&2
echo "$dest"
