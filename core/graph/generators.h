// Communication-pattern generators: task graphs of common parallel kernels
// (stencils, collectives, FFT transposes, random geometric graphs), for tests,
// benchmarks and `hopmap gen`.
#ifndef HOPMAP_CORE_GRAPH_GENERATORS_H_
#define HOPMAP_CORE_GRAPH_GENERATORS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"
#include "core/types.h"

namespace hopmap {

// The weight each kind gives an edge {u, v} is the sum of the sizes of all the
// messages between u and v, whichever way they go (DESIGN.md: w = both
// directions summed). With b = GeneratorOptions::bytes:
//
//  stencil2d-5, stencil2d-9, stencil3d-7, stencil3d-27
//      Grid dims (first fastest: task = x + X*(y + Y*z)). Every task sends b to
//      each of its neighbours by offset (the 4/8/6/26 offsets of the stencil) and
//      receives b from each: a halo exchange, so an edge weighs 2*b. Without wrap
//      the offsets that leave the grid are dropped. With wrap, on a dimension of
//      size 2 the +1 and -1 neighbours are the same task and the traffic adds up
//      (4*b for a face neighbour there); on a dimension of size 1 the offset lands
//      on the task itself: that traffic goes to self_bytes(), no edge.
//  ring
//      Task i exchanges b each way with i+1 mod n: edge weight 2*b (4*b for n=2,
//      where 0-1 and 1-0 are both ring links; n=1 is self traffic only).
//  recursive-doubling
//      Round k (2^k < n): i exchanges b each way with i XOR 2^k when that partner
//      is < n. A pair meets in one round only: edge weight 2*b. n need not be a
//      power of two (tasks whose partner is >= n sit the round out).
//  binomial-tree
//      Broadcast from task 0: in round k, each task i < 2^k sends one message of
//      b to i + 2^k if that is < n. One-way messages: edge weight b; n-1 edges.
//  bruck
//      Bruck's allgather: in round k (2^k < n) task i sends min(2^k, n - 2^k)
//      blocks of b bytes to (i - 2^k) mod n. Edge weight = the sum of all the
//      messages between the pair over all rounds: usually one message of
//      b * blocks, more when distances coincide mod n (n = 2^(k+1): i and i - 2^k
//      send to each other; n = 3: rounds 0 and 1 link the same pairs).
//  fft2d
//      dims {R, C}, task = r + R*c. All-to-all within each group of tasks that
//      share c (R tasks) and within each group that share r (C tasks): every pair
//      in a group exchanges b each way, edge weight 2*b. Edges: C*R(R-1)/2 +
//      R*C(C-1)/2.
//  random-geometric
//      `tasks` points uniform in the unit square (RandomUnitSquarePoints); pairs
//      strictly closer than `radius` are joined by an edge of weight b. radius 0
//      picks sqrt(8 / (pi (n-1))), a mean degree of about 8 (a little less, for
//      the points near the border).
//  training
//      One step of a training job given by `job` (training_job.h, TrainingGraph):
//      one task per GPU rank, weights in bytes per step; `bytes` does not apply,
//      and `tasks`, when given, is the GPU count the layout must fill.
struct GeneratorOptions {
  std::string kind;
  // Stencils and fft2d: the grid dims, first dim fastest.
  std::vector<int32_t> dims;
  // Stencils: periodic boundaries.
  bool wrap = false;
  // Bytes per message (per direction per exchange).
  Bytes bytes = 1024;
  // ring, recursive-doubling, binomial-tree, bruck, random-geometric. The grid
  // kinds take their size from dims (tasks may be 0 or equal to the product).
  int32_t tasks = 0;
  // random-geometric: connection radius in the unit square; 0 => mean degree ~8.
  double radius = 0;
  // random-geometric: the std::mt19937_64 seed.
  uint64_t seed = 1;
  // training: the job, as ParseTrainingJob reads it ("tp=2,pp=2,dp=2,hidden=1024").
  std::string job;

  // Names the bad field and value, e.g. "dims: stencil2d-5 needs 2 dims, got 3".
  // Also refuses more than kMaxTasks tasks and more than kMaxGeneratedEdges edges.
  absl::Status Validate() const;
};

// The most edges a generator builds (memory guard: ~40 bytes per edge while
// building). random-geometric is checked against its expected edge count.
inline constexpr int64_t kMaxGeneratedEdges = int64_t{1} << 30;

// Validates `options` and builds the graph through TaskGraphBuilder.
absl::StatusOr<TaskGraph> GenerateGraph(const GeneratorOptions& options);

struct GeneratorKind {
  const char* name;
  const char* help;
};
// Every kind, in one table: the CLI help and Validate() both use it.
const std::vector<GeneratorKind>& GeneratorKinds();

// The points random-geometric uses: point i is (x, y) from two consecutive raw
// outputs of std::mt19937_64(seed), each turned into [0, 1) as (bits >> 11) * 2^-53,
// so they are the same on every platform.
std::vector<std::pair<double, double>> RandomUnitSquarePoints(int32_t n, uint64_t seed);

// The radius random-geometric uses when GeneratorOptions::radius is 0.
double DefaultGeometricRadius(int32_t n);

}  // namespace hopmap

#endif  // HOPMAP_CORE_GRAPH_GENERATORS_H_
