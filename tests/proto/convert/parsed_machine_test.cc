// What the CLI sends hopmapd for a machine it read from a Slurm topology
// (ParsedMachineRef): the daemon rebuilds the same network from it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io/machine_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

const std::string kSample = std::string(HOPMAP_DATA_DIR) + "/slurm/topology.yaml";

std::shared_ptr<Machine> MustParse(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  EXPECT_TRUE(m.ok()) << spec << ": " << m.status();
  return m.ok() ? *m : nullptr;
}

void ExpectSameNetwork(const Machine& got, const Machine& want) {
  ASSERT_EQ(got.num_nodes(), want.num_nodes());
  EXPECT_EQ(got.cores_per_node(), want.cores_per_node());
  EXPECT_EQ(got.link_bandwidth(), want.link_bandwidth());
  EXPECT_EQ(got.link_latency(), want.link_latency());
  for (NodeId a = 0; a < want.num_nodes(); ++a) {
    for (NodeId b = 0; b < want.num_nodes(); ++b) EXPECT_EQ(got.Hops(a, b), want.Hops(a, b));
  }
  ASSERT_EQ(got.num_links(), want.num_links());
  for (int64_t link = 0; link < want.num_links(); ++link) {
    EXPECT_EQ(got.LinkName(link), want.LinkName(link));
  }
}

// Blocks (and trees, rings) go as the switch graph, with the host names.
TEST(ParsedMachineTest, ASlurmSwitchGraphGoesNodeForNode) {
  std::shared_ptr<Machine> local =
      MustParse("slurm-topology:" + kSample + ":racks:cores=2:link-bandwidth=2e9");
  ASSERT_NE(local, nullptr);
  std::optional<MachineRef> ref = ParsedMachineRef(*local);
  ASSERT_TRUE(ref.has_value());
  EXPECT_FALSE(ref->send_node_ids);
  ASSERT_TRUE(ref->machine->has_switch_graph());
  absl::StatusOr<std::shared_ptr<Machine>> remote = MachineFromProto(*ref->machine);
  ASSERT_TRUE(remote.ok()) << remote.status();
  ExpectSameNetwork(**remote, *local);
  for (NodeId v = 0; v < local->num_nodes(); ++v) {
    EXPECT_EQ((*remote)->NodeName(v), local->NodeName(v));
  }
}

// A torus goes as its grid spec; its host names (and vacant cells) stay with the
// client, which sends the allocation as node ids.
TEST(ParsedMachineTest, ASlurmTorusGoesAsItsGridSpec) {
  std::shared_ptr<Machine> local =
      MustParse("slurm-topology:" + kSample + ":torus-partial:cores=4:node=2x2");
  ASSERT_NE(local, nullptr);
  std::optional<MachineRef> ref = ParsedMachineRef(*local);
  ASSERT_TRUE(ref.has_value());
  EXPECT_TRUE(ref->send_node_ids);
  EXPECT_EQ(ref->machine->spec(), "torus:4x2x2:cores=4:node=2x2:node-distances=1,10:hop-cost=100");
  absl::StatusOr<std::shared_ptr<Machine>> remote = MachineFromProto(*ref->machine);
  ASSERT_TRUE(remote.ok()) << remote.status();
  ExpectSameNetwork(**remote, *local);
  ASSERT_NE((*remote)->node_interior(), nullptr);
  EXPECT_EQ((*remote)->node_interior()->num_pes(), 4);
  // Without a node list the daemon takes every node of its torus; the client's has
  // vacant cells, left out of its own default.
  v1::AllocationSpec none;
  absl::StatusOr<std::vector<NodeId>> all = AllocationNodesFromProto(none, *local);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, local->AllocatableNodes());
  EXPECT_EQ(all->size(), 12u);
}

}  // namespace
}  // namespace hopmap
