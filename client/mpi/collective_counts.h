// What one rank contributes to each collective call (docs/mpi.md, "Recording"), one
// function per family, for the C wrappers (pmpi_record.cc) and the Fortran ones
// (pmpi_fortran_collectives.cc) alike. `in_place` says whether the caller passed
// MPI_IN_PLACE as the send buffer, in its own language. Each does nothing unless
// the recording is on.
#ifndef HOPMAP_CLIENT_MPI_COLLECTIVE_COUNTS_H_
#define HOPMAP_CLIENT_MPI_COLLECTIVE_COUNTS_H_

#include "client/mpi/mpi_header.h"
#include "client/mpi/recorder.h"

namespace hopmap::mpi {

// The group size a rooted or all-to-all operation spans (the remote group's on an
// intercommunicator).
int PeersOf(MPI_Comm comm);

void CountBcast(MPI_Comm comm, bool nonblocking, int root, int count, MPI_Datatype type);
// kGather or kAllgather.
void CountGather(MPI_Comm comm, Collective op, bool nonblocking, bool in_place, int sendcount,
                 MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype);
// kGatherv or kAllgatherv.
void CountGatherv(MPI_Comm comm, Collective op, bool nonblocking, bool in_place, int sendcount,
                  MPI_Datatype sendtype, const int* recvcounts, MPI_Datatype recvtype);
void CountScatter(MPI_Comm comm, bool nonblocking, int root, int sendcount, MPI_Datatype sendtype);
void CountScatterv(MPI_Comm comm, bool nonblocking, int root, const int* sendcounts,
                   MPI_Datatype sendtype);
void CountAlltoall(MPI_Comm comm, bool nonblocking, bool in_place, int sendcount,
                   MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype);
void CountAlltoallv(MPI_Comm comm, bool nonblocking, bool in_place, const int* sendcounts,
                    MPI_Datatype sendtype, const int* recvcounts, MPI_Datatype recvtype);
void CountAlltoallw(MPI_Comm comm, bool nonblocking, bool in_place, const int* sendcounts,
                    const MPI_Datatype* sendtypes, const int* recvcounts,
                    const MPI_Datatype* recvtypes);
void CountReduceScatter(MPI_Comm comm, bool nonblocking, const int* recvcounts, MPI_Datatype type);
void CountReduceScatterBlock(MPI_Comm comm, bool nonblocking, int recvcount, MPI_Datatype type);

}  // namespace hopmap::mpi

#endif  // HOPMAP_CLIENT_MPI_COLLECTIVE_COUNTS_H_
