// The cached torus/mesh coordinates of large allocations (Allocation::GridHops)
// must give exactly the machine's hops.
#include <memory>
#include <numeric>
#include <vector>

#include "core/search/random_stream.h"
#include "core/topology/allocation.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

struct Shape {
  std::vector<int32_t> dims;
  std::vector<bool> wrap;
};

// Every pair of positions (and a few slot pairs) against TorusMachine::Hops, on
// tori, meshes, mixed wrap, odd and tiny dimensions; fragmented allocations in a
// shuffled order; 1 and 3 cores per node. dense_limit 0 forces the grid path.
TEST(AllocationGridHopsTest, EqualsMachineHops) {
  const std::vector<Shape> shapes = {
      {{8, 8, 8}, {true, true, true}},
      {{7, 5, 3}, {true, true, true}},
      {{6, 5, 4}, {false, false, false}},
      {{4, 3, 2}, {true, false, true}},
      {{9, 1, 2}, {false, true, true}},
      {{5, 4, 3, 2}, {true, false, true, false}},
      {{31}, {true}},
      {{16}, {false}},
  };
  for (const Shape& shape : shapes) {
    auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create(shape.dims, shape.wrap));
    for (int32_t cores : {1, 3}) {
      for (bool fragmented : {false, true}) {
        std::vector<NodeId> nodes(torus->num_nodes());
        std::iota(nodes.begin(), nodes.end(), 0);
        if (fragmented) {
          RandomStream random(static_cast<uint64_t>(torus->num_nodes()), cores);
          random.Shuffle(std::span<NodeId>(nodes));
          nodes.resize((nodes.size() * 2 + 2) / 3);
        }
        const Allocation allocation = *Allocation::Create(torus, nodes, cores, /*dense_limit=*/0);
        ASSERT_TRUE(allocation.has_grid_hops());
        ASSERT_FALSE(allocation.has_dense_hops());
        const Allocation dense = *Allocation::Create(torus, nodes, cores);
        const int32_t m = allocation.num_nodes();
        for (int32_t a = 0; a < m; ++a) {
          for (int32_t b = 0; b < m; ++b) {
            const int32_t expected = torus->Hops(nodes[a], nodes[b]);
            ASSERT_EQ(allocation.HopsBetweenPositions(a, b), expected)
                << torus->Spec() << " positions " << a << ", " << b;
            if (dense.has_dense_hops()) {
              ASSERT_EQ(dense.HopsBetweenPositions(a, b), expected);
            }
          }
        }
        for (SlotId s = 0; s < allocation.num_slots(); s += 5) {
          for (SlotId t = 0; t < allocation.num_slots(); t += 7) {
            ASSERT_EQ(allocation.HopsBetweenSlots(s, t),
                      torus->Hops(allocation.NodeOfSlot(s), allocation.NodeOfSlot(t)));
          }
        }
      }
    }
  }
}

// Above the dense limit, a torus allocation uses the grid path by default.
TEST(AllocationGridHopsTest, LargeTorusUsesGridPath) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({16, 16, 16}, {true, true, false}));
  std::vector<NodeId> nodes(torus->num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  const Allocation allocation = *Allocation::Create(torus, nodes, 2);
  EXPECT_TRUE(allocation.has_grid_hops());
  for (int32_t a = 0; a < allocation.num_nodes(); a += 37) {
    for (int32_t b = 0; b < allocation.num_nodes(); b += 11) {
      ASSERT_EQ(allocation.HopsBetweenPositions(a, b), torus->Hops(a, b));
    }
  }
}

}  // namespace
}  // namespace hopmap
