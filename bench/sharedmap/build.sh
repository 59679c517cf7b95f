#!/usr/bin/env bash
# Builds SharedMap (Schulz and Woydt 2025, https://github.com/HenningWoydt/SharedMap, MIT
# licence), the field's best published mapper onto hierarchical machines, for
# bench/hierarchy_sharedmap.sh. Pinned revisions: SharedMap 7217b5f, and the
# dependencies its own build.sh downloads, KaHIP v3.19 and Mt-KaHyPar v1.5.3 (whose
# CMake clones kahypar-shared-resources, WHFC and parlaylib at the commits it pins).
# Unlike SharedMap's build.sh, TBB and Boost come from Debian rather than downloads.
#
# Needs (Debian 12): build-essential cmake git libtbb-dev libhwloc-dev
#   libboost-program-options-dev, installed through deploy/install-deps.sh when missing.
# Took 22 minutes (19.5 min of CPU) at JOBS=2 on a busy 2-core machine, mostly
# Mt-KaHyPar, and 0.5 GB of disk under BUILD_ROOT.
#
# Usage: bash bench/sharedmap/build.sh
# Environment:
#   BUILD_ROOT (/tmp/sharedmap-build): where sources and builds go; the binary is
#              $BUILD_ROOT/SharedMap/build/SharedMap (built with -march=native: run it on
#              the machine that built it).
#   JOBS (2): parallel compile jobs; everything runs under `nice`.
#   MIRROR (unset): clone from GitHub. Set to a folder of bare git mirrors named
#              <owner>+<name>/repo (e.g. MIRROR=/work/.mirror) to build offline from them:
#              HenningWoydt+SharedMap, KaHIP+KaHIP, kahypar+mt-kahypar,
#              kahypar+kahypar-shared-resources, larsgottesbueren+WHFC, cmuparlay+parlaylib.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD_ROOT=${BUILD_ROOT:-/tmp/sharedmap-build}
JOBS=${JOBS:-2}
MIRROR=${MIRROR:-}
NICE=(nice -n 19)

die() {
  echo "${0##*/}: $*" >&2
  exit 1
}

SHAREDMAP_REV=7217b5f444355b500d7f532728c34feadd92d66c # HenningWoydt/SharedMap
KAHIP_REV=9d4978c7540a1ccbc9807367d6e3852114e86567     # KaHIP/KaHIP tag v3.19
MTK_REV=f892bdcbf5d8bcb67bec361baf8f5b207d36165c       # kahypar/mt-kahypar tag v1.5.3
# Cloned by Mt-KaHyPar v1.5.3's CMake (FetchContent) at the commits it pins:
MTK_DEPS=(kahypar/kahypar-shared-resources larsgottesbueren/WHFC cmuparlay/parlaylib)

[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive integer, got '$JOBS'"
# What the build needs from Debian, installed through the project's own script when
# missing. Boost.Program_options is checked by its CMake package, which Mt-KaHyPar's
# find_package reads (Boost's headers alone, from libboost1.74-dev, do not have it).
missing=()
for tool in git cmake make c++ patch nice; do
  command -v "$tool" >/dev/null 2>&1 || missing+=(build-essential cmake git patch)
done
[[ -f /usr/include/tbb/tbb.h || -f /usr/include/oneapi/tbb.h ]] || missing+=(libtbb-dev)
[[ -f /usr/include/hwloc.h ]] || missing+=(libhwloc-dev)
compgen -G "/usr/lib/*/cmake/boost_program_options-*/boost_program_options-config.cmake" \
  >/dev/null || missing+=(libboost-program-options-dev)
if ((${#missing[@]} > 0)); then
  bash "$HERE/../../deploy/install-deps.sh" $(printf '%s\n' "${missing[@]}" | sort -u) ||
    die "cannot install ${missing[*]}"
fi

# url OWNER/NAME -> where to clone it from
url() {
  if [[ -n $MIRROR ]]; then
    local dir="$MIRROR/${1/\//+}/repo"
    [[ -d $dir ]] || die "no mirror of $1 at $dir"
    echo "$dir"
  else
    echo "https://github.com/$1.git"
  fi
}
# checkout OWNER/NAME REV DEST: a fresh checkout of REV at DEST
checkout() {
  local src
  src=$(url "$1")
  rm -rf "$3"
  git clone --quiet --no-checkout "$src" "$3" || die "cannot clone $src"
  git -C "$3" -c advice.detachedHead=false checkout --quiet "$2" ||
    die "revision $2 of $1 not found in $src"
}

# Offline: Mt-KaHyPar's CMake clones https://github.com/OWNER/NAME.git; git's insteadOf
# (passed through the environment, git >= 2.31) sends those clones to the mirrors.
if [[ -n $MIRROR ]]; then
  export GIT_CONFIG_COUNT=${#MTK_DEPS[@]}
  for i in "${!MTK_DEPS[@]}"; do
    export "GIT_CONFIG_KEY_$i=url.$(url "${MTK_DEPS[i]}").insteadOf"
    export "GIT_CONFIG_VALUE_$i=https://github.com/${MTK_DEPS[i]}.git"
  done
fi

mkdir -p "$BUILD_ROOT"
SM=$BUILD_ROOT/SharedMap
echo "== sources (${MIRROR:-from GitHub})"
checkout HenningWoydt/SharedMap "$SHAREDMAP_REV" "$SM"
checkout KaHIP/KaHIP "$KAHIP_REV" "$SM/extern/KaHIP"
checkout kahypar/mt-kahypar "$MTK_REV" "$SM/extern/MtKaHyPar"
patch -d "$SM/extern/MtKaHyPar" -p1 --quiet <"$HERE/mt-kahypar-v1.5.3-cmake-3.25.patch"
mkdir -p "$SM/extern/local"

echo "== KaHIP v3.19 (the library only, no MPI)"
cd "$SM/extern/KaHIP" && mkdir -p build && cd build
"${NICE[@]}" cmake .. -DCMAKE_BUILD_TYPE=Release -DNOMPI=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_INSTALL_PREFIX="$SM/extern/local/kahip"
"${NICE[@]}" cmake --build . --parallel "$JOBS" --target kahip
# What SharedMap's CMake looks for under extern/local/kahip (`cmake --install` would
# need KaHIP's command-line tools built too).
mkdir -p "$SM/extern/local/kahip/lib" "$SM/extern/local/kahip/include"
cp -a libkahip.so* "$SM/extern/local/kahip/lib/"
cp -a ../interface/kaHIP_interface.h "$SM/extern/local/kahip/include/"

echo "== Mt-KaHyPar v1.5.3 (the C library, Debian's TBB, Boost and hwloc)"
cd "$SM/extern/MtKaHyPar" && mkdir -p build && cd build
"${NICE[@]}" cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DKAHYPAR_DOWNLOAD_TBB=OFF -DKAHYPAR_DOWNLOAD_BOOST=OFF -DKAHYPAR_USE_64_BIT_IDS=ON \
  -DKAHYPAR_ENABLE_THREAD_PINNING=OFF -DKAHYPAR_DISABLE_ASSERTIONS=ON \
  -DCMAKE_INSTALL_PREFIX="$SM/extern/local/mt-kahypar"
"${NICE[@]}" cmake --build . --parallel "$JOBS" --target install-mtkahypar

echo "== SharedMap"
cd "$SM" && mkdir -p build && cd build
"${NICE[@]}" cmake .. -DCMAKE_BUILD_TYPE=Release
"${NICE[@]}" cmake --build . --parallel "$JOBS" --target SharedMap
[[ -x $SM/build/SharedMap ]] || die "the build ended without $SM/build/SharedMap"
echo "built: $SM/build/SharedMap"
