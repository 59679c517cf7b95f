#!/usr/bin/env bash
# Configures and builds hopmap in build/ (Release, Ninja, warnings as errors: Debian
# 12's compilers build it without one). Extra arguments go to cmake (after ours, so
# -DHOPMAP_WERROR=OFF turns that off).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPMAP_WERROR=ON "$@" >/dev/null
ninja -C build -j "${HOPMAP_JOBS:-$(nproc)}"
