#include "client/mpi/collective_counts.h"

#include <cstdint>

namespace hopmap::mpi {
namespace {

int64_t Sum(const int* counts, int n) {
  int64_t total = 0;
  for (int i = 0; i < n; ++i) total += counts[i];
  return total;
}
int64_t SumBytes(const int* counts, const MPI_Datatype* types, int n) {
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    int size = 0;
    if (counts[i] > 0 && PMPI_Type_size(types[i], &size) == MPI_SUCCESS) {
      total += static_cast<int64_t>(counts[i]) * size;
    }
  }
  return total;
}
bool IsRoot(MPI_Comm comm, int root) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter ? root == MPI_ROOT : CommRank(comm) == root;
}

}  // namespace

int PeersOf(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter) return CommSize(comm);
  int size = 0;
  PMPI_Comm_remote_size(comm, &size);
  return size;
}

void CountBcast(MPI_Comm comm, bool nonblocking, int root, int count, MPI_Datatype type) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kBcast, nonblocking, IsRoot(comm, root) ? count : 0, type);
}

void CountGather(MPI_Comm comm, Collective op, bool nonblocking, bool in_place, int sendcount,
                 MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  if (!Recording()) return;
  CountCollective(comm, op, nonblocking, in_place ? recvcount : sendcount,
                  in_place ? recvtype : sendtype);
}

void CountGatherv(MPI_Comm comm, Collective op, bool nonblocking, bool in_place, int sendcount,
                  MPI_Datatype sendtype, const int* recvcounts, MPI_Datatype recvtype) {
  if (!Recording()) return;
  CountCollective(comm, op, nonblocking, in_place ? recvcounts[CommRank(comm)] : sendcount,
                  in_place ? recvtype : sendtype);
}

void CountScatter(MPI_Comm comm, bool nonblocking, int root, int sendcount, MPI_Datatype sendtype) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kScatter, nonblocking,
                  IsRoot(comm, root) ? int64_t{sendcount} * PeersOf(comm) : 0, sendtype);
}

void CountScatterv(MPI_Comm comm, bool nonblocking, int root, const int* sendcounts,
                   MPI_Datatype sendtype) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kScatterv, nonblocking,
                  IsRoot(comm, root) ? Sum(sendcounts, PeersOf(comm)) : 0, sendtype);
}

void CountAlltoall(MPI_Comm comm, bool nonblocking, bool in_place, int sendcount,
                   MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kAlltoall, nonblocking,
                  int64_t{in_place ? recvcount : sendcount} * PeersOf(comm),
                  in_place ? recvtype : sendtype);
}

void CountAlltoallv(MPI_Comm comm, bool nonblocking, bool in_place, const int* sendcounts,
                    MPI_Datatype sendtype, const int* recvcounts, MPI_Datatype recvtype) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kAlltoallv, nonblocking,
                  Sum(in_place ? recvcounts : sendcounts, PeersOf(comm)),
                  in_place ? recvtype : sendtype);
}

void CountAlltoallw(MPI_Comm comm, bool nonblocking, bool in_place, const int* sendcounts,
                    const MPI_Datatype* sendtypes, const int* recvcounts,
                    const MPI_Datatype* recvtypes) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kAlltoallw, nonblocking,
                  in_place ? SumBytes(recvcounts, recvtypes, PeersOf(comm))
                           : SumBytes(sendcounts, sendtypes, PeersOf(comm)),
                  MPI_BYTE);
}

void CountReduceScatter(MPI_Comm comm, bool nonblocking, const int* recvcounts, MPI_Datatype type) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kReduceScatter, nonblocking, Sum(recvcounts, PeersOf(comm)),
                  type);
}

void CountReduceScatterBlock(MPI_Comm comm, bool nonblocking, int recvcount, MPI_Datatype type) {
  if (!Recording()) return;
  CountCollective(comm, Collective::kReduceScatterBlock, nonblocking,
                  int64_t{recvcount} * PeersOf(comm), type);
}

}  // namespace hopmap::mpi
