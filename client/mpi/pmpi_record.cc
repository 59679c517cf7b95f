// The PMPI wrappers that record (recorder.h): every point-to-point send, the
// neighbourhood collectives, the other collectives, and MPI_Init/MPI_Finalize.
// Each counts, then calls the PMPI_ entry point with the caller's arguments
// unchanged. Receives are not counted: every byte is counted once, by its sender.
#include <cstdio>
#include <string>

#include "client/mpi/collective_counts.h"
#include "client/mpi/mpi_header.h"
#include "client/mpi/recorder.h"

using hopmap::mpi::Collective;
using hopmap::mpi::CountAlltoall;
using hopmap::mpi::CountAlltoallv;
using hopmap::mpi::CountAlltoallw;
using hopmap::mpi::CountBcast;
using hopmap::mpi::CountCollective;
using hopmap::mpi::CountGather;
using hopmap::mpi::CountGatherv;
using hopmap::mpi::CountNeighborSends;
using hopmap::mpi::CountReduceScatter;
using hopmap::mpi::CountReduceScatterBlock;
using hopmap::mpi::CountScatter;
using hopmap::mpi::CountScatterv;
using hopmap::mpi::CountSend;
using hopmap::mpi::Recording;

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
  CountBcast(comm, false, root, count, type);
  return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  CountBcast(comm, true, root, count, type);
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
  CountGather(comm, Collective::kGather, false, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
              recvcount, recvtype);
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  CountGather(comm, Collective::kGather, true, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
              recvcount, recvtype);
  return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request);
}
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  CountGatherv(comm, Collective::kGatherv, false, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
               recvcounts, recvtype);
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm);
}
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  CountGatherv(comm, Collective::kGatherv, true, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
               recvcounts, recvtype);
  return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm, request);
}
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CountScatter(comm, false, root, sendcount, sendtype);
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  CountScatter(comm, true, root, sendcount, sendtype);
  return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request);
}
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  CountScatterv(comm, false, root, sendcounts, sendtype);
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm);
}
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  CountScatterv(comm, true, root, sendcounts, sendtype);
  return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, request);
}
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CountGather(comm, Collective::kAllgather, false, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
              recvcount, recvtype);
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  CountGather(comm, Collective::kAllgather, true, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
              recvcount, recvtype);
  return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  CountGatherv(comm, Collective::kAllgatherv, false, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
               recvcounts, recvtype);
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  CountGatherv(comm, Collective::kAllgatherv, true, sendbuf == MPI_IN_PLACE, sendcount, sendtype,
               recvcounts, recvtype);
  return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                          request);
}
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CountAlltoall(comm, false, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  CountAlltoall(comm, true, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype);
  return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  CountAlltoallv(comm, false, sendbuf == MPI_IN_PLACE, sendcounts, sendtype, recvcounts, recvtype);
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm);
}
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  CountAlltoallv(comm, true, sendbuf == MPI_IN_PLACE, sendcounts, sendtype, recvcounts, recvtype);
  return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, request);
}
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  CountAlltoallw(comm, false, sendbuf == MPI_IN_PLACE, sendcounts, sendtypes, recvcounts,
                 recvtypes);
  return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm);
}
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  CountAlltoallw(comm, true, sendbuf == MPI_IN_PLACE, sendcounts, sendtypes, recvcounts, recvtypes);
  return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, request);
}
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  CountReduceScatter(comm, false, recvcounts, type);
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  CountReduceScatter(comm, true, recvcounts, type);
  return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
}
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  CountReduceScatterBlock(comm, false, recvcount, type);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  CountReduceScatterBlock(comm, true, recvcount, type);
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
