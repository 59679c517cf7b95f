// Fortran programs under Open MPI (docs/mpi.md#fortran). Open MPI's Fortran layer
// (mpif.h and `use mpi`: mpi_isend_ and its aliases; `use mpi_f08`: mpi_isend_f08_,
// which calls ompi_isend_f) calls the C PMPI_ functions, so the C wrappers never see
// a Fortran call. These entry points of the library's own take the Fortran ones'
// place: each counts what the C wrapper would count, then calls Open MPI's own
// (RTLD_NEXT), except the topology constructors, which go through the C wrappers
// (they may reorder). Defined in the Open MPI build only: MPICH's Fortran layer for
// mpif.h and `use mpi` calls the C MPI_ functions, which the C wrappers already
// see, and wrapping it here would count twice (its f08 layer: pmpi_fortran_mpich.cc).
//
// Here: MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE, MPI_TYPE_FREE, the point-to-point
// sends (SEND, BSEND, SSEND, RSEND, their I forms, SENDRECV, SENDRECV_REPLACE, the
// persistent SEND_INIT forms with START, STARTALL and REQUEST_FREE) and the four
// topology constructors. The collectives: pmpi_fortran_collectives.cc.
#include "client/mpi/pmpi_fortran.h"

#if defined(OPEN_MPI)

#include <vector>

#include "client/mpi/recorder.h"

using hopmap::mpi::CountSend;
using hopmap::mpi::fortran::Comm;
using hopmap::mpi::fortran::Next;
using hopmap::mpi::fortran::Type;
using hopmap::mpi::fortran::Weights;

#define HOPMAP_FORTRAN_SEND(name)                                                            \
  HOPMAP_FORTRAN(name,                                                                       \
                 (char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag, \
                  MPI_Fint* comm, MPI_Fint* ierr),                                           \
                 (buf, count, type, dest, tag, comm, ierr),                                  \
                 CountSend(Comm(comm), *dest, *count, Type(type)))
#define HOPMAP_FORTRAN_ISEND(name)                                                           \
  HOPMAP_FORTRAN(name,                                                                       \
                 (char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag, \
                  MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr),                        \
                 (buf, count, type, dest, tag, comm, request, ierr),                         \
                 CountSend(Comm(comm), *dest, *count, Type(type)))

// Persistent sends: remembered once Open MPI has made the request, counted at starts.
#define HOPMAP_FORTRAN_SEND_INIT(name)                                                             \
  extern "C" void ompi_##name##_f(char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest,      \
                                  MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* request,                \
                                  MPI_Fint* ierr) {                                                \
    using Real = void (*)(char*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, \
                          MPI_Fint*);                                                              \
    static const Real real = Next<Real>("ompi_" #name "_f");                                       \
    real(buf, count, type, dest, tag, comm, request, ierr);                                        \
    if (*ierr == MPI_SUCCESS) {                                                                    \
      hopmap::mpi::RememberPersistentSend(PMPI_Request_f2c(*request), Comm(comm), *dest, *count,   \
                                          Type(type));                                             \
    }                                                                                              \
  }                                                                                                \
  extern "C" void mpi_##name##_(char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest,        \
                                MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr)  \
      __attribute__((alias("ompi_" #name "_f")));

extern "C" void ompi_init_f(MPI_Fint* ierr) {
  using Real = void (*)(MPI_Fint*);
  static const Real real = Next<Real>("ompi_init_f");
  real(ierr);
  if (*ierr == MPI_SUCCESS) {
    hopmap::mpi::StartRecording(hopmap::mpi::ProgramName(nullptr).c_str());
  }
}
extern "C" void mpi_init_(MPI_Fint* ierr) __attribute__((alias("ompi_init_f")));

extern "C" void ompi_init_thread_f(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  using Real = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
  static const Real real = Next<Real>("ompi_init_thread_f");
  real(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) {
    hopmap::mpi::StartRecording(hopmap::mpi::ProgramName(nullptr).c_str());
  }
}
extern "C" void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr)
    __attribute__((alias("ompi_init_thread_f")));

HOPMAP_FORTRAN(finalize, (MPI_Fint * ierr), (ierr), hopmap::mpi::FinishRecording())

HOPMAP_FORTRAN_SEND(send)
HOPMAP_FORTRAN_SEND(bsend)
HOPMAP_FORTRAN_SEND(ssend)
HOPMAP_FORTRAN_SEND(rsend)
HOPMAP_FORTRAN_ISEND(isend)
HOPMAP_FORTRAN_ISEND(ibsend)
HOPMAP_FORTRAN_ISEND(issend)
HOPMAP_FORTRAN_ISEND(irsend)
HOPMAP_FORTRAN_SEND_INIT(send_init)
HOPMAP_FORTRAN_SEND_INIT(bsend_init)
HOPMAP_FORTRAN_SEND_INIT(ssend_init)
HOPMAP_FORTRAN_SEND_INIT(rsend_init)

HOPMAP_FORTRAN(sendrecv,
               (char* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, MPI_Fint* dest,
                MPI_Fint* sendtag, char* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype,
                MPI_Fint* source, MPI_Fint* recvtag, MPI_Fint* comm, MPI_Fint* status,
                MPI_Fint* ierr),
               (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                recvtag, comm, status, ierr),
               CountSend(Comm(comm), *dest, *sendcount, Type(sendtype)))
HOPMAP_FORTRAN(sendrecv_replace,
               (char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* sendtag,
                MPI_Fint* source, MPI_Fint* recvtag, MPI_Fint* comm, MPI_Fint* status,
                MPI_Fint* ierr),
               (buf, count, type, dest, sendtag, source, recvtag, comm, status, ierr),
               CountSend(Comm(comm), *dest, *count, Type(type)))

HOPMAP_FORTRAN(
    start, (MPI_Fint * request, MPI_Fint* ierr), (request, ierr),
    if (hopmap::mpi::Recording()) { hopmap::mpi::CountStart(PMPI_Request_f2c(*request)); })
HOPMAP_FORTRAN(
    startall, (MPI_Fint * count, MPI_Fint* requests, MPI_Fint* ierr), (count, requests, ierr),
    if (hopmap::mpi::Recording()) {
      for (MPI_Fint i = 0; i < *count; ++i) {
        hopmap::mpi::CountStart(PMPI_Request_f2c(requests[i]));
      }
    })
HOPMAP_FORTRAN(
    request_free, (MPI_Fint * request, MPI_Fint* ierr), (request, ierr),
    if (hopmap::mpi::Recording()) { hopmap::mpi::ForgetRequest(PMPI_Request_f2c(*request)); })

// Through the C wrapper, which may reorder (pmpi_reorder.cc); LOGICALs as gfortran
// passes them (0 is .false.).
extern "C" void ompi_cart_create_f(MPI_Fint* old_comm, MPI_Fint* ndims, MPI_Fint* dims,
                                   MPI_Fint* periods, MPI_Fint* reorder, MPI_Fint* comm_cart,
                                   MPI_Fint* ierr) {
  const int n = *ndims > 0 ? *ndims : 0;
  std::vector<int> c_dims(dims, dims + n);
  std::vector<int> c_periods(static_cast<size_t>(n));
  for (int d = 0; d < n; ++d) c_periods[d] = periods[d] != 0;
  MPI_Comm cart = MPI_COMM_NULL;
  *ierr = MPI_Cart_create(PMPI_Comm_f2c(*old_comm), *ndims, c_dims.data(), c_periods.data(),
                          *reorder != 0, &cart);
  if (*ierr == MPI_SUCCESS) *comm_cart = PMPI_Comm_c2f(cart);
}
extern "C" void mpi_cart_create_(MPI_Fint* old_comm, MPI_Fint* ndims, MPI_Fint* dims,
                                 MPI_Fint* periods, MPI_Fint* reorder, MPI_Fint* comm_cart,
                                 MPI_Fint* ierr) __attribute__((alias("ompi_cart_create_f")));
// Open MPI 4.1's `use mpi_f08` topology constructors call the Fortran profiling
// names (unlike its sends, which call ompi_*_f): they are taken too. Their callers
// get the same communicator, reordered or not, through the C interface.
extern "C" void pmpi_cart_create_(MPI_Fint* old_comm, MPI_Fint* ndims, MPI_Fint* dims,
                                  MPI_Fint* periods, MPI_Fint* reorder, MPI_Fint* comm_cart,
                                  MPI_Fint* ierr) __attribute__((alias("ompi_cart_create_f")));

// HOPMAP_FORTRAN_TOPOLOGY(name, params): ompi_<name>_f's aliases (mpif.h and `use
// mpi`, and f08's profiling name).
#define HOPMAP_FORTRAN_TOPOLOGY_ALIASES(name, params)                              \
  extern "C" void mpi_##name##_ params __attribute__((alias("ompi_" #name "_f"))); \
  extern "C" void pmpi_##name##_ params __attribute__((alias("ompi_" #name "_f")));

extern "C" void ompi_graph_create_f(MPI_Fint* old_comm, MPI_Fint* nnodes, MPI_Fint* index,
                                    MPI_Fint* edges, MPI_Fint* reorder, MPI_Fint* comm_graph,
                                    MPI_Fint* ierr) {
  MPI_Comm graph = MPI_COMM_NULL;
  *ierr = MPI_Graph_create(PMPI_Comm_f2c(*old_comm), *nnodes, index, edges, *reorder != 0, &graph);
  if (*ierr == MPI_SUCCESS) *comm_graph = PMPI_Comm_c2f(graph);
}
HOPMAP_FORTRAN_TOPOLOGY_ALIASES(graph_create, (MPI_Fint * old_comm, MPI_Fint* nnodes,
                                               MPI_Fint* index, MPI_Fint* edges, MPI_Fint* reorder,
                                               MPI_Fint* comm_graph, MPI_Fint* ierr))

extern "C" void ompi_dist_graph_create_f(MPI_Fint* old_comm, MPI_Fint* n, MPI_Fint* sources,
                                         MPI_Fint* degrees, MPI_Fint* destinations,
                                         MPI_Fint* weights, MPI_Fint* info, MPI_Fint* reorder,
                                         MPI_Fint* comm_graph, MPI_Fint* ierr) {
  MPI_Comm graph = MPI_COMM_NULL;
  *ierr = MPI_Dist_graph_create(PMPI_Comm_f2c(*old_comm), *n, sources, degrees, destinations,
                                Weights(weights), PMPI_Info_f2c(*info), *reorder != 0, &graph);
  if (*ierr == MPI_SUCCESS) *comm_graph = PMPI_Comm_c2f(graph);
}
HOPMAP_FORTRAN_TOPOLOGY_ALIASES(dist_graph_create,
                                (MPI_Fint * old_comm, MPI_Fint* n, MPI_Fint* sources,
                                 MPI_Fint* degrees, MPI_Fint* destinations, MPI_Fint* weights,
                                 MPI_Fint* info, MPI_Fint* reorder, MPI_Fint* comm_graph,
                                 MPI_Fint* ierr))

extern "C" void ompi_dist_graph_create_adjacent_f(MPI_Fint* old_comm, MPI_Fint* indegree,
                                                  MPI_Fint* sources, MPI_Fint* sourceweights,
                                                  MPI_Fint* outdegree, MPI_Fint* destinations,
                                                  MPI_Fint* destweights, MPI_Fint* info,
                                                  MPI_Fint* reorder, MPI_Fint* comm_graph,
                                                  MPI_Fint* ierr) {
  MPI_Comm graph = MPI_COMM_NULL;
  *ierr = MPI_Dist_graph_create_adjacent(
      PMPI_Comm_f2c(*old_comm), *indegree, sources, Weights(sourceweights), *outdegree,
      destinations, Weights(destweights), PMPI_Info_f2c(*info), *reorder != 0, &graph);
  if (*ierr == MPI_SUCCESS) *comm_graph = PMPI_Comm_c2f(graph);
}
HOPMAP_FORTRAN_TOPOLOGY_ALIASES(dist_graph_create_adjacent,
                                (MPI_Fint * old_comm, MPI_Fint* indegree, MPI_Fint* sources,
                                 MPI_Fint* sourceweights, MPI_Fint* outdegree,
                                 MPI_Fint* destinations, MPI_Fint* destweights, MPI_Fint* info,
                                 MPI_Fint* reorder, MPI_Fint* comm_graph, MPI_Fint* ierr))

// A freed datatype's handle may come back as another type (as MPI_Type_free).
HOPMAP_FORTRAN(type_free, (MPI_Fint * type, MPI_Fint* ierr), (type, ierr),
               hopmap::mpi::type_epoch.fetch_add(1, std::memory_order_relaxed))

#endif  // OPEN_MPI
