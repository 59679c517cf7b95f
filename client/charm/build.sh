#!/usr/bin/env bash
# Builds HopmapLB (a Charm++ load-balancing module, outside Charm++'s tree) and the
# jacobi2d test program with it, against a built Charm++ (deploy/charm/build-charm.sh)
# and libhopmap.so from the CMake build.
#
# Usage: bash client/charm/build.sh CHARM_DIR HOPMAP_BUILD_DIR OUT_DIR
#   CHARM_DIR         a Charm++ build (its bin/charmc), e.g. the last line of build-charm.sh
#   HOPMAP_BUILD_DIR  the CMake build holding client/c/libhopmap.so
#   OUT_DIR           where libmoduleHopmapLB.a and jacobi2d go
set -euo pipefail
[[ $# -eq 3 ]] || { sed -n 2,9p "$0" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
charm=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
charmc="$charm/bin/charmc"
[[ -x $charmc ]] || { echo "build.sh: $charmc not found" >&2; exit 1; }
[[ -f $build/client/c/libhopmap.so ]] || { echo "build.sh: $build/client/c/libhopmap.so not found" >&2; exit 1; }

cd "$out"
# The module: charmc's -module NAME links libmoduleNAME.a from a -L directory.
cp "$here/HopmapLB.ci" "$here/HopmapLB.h" "$here/HopmapLB.C" .
"$charmc" HopmapLB.ci
"$charmc" -O2 -std=c++17 -c HopmapLB.C -I"$repo/client/c" -o HopmapLB.o
"$charmc" -o libmoduleHopmapLB.a HopmapLB.o
cat >libmoduleHopmapLB.dep <<DEP
-L$build/client/c -lhopmap -Wl,-rpath,$build/client/c
DEP

# Charm++'s own Scotch balancers, which its CMake build leaves out: compiled from its
# source tree the same way when Debian's libscotch-dev is installed.
scotch_modules=()
ldb="$charm/../src/ck-ldb"
if [[ -f /usr/include/scotch/scotch.h && -f $ldb/ScotchTopoLB.C ]]; then
  for lb in ScotchLB ScotchTopoLB; do
    cp "$ldb/$lb.ci" "$ldb/$lb.h" "$ldb/$lb.C" .
    "$charmc" "$lb.ci"
    "$charmc" -O2 -c "$lb.C" -I/usr/include/scotch -o "$lb.o"
    "$charmc" -o "libmodule$lb.a" "$lb.o"
    echo "-lscotch -lscotcherr -lm" >"libmodule$lb.dep"
    scotch_modules+=(-module "$lb")
  done
fi

# The program, with the balancers it is compared against.
cp "$repo/tests/client/charm/jacobi2d.ci" "$repo/tests/client/charm/jacobi2d.C" .
"$charmc" jacobi2d.ci
"$charmc" -O2 -std=c++17 -c jacobi2d.C -o jacobi2d.o
"$charmc" -language charm++ -L"$out" -module CommonLBs -module HopmapLB "${scotch_modules[@]}" \
  -o jacobi2d jacobi2d.o -L"$build/client/c" -lhopmap -Wl,-rpath,"$build/client/c"
echo "$out/jacobi2d"
