#include "core/mappers/construct/emahd.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/mappers/construct/mahd.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace hopmap {

absl::StatusOr<MapOutput> ExhaustiveMahdMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  const MahdContext context(input.graph, input.allocation);
  // An iteration limit L tries the L most central starts: a count, so the answer
  // does not depend on the time or the thread count.
  const int64_t all_starts = static_cast<int64_t>(context.by_centrality.size());
  const int64_t num_starts = input.options.iteration_limit > 0
                                 ? std::min(all_starts, input.options.iteration_limit)
                                 : all_starts;
  std::vector<HopBytes> hop_bytes(num_starts, std::numeric_limits<HopBytes>::max());
  // Batches a few times the arena's width: enough to keep every thread busy, small
  // enough that the time limit is honoured within about one MAHD run. The width
  // only decides where the deadline cuts; every start that runs is deterministic
  // and the best is picked by (hop-bytes, start), whatever finishes first.
  const int64_t batch = 4 * std::max(1, tbb::this_task_arena::max_concurrency());
  int64_t best_start = 0;
  MahdRun best = RunMahd(context, context.by_centrality[0]);
  hop_bytes[0] = best.hop_bytes;
  int64_t done = 1;       // starts tried
  int64_t completed = 1;  // starts that ran to the end
  while (done < num_starts && !input.stop.ShouldStop()) {
    const int64_t end = std::min(num_starts, done + batch);
    tbb::parallel_for(done, end, [&](int64_t i) {
      const MahdRun run = RunMahd(context, context.by_centrality[i], &input.stop);
      if (!run.stopped) hop_bytes[i] = run.hop_bytes;
    });
    for (int64_t i = done; i < end; ++i) {
      if (hop_bytes[i] == std::numeric_limits<HopBytes>::max()) continue;  // stopped
      ++completed;
      if (hop_bytes[i] < hop_bytes[best_start]) best_start = i;
    }
    done = end;
  }
  MapOutput out;
  // Re-running the winner is cheaper than keeping every run's mapping.
  out.slot_of_task = best_start == 0
                         ? std::move(best.slot_of_task)
                         : RunMahd(context, context.by_centrality[best_start]).slot_of_task;
  out.variant = absl::StrCat("start ", best_start, " (node ",
                             input.allocation.node_at(context.by_centrality[best_start]), ")");
  out.stats = {{"starts_completed", static_cast<double>(completed)},
               {"starts", static_cast<double>(num_starts)}};
  return out;
}

}  // namespace hopmap
