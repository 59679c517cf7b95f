// The balanced problem's flags (hopmap map and eval): objects with loads, many
// per slot, a load-balance cap, and the current placement with migration rules.
#ifndef HOPMAP_CLIENT_BALANCE_FLAGS_H_
#define HOPMAP_CLIENT_BALANCE_FLAGS_H_

#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "core/balance/balance_problem.h"
#include "core/solve/report.h"
#include "core/solve/solve.h"
#include "hopmap/v1/mapper.pb.h"

namespace hopmap::cli {

struct BalanceFlags {
  bool balance = false;     // --balance: objects mode even with unit loads
  std::string loads;        // --loads FILE
  double imbalance = 0.05;  // --imbalance E
  std::string state_bytes;  // --state-bytes FILE
  std::string fixed;        // --fixed FILE
  std::string background;   // --background FILE
  int64_t max_migrations = -1;
  int64_t max_migration_bytes = -1;
  double migration_cost = 0;
  // Options CLI11 saw, to tell "given" from "default".
  CLI::Option* imbalance_option = nullptr;
  CLI::Option* max_migrations_option = nullptr;
  CLI::Option* max_migration_bytes_option = nullptr;
  CLI::Option* migration_cost_option = nullptr;

  // Whether any flag asks for the balanced problem.
  [[nodiscard]] bool active() const;
};

// Adds --balance, --loads, --imbalance, --state-bytes, --max-migrations,
// --max-migration-bytes, --migration-cost, --fixed, --background.
// Which command the flags are for: map solves (--algorithm names a balancer),
// eval measures a given placement.
enum class BalanceFlagsFor { kMap, kEval };
void AddBalanceFlags(CLI::App& app, BalanceFlags& flags, BalanceFlagsFor command);

// A mistake of a user who meant the balanced problem without its flags (more
// tasks than slots, or a balancer's name as --algorithm) gets the flag that turns
// it on added to its message; other statuses pass through.
absl::Status WithBalanceHint(absl::Status status, const BalanceFlags& flags,
                             const std::string& algorithm);

// The files read and the options checked. `current_path`: the current placement
// (--initial), may be empty. `num_objects`: the graph's tasks; a per-object file
// with another count is refused by name. `allocation` (null: not known here)
// checks a JSON current placement's shape (ReadMappingFile).
absl::StatusOr<BalanceRequest> LoadBalanceRequest(const BalanceFlags& flags,
                                                  const std::string& current_path,
                                                  int64_t num_objects,
                                                  const Allocation* allocation);

// One line for stderr (formats other than json): hop-bytes, balance, migration.
std::string BalanceSummary(const MappingReport& report);

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_BALANCE_FLAGS_H_
