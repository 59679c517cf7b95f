#include "core/topology/machine.h"

#include <algorithm>

namespace hopmap {

const std::vector<std::string>& Machine::warnings() const {
  static const std::vector<std::string>* none = new std::vector<std::string>();
  return *none;
}

std::vector<int64_t> Machine::BallSizeUpperBounds() const {
  const NodeId n = num_nodes();
  const int32_t diameter = max_hops();
  std::vector<int64_t> balls(diameter + 1, n);
  // Scanning all pairs costs n^2 Hops() calls: fine up to a few thousand nodes.
  constexpr NodeId kExactLimit = 4096;
  if (n > kExactLimit) {
    for (int32_t h = 0; h < std::min(min_hops(), diameter + 1); ++h) balls[h] = 1;
    return balls;
  }
  std::fill(balls.begin(), balls.end(), 0);
  std::vector<int64_t> counts(diameter + 1);
  for (NodeId a = 0; a < n; ++a) {
    std::fill(counts.begin(), counts.end(), 0);
    for (NodeId b = 0; b < n; ++b) ++counts[Hops(a, b)];
    int64_t running = 0;
    for (int32_t h = 0; h <= diameter; ++h) {
      running += counts[h];
      balls[h] = std::max(balls[h], running);
    }
  }
  return balls;
}

}  // namespace hopmap
