#!/usr/bin/env bash
# Builds the Debian packages out/hopmap_VERSION_amd64.deb (programs, runtime libraries,
# unit, docs) and out/libhopmap-dev_VERSION_amd64.deb (header, .so links, pkg-config
# file) with CPack from build/ (configuring and building it first), and checks each
# with lintian: any error fails. Install them with:
#   sudo apt-get install ./out/hopmap_VERSION_amd64.deb ./out/libhopmap-dev_VERSION_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh
mkdir -p out
(cd build && cpack -G DEB -B "$PWD/../out" >/dev/null)
rm -rf out/_CPack_Packages
version=$(sed -n 's/^project(hopmap VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
for name in hopmap libhopmap-dev; do
  deb=out/${name}_${version}_amd64.deb
  [[ -f $deb ]] || { echo "package: cpack did not write $deb" >&2; exit 1; }
  # Errors fail; warnings and notes are printed for the reader.
  lintian --fail-on error "$deb"
  echo "package: $deb"
done
