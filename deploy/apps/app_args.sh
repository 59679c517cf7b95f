#!/usr/bin/env bash
# Prints, one per line, the command-line arguments that run a proxy application built
# by deploy/apps/build-apps.sh on RANKS ranks, with the same arguments for its real-MPI
# and its SMPI build:
#   mapfile -t args < <(bash deploy/apps/app_args.sh hpcg 8 small)
#   mpirun -np 8 "$PREFIX/hpcg/mpi/xhpcg" "${args[@]}"
# Fails with one line if RANKS does not suit APP: LULESH needs a cube (8, 27, 64, ...);
# HPCG and miniGhost take the near-cubic process grid npx*npy*npz = RANKS printed here,
# and HPCG refuses grids whose smallest side is under 1/8 of the largest.
#
# SIZE: small (a few seconds at 8 to 27 ranks, for tests) or bench (512 ranks and more:
# small local grids and few iterations, so that SMPI simulates a run in about a minute
# and 512 real-MPI ranks run oversubscribed on 2 cores in a few minutes).
# Every size does a fixed amount of work: the number of iterations and the sequence of
# MPI calls never depend on a measured time (SMPI's MPI_Wtime is simulated and changes
# with the placement). Output files: LULESH writes none; miniGhost's rank 0 writes
# results.yaml and HPCG's rank 0 hpcgDATE.txt and HPCG-Benchmark_3.1_DATE.txt (a few
# kB each) into the working directory: run them in a scratch directory.
#
# Usage: bash deploy/apps/app_args.sh APP RANKS SIZE
#   APP: lulesh, hpcg or minighost
set -euo pipefail
die() {
  echo "app_args: $*" >&2
  exit 1
}
[[ $# -eq 3 ]] || die "usage: app_args.sh APP RANKS SIZE (APP: lulesh, hpcg or minighost; SIZE: small or bench)"
app=$1 ranks=$2 size=$3
case $app in lulesh | hpcg | minighost) ;; *) die "unknown application '$app' (lulesh, hpcg or minighost)" ;; esac
[[ $ranks =~ ^[1-9][0-9]{0,6}$ ]] || die "RANKS must be a positive integer, not '$ranks'"
case $size in small | bench) ;; *) die "unknown SIZE '$size' (small or bench)" ;; esac

# The factorisation RANKS = x*y*z (x >= y >= z) with the least surface x*y + y*z + z*x:
# the process grid closest to a cube. Sets X, Y, Z.
near_cube() {
  local n=$1 a b c best=-1
  for ((c = 1; c * c * c <= n; c++)); do
    ((n % c == 0)) || continue
    for ((b = c; b * b <= n / c; b++)); do
      ((n / c % b == 0)) || continue
      a=$((n / c / b))
      if ((best < 0 || a * b + b * c + c * a < best)); then
        best=$((a * b + b * c + c * a))
        X=$a Y=$b Z=$c
      fi
    done
  done
}

case $app in
  lulesh)
    # -s: elements per side of each rank's cube; -i: cycles (the run stops there,
    # before the Sedov problem's end time).
    side=1
    while ((side * side * side < ranks)); do side=$((side + 1)); done
    ((side * side * side == ranks)) ||
      die "lulesh needs a cube number of ranks (8, 27, 64, 125, ...), not $ranks"
    if [[ $size == small ]]; then
      printf '%s\n' -s 10 -i 20
    else
      printf '%s\n' -s 12 -i 10
    fi
    ;;
  hpcg)
    # --nx/--ny/--nz: each rank's grid (16 is HPCG's least); --rt=0: HPCG's QuickPath,
    # one benchmark set; --it: CG iterations per set (patches/0001: 50 otherwise).
    near_cube "$ranks"
    ((Z * 8 >= X)) ||
      die "hpcg cannot run on $ranks ranks: its nearest-cubic process grid ${X}x${Y}x${Z} is flatter than HPCG allows (smallest side at least 1/8 of the largest)"
    printf '%s\n' --nx=16 --ny=16 --nz=16 --rt=0 --it=3
    printf '%s\n' "--npx=$X" "--npy=$Y" "--npz=$Z"
    ;;
  minighost)
    # Weak scaling, each rank's grid nx*ny*nz; 3D 7-point stencil (the 27-point one
    # fails its own conservation check in this version) with full message aggregation
    # (BSPMA: one message of all variables per face neighbour and step). No variable
    # is summed each step (--percent_sum 0): upstream adds those MPI_Allreduce only
    # "to inject additional work", and any percent above 0 sums every variable, five
    # reductions a step that dominate the message count at 512 ranks; the sums are
    # still checked once at the end. No performance report file (results.txt).
    near_cube "$ranks"
    printf '%s\n' --nx 20 --ny 20 --nz 20 --num_vars 5 --num_tsteps 20
    printf '%s\n' --scaling 2 --stencil 23 --comm_method 10 --bc 31 --percent_sum 0 \
      --num_spikes 1 --error_tol 8 --report_diffusion 20 --report_perf 0 \
      --npx "$X" --npy "$Y" --npz "$Z"
    ;;
esac
