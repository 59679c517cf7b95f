// The balance cap (core/balance/balance_problem): the field's rule, ceil((1 + eps)
// x total / k) with whole loads, (1 + eps) x average with fractional ones.
#include "core/balance/balance_problem.h"

#include <memory>
#include <vector>

#include "core/topology/hierarchy.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

// n objects without edges (the cap does not look at them).
TaskGraph Objects(TaskId n) { return *TaskGraphBuilder(n).Build(); }

// The machine: hierarchy:4x16x16:distances=1,10,100, 1024 PEs.
Allocation Hierarchy4x16x16() {
  return *Allocation::WholeMachine(
      std::make_shared<HierarchyMachine>(*HierarchyMachine::Create({4, 16, 16}, {1, 10, 100})));
}

// 2^15 unit objects on 1024 PEs within 3%: Scotch's -b0.03 and SharedMap's -e 0.03
// let a PE hold ceil(1.03 x 32) = 33; (1 + eps) x average alone would be 32.96,
// that is 32 objects.
TEST(LoadCapTest, WholeLoadsRoundUpAsTheFieldDoes) {
  const TaskGraph graph = Objects(32768);
  const Allocation allocation = Hierarchy4x16x16();
  const BalanceInput input{graph, allocation};
  const LoadCap cap = ComputeLoadCap(input, 0.03);
  EXPECT_TRUE(cap.whole_loads);
  EXPECT_EQ(cap.average, 32.0);
  EXPECT_EQ(cap.requested, 33.0);
  EXPECT_EQ(cap.cap, 33.0);
  // No slack: exactly the average, not one more.
  EXPECT_EQ(ComputeLoadCap(input, 0).requested, 32.0);
  // A product that is whole stays as it is: 1.03125 x 32 = 33.
  EXPECT_EQ(ComputeLoadCap(input, 0.03125).requested, 33.0);
  // Whole loads other than 1, and a whole background, keep the rule: 3 x 32768
  // objects' load plus 1024 of background on 1024 PEs is 97 each, cap ceil(99.91).
  const std::vector<double> threes(32768, 3.0);
  const std::vector<double> ones(1024, 1.0);
  const LoadCap heavier = ComputeLoadCap(
      {.graph = graph, .allocation = allocation, .loads = threes, .background_load = ones}, 0.03);
  EXPECT_TRUE(heavier.whole_loads);
  EXPECT_EQ(heavier.requested, 100.0);
}

// The ceiling is of the exact product, not of its floating-point rounding.
TEST(LoadCapTest, RoundsUpPastTheFloatingPointErrorOnly) {
  EXPECT_GT((1.0 + 0.1) * 50, 55.0);  // 55.00000000000001: what this guards against
  EXPECT_EQ(ImbalanceCap(50, 0.1, true), 55.0);
  EXPECT_EQ(ImbalanceCap(32, 0.03, true), 33.0);
  EXPECT_EQ(ImbalanceCap(32, 0, true), 32.0);
  EXPECT_EQ(ImbalanceCap(3.125, 0, true), 4.0);  // 100 objects on 32 slots
  EXPECT_EQ(ImbalanceCap(0, 0.05, true), 0.0);
  EXPECT_EQ(ImbalanceCap(32, 0.03, false), 1.03 * 32);
}

// Fractional loads (or a fractional background) keep (1 + eps) x average.
TEST(LoadCapTest, FractionalLoadsKeepTheProduct) {
  const TaskGraph graph = Objects(64);
  const Allocation allocation = Hierarchy4x16x16();
  std::vector<double> loads(64, 1.0);
  loads[5] = 2.5;
  const LoadCap cap =
      ComputeLoadCap({.graph = graph, .allocation = allocation, .loads = loads}, 0.03);
  EXPECT_FALSE(cap.whole_loads);
  EXPECT_DOUBLE_EQ(cap.average, 65.5 / 1024);
  EXPECT_DOUBLE_EQ(cap.requested, 1.03 * 65.5 / 1024);
  EXPECT_EQ(cap.cap, 2.5);  // the heaviest object, above the requested cap
  const std::vector<double> ones(64, 1.0);
  std::vector<double> background(1024, 0.0);
  background[7] = 0.25;
  const BalanceInput with_background{
      .graph = graph, .allocation = allocation, .loads = ones, .background_load = background};
  EXPECT_FALSE(HasWholeLoads(with_background));
  EXPECT_DOUBLE_EQ(ComputeLoadCap(with_background, 0.5).requested, 1.5 * 64.25 / 1024);
}

}  // namespace
}  // namespace hopmap
