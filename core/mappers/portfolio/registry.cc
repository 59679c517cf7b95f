// RegisterBuiltinMappers: the one list of algorithms hopmap knows.
#include "core/mappers/portfolio/registry.h"

#include <memory>
#include <utility>

#include "core/mappers/baseline/axis_order.h"
#include "core/mappers/baseline/baselines.h"
#include "core/mappers/construct/emahd.h"
#include "core/mappers/construct/gge.h"
#include "core/mappers/construct/mahd.h"
#include "core/mappers/construct/ohtma.h"
#include "core/mappers/construct/rcm.h"
#include "core/mappers/construct/rec_bisect.h"
#include "core/mappers/grid/cart_greedy.h"
#include "core/mappers/grid/fold.h"
#include "core/mappers/grid/grid2d.h"
#include "core/mappers/grid/hilbert.h"
#include "core/mappers/local_search/anneal.h"
#include "core/mappers/local_search/exact.h"
#include "core/mappers/local_search/grasp.h"
#include "core/mappers/local_search/hybrid.h"
#include "core/mappers/local_search/refine.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/portfolio.h"

namespace hopmap {

void RegisterBuiltinMappers(MapperRegistry& registry) {
  auto add = [&registry](std::string name, std::string description, auto create,
                         MapperInput input = MapperInput::kAnyGraph) {
    // Names are distinct literals below; a failure here is a programming error.
    absl::Status s = registry.Register({std::move(name), std::move(description), create, input});
    (void)s;
  };
  add("auto",
      "portfolio: every applicable construction, pair-exchange refinement of the best, GRASP "
      "when small; keeps the best",
      [&registry]() -> std::unique_ptr<Mapper> {
        // Grid constructions refuse (and are listed as skipped) unless the analyzer
        // finds a near-neighbour grid; the portfolio analyses the graph once.
        return std::make_unique<PortfolioMapper>(&registry, DefaultPortfolioPlan());
      });
  add("in-order", "task i on slot i: the scheduler's default (Blue Gene TXYZ)",
      [] { return std::unique_ptr<Mapper>(new InOrderMapper()); });
  add("round-robin", "task i on node i mod m, core i / m (cyclic)",
      [] { return std::unique_ptr<Mapper>(new RoundRobinMapper()); });
  add("random", "uniformly random distinct slots, from --seed",
      [] { return std::unique_ptr<Mapper>(new RandomMapper()); });
  add("axis-order", "best of every order of T and the machine's dims (TXYZ, ZYXT, ...)",
      [] { return std::unique_ptr<Mapper>(new AxisOrderMapper()); });
  // Regular grids (seeds 000 and 003): need a near-neighbour pattern.
  add(
      "fold", "grid folded (snakes) into the allocated box, dilation 1 where possible",
      [] { return std::unique_ptr<Mapper>(new FoldMapper()); }, MapperInput::kGrid);
  add(
      "stack", "2D grid cut into slabs stacked along the box's third dim (seed 000)",
      [] { return std::unique_ptr<Mapper>(new StackMapper()); }, MapperInput::kGrid);
  add(
      "hilbert", "grid and allocated nodes both ordered along space-filling curves",
      [] { return std::unique_ptr<Mapper>(new HilbertMapper()); }, MapperInput::kGrid);
  add(
      "cart-greedy", "greedy N-D Cartesian mapping (seed 003)",
      [] { return std::unique_ptr<Mapper>(new CartGreedyMapper()); }, MapperInput::kGrid);
  // General graphs onto any machine (constructive).
  add("gge",
      "greedy graph embedding: most-attached task next, on the cheapest free node (Hoefler & Snir)",
      [] { return std::unique_ptr<Mapper>(new GreedyGraphEmbeddingMapper()); });
  add("rcm", "reverse Cuthill-McKee order of tasks matched to the RCM order of the nodes",
      [] { return std::unique_ptr<Mapper>(new RcmMapper()); });
  add("rec-bisect", "recursive bisection of the task graph (METIS) and of the allocation",
      [] { return std::unique_ptr<Mapper>(new RecursiveBisectionMapper()); });
  add("mahd", "minimum average hop distance greedy from the most central node (seed 001)",
      [] { return std::unique_ptr<Mapper>(new MahdMapper()); });
  add("emahd",
      "MAHD from every start node within the time limit, in parallel; best kept (seed 001)",
      [] { return std::unique_ptr<Mapper>(new ExhaustiveMahdMapper()); });
  add("ohtma", "greedy placement, best-pair exchanges, backtrack to the best prefix (seed 004)",
      [] { return std::unique_ptr<Mapper>(new OhtmaMapper()); });
  add(
      "exact",
      "branch and bound with the Gilmore-Lawler bound: proves the optimum for small graphs (seed "
      "001)",
      [] { return std::unique_ptr<Mapper>(new ExactMapper()); }, MapperInput::kSmallGraph);
  // Local search and metaheuristics for any graph (seeds 000 PAIRS and 001).
  add("refine", "pair-exchange local search (PAIRS) from a given mapping or the best fast start",
      [] { return std::unique_ptr<Mapper>(new RefineMapper()); });
  add("anneal",
      "simulated annealing over slot exchanges near each task's neighbours, from a given mapping "
      "or the best fast start",
      [] { return std::unique_ptr<Mapper>(new AnnealMapper()); });
  add("grasp", "GRASP (Li, Pardalos, Resende) + robust tabu search; sparse gains when large",
      [] { return std::unique_ptr<Mapper>(new GraspMapper()); });
  add("hybrid",
      "METIS parts of the tasks onto compact node groups by GRASP on the quotient, then GRASP "
      "inside each part (multi-level, parallel), boundaries refined (seed 001)",
      [] { return std::unique_ptr<Mapper>(new HybridMapper()); });
  struct Grid2dEntry {
    Grid2dKind kind;
    const char* description;
  };
  const Grid2dEntry kGrid2d[] = {
      {Grid2dKind::kMxovlp, "2D grid -> 2D mesh: maximum overlap, recursive (seed 000)"},
      {Grid2dKind::kMxovAl, "2D grid -> 2D mesh: maximum overlap with alignment (seed 000)"},
      {Grid2dKind::kExco, "2D grid -> 2D mesh: expand from a corner (seed 000)"},
      {Grid2dKind::kCoce, "2D grid -> 2D mesh: corners to centre (seed 000)"},
      {Grid2dKind::kAffn, "2D grid -> 2D mesh: affine stretch, findNearest (seed 000)"},
      {Grid2dKind::kStep, "2D grid -> 2D mesh: mirrored strips of the mesh's height"},
      {Grid2dKind::kPairs, "2D grid -> 2D mesh: best heuristic, then pair exchanges (PAIRS)"},
  };
  for (const Grid2dEntry& entry : kGrid2d) {
    const Grid2dKind kind = entry.kind;
    add(
        Grid2dKindName(kind), entry.description,
        [kind] { return std::unique_ptr<Mapper>(new Grid2dMapper(kind)); },
        MapperInput::kGrid2dOnMesh);
  }
}

const MapperRegistry& BuiltinMappers() {
  static const MapperRegistry* registry = [] {
    auto* r = new MapperRegistry();
    RegisterBuiltinMappers(*r);
    return r;
  }();
  return *registry;
}

absl::StatusOr<std::vector<SlotId>> MapSubproblemWithAuto(const TaskGraph& graph,
                                                          const Allocation& allocation,
                                                          const MapperOptions& options,
                                                          const StopCondition& stop) {
  absl::StatusOr<std::unique_ptr<Mapper>> mapper = BuiltinMappers().Create("auto");
  if (!mapper.ok()) return mapper.status();
  absl::StatusOr<MapOutput> out = (*mapper)->Map({graph, allocation, options, stop});
  if (!out.ok()) return out.status();
  return std::move(out->slot_of_task);
}

}  // namespace hopmap
