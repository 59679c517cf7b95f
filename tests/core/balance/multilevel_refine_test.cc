// MultilevelRefine: the V-cycle over RefineBalanced.
#include "core/balance/multilevel_refine.h"

#include <algorithm>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/balance/balance_search.h"
#include "core/balance/construct.h"
#include "core/search/random_stream.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::BruteHopBytes;
using ::hopmap::testing::Generate;
using ::hopmap::testing::WholeTorus;

const StopCondition kNoDeadline{absl::InfiniteFuture()};

int64_t CountMigrated(const std::vector<SlotId>& slots, const std::vector<SlotId>& current) {
  int64_t moved = 0;
  for (size_t t = 0; t < slots.size(); ++t) moved += slots[t] != current[t] ? 1 : 0;
  return moved;
}

// Rows of a 2-D stencil dealt to slots as blocks make stripes; a stripe's
// objects each gain nothing alone by moving to the next slot (one edge cut for
// one uncut), so the flat refinement stops early, while whole clusters moving
// reshape the stripes.
TEST(MultilevelRefineTest, ClustersFindWhatSingleMovesCannot) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  const BalanceInput input{graph, allocation};
  const BalanceOptions options;
  const double cap = ComputeLoadCap(input, options.imbalance).cap;
  const std::vector<SlotId> block = BlockPlacement(input);

  MultilevelRefineOptions flat_options;
  flat_options.max_levels = 0;
  BalancedPlacement flat(input, options, block);
  MultilevelRefine(flat, cap, flat_options, kNoDeadline);

  BalancedPlacement multilevel(input, options, block);
  const HopBytes start = multilevel.hop_bytes();
  MultilevelRefine(multilevel, cap, {}, kNoDeadline);
  EXPECT_EQ(multilevel.hop_bytes(), BruteHopBytes(graph, allocation, multilevel.slot_of_task()));
  EXPECT_LT(multilevel.hop_bytes(), flat.hop_bytes());
  EXPECT_LE(flat.hop_bytes(), start);
  for (SlotId s = 0; s < allocation.num_slots(); ++s) {
    EXPECT_LE(multilevel.slot_load(s), cap + LoadTolerance(cap)) << s;
  }
  // Deterministic: the same placement again.
  BalancedPlacement again(input, options, block);
  MultilevelRefine(again, cap, {}, kNoDeadline);
  EXPECT_EQ(again.slot_of_task(), multilevel.slot_of_task());
}

// A cluster that moves counts all its objects against the limit (object_counts),
// fixed objects stay, and a slot never goes above max(cap, its load).
TEST(MultilevelRefineTest, KeepsLimitsCapAndFixedObjects) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const TaskId n = graph.num_tasks();
  const Allocation allocation = WholeTorus({4, 4}, 2);
  std::vector<double> loads(n);
  RandomStream random(5, 0);
  for (double& l : loads) l = 0.5 + random.Unit();
  bool fixed[32 * 32] = {};
  for (TaskId t = 0; t < n; t += 37) fixed[t] = true;
  std::vector<double> background(allocation.num_slots(), 0.0);
  background[3] = 20;
  const BalanceInput unpinned{graph, allocation, loads};
  const std::vector<SlotId> current = BlockPlacement(unpinned);
  const BalanceInput input{.graph = graph,
                           .allocation = allocation,
                           .loads = loads,
                           .current_slot = current,
                           .fixed = fixed,
                           .background_load = background};
  const double cap = ComputeLoadCap(input, 0.05).cap;
  for (const int64_t limit : {int64_t{0}, int64_t{10}, int64_t{60}, int64_t{-1}}) {
    BalanceOptions options;
    options.max_migrations = limit;
    BalancedPlacement p(input, options, current);
    const double start_objective = p.objective();
    const std::vector<double> start_loads = SlotLoads(input, current);
    MultilevelRefine(p, cap, {}, kNoDeadline);
    const std::vector<SlotId>& slots = p.slot_of_task();
    EXPECT_EQ(p.hop_bytes(), BruteHopBytes(graph, allocation, slots)) << limit;
    EXPECT_EQ(p.migrated_objects(), CountMigrated(slots, current)) << limit;
    if (limit >= 0) {
      EXPECT_LE(CountMigrated(slots, current), limit);
    }
    if (limit == 0) {
      EXPECT_EQ(slots, current);
    } else {
      EXPECT_LT(p.objective(), start_objective) << limit;
    }
    for (TaskId t = 0; t < n; ++t) {
      if (fixed[t]) {
        EXPECT_EQ(slots[t], current[t]) << t;
      }
    }
    const std::vector<double> end_loads = SlotLoads(input, slots);
    for (SlotId s = 0; s < allocation.num_slots(); ++s) {
      EXPECT_LE(end_loads[s], std::max(cap, start_loads[s]) + LoadTolerance(cap)) << s;
    }
  }
}

// A migrated object whose current slot is another core of its node goes home
// when that core has room, though no migration cost asks it to: hop-bytes do not
// change and the migration no longer counts against a limit.
TEST(MultilevelRefineTest, ReturnsHomeOnTheSameNodeWithoutACost) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({2, 2}, 2);
  const std::vector<SlotId> current = BlockPlacement(BalanceInput{graph, allocation});
  const BalanceInput input{.graph = graph, .allocation = allocation, .current_slot = current};
  BalanceOptions options;
  options.imbalance = 1.0;  // room for one more object on every core
  const double cap = ComputeLoadCap(input, options.imbalance).cap;
  std::vector<SlotId> start = current;
  start[0] = current[0] ^ 1;  // the other core of object 0's node
  BalancedPlacement p(input, options, start);
  ASSERT_EQ(p.migrated_objects(), 1);
  const HopBytes before = p.hop_bytes();
  RefineBalanced(p, cap, {}, kNoDeadline);
  EXPECT_EQ(p.slot_of(0), current[0]);
  // Others may move for hop-bytes (the block is not the best placement here).
  EXPECT_EQ(p.migrated_objects(), CountMigrated(p.slot_of_task(), current));
  EXPECT_LE(p.hop_bytes(), before);
}

TEST(MultilevelRefineTest, ObjectCountsAreValidated) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({2, 2}, 1);
  std::vector<int64_t> counts(16, 2);
  counts[6] = 0;
  const BalanceInput input{.graph = graph, .allocation = allocation, .object_counts = counts};
  EXPECT_EQ(ValidateBalanceInput(input, {}).message(),
            "object counts: object 6 stands for 0; must be >= 1");
  const std::vector<int64_t> short_counts(15, 1);
  const BalanceInput short_input{
      .graph = graph, .allocation = allocation, .object_counts = short_counts};
  EXPECT_EQ(ValidateBalanceInput(short_input, {}).message(),
            "object counts: 15 entries for 16 objects (one per object)");
}

TEST(MultilevelRefineTest, OptionsAreValidated) {
  EXPECT_TRUE(MultilevelRefineOptions{}.Validate().ok());
  MultilevelRefineOptions bad;
  bad.max_cluster_share = 0;
  EXPECT_FALSE(bad.Validate().ok());
  bad = {};
  bad.min_shrink = 1.5;
  EXPECT_FALSE(bad.Validate().ok());
  bad = {};
  bad.refine.max_passes = -1;
  EXPECT_FALSE(bad.Validate().ok());
}

}  // namespace
}  // namespace hopmap
