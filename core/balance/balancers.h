// The algorithms of the balanced problem (many objects per slot) and the one
// registry that names them: hopmap's (auto, partition, migrate) and the runtime
// balancers they are compared with (greedy-lb, refine-lb, block).
#ifndef HOPMAP_CORE_BALANCE_BALANCERS_H_
#define HOPMAP_CORE_BALANCE_BALANCERS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/balance/balance_problem.h"
#include "core/search/solve_options.h"
#include "core/search/statistics.h"

namespace hopmap {

struct BalancerInput {
  const BalanceInput& problem;
  const BalanceOptions& balance;
  const MapperOptions& options;
  const StopCondition& stop;
  const LoadCap& cap;
  // Maps the parts' quotient graph onto the nodes (partition and auto); the request
  // layer passes the portfolio (MapSubproblemWithAuto).
  const SubproblemMapper& map_quotient;
  // The grid the objects form (GridOf) when the caller already analysed the graph
  // (auto, for its two balancers); null: a balancer that needs it analyses.
  const std::vector<int32_t>* grid_dims = nullptr;
};

struct BalancerOutput {
  std::vector<SlotId> slot_of_task;  // a slot for every object (any number per slot)
  // Portfolios (auto) list what they ran and name the winner; others leave these empty.
  std::vector<Candidate> candidates;
  std::string winner;
  // Why the result is not under the requested cap, when the balancer knows.
  std::string why_not_balanced;
  // What the balancer did (searches' passes, moves and swaps, starts run, whether
  // the clock cut it), as mappers report theirs (MapOutput::stats); portfolios give
  // their winner's, and each candidate carries its own.
  std::vector<Statistic> stats;
};

class Balancer {
 public:
  virtual ~Balancer() = default;
  // A slot for every object, or an error saying why this balancer cannot run on
  // this input (e.g. refine-lb or migrate without a current placement is fine:
  // they start from a block distribution). Deterministic for a given seed; returns
  // its best so far once input.stop says so.
  virtual absl::StatusOr<BalancerOutput> Balance(const BalancerInput& input) const = 0;
};

struct BalancerInfo {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<Balancer>()> create;
};

// The one list of balancers, in the order `hopmap algorithms` prints them.
const std::vector<BalancerInfo>& BuiltinBalancers();
// NotFound naming the known balancers.
absl::StatusOr<std::unique_ptr<Balancer>> CreateBalancer(absl::string_view name);

// The grid the objects form (dims, first fastest), when the pattern analysis finds
// a near-neighbour grid carrying nearly all the bytes; empty otherwise.
std::vector<int32_t> GridOf(const TaskGraph& graph);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_BALANCERS_H_
