#!/usr/bin/env bash
# Installs the Debian packages, builds hopmap, Charm++, Slurm 26.05 and the MPI
# applications (third_party/apps), and runs every
# test (what CI runs). Charm++ and Slurm (the vendored sources in third_party/) are
# built once per machine into a cache keyed by their tarball's hash; a second run
# finds them and goes on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
# Formatting, the core's layering and function lengths, before anything is built
# (deploy/check-style.sh).
bash deploy/check-style.sh
# The Kubernetes manifests' checker (tests/deploy): npm packages pinned by its lockfile.
bash deploy/k8s/validate/install.sh
bash deploy/build.sh
# HopmapLB's tests (CharmTest.*) run in a real Charm++ and fail without it.
bash deploy/charm/build-charm.sh >/dev/null
# The Slurm 26.05 tests (Slurm26Test.*) run the vendored Slurm and fail without it.
bash deploy/slurm/build-slurm.sh >/dev/null
# The application tests (AppsTest.*) run the vendored MPI applications, built with
# Open MPI and with SMPI, and fail without them.
bash deploy/apps/build-apps.sh >/dev/null
ctest --test-dir build --output-on-failure -j "$(nproc)"
