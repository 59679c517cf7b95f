// <mpi.h> without the deprecated C++ bindings (the library is C++ but wraps the C
// interface), and the small queries both halves of the library make.
#ifndef HOPMAP_CLIENT_MPI_MPI_HEADER_H_
#define HOPMAP_CLIENT_MPI_MPI_HEADER_H_

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

namespace hopmap::mpi {

// This process's rank in `comm`, and `comm`'s size (PMPI: never recorded).
inline int CommRank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}
inline int CommSize(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

}  // namespace hopmap::mpi

#endif  // HOPMAP_CLIENT_MPI_MPI_HEADER_H_
