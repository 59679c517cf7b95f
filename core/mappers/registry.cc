// RegisterBuiltinMappers: the one list of algorithms hopmap knows.
#include "core/mappers/axis_order.h"
#include "core/mappers/baselines.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio.h"

namespace hopmap {

void RegisterBuiltinMappers(MapperRegistry& registry) {
  auto add = [&registry](std::string name, std::string description, auto create) {
    // Names are distinct literals below; a failure here is a programming error.
    absl::Status s = registry.Register({std::move(name), std::move(description), create});
    (void)s;
  };
  add("auto", "portfolio: runs every applicable mapper within the time limit, keeps the best",
      [&registry]() -> std::unique_ptr<Mapper> {
        return std::make_unique<PortfolioMapper>(
            &registry, std::vector<std::string>{"in-order", "axis-order", "round-robin"});
      });
  add("in-order", "task i on slot i: the scheduler's default (Blue Gene TXYZ)",
      [] { return std::unique_ptr<Mapper>(new InOrderMapper()); });
  add("round-robin", "task i on node i mod m, core i / m (cyclic)",
      [] { return std::unique_ptr<Mapper>(new RoundRobinMapper()); });
  add("random", "uniformly random distinct slots, from --seed",
      [] { return std::unique_ptr<Mapper>(new RandomMapper()); });
  add("axis-order", "best of every order of T and the machine's dims (TXYZ, ZYXT, ...)",
      [] { return std::unique_ptr<Mapper>(new AxisOrderMapper()); });
}

}  // namespace hopmap
