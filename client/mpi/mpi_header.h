// <mpi.h> without the deprecated C++ bindings (the library is C++ but wraps the C
// interface).
#ifndef HOPMAP_CLIENT_MPI_MPI_HEADER_H_
#define HOPMAP_CLIENT_MPI_MPI_HEADER_H_

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#endif  // HOPMAP_CLIENT_MPI_MPI_HEADER_H_
