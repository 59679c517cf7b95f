// The recording half of libhopmap_mpi: per-destination counters for point-to-point
// traffic and per-communicator counters for the other collectives, kept from
// MPI_Init to MPI_Finalize when HOPMAP_RECORD names a file. The PMPI wrappers
// (pmpi_record.cc) call these.
#ifndef HOPMAP_CLIENT_MPI_RECORDER_H_
#define HOPMAP_CLIENT_MPI_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "client/mpi/mpi_header.h"

namespace hopmap::mpi {

// What every send reads: plain globals, so the hot path is a few loads and adds
// (bench/mpi_overhead.sh measures it against the message rate).
struct SendCounter {
  int64_t messages = 0;
  int64_t bytes = 0;
};
struct HotState {
  bool active = false;
  bool atomic = false;  // MPI_THREAD_MULTIPLE: counters are updated atomically
  int32_t world_size = 0;
  SendCounter* counters = nullptr;  // per destination world rank; owned by the recorder
};
extern HotState hot_state;
// Bumped by MPI_Type_free: a freed handle may come back as another type.
extern std::atomic<uint64_t> type_epoch;

// The slow paths of the inline functions below.
int32_t WorldRankSlow(MPI_Comm comm, int rank);
int64_t TypeSizeSlow(MPI_Datatype type);

// MPI_Type_size, remembered per thread for the last type used.
inline int64_t TypeSize(MPI_Datatype type) {
  struct Cache {
    MPI_Datatype type;
    int64_t size;
    uint64_t epoch;
  };
  static thread_local Cache cache __attribute__((tls_model("initial-exec"))) = {};
  const uint64_t epoch = type_epoch.load(std::memory_order_relaxed);
  if (cache.epoch != epoch || cache.type != type) cache = {type, TypeSizeSlow(type), epoch};
  return cache.size;
}

inline void AddSend(int32_t world_dest, int64_t bytes) {
  SendCounter& c = hot_state.counters[world_dest];
  if (hot_state.atomic) {
    std::atomic_ref<int64_t>(c.messages).fetch_add(1, std::memory_order_relaxed);
    std::atomic_ref<int64_t>(c.bytes).fetch_add(bytes, std::memory_order_relaxed);
  } else {
    ++c.messages;
    c.bytes += bytes;
  }
}

// `count` elements of `type` sent to `dest` of `comm` (MPI_PROC_NULL is skipped).
inline void CountSend(MPI_Comm comm, int dest, int64_t count, MPI_Datatype type) {
  if (!hot_state.active || dest == MPI_PROC_NULL || dest < 0) return;
  const int32_t world = comm == MPI_COMM_WORLD ? (dest < hot_state.world_size ? dest : -1)
                                               : WorldRankSlow(comm, dest);
  if (world >= 0) AddSend(world, count * TypeSize(type));
}

inline bool Recording() { return hot_state.active; }

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

// The program's path for the recording's header: argv[0] when MPI_Init was given
// argv, else the first word of /proc/self/cmdline (MPI_Init(NULL, NULL), Fortran).
std::string ProgramName(char*** argv);

// After PMPI_Init: starts recording if HOPMAP_RECORD is set (collective over
// MPI_COMM_WORLD: it duplicates it for the final gather).
void StartRecording(const char* program);
// Before PMPI_Finalize: gathers the counts and writes the file from world rank 0
// (collective). A failure prints one line; the program's exit status is unchanged.
void FinishRecording();
// MPI_Pcontrol: level 0 pauses the counting, any other level resumes it (the
// standard's meaning: profiling off and on).
void PauseRecording(bool paused);
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
