// `use mpi_f08` under MPICH (docs/mpi.md#fortran). MPICH 4.0's f08 layer
// (libmpichfort.so) passes the calls with a choice buffer (sends, collectives) to the
// C MPI_ functions, which the C wrappers see, but calls PMPI_ directly for the rest:
// MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Barrier, MPI_Ibarrier, MPI_Start,
// MPI_Startall, MPI_Request_free, MPI_Pcontrol, MPI_Type_free and the topology
// constructors (measured with gdb on Debian 12's libmpichfort.so.12). These entry
// points of the library's own take the f08 ones' place and call the C wrappers, so
// the recording starts and ends, persistent sends are counted, and the constructors
// may reorder. MPICH's handles are C ints in both languages; a LOGICAL is an int
// (0 is .false.); `ierror` is optional in f08, so it may be null. mpif.h and `use
// mpi` (mpi_isend_ and friends) call the C MPI_ functions and need nothing here.
#include "client/mpi/mpi_header.h"

#if defined(MPICH_VERSION)

#include <dlfcn.h>

#include <vector>

namespace {

void SetError(int* ierror, int rc) {
  if (ierror != nullptr) *ierror = rc;
}

std::vector<int> Logicals(const int* values, int count) {
  std::vector<int> c_values(static_cast<size_t>(count > 0 ? count : 0));
  for (size_t i = 0; i < c_values.size(); ++i) c_values[i] = values[i] != 0;
  return c_values;
}

// The f08 module's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are Fortran objects that
// MPICH recognises by address (as its own wrapper does): they become C's.
const int* Weights(const int* weights) {
  static void* const unweighted =
      dlsym(RTLD_DEFAULT, "__mpi_f08_link_constants_MOD_mpi_unweighted");
  static void* const empty = dlsym(RTLD_DEFAULT, "__mpi_f08_link_constants_MOD_mpi_weights_empty");
  if (weights != nullptr && weights == unweighted) return MPI_UNWEIGHTED;
  if (weights != nullptr && weights == empty) return MPI_WEIGHTS_EMPTY;
  return weights;
}

}  // namespace

extern "C" {

void mpi_init_f08_(int* ierror) { SetError(ierror, MPI_Init(nullptr, nullptr)); }
void mpi_init_thread_f08_(const int* required, int* provided, int* ierror) {
  SetError(ierror, MPI_Init_thread(nullptr, nullptr, *required, provided));
}
void mpi_finalize_f08_(int* ierror) { SetError(ierror, MPI_Finalize()); }
void mpi_pcontrol_f08_(const int* level, int* ierror) { SetError(ierror, MPI_Pcontrol(*level)); }
void mpi_type_free_f08_(MPI_Datatype* type, int* ierror) { SetError(ierror, MPI_Type_free(type)); }

void mpi_barrier_f08_(const MPI_Comm* comm, int* ierror) { SetError(ierror, MPI_Barrier(*comm)); }
void mpi_ibarrier_f08_(const MPI_Comm* comm, MPI_Request* request, int* ierror) {
  SetError(ierror, MPI_Ibarrier(*comm, request));
}
void mpi_start_f08_(MPI_Request* request, int* ierror) { SetError(ierror, MPI_Start(request)); }
void mpi_startall_f08_(const int* count, MPI_Request* requests, int* ierror) {
  SetError(ierror, MPI_Startall(*count, requests));
}
void mpi_request_free_f08_(MPI_Request* request, int* ierror) {
  SetError(ierror, MPI_Request_free(request));
}

void mpi_cart_create_f08_(const MPI_Comm* comm_old, const int* ndims, const int* dims,
                          const int* periods, const int* reorder, MPI_Comm* comm_cart,
                          int* ierror) {
  const std::vector<int> c_periods = Logicals(periods, *ndims);
  SetError(ierror,
           MPI_Cart_create(*comm_old, *ndims, dims, c_periods.data(), *reorder != 0, comm_cart));
}
void mpi_graph_create_f08_(const MPI_Comm* comm_old, const int* nnodes, const int* index,
                           const int* edges, const int* reorder, MPI_Comm* comm_graph,
                           int* ierror) {
  SetError(ierror, MPI_Graph_create(*comm_old, *nnodes, index, edges, *reorder != 0, comm_graph));
}
void mpi_dist_graph_create_f08_(const MPI_Comm* comm_old, const int* n, const int* sources,
                                const int* degrees, const int* destinations, const int* weights,
                                const MPI_Info* info, const int* reorder, MPI_Comm* comm_dist_graph,
                                int* ierror) {
  SetError(ierror, MPI_Dist_graph_create(*comm_old, *n, sources, degrees, destinations,
                                         Weights(weights), *info, *reorder != 0, comm_dist_graph));
}
void mpi_dist_graph_create_adjacent_f08_(const MPI_Comm* comm_old, const int* indegree,
                                         const int* sources, const int* sourceweights,
                                         const int* outdegree, const int* destinations,
                                         const int* destweights, const MPI_Info* info,
                                         const int* reorder, MPI_Comm* comm_dist_graph,
                                         int* ierror) {
  SetError(ierror, MPI_Dist_graph_create_adjacent(
                       *comm_old, *indegree, sources, Weights(sourceweights), *outdegree,
                       destinations, Weights(destweights), *info, *reorder != 0, comm_dist_graph));
}

}  // extern "C"

#endif  // MPICH_VERSION
