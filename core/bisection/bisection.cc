#include "core/bisection/bisection.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <span>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/bisection/metis_adapter.h"
#include "core/search/position_graph.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

// `w` scaled so that `max_w` becomes `cap`, at least 1.
int32_t ScaleToCap(int64_t w, int64_t max_w, int64_t cap) {
  return static_cast<int32_t>(
      std::max<int64_t>(1, static_cast<int64_t>(static_cast<__int128>(w) * cap / max_w)));
}

// Level by level, as Scotch's dual recursive bipartitioning: every set of a level
// is cut before any set of the next level. METIS's plain cuts of a level run in
// parallel; orienting and cutting against the outside runs in level order. The
// mapping does not depend on the thread count.
class Bisector {
 public:
  // problem.weights empty: one task per core (a node holds cores_per_node tasks).
  // Else every task weighs weights[t] and a node holds node_capacity weight; sets
  // are then always split in proportion to their halves' nodes.
  Bisector(const BisectionProblem& problem, const RecursiveBisectionOptions& options,
           const StopCondition& stop)
      : graph_(problem.graph),
        stop_(stop),
        allocation_(problem.allocation),
        options_(options),
        weights_(problem.weights),
        node_capacity_(problem.weights.empty() ? problem.allocation.cores_per_node()
                                               : problem.node_capacity),
        home_(problem.home),
        stay_(problem.stay),
        grid_dims_(problem.grid_dims),
        half_of_position_(problem.home.empty() ? 0 : problem.allocation.num_nodes(), -1),
        set_of_position_(problem.home.empty() ? 0 : problem.allocation.num_nodes(), -1),
        local_of_task_(problem.graph.num_tasks(), -1) {
    const Allocation& allocation = problem.allocation;
    const uint64_t seed = problem.seed;
    metis_seed_ = seed;
    scaled_ = ScaledMetisEdgeWeights(graph_);
    torus_ = allocation.machine().grid_geometry();
    if (torus_ != nullptr) {
      nd_ = static_cast<int>(torus_->dims.size());
      coords_ = FlatPositionCoordinates(allocation);
      const std::vector<int32_t>& dims = torus_->dims;
      for (int d = 0; d < nd_; ++d) {
        wrap_period2_.push_back(
            torus_->wrap[static_cast<size_t>(d)] ? 2 * dims[static_cast<size_t>(d)] : 0);
      }
      if (!grid_dims_.empty()) PairGridAxes();
    } else {
      hierarchical_ = !HierarchyOfPositions(allocation).children.empty();
    }
  }

  // Geometric cuts: the machine's axes and the grid's, each from the longest (ties:
  // the lower axis), paired in that order; machine axes left over have none.
  void PairGridAxes() {
    auto by_length = [](std::span<const int32_t> dims) {
      std::vector<int> order(dims.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return dims[a] > dims[b]; });
      return order;
    };
    const std::vector<int> machine = by_length(torus_->dims);
    const std::vector<int> grid = by_length(grid_dims_);
    grid_axis_of_machine_axis_.assign(static_cast<size_t>(nd_), -1);
    for (size_t i = 0; i < machine.size() && i < grid.size(); ++i) {
      grid_axis_of_machine_axis_[static_cast<size_t>(machine[i])] = grid[i];
    }
  }

  [[nodiscard]] bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  [[nodiscard]] bool weighted() const { return !weights_.empty(); }
  // Whether plain cuts are planes across the grid (SplitAcrossGrid), leaving a
  // split set's tasks then rest in grid order.
  [[nodiscard]] bool grid_cuts() const { return !grid_dims_.empty() && torus_ != nullptr; }
  // Which half of the set being cut holds t's home node (-1: neither, or no homes).
  [[nodiscard]] int HomeHalf(TaskId t) const {
    if (home_.empty()) return -1;
    const int32_t q = home_[t];
    return set_of_position_[q] == set_of_task_[t] ? half_of_position_[q] : -1;
  }
  // What putting t on `side` costs for leaving its home (0 when it stays or has none).
  [[nodiscard]] HopBytes LeaveCost(TaskId t, int side) const {
    const int half = HomeHalf(t);
    return half >= 0 && half != side ? stay_[t] : 0;
  }
  [[nodiscard]] HopBytes LeaveCost(const std::vector<TaskId>& part, int side) const {
    if (home_.empty()) return 0;
    HopBytes cost = 0;
    for (TaskId t : part) cost += LeaveCost(t, side);
    return cost;
  }
  [[nodiscard]] int64_t WeightOf(TaskId t) const { return weights_.empty() ? 1 : weights_[t]; }
  [[nodiscard]] size_t WeightOf(const std::vector<TaskId>& tasks) const {
    if (weights_.empty()) return tasks.size();
    size_t sum = 0;
    for (TaskId t : tasks) sum += static_cast<size_t>(weights_[t]);
    return sum;
  }

  std::vector<SlotId> Run() {
    const TaskId n = graph_.num_tasks();
    slot_of_task_.assign(n, kInvalidSlot);
    rep_of_task_.assign(n, -1);
    set_of_task_.assign(n, -1);
    side_.assign(n, 0);
    gain_.assign(n, 0);
    moved_.assign(n, 0);
    version_.assign(n, 0);
    if (options_.slide_grid_cuts && torus_ != nullptr) {
      centre2_of_rep_.assign(static_cast<size_t>(allocation_.num_nodes()) * nd_, 0);
    }
    std::vector<Part> level(1);
    level[0].tasks.resize(n);
    std::iota(level[0].tasks.begin(), level[0].tasks.end(), 0);
    level[0].positions.resize(allocation_.num_nodes());
    std::iota(level[0].positions.begin(), level[0].positions.end(), 0);
    Label(level[0]);
    while (!level.empty()) {
      // METIS's plain cuts depend on nothing but the sets: in parallel. Then the
      // sets are oriented and cut against their outside one by one, in level
      // order, each seeing the halves the sets before it were just given: a set
      // cut after its sibling lines its cut up with the sibling's.
      tbb::parallel_for(size_t{0}, level.size(), [&](size_t i) { Prepare(level[i]); });
      for (Part& part : level) {
        if (part.placed) continue;
        CutAgainstOutside(part);
        for (TaskId t : part.tasks) rep_of_task_[t] = part.first_rep;
        for (TaskId t : part.rest) rep_of_task_[t] = part.second_rep;
        SetCentre(part.first_rep, part.positions);
        SetCentre(part.second_rep, part.second);
      }
      std::vector<Part> next;
      next.reserve(2 * level.size());
      for (Part& part : level) {
        if (part.placed) continue;
        for (int half = 0; half < 2; ++half) {
          Part child;
          child.tasks = std::move(half == 0 ? part.tasks : part.rest);
          child.positions = std::move(half == 0 ? part.positions : part.second);
          if (child.tasks.empty()) continue;
          Label(child);
          next.push_back(std::move(child));
        }
        part = Part{};  // the parent's lists are not needed any more
      }
      level = std::move(next);
    }
    return std::move(slot_of_task_);
  }

 private:
  // A task set and the positions it must fill. Cut either places it (one node
  // left, or out of time) or splits it: tasks/positions become the first half's,
  // rest/second the second half's.
  struct Part {
    std::vector<TaskId> tasks;
    std::vector<int32_t> positions;
    int32_t id = -1;  // set_of_task_ of its tasks
    bool placed = false;
    std::vector<TaskId> rest;
    std::vector<int32_t> second;
    int32_t first_rep = -1, second_rep = -1;
  };

  // Gives `part` a new set id and marks its tasks (between levels, in level order,
  // so ids do not depend on the threads).
  void Label(Part& part) {
    part.id = next_id_++;
    for (TaskId t : part.tasks) set_of_task_[t] = part.id;
  }

  // Places a set that is down to one node (or out of time), or orders its positions
  // and makes METIS's plain cut (tasks = first part, rest = second). Touches only
  // the set's own tasks, so the sets of a level are prepared in parallel.
  void Prepare(Part& part) {
    std::vector<TaskId>& tasks = part.tasks;
    std::vector<int32_t>& positions = part.positions;
    const size_t cores = static_cast<size_t>(allocation_.cores_per_node());
    if (positions.size() == 1) {
      for (size_t i = 0; i < tasks.size(); ++i) {
        // Weighted: every task on the node's first slot; the caller spreads them.
        slot_of_task_[tasks[i]] =
            positions[0] * static_cast<SlotId>(cores) + (weighted() ? 0 : static_cast<SlotId>(i));
      }
      part.placed = true;
      return;
    }
    const size_t half = SplitPositions(positions);
    if (stopped() || stop_.ShouldStop()) {
      // Out of time: the split order still keeps nearby tasks nearby.
      stopped_.store(true, std::memory_order_relaxed);
      if (weighted()) {
        // Runs of about equal weight, one per node.
        const double total = static_cast<double>(WeightOf(tasks));
        double before = 0;
        for (TaskId t : tasks) {
          const double w = static_cast<double>(WeightOf(t));
          const size_t k = std::min(positions.size() - 1,
                                    static_cast<size_t>((before + w / 2) / std::max(total, 1.0) *
                                                        static_cast<double>(positions.size())));
          slot_of_task_[t] = positions[k] * static_cast<SlotId>(cores);
          before += w;
        }
      } else {
        for (size_t i = 0; i < tasks.size(); ++i) {
          slot_of_task_[tasks[i]] =
              positions[i / cores] * static_cast<SlotId>(cores) + static_cast<SlotId>(i % cores);
        }
      }
      part.placed = true;
      return;
    }
    part.second.assign(positions.begin() + static_cast<std::ptrdiff_t>(half), positions.end());
    positions.resize(half);
    part.first_rep = Representative(positions);
    part.second_rep = Representative(part.second);
    // The sets of a level own disjoint positions: safe in parallel.
    if (!home_.empty()) {
      for (int32_t q : positions) {
        half_of_position_[q] = 0;
        set_of_position_[q] = part.id;
      }
      for (int32_t q : part.second) {
        half_of_position_[q] = 1;
        set_of_position_[q] = part.id;
      }
    }
    const Sizes sizes = SizesOf(part);
    if (!sizes.split) return;
    part.rest = grid_cuts() ? SplitAcrossGrid(part, sizes.target, sizes.lo, sizes.hi)
                            : SplitTasks(tasks, part.id, sizes.target, sizes.lo, sizes.hi);
  }

  // The grid coordinate of task t on `axis` (task = c0 + D0 * (c1 + D1 * ...)).
  [[nodiscard]] int32_t GridCoordinate(TaskId t, size_t axis) const {
    int64_t rest = t;
    for (size_t d = 0; d < axis; ++d) rest /= grid_dims_[d];
    return static_cast<int32_t>(rest % grid_dims_[axis]);
  }

  // The plain cut of a grid's task set as a plane at the weight target, across the
  // grid axis paired with the machine axis the positions were just split across
  // (PairGridAxes), or across the set's longest grid axis when that one
  // has none or is down to one plane: the grid's axes follow the machine's, so
  // neighbouring blocks land on neighbouring nodes whatever the loads. Keeps the
  // first tasks (by coordinate, then id) whose weight is nearest `target` within
  // [lo, hi]; returns the others.
  std::vector<TaskId> SplitAcrossGrid(Part& part, size_t target, size_t lo, size_t hi) {
    std::vector<TaskId>& tasks = part.tasks;
    // The machine axis the positions were just split across (OrderForSplit's rule:
    // the first longest extent of the halves' union).
    int machine_axis = 0;
    int32_t machine_extent = -1;
    for (int d = 0; d < nd_; ++d) {
      int32_t low = coords_[static_cast<size_t>(part.positions[0]) * nd_ + d], high = low;
      for (const std::vector<int32_t>* half : {&part.positions, &part.second}) {
        for (int32_t q : *half) {
          low = std::min(low, coords_[static_cast<size_t>(q) * nd_ + d]);
          high = std::max(high, coords_[static_cast<size_t>(q) * nd_ + d]);
        }
      }
      if (high - low > machine_extent) machine_extent = high - low, machine_axis = d;
    }
    const size_t axes = grid_dims_.size();
    std::vector<int32_t> extent(axes);
    for (size_t a = 0; a < axes; ++a) {
      int32_t low = GridCoordinate(tasks[0], a), high = low;
      for (TaskId t : tasks) {
        low = std::min(low, GridCoordinate(t, a));
        high = std::max(high, GridCoordinate(t, a));
      }
      extent[a] = high - low;
    }
    size_t axis =
        static_cast<size_t>(std::max_element(extent.begin(), extent.end()) - extent.begin());
    const int paired = grid_axis_of_machine_axis_[static_cast<size_t>(machine_axis)];
    if (paired >= 0 && extent[static_cast<size_t>(paired)] > 0) axis = static_cast<size_t>(paired);
    std::sort(tasks.begin(), tasks.end(), [&](TaskId a, TaskId b) {
      const int32_t ca = GridCoordinate(a, axis), cb = GridCoordinate(b, axis);
      return ca != cb ? ca < cb : a < b;
    });
    // The prefix nearest [lo, hi], then nearest the target (heavy tasks can leave
    // no prefix inside the bounds; the refinement then evens the halves out).
    auto distance = [](size_t a, size_t b) { return a > b ? a - b : b - a; };
    std::pair<size_t, size_t> best_gap{std::numeric_limits<size_t>::max(), 0};
    size_t best_keep = 0, weight = 0;
    for (size_t keep = 0;; weight += static_cast<size_t>(WeightOf(tasks[keep++]))) {
      const size_t outside = weight < lo ? lo - weight : weight > hi ? weight - hi : 0;
      const std::pair<size_t, size_t> gap{outside, distance(weight, target)};
      if (gap < best_gap) best_gap = gap, best_keep = keep;
      if (keep == tasks.size() || weight > std::max(hi, target)) break;
    }
    std::vector<TaskId> rest(tasks.begin() + static_cast<std::ptrdiff_t>(best_keep), tasks.end());
    tasks.resize(best_keep);
    return rest;
  }

  // The halves' slots, and how many tasks the first half may take.
  struct Sizes {
    size_t first_capacity = 0, second_capacity = 0;
    bool split = false;  // false: the set fits the first half and goes whole
    size_t lo = 0, hi = 0, target = 0;
  };
  Sizes SizesOf(const Part& part) const {
    const size_t capacity = static_cast<size_t>(node_capacity_);
    const size_t n = WeightOf(part.tasks) + WeightOf(part.rest);
    Sizes sizes;
    const size_t first_capacity = sizes.first_capacity = part.positions.size() * capacity;
    const size_t second_capacity = sizes.second_capacity = part.second.size() * capacity;
    // A set that fits the first half goes there whole: fewer tasks than slots stay
    // compact. Otherwise the halves get shares of the tasks in proportion to their
    // slots, and the cut may land anywhere both halves can hold: filling the first
    // half to the brim would cut through the graph's natural pieces (16 copies of a
    // 1000-task job on 16 x 1024 slots must split 8000 / 8000, not 8192 / 7808).
    // Weighted sets always split: every node should carry its share.
    if (n <= first_capacity && !weighted()) return sizes;
    sizes.split = true;
    sizes.lo = n - std::min(n, second_capacity);
    sizes.hi = first_capacity;
    const size_t share = static_cast<size_t>((static_cast<unsigned __int128>(n) * first_capacity +
                                              (first_capacity + second_capacity) / 2) /
                                             (first_capacity + second_capacity));
    sizes.target = std::clamp(share, sizes.lo, sizes.hi);
    return sizes;
  }

  // Orients the plain cut and refines it against the outside (the representatives
  // other sets' tasks have now); then cuts again with METIS seeing the outside
  // (anchored_cut), refined the same way, and keeps the cheaper of the two.
  void CutAgainstOutside(Part& part) {
    std::vector<TaskId>& tasks = part.tasks;
    std::vector<TaskId>& rest = part.rest;
    const int32_t first_rep = part.first_rep, second_rep = part.second_rep;
    const Sizes sizes = SizesOf(part);  // the same for either orientation
    // Which half each part goes to is free when sizes allow: pick the way that keeps
    // the edges leaving this task set shortest, judged by where their other ends
    // already are. Without this, recursive bisection orients every cut at random
    // and pays about one hop more per edge.
    if (grid_cuts() && sizes.split && options_.slide_grid_cuts) {
      SlideGridCut(part, sizes);
    } else if (WeightOf(rest) <= sizes.first_capacity && WeightOf(tasks) <= sizes.second_capacity) {
      const HopBytes keep = ExternalCost(tasks, part.id, first_rep) +
                            ExternalCost(rest, part.id, second_rep) + LeaveCost(tasks, 0) +
                            LeaveCost(rest, 1);
      const HopBytes swap = ExternalCost(tasks, part.id, second_rep) +
                            ExternalCost(rest, part.id, first_rep) + LeaveCost(tasks, 1) +
                            LeaveCost(rest, 0);
      if (swap < keep) std::swap(tasks, rest);
    }
    if (!sizes.split) return;
    if (options_.refine_passes > 0) {
      RefineCut(tasks, rest, part.id, first_rep, second_rep, sizes.lo, sizes.hi);
    }
    if (!options_.anchored_cut || tasks.size() + rest.size() < options_.anchored_min_tasks) return;
    std::vector<TaskId> all = tasks, first, second;
    all.insert(all.end(), rest.begin(), rest.end());
    if (!AnchoredSplit(all, part.id, first_rep, second_rep, sizes.target, sizes.lo, sizes.hi, first,
                       second)) {
      return;
    }
    if (options_.refine_passes > 0) {
      RefineCut(first, second, part.id, first_rep, second_rep, sizes.lo, sizes.hi);
    }
    if (SplitCost(first, second, part.id, first_rep, second_rep) <
        SplitCost(tasks, rest, part.id, first_rep, second_rep)) {
      tasks = std::move(first);
      rest = std::move(second);
    }
  }

  // A grid set's plane cut moved to where it costs least within the sizes: every
  // prefix of the set in grid order (tasks, then rest, as SplitAcrossGrid left
  // them), with the prefix on either half, priced in one sweep per side. A plane
  // at the weight target ignores where the sets cut before it went: a sibling's
  // cut a plane or two away puts a second hop on every edge between them.
  // Distances here are between the centres of the domains (the halves, and the
  // domain each outside neighbour is in now), as Scotch measures them: a
  // representative node would pull every cut towards the side of an uncut
  // neighbouring domain that its representative happens to lie on. Ties: nearest
  // the target, then the prefix on the first half, then the shorter prefix.
  void SlideGridCut(Part& part, const Sizes& sizes) {
    const size_t plain_keep = part.tasks.size();
    std::vector<TaskId> order = std::move(part.tasks);
    order.insert(order.end(), part.rest.begin(), part.rest.end());
    const int32_t id = part.id;
    const std::vector<int32_t> centres[2] = {Centre2(part.positions), Centre2(part.second)};
    // Costs in half hops (the centres' coordinates are doubled).
    const HopBytes across = CentreHops2(centres[0].data(), centres[1].data());
    auto outside_hops = [&](int side, TaskId u) {
      return CentreHops2(centres[side].data(), &centre2_of_rep_[rep_of_task_[u] * nd_]);
    };
    const size_t total = WeightOf(order);
    auto distance = [](size_t a, size_t b) { return a > b ? a - b : b - a; };
    std::tuple<HopBytes, size_t, int, size_t> best{std::numeric_limits<HopBytes>::max(), 0, 0, 0};
    for (int prefix_side = 0; prefix_side < 2; ++prefix_side) {
      const int suffix_side = 1 - prefix_side;
      HopBytes outside = 2 * LeaveCost(order, suffix_side);
      for (TaskId t : order) {
        side_[t] = static_cast<int8_t>(suffix_side);
        graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
          if (set_of_task_[u] != id && rep_of_task_[u] >= 0)
            outside += w * outside_hops(suffix_side, u);
        });
      }
      HopBytes cut = 0;
      size_t weight = 0;
      for (size_t k = 0;; ++k) {
        const size_t first = prefix_side == 0 ? weight : total - weight;
        if (first >= sizes.lo && first <= sizes.hi) {
          best = std::min(best, std::make_tuple(outside + cut * across,
                                                distance(first, sizes.target), prefix_side, k));
        }
        if (k == order.size()) break;
        const TaskId t = order[k];
        graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
          if (set_of_task_[u] == id) {
            cut += side_[u] == suffix_side ? w : -w;
          } else if (rep_of_task_[u] >= 0) {
            outside += w * (outside_hops(prefix_side, u) - outside_hops(suffix_side, u));
          }
        });
        outside += 2 * (LeaveCost(t, prefix_side) - LeaveCost(t, suffix_side));
        side_[t] = static_cast<int8_t>(prefix_side);
        weight += static_cast<size_t>(WeightOf(t));
      }
    }
    auto [cost, gap, prefix_side, keep] = best;
    if (cost == std::numeric_limits<HopBytes>::max()) {
      // No prefix within the sizes (heavy tasks): the plain cut stays, unoriented;
      // the refinement evens the halves out.
      prefix_side = 0;
      keep = plain_keep;
    }
    std::vector<TaskId> prefix(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep));
    std::vector<TaskId> suffix(order.begin() + static_cast<std::ptrdiff_t>(keep), order.end());
    part.tasks = std::move(prefix_side == 0 ? prefix : suffix);
    part.rest = std::move(prefix_side == 0 ? suffix : prefix);
  }

  // Twice the coordinates of the centre of the positions' bounding box. The box is
  // taken in the allocation's coordinates as they are: for a set of nodes that
  // wraps around a torus dimension the centre is only near the middle, which costs
  // the slide some precision, never validity.
  [[nodiscard]] std::vector<int32_t> Centre2(std::span<const int32_t> positions) const {
    std::vector<int32_t> centre(static_cast<size_t>(nd_));
    for (int d = 0; d < nd_; ++d) {
      int32_t low = coords_[static_cast<size_t>(positions[0]) * nd_ + d], high = low;
      for (int32_t q : positions) {
        low = std::min(low, coords_[static_cast<size_t>(q) * nd_ + d]);
        high = std::max(high, coords_[static_cast<size_t>(q) * nd_ + d]);
      }
      centre[static_cast<size_t>(d)] = low + high;
    }
    return centre;
  }

  // Twice the hops between two doubled centres (the shorter way round a wrapping
  // dimension).
  [[nodiscard]] int64_t CentreHops2(const int32_t* a, const int32_t* b) const {
    int64_t hops = 0;
    for (int d = 0; d < nd_; ++d) {
      const int32_t delta = std::abs(a[d] - b[d]);
      const int32_t period = wrap_period2_[static_cast<size_t>(d)];
      hops += period > 0 ? std::min(delta, period - delta) : delta;
    }
    return hops;
  }

  // The domain a representative stands for now (its tasks' rep_of_task_): its
  // doubled centre, kept for SlideGridCut.
  void SetCentre(int32_t rep, std::span<const int32_t> positions) {
    if (!options_.slide_grid_cuts || torus_ == nullptr) return;
    const std::vector<int32_t> centre = Centre2(positions);
    std::copy(centre.begin(), centre.end(),
              centre2_of_rep_.begin() + static_cast<std::ptrdiff_t>(rep) * nd_);
  }

  // Hop-bytes the split (part0 on rep0's half, part1 on rep1's) gives the set's
  // edges: cut edges x hops(rep0, rep1), edges to outside tasks x hops from the
  // side's representative to theirs. RefineCut lowers exactly this.
  HopBytes SplitCost(const std::vector<TaskId>& part0, const std::vector<TaskId>& part1, int32_t id,
                     int32_t rep0, int32_t rep1) {
    for (TaskId t : part0) side_[t] = 0;
    for (TaskId t : part1) side_[t] = 1;
    HopBytes cut = 0;  // each inside cut edge seen from its side-0 end
    for (TaskId t : part0) {
      graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (set_of_task_[u] == id && side_[u] == 1) cut += w;
      });
    }
    return cut * allocation_.HopsBetweenPositions(rep0, rep1) + ExternalCost(part0, id, rep0) +
           ExternalCost(part1, id, rep1) + LeaveCost(part0, 0) + LeaveCost(part1, 1);
  }

  // Bytes x hops from `rep` to the representative of every neighbour of `part`
  // outside set `id` (neighbours not yet placed anywhere cost nothing).
  HopBytes ExternalCost(const std::vector<TaskId>& part, int32_t id, int32_t rep) const {
    HopBytes cost = 0;
    for (TaskId t : part) {
      graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (set_of_task_[u] == id || rep_of_task_[u] < 0) return;
        cost += w * allocation_.HopsBetweenPositions(rep, rep_of_task_[u]);
      });
    }
    return cost;
  }

  // METIS cuts without knowing where the halves are or where the set's outside
  // neighbours went. Fiduccia-Mattheyses passes (as Scotch refines its bipartitions
  // with external gains) lower cut bytes x hops(rep0, rep1) + outside bytes x
  // hops(rep of the side, rep of the neighbour's set): each pass moves single tasks,
  // best gain first (ties: lowest task id), each at most once, while side 0's size
  // stays within one task of [lo, hi]; then it keeps the best prefix whose size is
  // in [lo, hi] and undoes the rest. Moves that lose are allowed inside a pass, so a
  // pass climbs out of the local minima a pure exchange search stops in.
  void RefineCut(std::vector<TaskId>& part0, std::vector<TaskId>& part1, int32_t id, int32_t rep0,
                 int32_t rep1, size_t lo, size_t hi) {
    const int64_t across = allocation_.HopsBetweenPositions(rep0, rep1);
    const int32_t reps[2] = {rep0, rep1};
    std::vector<TaskId> members;
    members.reserve(part0.size() + part1.size());
    members.insert(members.end(), part0.begin(), part0.end());
    members.insert(members.end(), part1.begin(), part1.end());
    for (TaskId t : part0) side_[t] = 0;
    for (TaskId t : part1) side_[t] = 1;
    // Gain of moving t to the other side: true hop-bytes saved.
    auto gain_of = [&](TaskId t) {
      const int side = side_[t];
      HopBytes gain = 0;
      graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (set_of_task_[u] == id) {
          gain += side_[u] == side ? -w * across : w * across;
        } else if (rep_of_task_[u] >= 0) {
          gain += w * (allocation_.HopsBetweenPositions(reps[side], rep_of_task_[u]) -
                       allocation_.HopsBetweenPositions(reps[1 - side], rep_of_task_[u]));
        }
      });
      return gain + LeaveCost(t, side) - LeaveCost(t, 1 - side);
    };
    size_t size0 = WeightOf(part0);  // side 0's weight
    const size_t total = size0 + WeightOf(part1);
    const size_t n = members.size();
    // A pass gives up after this many moves without a new best prefix.
    const size_t patience = std::min<size_t>(n, 64 + n / 32);
    for (int pass = 0; pass < options_.refine_passes; ++pass) {
      // Per side, a max-heap of (gain, -task, version); stale entries are skipped.
      using Entry = std::tuple<HopBytes, int64_t, uint32_t>;
      std::vector<Entry> heaps[2];
      for (TaskId t : members) {
        gain_[t] = gain_of(t);
        moved_[t] = 0;
        heaps[side_[t]].emplace_back(gain_[t], -static_cast<int64_t>(t), ++version_[t]);
      }
      for (auto& heap : heaps) std::make_heap(heap.begin(), heap.end());
      // The live head of a side's heap, or null.
      auto head = [&](int side) -> const Entry* {
        std::vector<Entry>& heap = heaps[side];
        while (!heap.empty()) {
          const auto& [gain, neg_t, version] = heap.front();
          const TaskId t = static_cast<TaskId>(-neg_t);
          if (!moved_[t] && version == version_[t] && side_[t] == side) return &heap.front();
          std::pop_heap(heap.begin(), heap.end());
          heap.pop_back();
        }
        return nullptr;
      };
      std::vector<TaskId> moves;
      HopBytes running = 0, best = 0;
      size_t best_prefix = 0;
      while (moves.size() - best_prefix < patience) {
        // Side 0 may shrink down to lo - 1 and grow up to hi + 1.
        const Entry* from0 = size0 >= lo && size0 > 0 ? head(0) : nullptr;
        const Entry* from1 = size0 <= hi && size0 < total ? head(1) : nullptr;
        if (from0 == nullptr && from1 == nullptr) break;
        const int side = from1 == nullptr || (from0 != nullptr && *from0 > *from1) ? 0 : 1;
        const auto [gain, neg_t, version] = side == 0 ? *from0 : *from1;
        std::pop_heap(heaps[side].begin(), heaps[side].end());
        heaps[side].pop_back();
        const TaskId t = static_cast<TaskId>(-neg_t);
        moved_[t] = 1;
        side_[t] = static_cast<int8_t>(1 - side);
        const size_t w = static_cast<size_t>(WeightOf(t));
        size0 = side == 0 ? size0 - w : size0 + w;
        running += gain;
        moves.push_back(t);
        if (running > best && size0 >= lo && size0 <= hi) {
          best = running;
          best_prefix = moves.size();
        }
        graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
          if (set_of_task_[u] != id || moved_[u]) return;
          // u's edge to t flipped between cut and uncut.
          gain_[u] += side_[u] == side_[t] ? -2 * w * across : 2 * w * across;
          std::vector<Entry>& heap = heaps[side_[u]];
          heap.emplace_back(gain_[u], -static_cast<int64_t>(u), ++version_[u]);
          std::push_heap(heap.begin(), heap.end());
        });
      }
      for (size_t i = moves.size(); i-- > best_prefix;) {
        const TaskId t = moves[i];
        side_[t] = static_cast<int8_t>(1 - side_[t]);
        const size_t w = static_cast<size_t>(WeightOf(t));
        size0 = side_[t] == 0 ? size0 + w : size0 - w;
      }
      if (best_prefix == 0) break;
    }
    std::vector<TaskId> now0, now1;
    for (TaskId t : members) (side_[t] == 0 ? now0 : now1).push_back(t);
    part0 = std::move(now0);
    part1 = std::move(now1);
  }

  // METIS cuts the set knowing its outside pull: two anchor vertices, one per
  // half, each weighing as much as all the tasks (so METIS's balance keeps them
  // apart), joined to every task by the hop-bytes its outside edges save on that
  // anchor's side (the way Scotch weighs external gains into its bipartitions).
  // Inside edges weigh bytes x hops(rep0, rep1). On success `first` gets the set's
  // `tasks` on rep0's side (a count in [lo, hi], near `target`), `second` the others.
  bool AnchoredSplit(const std::vector<TaskId>& tasks, int32_t id, int32_t rep0, int32_t rep1,
                     size_t target, size_t lo, size_t hi, std::vector<TaskId>& first,
                     std::vector<TaskId>& second) {
    const int32_t n = static_cast<int32_t>(tasks.size());
    const int64_t across = std::max<int64_t>(1, allocation_.HopsBetweenPositions(rep0, rep1));
    for (int32_t i = 0; i < n; ++i) local_of_task_[tasks[i]] = i;
    // Unscaled graph: inside edges, then each task's pull (> 0: towards rep1).
    std::vector<int32_t> xadj(n + 1, 0), adj;
    std::vector<int64_t> raw;
    std::vector<int64_t> pull(n, 0);
    bool pulled = false;
    for (int32_t i = 0; i < n; ++i) {
      graph_.ForEachNeighbor(tasks[i], [&](TaskId u, Bytes w) {
        if (set_of_task_[u] == id) {
          adj.push_back(local_of_task_[u]);
          raw.push_back(w * across);
        } else if (rep_of_task_[u] >= 0) {
          pull[i] += w * (allocation_.HopsBetweenPositions(rep0, rep_of_task_[u]) -
                          allocation_.HopsBetweenPositions(rep1, rep_of_task_[u]));
        }
      });
      // Home pulls like an outside neighbour (Scotch's remapping: a fixed vertex per
      // old part, joined by the migration cost).
      pull[i] += LeaveCost(tasks[i], 0) - LeaveCost(tasks[i], 1);
      pulled = pulled || pull[i] != 0;
      xadj[i + 1] = static_cast<int32_t>(adj.size());
    }
    if (!pulled || n < 2) return false;
    // Scale every weight into [1, cap] together; sums must fit METIS's int32_t.
    int64_t max_w = 1;
    for (int64_t w : raw) max_w = std::max(max_w, w);
    for (int64_t p : pull) max_w = std::max(max_w, std::abs(p));
    const int64_t cap = MetisWeightCap(static_cast<int64_t>(raw.size()) + 2 * n);
    auto scale = [&](int64_t w) { return ScaleToCap(w, max_w, cap); };
    // Anchors n (rep0's side) and n + 1; a task's edge goes to the anchor it pulls to.
    std::vector<int32_t> axadj(n + 3, 0), aadj, awgt;
    std::vector<int32_t> anchor_adj[2], anchor_wgt[2];
    aadj.reserve(adj.size() + n);
    awgt.reserve(adj.size() + n);
    for (int32_t i = 0; i < n; ++i) {
      for (int32_t e = xadj[i]; e < xadj[i + 1]; ++e) {
        aadj.push_back(adj[e]);
        awgt.push_back(scale(raw[e]));
      }
      if (pull[i] != 0) {
        const int a = pull[i] > 0 ? 1 : 0;
        aadj.push_back(n + a);
        awgt.push_back(scale(std::abs(pull[i])));
        anchor_adj[a].push_back(i);
        anchor_wgt[a].push_back(awgt.back());
      }
      axadj[i + 1] = static_cast<int32_t>(aadj.size());
    }
    for (int a = 0; a < 2; ++a) {
      aadj.insert(aadj.end(), anchor_adj[a].begin(), anchor_adj[a].end());
      awgt.insert(awgt.end(), anchor_wgt[a].begin(), anchor_wgt[a].end());
      axadj[n + 1 + a] = static_cast<int32_t>(aadj.size());
    }
    std::vector<int32_t> vwgt(n + 2, 1);
    for (int32_t i = 0; i < n; ++i) vwgt[i] = static_cast<int32_t>(WeightOf(tasks[i]));
    const int32_t total = static_cast<int32_t>(WeightOf(tasks));
    vwgt[n] = vwgt[n + 1] = total;
    float tpwgts[2] = {static_cast<float>(total + static_cast<int32_t>(target)) /
                           static_cast<float>(3 * static_cast<int64_t>(total)),
                       0};
    tpwgts[1] = 1 - tpwgts[0];
    MetisPartitionOptions metis;
    metis.method = MetisMethod::kRecursive;
    metis.parts = 2;
    metis.seed = metis_seed_;
    metis.cuts = 1;  // measured: as good as 4 here, 25% faster
    metis.part_fractions = tpwgts;
    std::vector<int32_t> part(n + 2, 0);
    if (!MetisPartition({axadj, aadj, awgt, vwgt}, metis, part).ok()) return false;
    if (part[n] == part[n + 1]) return false;
    const int32_t side0 = part[n];
    part.resize(n);
    for (int32_t& p : part) p = p == side0 ? 0 : 1;
    // Exact sizes with the inside edges only (their relative weights are the same).
    std::vector<int32_t> wgt(raw.size());
    for (size_t e = 0; e < raw.size(); ++e) wgt[e] = scale(raw[e]);
    Rebalance(xadj, adj, wgt, VertexWeights(tasks), lo, hi, part);
    first.clear();
    second.clear();
    for (int32_t i = 0; i < n; ++i) (part[i] == 0 ? first : second).push_back(tasks[i]);
    return true;
  }

  // A central member of a half: on a torus/mesh the member nearest the median of
  // each coordinate; elsewhere the middle of the split order.
  int32_t Representative(const std::vector<int32_t>& positions) const {
    if (torus_ == nullptr) return positions[positions.size() / 2];
    std::vector<int32_t> median(nd_), values(positions.size());
    for (int d = 0; d < nd_; ++d) {
      for (size_t i = 0; i < positions.size(); ++i) values[i] = coords_[positions[i] * nd_ + d];
      std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
      median[d] = values[values.size() / 2];
    }
    int32_t best = positions[0];
    int64_t best_distance = -1;
    for (int32_t p : positions) {
      int64_t distance = 0;
      for (int d = 0; d < nd_; ++d) distance += std::abs(coords_[p * nd_ + d] - median[d]);
      if (best_distance < 0 || distance < best_distance ||
          (distance == best_distance && p < best)) {
        best = p;
        best_distance = distance;
      }
    }
    return best;
  }

  // Orders `positions` so that the first returned are one half: the first
  // ceil(m/2), geometric on a torus or mesh, by the farthest pair elsewhere; on a
  // hierarchy, whole groups of the set's top level (OrderHierarchyForSplit).
  size_t SplitPositions(std::vector<int32_t>& positions) const {
    if (hierarchical_) return OrderHierarchyForSplit(allocation_, positions);
    OrderForSplit(allocation_, coords_, torus_ != nullptr ? nd_ : 0, positions);
    return (positions.size() + 1) / 2;
  }

  // Keeps about `first_count` tasks in `tasks` (METIS's target; any count in
  // [lo, hi] is kept as METIS cut it) and returns the others.
  // `id`: the set's id (set_of_task_), which says which neighbours
  // are inside; local_of_task_ is only read for those, so sets split at the same
  // time never see each other's entries.
  std::vector<TaskId> SplitTasks(std::vector<TaskId>& tasks, int32_t id, size_t first_count,
                                 size_t lo, size_t hi) {
    const int32_t n = static_cast<int32_t>(tasks.size());
    for (int32_t i = 0; i < n; ++i) local_of_task_[tasks[i]] = i;
    std::vector<int32_t> xadj(n + 1, 0), adj, wgt;
    {
      size_t upper = 0;  // edges of the set's tasks, inside or not
      for (TaskId t : tasks) upper += static_cast<size_t>(graph_.degree(t));
      adj.reserve(upper);
      wgt.reserve(upper);
    }
    for (int32_t i = 0; i < n; ++i) {
      const TaskId t = tasks[i];
      for (EdgeIndex e = graph_.xadj()[t]; e < graph_.xadj()[t + 1]; ++e) {
        const TaskId u = graph_.adjncy()[e];
        if (set_of_task_[u] != id) continue;
        const int32_t j = local_of_task_[u];
        adj.push_back(j);
        wgt.push_back(scaled_[e]);
      }
      xadj[i + 1] = static_cast<int32_t>(adj.size());
    }

    std::vector<int32_t> part(n, 1);
    bool partitioned = false;
    if (!adj.empty() && n >= 2) {
      float tpwgts[2] = {static_cast<float>(first_count) / static_cast<float>(WeightOf(tasks)), 0};
      tpwgts[1] = 1 - tpwgts[0];
      MetisPartitionOptions metis;
      metis.method = MetisMethod::kRecursive;
      metis.parts = 2;
      metis.seed = metis_seed_;
      metis.cuts = n <= options_.multi_cut_max_tasks ? options_.metis_cuts : 1;
      metis.part_fractions = tpwgts;
      const std::vector<int32_t> vwgt = VertexWeights(tasks);
      partitioned = MetisPartition({xadj, adj, wgt, vwgt}, metis, part).ok();
    }
    if (!partitioned) {
      // Breadth-first order keeps neighbours together without METIS.
      std::fill(part.begin(), part.end(), 1);
      std::vector<int32_t> order;
      std::vector<uint8_t> seen(n, 0);
      for (int32_t root = 0; root < n; ++root) {
        if (seen[root]) continue;
        seen[root] = 1;
        const size_t begin = order.size();
        order.push_back(root);
        for (size_t i = begin; i < order.size(); ++i) {
          for (int32_t e = xadj[order[i]]; e < xadj[order[i] + 1]; ++e) {
            if (!seen[adj[e]]) {
              seen[adj[e]] = 1;
              order.push_back(adj[e]);
            }
          }
        }
      }
      size_t taken = 0;
      for (size_t i = 0; i < order.size() && taken < first_count; ++i) {
        part[order[i]] = 0;
        taken += static_cast<size_t>(WeightOf(tasks[order[i]]));
      }
    }
    Rebalance(xadj, adj, wgt, VertexWeights(tasks), lo, hi, part);
    std::vector<TaskId> first, second;
    for (int32_t i = 0; i < n; ++i) (part[i] == 0 ? first : second).push_back(tasks[i]);
    tasks = std::move(first);
    return second;
  }

  // The METIS vertex weights of `tasks` (empty when unweighted).
  std::vector<int32_t> VertexWeights(const std::vector<TaskId>& tasks) const {
    std::vector<int32_t> vwgt;
    if (!weighted()) return vwgt;
    vwgt.reserve(tasks.size());
    for (TaskId t : tasks) vwgt.push_back(static_cast<int32_t>(weights_[t]));
    return vwgt;
  }

  // METIS balances within a tolerance; the halves must fit their slots: the first
  // part's size (its weight, with `vwgt`; else its count) must be in [lo, hi].
  // Moves the vertices whose move costs least (external minus internal weight,
  // highest first, ties by index) out of the part that is too big, until the
  // nearer bound (with weights: skipping a vertex whose move would pass the other
  // bound).
  static void Rebalance(const std::vector<int32_t>& xadj, const std::vector<int32_t>& adj,
                        const std::vector<int32_t>& wgt, const std::vector<int32_t>& vwgt,
                        size_t lo, size_t hi, std::vector<int32_t>& part) {
    const int32_t n = static_cast<int32_t>(part.size());
    auto weight = [&](int32_t v) -> size_t {
      return vwgt.empty() ? 1 : static_cast<size_t>(vwgt[v]);
    };
    size_t in_first = 0;
    for (int32_t v = 0; v < n; ++v) in_first += part[v] == 0 ? weight(v) : 0;
    if (in_first >= lo && in_first <= hi) return;
    const int32_t from = in_first > hi ? 0 : 1;
    std::vector<std::pair<int64_t, int32_t>> moves;  // (-gain, vertex)
    for (int32_t v = 0; v < n; ++v) {
      if (part[v] != from) continue;
      int64_t gain = 0;
      for (int32_t e = xadj[v]; e < xadj[v + 1]; ++e)
        gain += part[adj[e]] == from ? -wgt[e] : wgt[e];
      moves.push_back({-gain, v});
    }
    std::sort(moves.begin(), moves.end());
    for (const auto& [neg_gain, v] : moves) {
      if (in_first >= lo && in_first <= hi) break;
      const size_t w = weight(v);
      if (from == 0) {
        if (!vwgt.empty() && in_first - w < lo) continue;
        in_first -= w;
      } else {
        if (!vwgt.empty() && in_first + w > hi) continue;
        in_first += w;
      }
      part[v] = 1 - from;
    }
  }

  const TaskGraph& graph_;
  const StopCondition& stop_;
  std::atomic<bool> stopped_ = false;  // the time limit fired: the rest is placed in order
  const Allocation& allocation_;
  const RecursiveBisectionOptions options_;
  std::span<const int64_t> weights_;
  int64_t node_capacity_;
  std::span<const int32_t> home_;               // each task's current position (empty: none)
  std::span<const int64_t> stay_;               // what leaving it costs, in hop-bytes
  std::span<const int32_t> grid_dims_;          // the tasks' grid, for geometric cuts (empty: none)
  std::vector<int> grid_axis_of_machine_axis_;  // -1: cut across the set's longest grid axis
  // For the set being cut: which half each of its positions went to, and the set.
  std::vector<int8_t> half_of_position_;
  std::vector<int32_t> set_of_position_;
  uint64_t metis_seed_ = 0;      // METIS's seed (MetisPartitionOptions::seed)
  std::vector<int32_t> scaled_;  // ScaledMetisEdgeWeights, adjncy order
  std::vector<int32_t> local_of_task_;
  const GridGeometry* torus_ = nullptr;  // the machine's grid (torus or mesh), if any
  // Whether the allocation is a hierarchy (HierarchyOfPositions): halves are then
  // whole groups.
  bool hierarchical_ = false;
  int nd_ = 0;
  std::vector<int32_t> coords_;
  std::vector<SlotId> slot_of_task_;
  // Representative position of each task's set as of the previous level; -1 unknown.
  std::vector<int32_t> rep_of_task_;
  // SetCentre's doubled centres, nd_ per position (slide_grid_cuts only).
  std::vector<int32_t> centre2_of_rep_;
  // Per torus dimension, twice its length when it wraps, else 0 (CentreHops2).
  std::vector<int32_t> wrap_period2_;
  // Id of the task's latest set (Label); written by the depth-first thread only.
  std::vector<int32_t> set_of_task_;
  int32_t next_id_ = 0;
  // RefineCut's state for the tasks of the set it refines.
  std::vector<int8_t> side_;
  std::vector<HopBytes> gain_;
  std::vector<uint8_t> moved_;
  std::vector<uint32_t> version_;
};

}  // namespace

absl::Status RecursiveBisectionOptions::Validate() const {
  if (metis_cuts < 1) {
    return absl::InvalidArgumentError(absl::StrCat("metis_cuts must be >= 1, got ", metis_cuts));
  }
  if (multi_cut_max_tasks < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("multi_cut_max_tasks must be >= 0, got ", multi_cut_max_tasks));
  }
  if (refine_passes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine_passes must be >= 0, got ", refine_passes));
  }
  return absl::OkStatus();
}

Bisection RecursiveBisection(BisectionProblem problem, const RecursiveBisectionOptions& options,
                             const StopCondition& stop) {
  // A grid that is not the tasks' (another size, an empty dim) cannot be cut by
  // planes: METIS cuts instead.
  int64_t grid_size = problem.grid_dims.empty() ? -1 : 1;
  for (int32_t d : problem.grid_dims) {
    if (d <= 0 || grid_size > problem.graph.num_tasks()) {
      grid_size = -1;
      break;
    }
    grid_size *= d;
  }
  if (grid_size != problem.graph.num_tasks()) problem.grid_dims = {};
  Bisector bisector(problem, options, stop);
  Bisection out;
  out.slot_of_task = bisector.Run();
  out.stopped = bisector.stopped();
  return out;
}

std::vector<int32_t> BisectByWeight(const BisectionProblem& problem,
                                    const RecursiveBisectionOptions& options,
                                    const StopCondition& stop, bool* stopped) {
  Bisection bisection = RecursiveBisection(problem, options, stop);
  if (stopped != nullptr) *stopped = bisection.stopped;
  std::vector<int32_t> position(bisection.slot_of_task.size());
  for (size_t t = 0; t < position.size(); ++t) {
    position[t] = problem.allocation.PositionOfSlot(bisection.slot_of_task[t]);
  }
  return position;
}

}  // namespace hopmap
