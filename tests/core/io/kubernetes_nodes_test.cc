#include "core/io/kubernetes_nodes.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kSample = std::string(HOPMAP_DATA_DIR) + "/gpu/kubectl_nodes.json";
constexpr char kBlock[] = "cloud.google.com/gce-topology-block";
constexpr char kSubBlock[] = "cloud.google.com/gce-topology-subblock";

KubernetesNodesOptions SubBlocks(const std::string& label) {
  KubernetesNodesOptions options;
  options.sub_block_label = label;
  return options;
}

TEST(KubernetesNodesTest, ReadsTheSampleWithSubBlocks) {
  absl::StatusOr<GpuClusterSpec> spec = ParseGpuK8sSpec(kSample, SubBlocks(kSubBlock));
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->host_names.size(), 8u);
  EXPECT_EQ(spec->host_names[0], "gke-a4x-pool-7f3c9a2e-k2pq");
  EXPECT_EQ(spec->host_names[7], "gke-a4x-pool-7f3c9a2e-t1gb");
  EXPECT_EQ(spec->gpus_per_host, 4);
  EXPECT_THAT(spec->leaf_of_host, ElementsAre(0, 0, 0, 0, 1, 1, 1, 1));
  EXPECT_THAT(spec->leaf_names, ElementsAre("b-1", "b-2"));
  // sb-1 and sb-2 are in both blocks: four domains, named with their block.
  EXPECT_THAT(spec->domain_of_host, ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(spec->domain_names, ElementsAre("b-1/sb-1", "b-1/sb-2", "b-2/sb-1", "b-2/sb-2"));
  EXPECT_EQ(spec->source, "gpu-k8s:" + kSample + ":sub-block-label=" + kSubBlock);
}

TEST(KubernetesNodesTest, WithoutSubBlocksEveryHostIsItsOwnDomain) {
  KubernetesNodesOptions options;
  options.host_label = "cloud.google.com/gce-topology-host";
  options.gpus_per_host = 2;
  absl::StatusOr<GpuClusterSpec> spec = ParseGpuK8sSpec(kSample, options);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->host_names[0], "h-01");
  EXPECT_EQ(spec->gpus_per_host, 2);  // the option wins over the capacity
  EXPECT_THAT(spec->domain_of_host, IsEmpty());
  EXPECT_THAT(spec->domain_names, IsEmpty());
}

// One node in a List; `node` is the item's JSON.
std::string List(const std::string& items) {
  return R"({"apiVersion": "v1", "kind": "List", "items": [)" + items + "]}";
}
std::string Node(const std::string& name, const std::string& labels, const std::string& gpus) {
  return R"({"kind": "Node", "metadata": {"name": ")" + name + R"(", "labels": {)" + labels +
         R"(}}, "status": {"capacity": {"nvidia.com/gpu": )" + gpus + "}}}";
}

TEST(KubernetesNodesTest, UniqueSubBlockNamesStayShortAndHostsFallBackToTheNodeName) {
  const std::string text =
      List(Node("n1", R"("cloud.google.com/gce-topology-block": "b", "r": "x")", "8") + "," +
           Node("n2", R"("cloud.google.com/gce-topology-block": "b", "r": "y")", R"("8")"));
  absl::StatusOr<GpuClusterSpec> spec =
      GpuClusterFromKubernetesNodes(text, "n.json", SubBlocks("r"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->host_names, ElementsAre("n1", "n2"));
  EXPECT_THAT(spec->domain_names, ElementsAre("x", "y"));
  EXPECT_EQ(spec->gpus_per_host, 8);

  absl::StatusOr<GpuClusterSpec> one = GpuClusterFromKubernetesNodes(
      Node("solo", R"("cloud.google.com/gce-topology-block": "b")", "4"), "n.json", {});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(one->host_names, ElementsAre("solo"));
}

KubernetesNodesOptions NoBlockLabel() {
  KubernetesNodesOptions options;
  options.block_label = "";
  return options;
}

TEST(KubernetesNodesTest, RefusesBadListsNamingTheJsonPath) {
  const std::string block = std::string(R"(")") + kBlock + R"(": "b")";
  struct Bad {
    std::string text;
    std::string error;
    KubernetesNodesOptions options = KubernetesNodesOptions();
  };
  const Bad cases[] = {
      {"{\n\"items\": [\n,]}", "n.json:3: bad JSON"},
      // Found by bench/fuzz.sh fuzz_gpu_k8s: a number beyond a double threw.
      {"1e771", "n.json: bad JSON"},
      {"[]", "n.json: expected a JSON object"},
      {R"({"kind": "List"})", "n.json: items: missing or not a list"},
      {List(""), "n.json: items: no nodes"},
      {List("1"), "n.json: items[0].metadata: missing"},
      {List(R"({"metadata": {"labels": {}}})"), "n.json: items[0].metadata.name: missing"},
      {List(Node("n1", block, "8") + "," + Node("n2", R"("other": "x")", "8")),
       "n.json: items[1].metadata.labels: node 'n2' has no label '" + std::string(kBlock) +
           "' (read only labelled nodes: kubectl get nodes -l " + kBlock + " -o json)"},
      {List(Node("n1", block, "8")),
       "n.json: items[0].metadata.labels: node 'n1' has no label 'rack'", SubBlocks("rack")},
      {List(Node("n1", block, "8") + "," + Node("n2", block, "4")),
       "n.json: items[1].status.capacity: node 'n2' has 4 GPUs, node 'n1' has 8"},
      {List(R"({"metadata": {"name": "n1", "labels": {)" + block + "}}}"),
       "n.json: items[0].status.capacity: node 'n1' has no nvidia.com/gpu (give gpus=G)"},
      {List(Node("n1", block, R"("lots")")),
       R"(n.json: items[0].status.capacity["nvidia.com/gpu"]: expected a whole number of GPUs, got "lots")"},
      {List(Node("n1", block + R"(, "kubernetes.io/hostname": "h")", "8") + "," +
            Node("n2", block + R"(, "kubernetes.io/hostname": "h")", "8")),
       "n.json: items[1]: host 'h' again (first at items[0])"},
      {List(Node("n1", block, "8")), "block-label=: the leaf group's label must be named",
       NoBlockLabel()},
  };
  for (const Bad& c : cases) {
    absl::StatusOr<GpuClusterSpec> spec =
        GpuClusterFromKubernetesNodes(c.text, "n.json", c.options);
    ASSERT_FALSE(spec.ok()) << c.error;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(c.error));
  }
  EXPECT_EQ(ParseGpuK8sSpec("/nonexistent/nodes.json", {}).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace hopmap
