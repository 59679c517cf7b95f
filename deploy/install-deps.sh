#!/usr/bin/env bash
# Installs every Debian 12 package hopmap needs to build, test and benchmark; with
# arguments, only the packages named (what one script alone needs: bench/fuzz.sh's
# clang, deploy/charm/build-charm.sh's tools).
# Idempotent: packages already present are left alone; safe to run again.
# Usage: bash deploy/install-deps.sh [PACKAGE...]
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libabsl-dev libtbb-dev libmetis-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  # node=hwloc:FILE (core/io/hwloc_node.cc) reads lstopo's XML with libhwloc.
  libhwloc-dev
  # Slurm's topology.yaml (core/io/slurm_topology_yaml.cc) is read with yaml-cpp.
  libyaml-cpp-dev
  # hopmapd checks its TLS certificate and key with OpenSSL; the TLS test makes a
  # self-signed certificate with the openssl command.
  libssl-dev openssl
  # hopmap draw: Cairo writes SVG, PNG and PDF; DejaVu is the pictures' font.
  libcairo2-dev fonts-dejavu-core
  # hopmap draw's tests: libxml2 parses the SVG, pdfinfo reads the PDF, Chromium
  # renders the SVG headless.
  libxml2-dev poppler-utils chromium
  # The Slurm test (tests/slurm) runs a real Slurm on loopback: controller, node
  # daemon, client commands, munge. Their services are not started here.
  slurmctld slurmd slurm-client munge
  # Slurm 26.05 is built from third_party/slurm (deploy/slurm/build-slurm.sh) with
  # munge, libyaml (its topology.yaml), json-c, hwloc, readline, lz4 and zlib.
  libmunge-dev libyaml-dev libjson-c-dev libreadline-dev liblz4-dev zlib1g-dev
  # ps: the Slurm test's cluster script stops daemons and their children by pid.
  procps
  # Peers and real consumers used by tests and benchmarks.
  openmpi-bin scotch jq
  # libhopmap_mpi (client/mpi) is built against Open MPI and tested with its mpirun;
  # libhopmap_mpi_mpich against MPICH, tested with its hydra mpiexec.mpich (Open MPI
  # stays the default MPI: its alternatives have the higher priority).
  libopenmpi-dev mpich libmpich-dev
  # The MPI tests' Fortran programs (mpif.h, use mpi, use mpi_f08).
  gfortran
  # hopmap simulate: the SimGrid worker and the SMPI platform library link
  # libsimgrid (s4u); --mpi and its tests run smpicc and smpirun, which Debian 12 ships
  # in libsimgrid-dev too ("simgrid" is only a name it provides: dpkg never reports
  # it installed, so listing it would run apt-get on every call).
  libsimgrid-dev
  # The vendored MPI applications (deploy/apps/build-apps.sh): their patches.
  patch
  # Scale-out (docs/operations.md): etcd holds the replicas' shared catalog, nginx is
  # the documented gRPC reverse proxy; the tests run both on loopback. Their services
  # are not started here.
  etcd-server etcd-client nginx
  # hopmapd --metrics-listen serves Prometheus metrics with prometheus-cpp; the metrics
  # test scrapes them with a real Prometheus server (not started here) and curl.
  prometheus-cpp-dev prometheus curl
  # deploy/package.sh builds the Debian packages with CPack (dpkg-shlibdeps is in
  # dpkg-dev) and checks them with lintian; the package test does the same.
  dpkg-dev lintian
  # /usr/bin/time: wall time and peak RSS in bench/scaling.sh and bench/anneal_rate.sh.
  time
  # bc: the ratios in the benchmarks' tables (bench/hierarchy_scotch.sh, stop_early.sh
  # and others); Debian's minimal images leave it out (priority standard).
  bc
  clang-format
  # deploy/check-style.sh measures functions' lengths with Universal Ctags.
  universal-ctags
  # The documented commands' check (tests/docs/check_docs.py).
  python3
  # The torchrun test (tests/client/torchrun) launches a real PyTorch job, gloo on
  # CPU, from hopmap's --format torchrun: Debian's PyTorch, /usr/bin/torchrun.
  python3-torch
)

[[ $# -eq 0 ]] || packages=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
