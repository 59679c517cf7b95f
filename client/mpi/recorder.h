// The recording half of libhopmap_mpi: per-destination counters for point-to-point
// traffic and per-communicator counters for the other collectives, kept from
// MPI_Init to MPI_Finalize when HOPMAP_RECORD names a file. The PMPI wrappers
// (pmpi_record.cc) call these.
#ifndef HOPMAP_CLIENT_MPI_RECORDER_H_
#define HOPMAP_CLIENT_MPI_RECORDER_H_

#include <cstdint>

#include "client/mpi/mpi_header.h"

namespace hopmap::mpi {

// The collectives counted in their own section, by name.
enum class Collective {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kAlltoallw,
  kReduceScatter,
  kReduceScatterBlock,
  kScan,
  kExscan,
  kCount,
};

// After PMPI_Init: starts recording if HOPMAP_RECORD is set (collective over
// MPI_COMM_WORLD: it duplicates it for the final gather).
void StartRecording(const char* program);
// Before PMPI_Finalize: gathers the counts and writes the file from world rank 0
// (collective). A failure prints one line; the program's exit status is unchanged.
void FinishRecording();
bool Recording();

// `count` elements of `type` sent to `dest` of `comm` (MPI_PROC_NULL is skipped).
void CountSend(MPI_Comm comm, int dest, int64_t count, MPI_Datatype type);
// Neighbourhood collectives: one send to each out-neighbour of comm's topology, of
// counts[i] elements of types[i] (a single count/type when the arrays are null).
void CountNeighborSends(MPI_Comm comm, int count, MPI_Datatype type, const int* counts,
                        const MPI_Datatype* types);
// A collective call contributing `count` elements of `type` (docs/mpi.md).
void CountCollective(MPI_Comm comm, Collective op, bool nonblocking, int64_t count,
                     MPI_Datatype type);
// Persistent sends: remembered at *_init, counted at every MPI_Start.
void RememberPersistentSend(MPI_Request request, MPI_Comm comm, int dest, int count,
                            MPI_Datatype type);
void CountStart(MPI_Request request);
void ForgetRequest(MPI_Request request);

}  // namespace hopmap::mpi

#endif  // HOPMAP_CLIENT_MPI_RECORDER_H_
