// What the metrics tests share.
#ifndef HOPMAP_TESTS_CORE_METRICS_METRICS_TEST_UTIL_H_
#define HOPMAP_TESTS_CORE_METRICS_METRICS_TEST_UTIL_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/graph/task_graph.h"
#include "gtest/gtest.h"

namespace hopmap::testing {

// A graph of n tasks with the given (u, v, bytes) edges.
inline TaskGraph MakeGraph(TaskId n, const std::vector<std::array<int64_t, 3>>& edges) {
  TaskGraphBuilder b(n);
  for (auto [u, v, w] : edges) EXPECT_TRUE(b.AddTraffic(u, v, w).ok());
  return *std::move(b).Build();
}

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_CORE_METRICS_METRICS_TEST_UTIL_H_
