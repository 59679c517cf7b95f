#include "client/mpi/recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/mpi/record_format.h"

namespace hopmap::mpi {
namespace {

constexpr std::array<const char*, static_cast<size_t>(Collective::kCount)> kCollectiveNames = {
    "barrier",  "bcast",     "reduce",    "allreduce",      "gather",
    "gatherv",  "scatter",   "scatterv",  "allgather",      "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
    "scan",     "exscan"};

// Calls and bytes per collective, blocking then non-blocking ("i" + name).
using CollectiveCounts = std::array<CollectiveTraffic, 2 * static_cast<size_t>(Collective::kCount)>;

// What a communicator needs for counting, cached on it as an attribute.
struct CommInfo {
  std::vector<int32_t> world_of_rank;  // of the remote group for an intercommunicator
  bool neighbors_known = false;
  std::vector<int32_t> out_neighbors;       // world ranks; -1 for MPI_PROC_NULL
  CollectiveCounts* collectives = nullptr;  // shared by the communicators of one group
};

struct Persistent {
  int32_t world_dest;
  int64_t bytes;
};

struct Recorder {
  bool started = false;  // between StartRecording and FinishRecording
  int world_rank = 0;
  int world_size = 0;
  std::string path;
  std::string program;
  std::vector<SendCounter> counters;  // hot_state.counters points here
  MPI_Comm comm = MPI_COMM_NULL;      // a duplicate of MPI_COMM_WORLD for the final gather
  int keyval = MPI_KEYVAL_INVALID;
  std::atomic<uint64_t> epoch{1};  // bumped when a cached CommInfo is deleted
  std::mutex mutex;                // CommInfo creation, collectives, persistent requests
  std::map<std::string, CollectiveCounts> collectives;  // by the group's world ranks
  std::unordered_map<MPI_Request, Persistent> persistent;
};

// Never destroyed: wrappers may run during the program's static destruction.
Recorder& R() {
  static Recorder* recorder = new Recorder;
  return *recorder;
}

int DeleteInfo(MPI_Comm, int, void* value, void*) {
  R().epoch.fetch_add(1, std::memory_order_acq_rel);
  delete static_cast<CommInfo*>(value);
  return MPI_SUCCESS;
}

std::vector<int32_t> WorldRanksOf(MPI_Group group) {
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  std::vector<int> world(size, MPI_UNDEFINED);
  MPI_Group world_group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  PMPI_Group_translate_ranks(group, size, ranks.data(), world_group, world.data());
  PMPI_Group_free(&world_group);
  std::vector<int32_t> out(world.begin(), world.end());
  for (int32_t& r : out) {
    if (r == MPI_UNDEFINED) r = -1;  // a process outside this world (dynamic processes)
  }
  return out;
}

// Called with R().mutex held.
CommInfo* NewInfo(MPI_Comm comm) {
  auto* info = new CommInfo;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  MPI_Group local;
  PMPI_Comm_group(comm, &local);
  std::vector<int32_t> members = WorldRanksOf(local);
  PMPI_Group_free(&local);
  if (inter) {
    MPI_Group remote;
    PMPI_Comm_remote_group(comm, &remote);
    info->world_of_rank = WorldRanksOf(remote);
    PMPI_Group_free(&remote);
  } else {
    info->world_of_rank = members;
  }
  std::sort(members.begin(), members.end());
  info->collectives = &R().collectives[RankRanges(members)];
  return info;
}

CommInfo* InfoOf(MPI_Comm comm) {
  struct Cache {
    MPI_Comm comm = MPI_COMM_NULL;
    uint64_t epoch = 0;
    CommInfo* info = nullptr;
  };
  thread_local Cache cache;
  Recorder& r = R();
  const uint64_t epoch = r.epoch.load(std::memory_order_acquire);
  if (cache.info != nullptr && cache.comm == comm && cache.epoch == epoch) return cache.info;
  std::lock_guard<std::mutex> lock(r.mutex);
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, r.keyval, &value, &found) != MPI_SUCCESS) return nullptr;
  CommInfo* info = found ? static_cast<CommInfo*>(value) : nullptr;
  if (info == nullptr) {
    info = NewInfo(comm);
    if (PMPI_Comm_set_attr(comm, r.keyval, info) != MPI_SUCCESS) {
      delete info;
      return nullptr;
    }
  }
  cache = {comm, epoch, info};
  return info;
}

int32_t WorldRankOf(MPI_Comm comm, int rank) {
  if (rank < 0) return -1;
  if (comm == MPI_COMM_WORLD) return rank < hot_state.world_size ? rank : -1;
  return WorldRankSlow(comm, rank);
}

// Counts a send to a world rank that may be out of range (-1: not counted).
void Add(int32_t world_dest, int64_t bytes) {
  if (world_dest >= 0 && world_dest < hot_state.world_size) AddSend(world_dest, bytes);
}

// The out-neighbours of comm's topology in the order the neighbourhood collectives
// use them; empty without a topology. Called with R().mutex held.
void FindNeighbors(MPI_Comm comm, CommInfo* info) {
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &kind);
  std::vector<int> ranks;
  if (kind == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    for (int d = 0; d < ndims; ++d) {
      int source = MPI_PROC_NULL;
      int dest = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &source, &dest);
      ranks.push_back(source);
      ranks.push_back(dest);
    }
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    int count = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &count);
    ranks.resize(count);
    if (count > 0) PMPI_Graph_neighbors(comm, rank, count, ranks.data());
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0;
    int out = 0;
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    std::vector<int> sources(in + 1), source_weights(in + 1), weights(out + 1);
    ranks.resize(out + 1);
    PMPI_Dist_graph_neighbors(comm, in, sources.data(),
                              weighted ? source_weights.data() : MPI_UNWEIGHTED, out, ranks.data(),
                              weighted ? weights.data() : MPI_UNWEIGHTED);
    ranks.resize(out);
  }
  info->out_neighbors.clear();
  for (int rank : ranks) {
    info->out_neighbors.push_back(rank == MPI_PROC_NULL || rank < 0 ||
                                          static_cast<size_t>(rank) >= info->world_of_rank.size()
                                      ? -1
                                      : info->world_of_rank[rank]);
  }
  info->neighbors_known = true;
}

std::string Now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Writes all of `text` to `fd`; 0, or the errno that stopped it.
int WriteAll(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    written += static_cast<size_t>(n);
  }
  return 0;
}

// Writes `text` to `path` through a temporary file in the same directory and a
// rename, so a reader never sees half a file. What exists and is not a regular file
// (/dev/null, a FIFO) is written in place: a rename would put a regular file where
// the device was. Returns "" or what went wrong.
std::string WriteAtomically(const std::string& path, const std::string& text) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return absl::StrCat("cannot create ", path, ": ", std::strerror(errno));
    int err = WriteAll(fd, text);
    if (close(fd) != 0 && err == 0) err = errno;
    return err == 0 ? "" : absl::StrCat("cannot write ", path, ": ", std::strerror(err));
  }
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return absl::StrCat("cannot create ", temporary, ": ", std::strerror(errno));
  int err = WriteAll(fd, text);
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    unlink(temporary.c_str());
    return absl::StrCat("cannot write ", temporary, ": ", std::strerror(err));
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(temporary.c_str());
    return absl::StrCat("cannot rename ", temporary, " to ", path, ": ", why);
  }
  return "";
}

}  // namespace

HotState hot_state;
std::atomic<uint64_t> type_epoch{1};

int32_t WorldRankSlow(MPI_Comm comm, int rank) {
  const CommInfo* info = InfoOf(comm);
  if (info == nullptr || rank < 0 || static_cast<size_t>(rank) >= info->world_of_rank.size()) {
    return -1;
  }
  return info->world_of_rank[rank];
}

int64_t TypeSizeSlow(MPI_Datatype type) {
  int size = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return size;
}

std::string ProgramName(char*** argv) {
  if (argv != nullptr && *argv != nullptr && (*argv)[0] != nullptr) return (*argv)[0];
  std::ifstream in("/proc/self/cmdline");
  std::string first;
  std::getline(in, first, '\0');
  return first;
}

void StartRecording(const char* program) {
  Recorder& r = R();
  const char* path = std::getenv("HOPMAP_RECORD");
  if (path == nullptr || path[0] == '\0' || r.started) return;
  r.path = path;
  r.program = program != nullptr ? program : "";
  PMPI_Comm_rank(MPI_COMM_WORLD, &r.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &r.world_size);
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  r.counters.assign(r.world_size, SendCounter{});
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &r.comm) != MPI_SUCCESS ||
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteInfo, &r.keyval, nullptr) !=
          MPI_SUCCESS) {
    if (r.world_rank == 0)
      std::fprintf(stderr, "hopmap: recording off: MPI refused a communicator\n");
    return;
  }
  hot_state.atomic = provided == MPI_THREAD_MULTIPLE;
  hot_state.world_size = r.world_size;
  hot_state.counters = r.counters.data();
  hot_state.active = true;
  r.started = true;
}

void PauseRecording(bool paused) {
  if (R().started) hot_state.active = !paused;
}

void FinishRecording() {
  Recorder& r = R();
  if (!r.started) return;
  r.started = false;
  hot_state.active = false;  // the gather below is not recorded

  // This rank's sends as (to, messages, bytes) triples, and its collective lines.
  std::vector<int64_t> sends;
  for (int d = 0; d < r.world_size; ++d) {
    const SendCounter& c = r.counters[d];
    if (c.messages > 0) sends.insert(sends.end(), {d, c.messages, c.bytes});
  }
  std::string collectives;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [ranks, counts] : r.collectives) {
      for (size_t op = 0; op < counts.size(); ++op) {
        if (counts[op].calls == 0) continue;
        const size_t base = op % kCollectiveNames.size();
        const std::string name =
            absl::StrCat(op >= kCollectiveNames.size() ? "i" : "", kCollectiveNames[base]);
        collectives += CollectiveLine(ranks, name, counts[op]);
      }
    }
  }
  char host[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int host_length = 0;
  PMPI_Get_processor_name(host, &host_length);

  std::vector<int> send_counts;
  const std::vector<int64_t> all_sends = GatherAtRoot(r.comm, sends, MPI_INT64_T, &send_counts);
  const std::vector<std::string> collectives_of_rank = GatherStrings(r.comm, collectives);
  std::vector<std::string> host_of_rank =
      GatherStrings(r.comm, std::string(host, static_cast<size_t>(host_length)));
  PMPI_Comm_free(&r.comm);
  if (r.world_rank != 0) return;

  RecordHeader header;
  header.ranks = r.world_size;
  header.date = Now();
  header.program = r.program;
  header.host_of_rank = std::move(host_of_rank);
  std::vector<PairTraffic> pairs;
  size_t at = 0;
  for (int from = 0; from < r.world_size; ++from) {
    for (int k = 0; k < send_counts[from]; k += 3, at += 3) {
      pairs.push_back(
          {from, static_cast<int32_t>(all_sends[at]), all_sends[at + 1], all_sends[at + 2]});
    }
  }
  CollectiveTable table;
  for (const std::string& lines : collectives_of_rank) {
    for (absl::string_view line : absl::StrSplit(lines, '\n', absl::SkipEmpty())) {
      std::string ranks, op;
      CollectiveTraffic traffic;
      if (ParseCollectiveLine(std::string(line), &ranks, &op, &traffic)) {
        MergeCollective(&table, ranks, op, traffic);
      }
    }
  }
  const std::string problem = WriteAtomically(r.path, FormatRecord(header, pairs, table));
  if (!problem.empty()) {
    std::fprintf(stderr, "hopmap: the recording was not written: %s\n", problem.c_str());
  }
}

void CountNeighborSends(MPI_Comm comm, int count, MPI_Datatype type, const int* counts,
                        const MPI_Datatype* types) {
  Recorder& r = R();
  if (!hot_state.active) return;
  CommInfo* info = InfoOf(comm);
  if (info == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!info->neighbors_known) FindNeighbors(comm, info);
  }
  // Written once, under the lock above, and only read after.
  const std::vector<int32_t>& neighbors = info->out_neighbors;
  const int64_t single = counts == nullptr ? count * TypeSize(type) : 0;
  for (size_t i = 0; i < neighbors.size(); ++i) {
    if (neighbors[i] < 0) continue;
    const int64_t bytes =
        counts == nullptr ? single : counts[i] * TypeSize(types != nullptr ? types[i] : type);
    Add(neighbors[i], bytes);
  }
}

void CountCollective(MPI_Comm comm, Collective op, bool nonblocking, int64_t count,
                     MPI_Datatype type) {
  Recorder& r = R();
  if (!hot_state.active) return;
  const int64_t bytes = count > 0 ? count * TypeSize(type) : 0;
  CommInfo* info = InfoOf(comm);
  if (info == nullptr) return;
  std::lock_guard<std::mutex> lock(r.mutex);
  CollectiveTraffic& t =
      (*info->collectives)[static_cast<size_t>(op) +
                           (nonblocking ? static_cast<size_t>(Collective::kCount) : 0)];
  ++t.calls;
  t.bytes += bytes;
}

void RememberPersistentSend(MPI_Request request, MPI_Comm comm, int dest, int count,
                            MPI_Datatype type) {
  Recorder& r = R();
  if (!hot_state.active || dest == MPI_PROC_NULL || request == MPI_REQUEST_NULL) return;
  const int32_t world = WorldRankOf(comm, dest);
  const int64_t bytes = static_cast<int64_t>(count) * TypeSize(type);
  std::lock_guard<std::mutex> lock(r.mutex);
  r.persistent[request] = {world, bytes};
}

void CountStart(MPI_Request request) {
  Recorder& r = R();
  if (!hot_state.active) return;
  // MPI_Start is on the hot path: lock only when other threads may change the table.
  std::unique_lock<std::mutex> lock(r.mutex, std::defer_lock);
  if (hot_state.atomic) lock.lock();
  auto it = r.persistent.find(request);
  if (it != r.persistent.end()) Add(it->second.world_dest, it->second.bytes);
}

void ForgetRequest(MPI_Request request) {
  Recorder& r = R();
  if (!hot_state.active) return;
  std::lock_guard<std::mutex> lock(r.mutex);
  r.persistent.erase(request);
}

}  // namespace hopmap::mpi
