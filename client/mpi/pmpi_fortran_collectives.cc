// Fortran collectives under Open MPI (docs/mpi.md#fortran): every collective and
// neighbourhood collective of MPI 3.1, blocking and nonblocking, counted as its C
// twin counts (collective_counts.h, recorder.h), then passed to Open MPI's own
// (pmpi_fortran.h's HOPMAP_FORTRAN). MPI_IN_PLACE is Open MPI's Fortran sentinel.
#include "client/mpi/pmpi_fortran.h"

#if defined(OPEN_MPI)

#include <vector>

#include "client/mpi/collective_counts.h"
#include "client/mpi/recorder.h"

namespace hopmap::mpi::fortran {
namespace {

std::vector<MPI_Datatype> Types(const MPI_Fint* types, int n) {
  std::vector<MPI_Datatype> c_types(static_cast<size_t>(n > 0 ? n : 0));
  for (size_t i = 0; i < c_types.size(); ++i) c_types[i] = PMPI_Type_f2c(types[i]);
  return c_types;
}

// How many out-neighbours comm's topology gives this process (the length of a
// neighbourhood collective's send arrays).
int OutDegree(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &kind);
  int degree = 0;
  if (kind == MPI_CART) {
    PMPI_Cartdim_get(comm, &degree);
    degree *= 2;
  } else if (kind == MPI_GRAPH) {
    PMPI_Graph_neighbors_count(comm, CommRank(comm), &degree);
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &degree, &weighted);
  }
  return degree;
}

void CountNeighborW(MPI_Comm comm, const MPI_Fint* counts, const MPI_Fint* types) {
  if (!Recording()) return;
  const std::vector<MPI_Datatype> c_types = Types(types, OutDegree(comm));
  CountNeighborSends(comm, 0, MPI_DATATYPE_NULL, counts, c_types.data());
}

void CountAlltoallwF(MPI_Comm comm, bool nonblocking, const void* sendbuf,
                     const MPI_Fint* sendcounts, const MPI_Fint* sendtypes,
                     const MPI_Fint* recvcounts, const MPI_Fint* recvtypes) {
  if (!Recording()) return;
  const int peers = PeersOf(comm);
  const bool in_place = InPlace(sendbuf);
  const std::vector<MPI_Datatype> c_types = Types(in_place ? recvtypes : sendtypes, peers);
  CountAlltoallw(comm, nonblocking, in_place, sendcounts, c_types.data(), recvcounts,
                 c_types.data());
}

}  // namespace
}  // namespace hopmap::mpi::fortran

using hopmap::mpi::Collective;
using hopmap::mpi::CountAlltoall;
using hopmap::mpi::CountAlltoallv;
using hopmap::mpi::CountBcast;
using hopmap::mpi::CountCollective;
using hopmap::mpi::CountGather;
using hopmap::mpi::CountGatherv;
using hopmap::mpi::CountNeighborSends;
using hopmap::mpi::CountReduceScatter;
using hopmap::mpi::CountReduceScatterBlock;
using hopmap::mpi::CountScatter;
using hopmap::mpi::CountScatterv;
using hopmap::mpi::fortran::Comm;
using hopmap::mpi::fortran::CountAlltoallwF;
using hopmap::mpi::fortran::CountNeighborW;
using hopmap::mpi::fortran::InPlace;
using hopmap::mpi::fortran::Type;

#define HOPMAP_UNPAREN(...) __VA_ARGS__

// HOPMAP_FORTRAN_BOTH(name, (params), (args), count): MPI_<name> and MPI_I<name>, the
// latter with a request before ierr; `counting` may use `nonblocking`.
#define HOPMAP_FORTRAN_BOTH(name, params, args, counting)                                     \
  HOPMAP_FORTRAN(name, (HOPMAP_UNPAREN params, MPI_Fint * ierr), (HOPMAP_UNPAREN args, ierr), \
                 [[maybe_unused]] constexpr bool nonblocking = false;                         \
                 counting)                                                                    \
  HOPMAP_FORTRAN(i##name, (HOPMAP_UNPAREN params, MPI_Fint * request, MPI_Fint * ierr),       \
                 (HOPMAP_UNPAREN args, request, ierr),                                        \
                 [[maybe_unused]] constexpr bool nonblocking = true;                          \
                 counting)

// Parameters shared by several operations.
#define HOPMAP_F_SEND_RECV                                                                    \
  char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype
#define HOPMAP_F_SEND_RECV_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype
#define HOPMAP_F_SEND_RECVV                                                                    \
  char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts, \
      MPI_Fint *displs, MPI_Fint *recvtype
#define HOPMAP_F_SEND_RECVV_ARGS sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype
#define HOPMAP_F_REDUCE char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op
#define HOPMAP_F_REDUCE_ARGS sendbuf, recvbuf, count, type, op

HOPMAP_FORTRAN_BOTH(barrier, (MPI_Fint * comm), (comm),
                    CountCollective(Comm(comm), Collective::kBarrier, nonblocking, 0, MPI_BYTE))
HOPMAP_FORTRAN_BOTH(bcast,
                    (char* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm),
                    (buf, count, type, root, comm),
                    CountBcast(Comm(comm), nonblocking, *root, *count, Type(type)))
HOPMAP_FORTRAN_BOTH(reduce, (HOPMAP_F_REDUCE, MPI_Fint* root, MPI_Fint* comm),
                    (HOPMAP_F_REDUCE_ARGS, root, comm),
                    CountCollective(Comm(comm), Collective::kReduce, nonblocking, *count,
                                    Type(type)))
HOPMAP_FORTRAN_BOTH(allreduce, (HOPMAP_F_REDUCE, MPI_Fint* comm), (HOPMAP_F_REDUCE_ARGS, comm),
                    CountCollective(Comm(comm), Collective::kAllreduce, nonblocking, *count,
                                    Type(type)))
HOPMAP_FORTRAN_BOTH(scan, (HOPMAP_F_REDUCE, MPI_Fint* comm), (HOPMAP_F_REDUCE_ARGS, comm),
                    CountCollective(Comm(comm), Collective::kScan, nonblocking, *count, Type(type)))
HOPMAP_FORTRAN_BOTH(exscan, (HOPMAP_F_REDUCE, MPI_Fint* comm), (HOPMAP_F_REDUCE_ARGS, comm),
                    CountCollective(Comm(comm), Collective::kExscan, nonblocking, *count,
                                    Type(type)))
HOPMAP_FORTRAN_BOTH(gather, (HOPMAP_F_SEND_RECV, MPI_Fint* root, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECV_ARGS, root, comm),
                    CountGather(Comm(comm), Collective::kGather, nonblocking, InPlace(sendbuf),
                                *sendcount, Type(sendtype), *recvcount, Type(recvtype)))
HOPMAP_FORTRAN_BOTH(allgather, (HOPMAP_F_SEND_RECV, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECV_ARGS, comm),
                    CountGather(Comm(comm), Collective::kAllgather, nonblocking, InPlace(sendbuf),
                                *sendcount, Type(sendtype), *recvcount, Type(recvtype)))
HOPMAP_FORTRAN_BOTH(gatherv, (HOPMAP_F_SEND_RECVV, MPI_Fint* root, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECVV_ARGS, root, comm),
                    CountGatherv(Comm(comm), Collective::kGatherv, nonblocking, InPlace(sendbuf),
                                 *sendcount, Type(sendtype), recvcounts, Type(recvtype)))
HOPMAP_FORTRAN_BOTH(allgatherv, (HOPMAP_F_SEND_RECVV, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECVV_ARGS, comm),
                    CountGatherv(Comm(comm), Collective::kAllgatherv, nonblocking, InPlace(sendbuf),
                                 *sendcount, Type(sendtype), recvcounts, Type(recvtype)))
HOPMAP_FORTRAN_BOTH(scatter, (HOPMAP_F_SEND_RECV, MPI_Fint* root, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECV_ARGS, root, comm),
                    CountScatter(Comm(comm), nonblocking, *root, *sendcount, Type(sendtype)))
HOPMAP_FORTRAN_BOTH(scatterv,
                    (char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* displs, MPI_Fint* sendtype,
                     char* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root,
                     MPI_Fint* comm),
                    (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                     comm),
                    CountScatterv(Comm(comm), nonblocking, *root, sendcounts, Type(sendtype)))
HOPMAP_FORTRAN_BOTH(alltoall, (HOPMAP_F_SEND_RECV, MPI_Fint* comm), (HOPMAP_F_SEND_RECV_ARGS, comm),
                    CountAlltoall(Comm(comm), nonblocking, InPlace(sendbuf), *sendcount,
                                  Type(sendtype), *recvcount, Type(recvtype)))
HOPMAP_FORTRAN_BOTH(alltoallv,
                    (char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
                     char* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype,
                     MPI_Fint* comm),
                    (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                     comm),
                    CountAlltoallv(Comm(comm), nonblocking, InPlace(sendbuf), sendcounts,
                                   Type(sendtype), recvcounts, Type(recvtype)))
HOPMAP_FORTRAN_BOTH(
    alltoallw,
    (char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtypes, char* recvbuf,
     MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtypes, MPI_Fint* comm),
    (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm),
    CountAlltoallwF(Comm(comm), nonblocking, sendbuf, sendcounts, sendtypes, recvcounts, recvtypes))
HOPMAP_FORTRAN_BOTH(reduce_scatter,
                    (char* sendbuf, char* recvbuf, MPI_Fint* recvcounts, MPI_Fint* type,
                     MPI_Fint* op, MPI_Fint* comm),
                    (sendbuf, recvbuf, recvcounts, type, op, comm),
                    CountReduceScatter(Comm(comm), nonblocking, recvcounts, Type(type)))
HOPMAP_FORTRAN_BOTH(reduce_scatter_block,
                    (char* sendbuf, char* recvbuf, MPI_Fint* recvcount, MPI_Fint* type,
                     MPI_Fint* op, MPI_Fint* comm),
                    (sendbuf, recvbuf, recvcount, type, op, comm),
                    CountReduceScatterBlock(Comm(comm), nonblocking, *recvcount, Type(type)))

// Neighbourhood collectives: sends to the topology's out-neighbours, in the graph.
HOPMAP_FORTRAN_BOTH(neighbor_allgather, (HOPMAP_F_SEND_RECV, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECV_ARGS, comm),
                    CountNeighborSends(Comm(comm), *sendcount, Type(sendtype), nullptr, nullptr))
HOPMAP_FORTRAN_BOTH(neighbor_alltoall, (HOPMAP_F_SEND_RECV, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECV_ARGS, comm),
                    CountNeighborSends(Comm(comm), *sendcount, Type(sendtype), nullptr, nullptr))
HOPMAP_FORTRAN_BOTH(neighbor_allgatherv, (HOPMAP_F_SEND_RECVV, MPI_Fint* comm),
                    (HOPMAP_F_SEND_RECVV_ARGS, comm),
                    CountNeighborSends(Comm(comm), *sendcount, Type(sendtype), nullptr, nullptr))
HOPMAP_FORTRAN_BOTH(neighbor_alltoallv,
                    (char* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
                     char* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype,
                     MPI_Fint* comm),
                    (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                     comm),
                    CountNeighborSends(Comm(comm), 0, Type(sendtype), sendcounts, nullptr))
// Displacements are MPI_Aint here (MPI 3.1's INTEGER(KIND=MPI_ADDRESS_KIND)).
HOPMAP_FORTRAN_BOTH(neighbor_alltoallw,
                    (char* sendbuf, MPI_Fint* sendcounts, MPI_Aint* sdispls, MPI_Fint* sendtypes,
                     char* recvbuf, MPI_Fint* recvcounts, MPI_Aint* rdispls, MPI_Fint* recvtypes,
                     MPI_Fint* comm),
                    (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm),
                    CountNeighborW(Comm(comm), sendcounts, sendtypes))

#endif  // OPEN_MPI
