// Fortran programs under Open MPI (docs/mpi.md#fortran). Open MPI's Fortran layer
// (mpif.h and `use mpi`: mpi_isend_ and its aliases; `use mpi_f08`: mpi_isend_f08_,
// which calls ompi_isend_f) calls the C PMPI_ functions, so the C wrappers never see
// a Fortran call. These entry points of the library's own take the Fortran ones'
// place: each counts what the C wrapper would count, then calls Open MPI's own
// (RTLD_NEXT), except MPI_CART_CREATE, which goes through the C wrapper (it may
// reorder). Defined in the Open MPI build only: MPICH's Fortran layer for mpif.h
// and `use mpi` calls the C MPI_ functions, which the C wrappers already see, and
// wrapping it here would count twice.
//
// Covered: MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE, the point-to-point sends
// (SEND, BSEND, SSEND, RSEND, their I forms, SENDRECV, SENDRECV_REPLACE, the
// persistent SEND_INIT forms with START, STARTALL and REQUEST_FREE),
// NEIGHBOR_ALLTOALL, ALLREDUCE, BCAST, BARRIER and CART_CREATE. The other
// collectives and topology constructors are not intercepted from Fortran yet.
#include "client/mpi/mpi_header.h"

#if defined(OPEN_MPI)

#include <dlfcn.h>

#include <vector>

#include "client/mpi/recorder.h"

namespace hopmap::mpi {
namespace {

// Open MPI's own Fortran entry point `name` (the next definition after this library).
template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

MPI_Comm Comm(const MPI_Fint* comm) { return PMPI_Comm_f2c(*comm); }
MPI_Datatype Type(const MPI_Fint* type) { return PMPI_Type_f2c(*type); }

}  // namespace
}  // namespace hopmap::mpi

using hopmap::mpi::Comm;
using hopmap::mpi::CountSend;
using hopmap::mpi::Next;
using hopmap::mpi::Type;

// Defines ompi_<name>_f (what the f08 layer calls) and mpi_<name>_ (what gfortran
// calls from mpif.h and `use mpi`) with the C parameters `params`; `body` counts,
// then `real` (Open MPI's ompi_<name>_f) is called with `args`.
#define HOPMAP_FORTRAN(name, params, args, body)             \
  extern "C" void ompi_##name##_f params {                   \
    using Real = void(*) params;                             \
    static const Real real = Next<Real>("ompi_" #name "_f"); \
    body;                                                    \
    real args;                                               \
  }                                                          \
  extern "C" void mpi_##name##_ params __attribute__((alias("ompi_" #name "_f")));

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

HOPMAP_FORTRAN(neighbor_alltoall,
               (char* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, char* recvbuf,
                MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
               hopmap::mpi::CountNeighborSends(Comm(comm), *sendcount, Type(sendtype), nullptr,
                                               nullptr))
HOPMAP_FORTRAN(allreduce,
               (char* sendbuf, char* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                MPI_Fint* comm, MPI_Fint* ierr),
               (sendbuf, recvbuf, count, type, op, comm, ierr),
               hopmap::mpi::CountCollective(Comm(comm), hopmap::mpi::Collective::kAllreduce, false,
                                            *count, Type(type)))
HOPMAP_FORTRAN(
    bcast,
    (char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr),
    (buf, count, type, root, comm, ierr), if (hopmap::mpi::Recording()) {
      // Intracommunicators only (an intercommunicator's root is MPI_ROOT).
      const int sent = hopmap::mpi::CommRank(Comm(comm)) == *root ? *count : 0;
      hopmap::mpi::CountCollective(Comm(comm), hopmap::mpi::Collective::kBcast, false, sent,
                                   Type(type));
    })
HOPMAP_FORTRAN(barrier, (MPI_Fint * comm, MPI_Fint* ierr), (comm, ierr),
               hopmap::mpi::CountCollective(Comm(comm), hopmap::mpi::Collective::kBarrier, false, 0,
                                            MPI_BYTE))

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
// Open MPI 4.1's `use mpi_f08` MPI_Cart_create calls the Fortran profiling name
// (unlike its sends, which call ompi_*_f): it is taken too. Its callers get the same
// Cartesian communicator, reordered or not, through the C interface.
extern "C" void pmpi_cart_create_(MPI_Fint* old_comm, MPI_Fint* ndims, MPI_Fint* dims,
                                  MPI_Fint* periods, MPI_Fint* reorder, MPI_Fint* comm_cart,
                                  MPI_Fint* ierr) __attribute__((alias("ompi_cart_create_f")));

#endif  // OPEN_MPI
