// The METIS adapter: the edge weights METIS is given, and ScopedMetisRandom, which
// every METIS call in hopmap holds so that METIS's random numbers are private to it.
#ifndef HOPMAP_CORE_BISECTION_METIS_ADAPTER_H_
#define HOPMAP_CORE_BISECTION_METIS_ADAPTER_H_

#include <cstdint>
#include <vector>

#include "core/graph/task_graph.h"

namespace hopmap {

// METIS weights are idx_t (32-bit in Debian's build) and their sums must fit too:
// the largest weight of a graph with `entries` adjacency entries may be at most this.
int64_t MetisWeightCap(int64_t entries);

// The graph's edge weights (adjwgt order) scaled so the largest is at most
// MetisWeightCap(entries), each at least 1: what METIS is given for bytes.
std::vector<int32_t> ScaledMetisEdgeWeights(const TaskGraph& graph);

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
// concurrent solves give the same mappings as solves alone.
class ScopedMetisRandom {
 public:
  ScopedMetisRandom();
  ~ScopedMetisRandom();
  ScopedMetisRandom(const ScopedMetisRandom&) = delete;
  ScopedMetisRandom& operator=(const ScopedMetisRandom&) = delete;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_BISECTION_METIS_ADAPTER_H_
