#!/usr/bin/env bash
# Installs the Debian packages, builds hopmap and runs every test (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
# The Kubernetes manifests' checker (tests/deploy): npm packages pinned by its lockfile.
bash deploy/k8s/validate/install.sh
bash deploy/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
