// A balanced solve's answer does not hang on how the objects are numbered (issue 46):
// `partition` solves the objects in their canonical order (core/graph/
// canonical_order.h), so the same instance renumbered at random costs exactly what
// it costs as given.
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "core/io/graph_format.h"
#include "core/solve/solve.h"
#include "core/topology/hierarchy.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

// KaHIP's 4elt (15,606 vertices, a finite-element mesh numbered along the mesh)
// onto hierarchy 4:8:8, the field's eps 3% and D = 1:10:100.
class NumberingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TaskGraph> graph =
        ReadGraph(std::string(HOPMAP_DATA_DIR) + "/instances/4elt.graph");
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = std::make_unique<TaskGraph>(*std::move(graph));
    absl::StatusOr<HierarchyMachine> machine = HierarchyMachine::Create({4, 8, 8}, {1, 10, 100});
    ASSERT_TRUE(machine.ok()) << machine.status();
    absl::StatusOr<Allocation> allocation =
        Allocation::WholeMachine(std::make_shared<HierarchyMachine>(*std::move(machine)));
    ASSERT_TRUE(allocation.ok()) << allocation.status();
    allocation_ = std::make_unique<Allocation>(*std::move(allocation));
  }

  // The cost of `graph`'s balanced solve. The budget is long enough that no clock
  // cuts it (the METIS k-way start's quotient mapping stops on its iterations), so
  // the answer is the same on every run.
  MappingReport Solve(const TaskGraph& graph) const {
    SolveRequest request;
    request.graph = &graph;
    request.allocation = allocation_.get();
    request.algorithm = "partition";
    request.options.seed = 1;
    request.options.threads = 2;
    request.options.iteration_limit = 4;
    request.options.time_limit_seconds = 600;
    request.balance.emplace();
    request.balance->options.imbalance = 0.03;
    absl::StatusOr<MappingReport> report = hopmap::Solve(request);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) return {};
    EXPECT_TRUE(report->balance.has_value() && report->balance->balanced);
    return *std::move(report);
  }

  std::unique_ptr<TaskGraph> graph_;
  std::unique_ptr<Allocation> allocation_;
};

TEST_F(NumberingTest, RenumberedCostsWhatTheGivenNumberingCosts) {
  const MappingReport given = Solve(*graph_);
  ASSERT_GT(given.hop_bytes, 0);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    // Task i of the renumbered graph is task old_id[i] of the given one.
    std::vector<TaskId> old_id(graph_->num_tasks());
    std::iota(old_id.begin(), old_id.end(), 0);
    std::mt19937_64 random(seed);
    std::shuffle(old_id.begin(), old_id.end(), random);
    absl::StatusOr<TaskGraph> renumbered = InducedSubgraph(*graph_, old_id);
    ASSERT_TRUE(renumbered.ok()) << renumbered.status();
    // The same graph: the given answer, carried over, costs the same on it.
    EvaluateRequest carried;
    carried.graph = &*renumbered;
    carried.allocation = allocation_.get();
    carried.threads = 1;
    carried.balance.emplace();
    carried.balance->options.imbalance = 0.03;
    for (TaskId t : old_id) carried.slot_of_task.push_back(given.slot_of_task[t]);
    absl::StatusOr<MappingReport> same = Evaluate(carried);
    ASSERT_TRUE(same.ok()) << same.status();
    ASSERT_EQ(same->hop_bytes, given.hop_bytes);
    const MappingReport report = Solve(*renumbered);
    EXPECT_EQ(report.hop_bytes, given.hop_bytes) << "seed " << seed;
  }
}

}  // namespace
}  // namespace hopmap
