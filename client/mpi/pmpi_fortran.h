// What the Open MPI build's Fortran entry points share (pmpi_fortran.cc,
// pmpi_fortran_collectives.cc; docs/mpi.md#fortran): Open MPI's own entry points,
// Fortran handles and sentinels in C, and the macro that defines one entry point.
#ifndef HOPMAP_CLIENT_MPI_PMPI_FORTRAN_H_
#define HOPMAP_CLIENT_MPI_PMPI_FORTRAN_H_

#include "client/mpi/mpi_header.h"

#if defined(OPEN_MPI)

#include <dlfcn.h>

namespace hopmap::mpi::fortran {

// Open MPI's own Fortran entry point `name` (the next definition after this library).
template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

inline MPI_Comm Comm(const MPI_Fint* comm) { return PMPI_Comm_f2c(*comm); }
inline MPI_Datatype Type(const MPI_Fint* type) { return PMPI_Type_f2c(*type); }

// Open MPI's Fortran sentinels are common blocks its Fortran layer recognises by
// address, in every interface (mpif.h, `use mpi`, `use mpi_f08`).
inline bool InPlace(const void* buffer) {
  static void* const in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
  return buffer != nullptr && buffer == in_place;
}
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's.
inline const int* Weights(const MPI_Fint* weights) {
  static void* const unweighted = dlsym(RTLD_DEFAULT, "mpi_fortran_unweighted_");
  static void* const empty = dlsym(RTLD_DEFAULT, "mpi_fortran_weights_empty_");
  if (weights != nullptr && weights == unweighted) return MPI_UNWEIGHTED;
  if (weights != nullptr && weights == empty) return MPI_WEIGHTS_EMPTY;
  return weights;
}

}  // namespace hopmap::mpi::fortran

// Defines ompi_<name>_f (what the f08 layer calls) and mpi_<name>_ (what gfortran
// calls from mpif.h and `use mpi`) with the C parameters `params`; `body` counts,
// then `real` (Open MPI's ompi_<name>_f) is called with `args`.
#define HOPMAP_FORTRAN(name, params, args, body)                                   \
  extern "C" void ompi_##name##_f params {                                         \
    using Real = void(*) params;                                                   \
    static const Real real = hopmap::mpi::fortran::Next<Real>("ompi_" #name "_f"); \
    body;                                                                          \
    real args;                                                                     \
  }                                                                                \
  extern "C" void mpi_##name##_ params __attribute__((alias("ompi_" #name "_f")));

#endif  // OPEN_MPI

#endif  // HOPMAP_CLIENT_MPI_PMPI_FORTRAN_H_
