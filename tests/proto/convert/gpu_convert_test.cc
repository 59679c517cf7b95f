// A GPU cluster on the wire (gpu_convert.cc): the machine the daemon builds from a
// GpuCluster message is the client's, and a bad field is refused by its name.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/io/machine_spec.h"
#include "core/topology/gpu_cluster.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// 6 hosts of 4 GPUs: leaf groups {0,1,2,3} and {4,5}, NVLink domains {0,1}, {2},
// {3}, {4,5}, named, with figures off the defaults.
GpuClusterSpec SixHosts() {
  GpuClusterSpec spec;
  spec.host_names = {"a0", "a1", "a2", "a3", "b0", "b1"};
  spec.gpus_per_host = 4;
  spec.domain_of_host = {0, 0, 1, 2, 3, 3};
  spec.leaf_of_host = {0, 0, 0, 0, 1, 1};
  spec.domain_names = {"rack-a", "", "a3-alone", "rack-b"};
  spec.leaf_names = {"su-a", "su-b"};
  spec.fabric = {.nvlink_bandwidth = 900e9,
                 .nvlink_latency = 5e-7,
                 .rail_bandwidth = 25e9,
                 .rail_latency = 2e-6,
                 .oversubscription = 2};
  spec.source = "gpu-k8s:/home/me/nodes.json:gpus=4";
  return spec;
}

// Everything the daemon's answers depend on: hops, links and their figures, names.
void ExpectSameMachine(const Machine& got, const Machine& want) {
  ASSERT_EQ(got.kind(), "gpu");
  EXPECT_EQ(got.Spec(), want.Spec());
  ASSERT_EQ(got.num_nodes(), want.num_nodes());
  EXPECT_EQ(got.cores_per_node(), want.cores_per_node());
  for (NodeId a = 0; a < want.num_nodes(); ++a) {
    EXPECT_EQ(got.NodeName(a), want.NodeName(a));
    for (NodeId b = 0; b < want.num_nodes(); ++b) EXPECT_EQ(got.Hops(a, b), want.Hops(a, b));
  }
  ASSERT_EQ(got.num_links(), want.num_links());
  for (int64_t link = 0; link < want.num_links(); ++link) {
    EXPECT_EQ(got.LinkName(link), want.LinkName(link));
    EXPECT_EQ(got.LinkClass(link), want.LinkClass(link));
    EXPECT_EQ(got.LinkBandwidthOf(link), want.LinkBandwidthOf(link));
    EXPECT_EQ(got.LinkLatencyOf(link), want.LinkLatencyOf(link));
  }
  EXPECT_EQ(got.NodeBandwidth(), want.NodeBandwidth());
}

TEST(GpuConvertTest, TheClusterComesBackWhole) {
  const GpuClusterSpec spec = SixHosts();
  absl::StatusOr<GpuClusterMachine> want = GpuClusterMachine::Create(spec);
  ASSERT_TRUE(want.ok()) << want.status();
  std::optional<MachineRef> ref = ParsedMachineRef(*want);
  ASSERT_TRUE(ref.has_value());
  ASSERT_TRUE(ref->machine.has_value());
  ASSERT_TRUE(ref->machine->has_gpu_cluster());
  EXPECT_EQ(ref->machine->cores_per_node(), 0);  // gpus_per_host says it
  v1::MapRequest request;
  MachineRefToProto(*ref, &request);
  absl::StatusOr<std::shared_ptr<Machine>> got = MachineFromProto(request.machine());
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectSameMachine(**got, *want);
  const GpuClusterSpec& back = dynamic_cast<const GpuClusterMachine&>(**got).spec();
  EXPECT_EQ(back.host_names, spec.host_names);
  EXPECT_EQ(back.domain_of_host, spec.domain_of_host);
  EXPECT_EQ(back.leaf_of_host, spec.leaf_of_host);
  EXPECT_EQ(back.domain_names, spec.domain_names);
  EXPECT_EQ(back.leaf_names, spec.leaf_names);
  EXPECT_EQ(back.fabric.oversubscription, 2);
  EXPECT_EQ(back.source, spec.source);
  // Through the catalog's JSON too.
  absl::StatusOr<v1::Machine> json = MachineFromJson(MachineToJson(*ref->machine), "test");
  ASSERT_TRUE(json.ok()) << json.status();
  got = MachineFromProto(*json);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectSameMachine(**got, *want);
}

// What the CLI's --server path sends for a file kind: the cluster its options chose.
TEST(GpuConvertTest, AFileKindsClusterKeepsItsOptions) {
  const std::string spec =
      absl::StrCat("gpu-k8s:", HOPMAP_DATA_DIR,
                   "/gpu/kubectl_nodes.json:sub-block-label=cloud.google.com/gce-topology-subblock:"
                   "oversubscription=2:rail-bandwidth=25e9");
  absl::StatusOr<std::shared_ptr<Machine>> local = ParseMachineSpec(spec);
  ASSERT_TRUE(local.ok()) << local.status();
  std::optional<MachineRef> ref = ParsedMachineRef(**local);
  ASSERT_TRUE(ref.has_value());
  absl::StatusOr<std::shared_ptr<Machine>> remote = MachineFromProto(*ref->machine);
  ASSERT_TRUE(remote.ok()) << remote.status();
  ExpectSameMachine(**remote, **local);
  // The sub-blocks made NVLink domains: without the option the cluster differs.
  const auto& cluster = dynamic_cast<const GpuClusterMachine&>(**remote);
  EXPECT_EQ(cluster.num_domains(), 4);
  EXPECT_EQ(cluster.num_leaves(), 2);

  // Other kinds have no model of their own: their file's text travels.
  absl::StatusOr<std::shared_ptr<Machine>> torus = ParseMachineSpec("torus:4x4");
  ASSERT_TRUE(torus.ok());
  EXPECT_FALSE(ParsedMachineRef(**torus).has_value());
}

TEST(GpuConvertTest, DefaultsAndTheGpuSpec) {
  v1::Machine m;
  v1::GpuCluster* cluster = m.mutable_gpu_cluster();
  for (const char* host : {"h0", "h1"}) cluster->add_host_names(host);
  cluster->add_leaf_of_host(0);
  cluster->add_leaf_of_host(0);
  absl::StatusOr<std::shared_ptr<Machine>> machine = MachineFromProto(m);
  ASSERT_TRUE(machine.ok()) << machine.status();
  EXPECT_EQ((*machine)->cores_per_node(), 8);  // gpus_per_host 0: 8
  const GpuFabric defaults;
  EXPECT_EQ((*machine)->NodeBandwidth(), defaults.nvlink_bandwidth);
  EXPECT_EQ((*machine)->Spec(), "gpu:2:gpus=8");

  // A gpu: spec needs no model message; cores_per_node may repeat its GPUs.
  v1::Machine spec;
  spec.set_spec("gpu:16:gpus=4:domain=8");
  spec.set_cores_per_node(4);
  machine = MachineFromProto(spec);
  ASSERT_TRUE(machine.ok()) << machine.status();
  EXPECT_EQ((*machine)->kind(), "gpu");
  EXPECT_EQ((*machine)->Spec(), "gpu:16:gpus=4:domain=8");
  EXPECT_EQ((*machine)->cores_per_node(), 4);
}

TEST(GpuConvertTest, ABadFieldIsRefusedByItsName) {
  struct Case {
    std::string what;
    std::function<void(v1::Machine&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no hosts", [](v1::Machine& m) { m.mutable_gpu_cluster()->clear_host_names(); },
       "machine.gpu_cluster.host_names: needs at least one host"},
      {"repeated host", [](v1::Machine& m) { m.mutable_gpu_cluster()->set_host_names(5, "a0"); },
       "machine.gpu_cluster.host_names: host_names[5] 'a0' is repeated"},
      {"too many GPUs", [](v1::Machine& m) { m.mutable_gpu_cluster()->set_gpus_per_host(65); },
       "machine.gpu_cluster.gpus_per_host: gpus_per_host"},
      {"a leaf missing", [](v1::Machine& m) { m.mutable_gpu_cluster()->add_leaf_of_host(1); },
       "machine.gpu_cluster.leaf_of_host: leaf_of_host has 7 entries for 6 hosts"},
      {"a domain across leaf groups",
       [](v1::Machine& m) { m.mutable_gpu_cluster()->set_domain_of_host(4, 2); },
       "machine.gpu_cluster.domain_of_host: domain 2 spans leaf groups 0 and 1"},
      {"a skipped domain id",
       [](v1::Machine& m) { m.mutable_gpu_cluster()->set_domain_of_host(2, 0); },
       "machine.gpu_cluster.domain_of_host: domain_of_host skips id 1"},
      {"leaf names", [](v1::Machine& m) { m.mutable_gpu_cluster()->add_leaf_names("x"); },
       "machine.gpu_cluster.leaf_names: leaf_names has 3 names for 2 ids"},
      {"no rail bandwidth", [](v1::Machine& m) { m.mutable_gpu_cluster()->set_rail_bandwidth(0); },
       "machine.gpu_cluster.rail_bandwidth: rail_bandwidth"},
      {"negative latency", [](v1::Machine& m) { m.mutable_gpu_cluster()->set_nvlink_latency(-1); },
       "machine.gpu_cluster.nvlink_latency: nvlink_latency"},
      {"oversubscription below 1",
       [](v1::Machine& m) { m.mutable_gpu_cluster()->set_oversubscription(0.5); },
       "machine.gpu_cluster.oversubscription: oversubscription"},
      {"a source of another kind",
       [](v1::Machine& m) { m.mutable_gpu_cluster()->set_source("torus:4x4"); },
       "machine.gpu_cluster.source: 'torus:4x4' is not a GPU cluster's spec"},
      {"cores other than its GPUs", [](v1::Machine& m) { m.set_cores_per_node(2); },
       "machine.cores_per_node: not for a gpu machine: the slots of a host are its GPUs: use "
       "gpus="},
      {"one link bandwidth", [](v1::Machine& m) { m.set_link_bandwidth(1e9); },
       "machine.link_bandwidth: not for a gpu machine: use nvlink-bandwidth= and "
       "rail-bandwidth="},
      {"one link latency", [](v1::Machine& m) { m.set_link_latency(1e-6); },
       "machine.link_latency: not for a gpu machine"},
      {"node names", [](v1::Machine& m) { m.set_node_name_prefix("gpu"); },
       "machine.node_name_prefix: only for generated kinds"},
  };
  for (const Case& c : cases) {
    v1::Machine m;
    GpuClusterToProto(SixHosts(), m.mutable_gpu_cluster());
    ASSERT_TRUE(MachineFromProto(m).ok()) << c.what;
    c.edit(m);
    absl::StatusOr<std::shared_ptr<Machine>> machine = MachineFromProto(m);
    ASSERT_FALSE(machine.ok()) << c.what;
    EXPECT_EQ(machine.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(std::string(machine.status().message()), StartsWith(c.message)) << c.what;
  }
  // A file kind by path: the client sends the cluster instead.
  for (const char* kind : {"gpu-slurm", "gpu-k8s"}) {
    v1::Machine file;
    file.set_spec(absl::StrCat(kind, ":/tmp/cluster.yaml"));
    EXPECT_THAT(std::string(MachineFromProto(file).status().message()),
                HasSubstr(absl::StrCat("machine.spec: file machines (", kind,
                                       ":) cannot be named by path in a request; send "
                                       "gpu_cluster")));
  }
  // The gpu: spec's own refusals, by the same rule.
  v1::Machine spec;
  spec.set_spec("gpu:4:gpus=8");
  spec.set_link_latency(1e-6);
  EXPECT_THAT(std::string(MachineFromProto(spec).status().message()),
              StartsWith("machine.link_latency: not for a gpu machine"));
}

}  // namespace
}  // namespace hopmap
