// mahd: seed 001's Minimum Average Hop Distance greedy (Algorithm 1).
#ifndef HOPMAP_CORE_MAPPERS_CONSTRUCT_MAHD_H_
#define HOPMAP_CORE_MAPPERS_CONSTRUCT_MAHD_H_

#include <vector>

#include "core/mappers/mapper.h"
#include "core/search/position_graph.h"

namespace hopmap {

// Seed 001, Algorithm 1: the task with the most neighbours goes to the node with
// the minimum average hop distance to every allocated node; its neighbours enter a
// max-heap keyed by their number of neighbours; each popped task goes to the free
// node with the minimum average hop distance to the nodes of its mapped
// neighbours (ties: fewer hop-bytes, then the lower position), and pushes its
// unmapped neighbours. The paper leaves "special cases such as the graphs not
// being connected" to the implementation: when the heap empties, the unmapped
// task with the most neighbours restarts on the free node nearest the last one
// used. Heap ties go to the lower task id. Deterministic, no randomness.
class MahdMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// What every MAHD run on one input shares (built once; emahd runs many starts).
struct MahdContext {
  MahdContext(const TaskGraph& graph, const Allocation& allocation);
  const TaskGraph& graph;
  const Allocation& allocation;
  PositionGraph positions;
  std::vector<int32_t> by_centrality;  // positions, most central first
  std::vector<TaskId> by_degree;       // tasks, most neighbours first, ties by id
};

struct MahdRun {
  std::vector<SlotId> slot_of_task;
  HopBytes hop_bytes = 0;  // exact, summed as the tasks are placed
  bool stopped = false;    // `stop` fired: the mapping is incomplete
};

// One MAHD run with its first task on `start_position`. With `stop`, checks it
// every 1024 tasks and gives up (stopped) once it says so.
MahdRun RunMahd(const MahdContext& context, int32_t start_position,
                const StopCondition* stop = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_CONSTRUCT_MAHD_H_
