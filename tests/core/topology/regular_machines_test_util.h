// Brute-force checks shared by the fat tree, chip mesh and dragonfly tests: they
// compare a Machine's answers against scans over every node pair of a small
// instance.
#ifndef HOPMAP_TESTS_CORE_TOPOLOGY_REGULAR_MACHINES_TEST_UTIL_H_
#define HOPMAP_TESTS_CORE_TOPOLOGY_REGULAR_MACHINES_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/topology/machine.h"
#include "gtest/gtest.h"

namespace hopmap::regular_test {

// Hops(a, a) == 0, symmetry, Hops > 0 off the diagonal, max_hops()/min_hops()
// equal to the true extremes, and BallSizeUpperBounds() equal to the exact ball
// sizes (all three models claim exactness).
inline void CheckDistancesByBruteForce(const Machine& m) {
  const NodeId n = m.num_nodes();
  int32_t true_max = 0, true_min = std::numeric_limits<int32_t>::max();
  std::vector<int64_t> true_balls(m.max_hops() + 1, 0);
  for (NodeId a = 0; a < n; ++a) {
    ASSERT_EQ(m.Hops(a, a), 0) << "node " << a;
    std::vector<int64_t> counts(m.max_hops() + 1, 0);
    for (NodeId b = 0; b < n; ++b) {
      const int32_t h = m.Hops(a, b);
      ASSERT_EQ(h, m.Hops(b, a)) << a << " " << b;
      ASSERT_GE(h, 0);
      ASSERT_LE(h, m.max_hops()) << a << " " << b;
      if (a != b) {
        ASSERT_GT(h, 0) << a << " " << b;
        true_max = std::max(true_max, h);
        true_min = std::min(true_min, h);
      }
      ++counts[h];
    }
    int64_t running = 0;
    for (size_t h = 0; h < counts.size(); ++h) {
      running += counts[h];
      true_balls[h] = std::max(true_balls[h], running);
    }
  }
  if (n == 1) true_min = 0;
  EXPECT_EQ(m.max_hops(), true_max);
  EXPECT_EQ(m.min_hops(), true_min);
  const std::vector<int64_t> balls = m.BallSizeUpperBounds();
  ASSERT_EQ(balls.size(), true_balls.size());
  for (size_t h = 0; h < balls.size(); ++h) {
    EXPECT_EQ(balls[h], true_balls[h]) << "ball radius " << h;
  }
  EXPECT_EQ(balls.back(), n);
}

// Splits "from -> to".
inline std::pair<std::string, std::string> Ends(const std::string& name) {
  const size_t arrow = name.find(" -> ");
  if (arrow == std::string::npos) return {name, ""};
  return {name.substr(0, arrow), name.substr(arrow + 4)};
}

// Every link has a distinct, well-formed "from -> to" name; out-of-range ids get
// a name too (no crash).
inline void CheckLinkNames(const Machine& m) {
  std::set<std::string> seen;
  for (int64_t link = 0; link < m.num_links(); ++link) {
    const std::string name = m.LinkName(link);
    const auto [from, to] = Ends(name);
    EXPECT_FALSE(from.empty()) << link << ": " << name;
    EXPECT_FALSE(to.empty()) << link << ": " << name;
    EXPECT_NE(from, to) << link << ": " << name;
    EXPECT_TRUE(seen.insert(name).second) << "duplicate link name " << name;
  }
  EXPECT_FALSE(m.LinkName(-1).empty());
  EXPECT_FALSE(m.LinkName(m.num_links()).empty());
}

// For every pair and both routings: link ids in range, shares in (0, 1], the
// total share equal to `expected_length(a, b)`. The dimension-order route must
// be one path: every share 1, the links chaining by name ("from -> to") from
// "node a" to "node b". With `single_path`, adaptive routing must equal it.
inline void CheckRoutes(const Machine& m,
                        const std::function<double(NodeId, NodeId)>& expected_length,
                        bool single_path) {
  const NodeId n = m.num_nodes();
  for (NodeId a = 0; a < n; ++a) {
    for (NodeId b = 0; b < n; ++b) {
      std::vector<std::pair<int64_t, double>> routes[2];
      for (int r = 0; r < 2; ++r) {
        const Routing routing = r == 0 ? Routing::kDimensionOrder : Routing::kAdaptive;
        double total = 0;
        m.ForEachRouteLink(a, b, routing, [&](int64_t link, double share) {
          EXPECT_GE(link, 0);
          EXPECT_LT(link, m.num_links());
          EXPECT_GT(share, 0.0);
          EXPECT_LE(share, 1.0);
          total += share;
          routes[r].push_back({link, share});
        });
        ASSERT_NEAR(total, expected_length(a, b), 1e-9) << a << " -> " << b << " routing " << r;
      }
      if (single_path) {
        ASSERT_EQ(routes[0], routes[1]) << a << " -> " << b;
      }
      if (a == b) {
        ASSERT_TRUE(routes[0].empty());
        continue;
      }
      std::string at = "node " + std::to_string(a);
      for (const auto& [link, share] : routes[0]) {
        ASSERT_EQ(share, 1.0);
        const auto [from, to] = Ends(m.LinkName(link));
        ASSERT_EQ(from, at) << a << " -> " << b << " at link " << m.LinkName(link);
        at = to;
      }
      ASSERT_EQ(at, "node " + std::to_string(b)) << a << " -> " << b;
    }
  }
}

// The links of a route under `routing`, in visiting order, by name.
inline std::vector<std::string> RouteNames(const Machine& m, NodeId a, NodeId b, Routing routing) {
  std::vector<std::string> names;
  m.ForEachRouteLink(a, b, routing,
                     [&](int64_t link, double) { names.push_back(m.LinkName(link)); });
  return names;
}

}  // namespace hopmap::regular_test

#endif  // HOPMAP_TESTS_CORE_TOPOLOGY_REGULAR_MACHINES_TEST_UTIL_H_
