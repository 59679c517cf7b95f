// The METIS adapter, the one file of hopmap that includes metis.h: a graph in METIS's
// CSR arrays (a task graph's, with the edge weights METIS is given for bytes), one
// call that partitions it (k-way or recursive, with the options hopmap's callers
// set) and answers with an absl::Status, and the private random numbers of every
// METIS call (ScopedMetisRandom, held by MetisPartition).
#ifndef HOPMAP_CORE_BISECTION_METIS_ADAPTER_H_
#define HOPMAP_CORE_BISECTION_METIS_ADAPTER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"

namespace hopmap {

// METIS weights are idx_t (32-bit in Debian's build) and their sums must fit too:
// the largest weight of a graph with `entries` adjacency entries may be at most this.
int64_t MetisWeightCap(int64_t entries);

// The graph's edge weights (adjwgt order) scaled so the largest is at most
// MetisWeightCap(entries), each at least 1: what METIS is given for bytes.
std::vector<int32_t> ScaledMetisEdgeWeights(const TaskGraph& graph);

// A graph as METIS reads it (0-based CSR, 32-bit entries); the arrays are not owned.
struct MetisGraph {
  std::span<const int32_t> xadj;    // n + 1 offsets into adjncy
  std::span<const int32_t> adjncy;  // neighbours, both directions of every edge
  std::span<const int32_t> adjwgt;  // one weight per adjncy entry; empty: all 1
  std::span<const int32_t> vwgt;    // one weight per vertex; empty: all 1
};

// A task graph's arrays for METIS: xadj and adjncy as 32-bit indices, adjwgt
// ScaledMetisEdgeWeights.
struct MetisCsr {
  std::vector<int32_t> xadj, adjncy, adjwgt;
};

// The task graph in METIS's arrays; ResourceExhausted when its adjacency entries do not
// fit METIS's 32-bit indices.
absl::StatusOr<MetisCsr> MetisCsrOf(const TaskGraph& graph);

enum class MetisMethod {
  kKway,       // METIS_PartGraphKway
  kRecursive,  // METIS_PartGraphRecursive
};

// What a METIS call is given beside the graph. Options not set keep METIS's defaults
// (METIS_SetDefaultOptions); the numbering is always 0-based.
struct MetisPartitionOptions {
  MetisMethod method = MetisMethod::kKway;
  int32_t parts = 2;
  uint64_t seed = 0;  // METIS_OPTION_SEED gets its low 31 bits
  int32_t cuts = 0;   // METIS_OPTION_NCUTS (the best of that many cuts); 0: METIS's default
  // tpwgts: each part's fraction of the total vertex weight (`parts` entries, summing
  // to 1); empty: equal parts.
  std::span<const float> part_fractions;
  // ubvec = 1 + imbalance: a part may weigh that much more than its fraction; none:
  // METIS's default (its ufactor).
  std::optional<double> imbalance;
};

// Cuts `graph` into options.parts parts: part[v] (graph's vertex count entries) gets
// v's part. InvalidArgument when the arrays or options do not fit together or METIS
// refuses its input, ResourceExhausted when it runs out of memory, Internal on its
// other errors; `part` is then unspecified. Holds a ScopedMetisRandom for the call.
absl::Status MetisPartition(const MetisGraph& graph, const MetisPartitionOptions& options,
                            std::span<int32_t> part);

// Debian's METIS 5 draws its random numbers from the C library's rand(), seeded with
// srand(METIS_OPTION_SEED) at the start of each call. That state is global to the
// process, and gRPC calls rand() too (timer jitter): in the daemon, a solve's METIS
// cuts changed with whatever else the process did, and so did its mapping. While a
// ScopedMetisRandom is alive on a thread, rand() and srand() on that thread use a private
// generator instead (metis_adapter.cc interposes them; every other caller gets the C
// library's). Everything else METIS keeps between calls is thread-local (Debian's
// libmetis.so.5: its only non-TLS data are GKlib's getopt variables), so calls on
// different threads run at the same time: rec-bisect's halves, hybrid's parts and
// auto's candidates in parallel. tests/core/mappers/determinism_test.cc checks that
// concurrent solves give the same mappings as solves alone. MetisPartition holds one;
// nothing else needs to.
class ScopedMetisRandom {
 public:
  ScopedMetisRandom();
  ~ScopedMetisRandom();
  ScopedMetisRandom(const ScopedMetisRandom&) = delete;
  ScopedMetisRandom& operator=(const ScopedMetisRandom&) = delete;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_BISECTION_METIS_ADAPTER_H_
