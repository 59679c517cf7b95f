// Runtime remapping through a real hopmapd (issue 17): objects with loads, many
// per slot, the same answer as in-process, the moves against the current
// placement, and clear INVALID_ARGUMENT messages for bad balance fields.
#include <functional>
#include <string>
#include <vector>

#include "core/io/machine_spec.h"
#include "core/solve/report.h"
#include "core/solve/solve_balanced.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/convert.h"
#include "tests/integration/daemon_process.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ConnectTo;
using ::hopmap::testing::DaemonProcess;
using ::hopmap::testing::Request;
using ::hopmap::testing::Stencil;
using ::hopmap::testing::TempPath;
using ::testing::HasSubstr;

// A hot corner: loads 1..3 over a 32x32 grid.
std::vector<double> HotCornerLoads() {
  std::vector<double> loads(1024);
  for (int t = 0; t < 1024; ++t) loads[t] = 1 + 2.0 * ((t % 32) < 8 && (t / 32) < 8);
  return loads;
}

TEST(BalanceDaemonTest, RemapsLikeLocalAndReportsTheMoves) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("balance.log"))) << daemon.error();
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil({32, 32});
  // bgp-8x8x8 has 4 cores per node; 16 nodes of it: 64 slots, 16 objects each.
  auto allocation =
      *Allocation::Create(*ParseMachineSpec("bgp-8x8x8"),
                          {0, 1, 2, 3, 8, 9, 10, 11, 64, 65, 66, 67, 72, 73, 74, 75}, 4);
  const std::vector<double> loads = HotCornerLoads();
  MapperOptions options;
  options.threads = 2;
  options.time_limit_seconds = 30;  // the searches converge long before it
  BalanceOptions balance;
  balance.imbalance = 0.05;
  absl::StatusOr<MappingReport> local =
      SolveBalancedMapping({graph, allocation, loads}, "partition", options, balance);
  ASSERT_TRUE(local.ok()) << local.status();

  v1::MapRequest request = Request("bgp-8x8x8", graph, "partition");
  for (NodeId n : allocation.nodes()) request.mutable_allocation()->add_node_ids(n);
  request.set_time_limit_seconds(30);
  request.mutable_balance()->mutable_loads()->Assign(loads.begin(), loads.end());
  request.mutable_balance()->set_imbalance(0.05);
  absl::StatusOr<MappingReport> remote = client->Map(request);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_EQ(remote->slot_of_task, local->slot_of_task);
  EXPECT_EQ(remote->hop_bytes, local->hop_bytes);
  // The balancer's figures come through the reply as computed in-process.
  EXPECT_TRUE(FindStatistic(remote->stats, "passes").has_value());
  EXPECT_EQ(remote->stats, local->stats);
  ASSERT_EQ(remote->candidates.size(), 1u);
  EXPECT_EQ(remote->candidates[0].stats, remote->stats);
  ASSERT_TRUE(remote->balance.has_value());
  EXPECT_TRUE(remote->balance->balanced) << remote->balance->note;
  EXPECT_EQ(remote->balance->load_of_slot.size(), 64u);
  // Whole loads, 1,152 on 64 slots: the cap is ceil(1.05 x 18) = 19.
  EXPECT_EQ(remote->balance->requested_cap, 19.0);
  EXPECT_LE(remote->balance->max_load, 19.0);

  // The hot corner cools and another heats up: remap from the answer with at most
  // 100 objects moved; the reply lists them.
  std::vector<double> shifted(1024);
  for (int t = 0; t < 1024; ++t) shifted[t] = 1 + 2.0 * ((t % 32) >= 24 && (t / 32) >= 24);
  v1::MapRequest remap = Request("bgp-8x8x8", graph, "auto");
  for (NodeId n : allocation.nodes()) remap.mutable_allocation()->add_node_ids(n);
  remap.mutable_balance()->mutable_loads()->Assign(shifted.begin(), shifted.end());
  remap.mutable_balance()->mutable_current_slot()->Assign(remote->slot_of_task.begin(),
                                                          remote->slot_of_task.end());
  remap.mutable_balance()->set_max_migrations(100);
  absl::StatusOr<MappingReport> moved = client->Map(remap);
  ASSERT_TRUE(moved.ok()) << moved.status();
  ASSERT_TRUE(moved->balance.has_value());
  EXPECT_TRUE(moved->balance->has_current);
  EXPECT_LE(moved->balance->migrated_objects, 100);
  // auto under a migration limit runs migrate alone: its figures, in the reply.
  ASSERT_EQ(moved->candidates.size(), 1u);
  EXPECT_EQ(moved->candidates[0].algorithm, "migrate");
  EXPECT_EQ(moved->candidates[0].stats, moved->stats);
  EXPECT_TRUE(FindStatistic(moved->stats, "remaps").has_value());
  EXPECT_EQ(moved->balance->moves.size(), static_cast<size_t>(moved->balance->migrated_objects));
  for (const ObjectMove& m : moved->balance->moves) {
    EXPECT_EQ(m.from, remote->slot_of_task[m.task]);
    EXPECT_EQ(m.to, moved->slot_of_task[m.task]);
    EXPECT_NE(m.from, m.to);
  }
  EXPECT_EQ(moved->baseline_hop_bytes, remote->hop_bytes);  // the current placement's
  EXPECT_GT(moved->balance->current_max_load, moved->balance->requested_cap);

  // Evaluate with balance reports the same figures for the same placement.
  v1::EvaluateRequest evaluate;
  evaluate.set_machine_name("bgp-8x8x8");
  for (NodeId n : allocation.nodes()) evaluate.mutable_allocation()->add_node_ids(n);
  TaskGraphToProto(graph, evaluate.mutable_graph());
  evaluate.mutable_slot_of_task()->Assign(moved->slot_of_task.begin(), moved->slot_of_task.end());
  *evaluate.mutable_balance() = remap.balance();
  absl::StatusOr<MappingReport> measured = client->Evaluate(evaluate);
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(measured->hop_bytes, moved->hop_bytes);
  EXPECT_EQ(measured->balance->migrated_objects, moved->balance->migrated_objects);
  EXPECT_DOUBLE_EQ(measured->balance->max_load, moved->balance->max_load);
}

TEST(BalanceDaemonTest, BadBalanceFieldsAreInvalidArgumentNamingTheField) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("balance_bad.log"))) << daemon.error();
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  const TaskGraph graph = Stencil({8, 8});
  struct Case {
    std::function<void(v1::MapRequest&)> edit;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::MapRequest& r) { r.mutable_balance()->set_loads(5, -1); },
       absl::StatusCode::kInvalidArgument, "balance: loads: object 5 has load -1"},
      {[](v1::MapRequest& r) { r.mutable_balance()->add_loads(1); },
       absl::StatusCode::kInvalidArgument, "balance: loads: 65 entries for 64 objects"},
      {[](v1::MapRequest& r) { r.mutable_balance()->set_imbalance(-0.5); },
       absl::StatusCode::kInvalidArgument,
       "balance: imbalance -0.5 must be a number from 0 to 1000"},
      {[](v1::MapRequest& r) {
         for (int t = 0; t < 64; ++t) r.mutable_balance()->add_current_slot(t == 3 ? 99999 : 0);
       },
       absl::StatusCode::kInvalidArgument, "current placement: object 3 is on slot 99999"},
      {[](v1::MapRequest& r) { r.mutable_balance()->set_max_migrations(4); },
       absl::StatusCode::kInvalidArgument, "needs the current placement"},
      {[](v1::MapRequest& r) { r.mutable_balance()->set_migration_cost(-1); },
       absl::StatusCode::kInvalidArgument, "migration cost -1 must be a number >= 0"},
      {[](v1::MapRequest& r) { r.set_algorithm("grasp"); }, absl::StatusCode::kInvalidArgument,
       "algorithm: unknown load-balancing algorithm 'grasp'"},
      {[](v1::MapRequest& r) { r.add_initial_slot_of_task(0); }, absl::StatusCode::kInvalidArgument,
       "initial_slot_of_task: must be empty with balance"},
      {[](v1::MapRequest& r) { r.set_objective("congestion"); }, absl::StatusCode::kInvalidArgument,
       "objective congestion is not available with loads"},
      {[](v1::MapRequest& r) { r.set_objective("dilation"); }, absl::StatusCode::kInvalidArgument,
       "objective dilation is not available with loads"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    v1::MapRequest request = Request("bgp-8x8x8", graph);
    request.mutable_allocation()->set_nodes("0-3");
    for (int t = 0; t < 64; ++t) request.mutable_balance()->add_loads(1.0);
    cases[i].edit(request);
    absl::StatusOr<MappingReport> reply = client->Map(request);
    ASSERT_FALSE(reply.ok()) << i;
    EXPECT_EQ(reply.status().code(), cases[i].code) << i << " " << reply.status();
    EXPECT_THAT(std::string(reply.status().message()), HasSubstr(cases[i].message)) << i;
  }
  // The daemon still answers a good request after all of them.
  v1::MapRequest good = Request("bgp-8x8x8", graph);
  good.mutable_allocation()->set_nodes("0-3");
  good.mutable_balance()->set_imbalance(0.1);
  EXPECT_TRUE(client->Map(good).ok());
}

}  // namespace
}  // namespace hopmap
