#!/usr/bin/env bash
# Builds the Debian package out/hopmap_VERSION_amd64.deb with CPack from build/
# (configuring and building it first), and checks it with lintian: any error fails.
# Install it with: sudo apt-get install ./out/hopmap_VERSION_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
bash deploy/build.sh
mkdir -p out
(cd build && cpack -G DEB -B "$PWD/../out" >/dev/null)
rm -rf out/_CPack_Packages
deb=$(ls -t out/hopmap_*_amd64.deb | head -1)
# Errors fail; warnings and notes are printed for the reader.
lintian --fail-on error "$deb"
echo "package: $deb"
