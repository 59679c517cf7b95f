// The METIS adapter: MetisCsrOf, MetisPartition's options and its statuses.

#include "core/bisection/metis_adapter.h"

#include <cstdint>
#include <vector>

#include "core/graph/generators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

TaskGraph Stencil(std::vector<int32_t> dims) {
  GeneratorOptions gen;
  gen.kind = "stencil2d-5";
  gen.dims = std::move(dims);
  return *GenerateGraph(gen);
}

std::vector<int32_t> PartSizes(const std::vector<int32_t>& part, int32_t parts) {
  std::vector<int32_t> sizes(parts, 0);
  for (int32_t p : part) ++sizes.at(p);
  return sizes;
}

TEST(MetisAdapterTest, CsrOfATaskGraph) {
  const TaskGraph graph = Stencil({8, 4});
  absl::StatusOr<MetisCsr> csr = MetisCsrOf(graph);
  ASSERT_TRUE(csr.ok()) << csr.status();
  EXPECT_EQ(csr->xadj.size(), static_cast<size_t>(graph.num_tasks()) + 1);
  EXPECT_EQ(static_cast<size_t>(csr->xadj.back()), graph.adjncy().size());
  EXPECT_EQ(csr->adjncy, std::vector<int32_t>(graph.adjncy().begin(), graph.adjncy().end()));
  EXPECT_EQ(csr->adjwgt, ScaledMetisEdgeWeights(graph));
}

TEST(MetisAdapterTest, KwayAndRecursiveCutIntoTheParts) {
  const TaskGraph graph = Stencil({16, 16});
  const MetisCsr csr = *MetisCsrOf(graph);
  const MetisGraph metis_graph{csr.xadj, csr.adjncy, csr.adjwgt, {}};
  for (MetisMethod method : {MetisMethod::kKway, MetisMethod::kRecursive}) {
    MetisPartitionOptions options;
    options.method = method;
    options.parts = 4;
    options.seed = 3;
    std::vector<int32_t> part(graph.num_tasks(), -1);
    ASSERT_TRUE(MetisPartition(metis_graph, options, part).ok());
    for (int32_t size : PartSizes(part, 4)) EXPECT_NEAR(size, 64, 64 * 0.1);
    // The same call answers the same.
    std::vector<int32_t> again(graph.num_tasks(), -1);
    ASSERT_TRUE(MetisPartition(metis_graph, options, again).ok());
    EXPECT_EQ(part, again);
  }
}

TEST(MetisAdapterTest, PartFractionsAndVertexWeights) {
  const TaskGraph graph = Stencil({16, 16});
  const MetisCsr csr = *MetisCsrOf(graph);
  const std::vector<float> fractions = {0.25f, 0.75f};
  MetisPartitionOptions options;
  options.method = MetisMethod::kRecursive;
  options.parts = 2;
  options.cuts = 2;
  options.part_fractions = fractions;
  std::vector<int32_t> part(graph.num_tasks(), -1);
  ASSERT_TRUE(MetisPartition({csr.xadj, csr.adjncy, csr.adjwgt, {}}, options, part).ok());
  EXPECT_NEAR(PartSizes(part, 2)[0], 64, 64 * 0.1);
  // Vertex weights: the heavy half (weight 3) weighs as much as three light ones, so
  // equal weight halves hold about 64 heavy or 192 light vertices each.
  std::vector<int32_t> vwgt(graph.num_tasks(), 1);
  for (size_t v = 0; v < 128; ++v) vwgt[v] = 3;
  options.part_fractions = {};
  options.method = MetisMethod::kKway;
  options.imbalance = 0.03;
  ASSERT_TRUE(MetisPartition({csr.xadj, csr.adjncy, csr.adjwgt, vwgt}, options, part).ok());
  int64_t weight[2] = {0, 0};
  for (size_t v = 0; v < part.size(); ++v) weight[part[v]] += vwgt[v];
  EXPECT_NEAR(weight[0], 256, 256 * 0.05);
}

TEST(MetisAdapterTest, MismatchedArraysAreRefused) {
  const TaskGraph graph = Stencil({4, 4});
  const MetisCsr csr = *MetisCsrOf(graph);
  MetisPartitionOptions options;
  std::vector<int32_t> short_part(graph.num_tasks() - 1);
  EXPECT_EQ(MetisPartition({csr.xadj, csr.adjncy, csr.adjwgt, {}}, options, short_part).code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<int32_t> part(graph.num_tasks());
  const std::vector<int32_t> vwgt(3, 1);
  EXPECT_EQ(MetisPartition({csr.xadj, csr.adjncy, csr.adjwgt, vwgt}, options, part).code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<float> fractions = {1.0f};
  options.part_fractions = fractions;
  EXPECT_EQ(MetisPartition({csr.xadj, csr.adjncy, csr.adjwgt, {}}, options, part).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MetisPartition({}, MetisPartitionOptions{}, part).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MetisAdapterTest, MetisErrorsBecomeStatuses) {
  // METIS refuses a fraction vector that does not sum to 1 (METIS_ERROR_INPUT).
  const TaskGraph graph = Stencil({4, 4});
  const MetisCsr csr = *MetisCsrOf(graph);
  const std::vector<float> fractions = {0.9f, 0.9f};
  MetisPartitionOptions options;
  options.part_fractions = fractions;
  std::vector<int32_t> part(graph.num_tasks());
  const absl::Status status = MetisPartition({csr.xadj, csr.adjncy, csr.adjwgt, {}}, options, part);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), ::testing::HasSubstr("METIS_ERROR_INPUT"));
}

}  // namespace
}  // namespace hopmap
