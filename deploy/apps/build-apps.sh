#!/usr/bin/env bash
# Builds the vendored MPI proxy applications (third_party/apps: LULESH, HPCG,
# miniGhost; each tarball checked against its SHA256SUMS, its patches applied) with
# three toolchains:
#   mpi    Debian's default MPI, Open MPI 4.1 (mpicc, mpicxx, mpif90; run with mpirun);
#   mpich  MPICH 4.0 (mpicc.mpich, ...; run with mpiexec.mpich): Open MPI 4.1 cannot
#          start 512 ranks on one 2-core machine (its launch takes minutes from 256
#          ranks on and ends in "exiting improperly" at 512), MPICH's hydra can;
#   smpi   SimGrid's SMPI compilers (smpicc, smpicxx, smpif90; run with smpirun).
# A machine builds them once, into a cache keyed by a hash over the tarballs, the
# patches, this script and the SMPI compute wrapper:
#   PREFIX/<app>/mpi/<exe>    PREFIX/<app>/mpich/<exe>    PREFIX/<app>/smpi/<exe>
# (exe: lulesh2.0, xhpcg, miniGhost.x); each build's log is PREFIX/<app>/<toolchain>.log.
# Prints PREFIX on the last line of standard output. A build that fails prints one line
# naming the application and the toolchain and leaves the cache's other builds alone;
# the script then exits 1 once the others are tried.
#
# The SMPI builds also link the compute-replay wrapper, if the repository has one:
# every sim/smpi_compute/*.c is compiled with smpicc -c -fPIC -O2 and its object added
# to the application's link line (it defines MPI_* and Fortran mpi_*_ entry points, so
# they resolve to it before libsimgrid).
#
# deploy/apps/app_args.sh gives the command-line arguments to run each application.
#
# Usage: bash deploy/apps/build-apps.sh [--find] [APP...]
#   APP:    lulesh, hpcg or minighost (default: all three)
#   --find: only print PREFIX if every build asked for is already there; exit 3 if not
#           (tests and benchmarks use this; deploy/test.sh builds them before).
# Environment:
#   HOPMAP_APPS_CACHE    the cache (default ${XDG_CACHE_HOME:-~/.cache}/hopmap/apps)
#   HOPMAP_JOBS          parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
die() {
  echo "build-apps: $*" >&2
  exit 1
}

ALL_APPS=(lulesh hpcg minighost)
FIND_ONLY=0
apps=()
for arg in "$@"; do
  case $arg in
    --find) FIND_ONLY=1 ;;
    lulesh | hpcg | minighost) apps+=("$arg") ;;
    *) die "unknown argument '$arg' (expected --find, lulesh, hpcg or minighost)" ;;
  esac
done
[[ ${#apps[@]} -gt 0 ]] || apps=("${ALL_APPS[@]}")
VENDOR=third_party/apps
WRAPPER_DIR=sim/smpi_compute
JOBS=${HOPMAP_JOBS:-2}
CACHE=${HOPMAP_APPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hopmap/apps}
TOOLCHAINS=(mpi mpich smpi)

# The executable each application's build makes, as installed.
exe_name() {
  case $1 in
    lulesh) echo lulesh2.0 ;;
    hpcg) echo xhpcg ;;
    minighost) echo miniGhost.x ;;
  esac
}

# Every application's tarball is checked, and the hash covers all of them, so PREFIX
# is the same whichever applications are asked for.
source deploy/vendored_tarball.sh
declare -A tarball
manifest=""
for app in "${ALL_APPS[@]}"; do
  vendored_tarball "$VENDOR/$app" "$app-*.tar.gz"
  tarball[$app]=$TARBALL
  manifest+="$TARBALL_SHA256  $TARBALL"$'\n'
done
shopt -s nullglob
wrapper_sources=("$WRAPPER_DIR"/*.c)
hashed=("$VENDOR"/*/patches/*.patch "$WRAPPER_DIR"/*.c "$WRAPPER_DIR"/*.h)
shopt -u nullglob
hashed+=(deploy/apps/build-apps.sh)
for f in "${hashed[@]}"; do
  manifest+="$(sha256sum "$f" | cut -d' ' -f1)  $f"$'\n'
done
hash=$(printf '%s' "$manifest" | sha256sum | cut -c1-16)
prefix="$CACHE/$hash"

# The builds asked for that the cache does not have yet ("APP/TOOLCHAIN"), in todo.
find_todo() {
  local app tc
  todo=()
  for app in "${apps[@]}"; do
    for tc in "${TOOLCHAINS[@]}"; do
      [[ -f $prefix/$app/$tc/.hopmap-built ]] || todo+=("$app/$tc")
    done
  done
}
find_todo
if [[ ${#todo[@]} -eq 0 ]]; then
  echo "$prefix"
  exit 0
fi
[[ $FIND_ONLY -eq 0 ]] || exit 3
# make splits its variables at blanks: the wrapper's objects are named by path.
[[ $prefix != *[[:space:]]* ]] || die "the cache path '$prefix' has a blank in it (set HOPMAP_APPS_CACHE)"

# Compilers and MPI libraries: GNU C, C++ and Fortran, Open MPI (Debian's default MPI,
# with its mpirun), MPICH (with mpiexec.mpich), SimGrid's SMPI (smpicc, smpicxx,
# smpif90, smpirun are in libsimgrid-dev); patch applies third_party/apps/*/patches.
bash deploy/install-deps.sh build-essential gfortran libopenmpi-dev openmpi-bin mpich \
  libmpich-dev libsimgrid-dev patch >&2

mkdir -p "$prefix"
printf '%s' "$manifest" >"$prefix/.hopmap-inputs"
# Two builds of the same cache at once (two CI jobs) take turns.
exec 9>"$prefix/.lock"
flock 9
find_todo

# make_app APP TOOLCHAIN SRC LOG [OBJECT...]: runs the application's own makefile in
# SRC with the toolchain's compilers; OBJECTs (absolute paths, no blanks) are
# added to the link line. Prints the built executable's path.
make_app() {
  local app=$1 tc=$2 src=$3 log=$4 cc cxx fc
  shift 4
  case $tc in
    mpi) cc=mpicc cxx=mpicxx fc=mpif90 ;;
    mpich) cc=mpicc.mpich cxx=mpicxx.mpich fc=mpif90.mpich ;;
    smpi) cc=smpicc cxx=smpicxx fc=smpif90 ;;
  esac
  case $app in
    lulesh)
      # MPI without OpenMP: the Makefile's serial flags (no -fopenmp), with USE_MPI=1.
      make -C "$src" -j"$JOBS" CXX="$cxx -DUSE_MPI=1" CXXFLAGS="-g -O3 -I. -Wall" \
        LDFLAGS="-g -O3 $*" lulesh2.0 >>"$log" 2>&1 || return 1
      echo "$src/lulesh2.0"
      ;;
    hpcg)
      # setup/Make.Linux_MPI: MPI, no OpenMP, -O3 -ffast-math.
      make -C "$src" -j"$JOBS" arch=Linux_MPI CXX="$cxx" HPCG_LIBS="$*" >>"$log" 2>&1 || return 1
      echo "$src/bin/xhpcg"
      ;;
    minighost)
      # makefile.mpi.gnu (gfortran; Fortran 90 modules: one job, its dependencies are
      # incomplete). Today's gfortran needs -fallow-argument-mismatch (MPI buffers of
      # several types) and -ffree-line-length-none (lines over 132 columns). mpif90
      # links (the C main calls Fortran that calls MPI's Fortran bindings); "-o $@"
      # because smpif90 names a .F file's object ".o" otherwise.
      # shellcheck disable=SC2016  # $@ is make's
      make -C "$src/ref" -f makefile.mpi.gnu FC="$fc" CC="$cc" LD="$fc" MPI_INCLUDE= \
        OPT_F="-O3 -fallow-argument-mismatch -ffree-line-length-none" F_INCLUDE='-o $@' \
        LIBS="$*" >>"$log" 2>&1 || return 1
      echo "$src/ref/miniGhost.x"
      ;;
  esac
}

# build APP TOOLCHAIN: unpacks, patches, compiles and installs one build. Returns 1
# after printing one line if a step fails; an earlier build of APP/TOOLCHAIN in this
# cache is replaced only by one that succeeded.
build() {
  local app=$1 tc=$2 work src log exe patch c start objects=()
  log="$prefix/$app/$tc.log"
  fail() {
    echo "build-apps: $app ($tc): $*; see $log" >&2
    rm -rf "$work"
    return 1
  }
  work=""
  if ! { mkdir -p "$prefix/$app" && : >"$log" && work=$(mktemp -d "$prefix/.build.XXXXXX"); }; then
    echo "build-apps: $app ($tc): cannot make a build folder in $prefix" >&2
    return 1
  fi
  start=$(date +%s)
  echo "build-apps: building $app ($tc) (log: $log)" >&2
  tar xzf "${tarball[$app]}" -C "$work" >>"$log" 2>&1 || {
    fail "unpacking ${tarball[$app]} failed"
    return 1
  }
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d)
  shopt -s nullglob
  for patch in "$VENDOR/$app"/patches/*.patch; do
    echo "== patch -p1 < $patch" >>"$log"
    patch -d "$src" -p1 --forward --no-backup-if-mismatch <"$patch" >>"$log" 2>&1 || {
      shopt -u nullglob
      fail "$patch did not apply"
      return 1
    }
  done
  shopt -u nullglob
  if [[ $tc == smpi ]]; then
    for c in "${wrapper_sources[@]}"; do
      local obj
      obj="hopmap_smpi_compute_$(basename "${c%.c}").o"
      echo "== smpicc -c -fPIC -O2 $c" >>"$log"
      smpicc -c -fPIC -O2 "$PWD/$c" -o "$work/$obj" >>"$log" 2>&1 || {
        fail "compiling $c failed"
        return 1
      }
      objects+=("$work/$obj")
    done
  fi
  echo "== make ($tc)" >>"$log"
  exe=$(make_app "$app" "$tc" "$src" "$log" "${objects[@]}") || {
    fail "compile failed"
    return 1
  }
  [[ -x $exe ]] || {
    fail "the build did not make $(basename "$exe")"
    return 1
  }
  # Installed whole or not at all (errexit does not hold in a function called
  # from a condition: each step is checked).
  if ! { mkdir "$work/install" && cp "$exe" "$work/install/$(exe_name "$app")" &&
    echo $(($(date +%s) - start)) >"$work/install/.hopmap-build-seconds" &&
    touch "$work/install/.hopmap-built" && rm -rf "${prefix:?}/$app/$tc" &&
    mv "$work/install" "$prefix/$app/$tc"; }; then
    fail "installing into $prefix/$app/$tc failed"
    return 1
  fi
  rm -rf "$work"
  echo "build-apps: built $app ($tc) in $(cat "$prefix/$app/$tc/.hopmap-build-seconds") s" >&2
}

start=$(date +%s)
failed=0
for item in "${todo[@]}"; do
  build "${item%/*}" "${item#*/}" || failed=1
done
[[ $failed -eq 0 ]] || exit 1
echo "build-apps: ${#todo[@]} build(s) in $(($(date +%s) - start)) s" >&2
echo "$prefix"
