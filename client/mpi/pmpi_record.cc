// The PMPI wrappers that record (recorder.h): every point-to-point send, the
// neighbourhood collectives, the other collectives, and MPI_Init/MPI_Finalize.
// Each counts, then calls the PMPI_ entry point with the caller's arguments
// unchanged. Receives are not counted: every byte is counted once, by its sender.
#include <cstdio>
#include <string>

#include "client/mpi/mpi_header.h"
#include "client/mpi/recorder.h"

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
// The group size a rooted or all-to-all operation spans (the remote group's on an
// intercommunicator).
int PeersOf(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (!inter) return CommSize(comm);
  int size = 0;
  PMPI_Comm_remote_size(comm, &size);
  return size;
}
bool IsRoot(MPI_Comm comm, int root) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter ? root == MPI_ROOT : CommRank(comm) == root;
}

int64_t Contributed(const void* sendbuf, int64_t send_count, int64_t in_place_count) {
  return sendbuf == MPI_IN_PLACE ? in_place_count : send_count;
}

}  // namespace
}  // namespace hopmap::mpi

using hopmap::mpi::Collective;
using hopmap::mpi::CommRank;
using hopmap::mpi::Contributed;
using hopmap::mpi::CountCollective;
using hopmap::mpi::CountNeighborSends;
using hopmap::mpi::CountSend;
using hopmap::mpi::IsRoot;
using hopmap::mpi::PeersOf;
using hopmap::mpi::Recording;
using hopmap::mpi::Sum;
using hopmap::mpi::SumBytes;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) hopmap::mpi::StartRecording(hopmap::mpi::ProgramName(argv).c_str());
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) hopmap::mpi::StartRecording(hopmap::mpi::ProgramName(argv).c_str());
  return rc;
}

// Level 0 pauses the recording, any other level resumes it; MPI's own
// MPI_Pcontrol does nothing, so there is nothing to call.
int MPI_Pcontrol(const int level, ...) {
  hopmap::mpi::PauseRecording(level == 0);
  return MPI_SUCCESS;
}

// A freed datatype's handle may come back as another type: forget cached sizes.
int MPI_Type_free(MPI_Datatype* type) {
  hopmap::mpi::type_epoch.fetch_add(1, std::memory_order_relaxed);
  return PMPI_Type_free(type);
}

int MPI_Finalize(void) {
  hopmap::mpi::FinishRecording();
  return PMPI_Finalize();
}

// Point-to-point sends.
int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  CountSend(comm, dest, count, type);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  CountSend(comm, dest, count, type);
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  CountSend(comm, dest, count, type);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  CountSend(comm, dest, count, type);
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  CountSend(comm, dest, count, type);
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  CountSend(comm, dest, count, type);
  return PMPI_Ibsend(buf, count, type, dest, tag, comm, request);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  CountSend(comm, dest, count, type);
  return PMPI_Issend(buf, count, type, dest, tag, comm, request);
}
int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  CountSend(comm, dest, count, type);
  return PMPI_Irsend(buf, count, type, dest, tag, comm, request);
}
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  CountSend(comm, dest, sendcount, sendtype);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status);
}
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  CountSend(comm, dest, count, type);
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

// Persistent sends: counted at every start.
int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) hopmap::mpi::RememberPersistentSend(*request, comm, dest, count, type);
  return rc;
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Bsend_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) hopmap::mpi::RememberPersistentSend(*request, comm, dest, count, type);
  return rc;
}
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Ssend_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) hopmap::mpi::RememberPersistentSend(*request, comm, dest, count, type);
  return rc;
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  const int rc = PMPI_Rsend_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS) hopmap::mpi::RememberPersistentSend(*request, comm, dest, count, type);
  return rc;
}
int MPI_Start(MPI_Request* request) {
  if (Recording() && request != nullptr) hopmap::mpi::CountStart(*request);
  return PMPI_Start(request);
}
int MPI_Startall(int count, MPI_Request requests[]) {
  if (Recording() && requests != nullptr) {
    for (int i = 0; i < count; ++i) hopmap::mpi::CountStart(requests[i]);
  }
  return PMPI_Startall(count, requests);
}
int MPI_Request_free(MPI_Request* request) {
  if (Recording() && request != nullptr) hopmap::mpi::ForgetRequest(*request);
  return PMPI_Request_free(request);
}

// Neighbourhood collectives: sends to the topology's out-neighbours, in the graph.
int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CountNeighborSends(comm, sendcount, sendtype, nullptr, nullptr);
  return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  CountNeighborSends(comm, sendcount, sendtype, nullptr, nullptr);
  return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                  request);
}
int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  CountNeighborSends(comm, sendcount, sendtype, nullptr, nullptr);
  return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, comm);
}
int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  CountNeighborSends(comm, sendcount, sendtype, nullptr, nullptr);
  return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm, request);
}
int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CountNeighborSends(comm, sendcount, sendtype, nullptr, nullptr);
  return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request* request) {
  CountNeighborSends(comm, sendcount, sendtype, nullptr, nullptr);
  return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 request);
}
int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  CountNeighborSends(comm, 0, sendtype, sendcounts, nullptr);
  return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm);
}
int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  CountNeighborSends(comm, 0, sendtype, sendcounts, nullptr);
  return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm, request);
}
int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
  CountNeighborSends(comm, 0, MPI_DATATYPE_NULL, sendcounts, sendtypes);
  return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm);
}
int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  CountNeighborSends(comm, 0, MPI_DATATYPE_NULL, sendcounts, sendtypes);
  return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm, request);
}

// The other collectives: counted per communicator and operation, not in the graph.
// The bytes are what this rank contributes (docs/mpi.md, "Recording").
int MPI_Barrier(MPI_Comm comm) {
  CountCollective(comm, Collective::kBarrier, false, 0, MPI_BYTE);
  return PMPI_Barrier(comm);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  CountCollective(comm, Collective::kBarrier, true, 0, MPI_BYTE);
  return PMPI_Ibarrier(comm, request);
}
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (Recording())
    CountCollective(comm, Collective::kBcast, false, IsRoot(comm, root) ? count : 0, type);
  return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  if (Recording())
    CountCollective(comm, Collective::kBcast, true, IsRoot(comm, root) ? count : 0, type);
  return PMPI_Ibcast(buf, count, type, root, comm, request);
}
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  CountCollective(comm, Collective::kReduce, false, count, type);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  CountCollective(comm, Collective::kReduce, true, count, type);
  return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  CountCollective(comm, Collective::kAllreduce, false, count, type);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  CountCollective(comm, Collective::kAllreduce, true, count, type);
  return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (Recording()) {
    CountCollective(comm, Collective::kGather, false, Contributed(sendbuf, sendcount, recvcount),
                    sendbuf == MPI_IN_PLACE ? recvtype : sendtype);
  }
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  if (Recording()) {
    CountCollective(comm, Collective::kGather, true, Contributed(sendbuf, sendcount, recvcount),
                    sendbuf == MPI_IN_PLACE ? recvtype : sendtype);
  }
  return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request);
}
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kGatherv, false,
                    in_place ? recvcounts[CommRank(comm)] : sendcount,
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm);
}
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kGatherv, true,
                    in_place ? recvcounts[CommRank(comm)] : sendcount,
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm, request);
}
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (Recording()) {
    CountCollective(comm, Collective::kScatter, false,
                    IsRoot(comm, root) ? int64_t{sendcount} * PeersOf(comm) : 0, sendtype);
  }
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  if (Recording()) {
    CountCollective(comm, Collective::kScatter, true,
                    IsRoot(comm, root) ? int64_t{sendcount} * PeersOf(comm) : 0, sendtype);
  }
  return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request);
}
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (Recording()) {
    CountCollective(comm, Collective::kScatterv, false,
                    IsRoot(comm, root) ? Sum(sendcounts, PeersOf(comm)) : 0, sendtype);
  }
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm);
}
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    CountCollective(comm, Collective::kScatterv, true,
                    IsRoot(comm, root) ? Sum(sendcounts, PeersOf(comm)) : 0, sendtype);
  }
  return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, request);
}
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (Recording()) {
    CountCollective(comm, Collective::kAllgather, false, Contributed(sendbuf, sendcount, recvcount),
                    sendbuf == MPI_IN_PLACE ? recvtype : sendtype);
  }
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    CountCollective(comm, Collective::kAllgather, true, Contributed(sendbuf, sendcount, recvcount),
                    sendbuf == MPI_IN_PLACE ? recvtype : sendtype);
  }
  return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAllgatherv, false,
                    in_place ? recvcounts[CommRank(comm)] : sendcount,
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAllgatherv, true,
                    in_place ? recvcounts[CommRank(comm)] : sendcount,
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                          request);
}
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAlltoall, false,
                    int64_t{in_place ? recvcount : sendcount} * PeersOf(comm),
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAlltoall, true,
                    int64_t{in_place ? recvcount : sendcount} * PeersOf(comm),
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAlltoallv, false,
                    Sum(in_place ? recvcounts : sendcounts, PeersOf(comm)),
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm);
}
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAlltoallv, true,
                    Sum(in_place ? recvcounts : sendcounts, PeersOf(comm)),
                    in_place ? recvtype : sendtype);
  }
  return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, request);
}
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAlltoallw, false,
                    in_place ? SumBytes(recvcounts, recvtypes, PeersOf(comm))
                             : SumBytes(sendcounts, sendtypes, PeersOf(comm)),
                    MPI_BYTE);
  }
  return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm);
}
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  if (Recording()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    CountCollective(comm, Collective::kAlltoallw, true,
                    in_place ? SumBytes(recvcounts, recvtypes, PeersOf(comm))
                             : SumBytes(sendcounts, sendtypes, PeersOf(comm)),
                    MPI_BYTE);
  }
  return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, request);
}
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (Recording()) {
    CountCollective(comm, Collective::kReduceScatter, false, Sum(recvcounts, PeersOf(comm)), type);
  }
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    CountCollective(comm, Collective::kReduceScatter, true, Sum(recvcounts, PeersOf(comm)), type);
  }
  return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
}
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  if (Recording()) {
    CountCollective(comm, Collective::kReduceScatterBlock, false,
                    int64_t{recvcount} * PeersOf(comm), type);
  }
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  if (Recording()) {
    CountCollective(comm, Collective::kReduceScatterBlock, true, int64_t{recvcount} * PeersOf(comm),
                    type);
  }
  return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
}
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  CountCollective(comm, Collective::kScan, false, count, type);
  return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  CountCollective(comm, Collective::kScan, true, count, type);
  return PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, request);
}
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  CountCollective(comm, Collective::kExscan, false, count, type);
  return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  CountCollective(comm, Collective::kExscan, true, count, type);
  return PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, request);
}

}  // extern "C"
