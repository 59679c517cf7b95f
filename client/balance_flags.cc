#include "client/balance_flags.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/cli_common.h"
#include "core/balance/balancers.h"
#include "core/io/mapping_files.h"
#include "core/io/object_values.h"
#include "core/solve/report.h"

namespace hopmap::cli {

bool BalanceFlags::active() const {
  return balance || !loads.empty() || !state_bytes.empty() || !fixed.empty() ||
         !background.empty() || (imbalance_option != nullptr && imbalance_option->count() > 0) ||
         (max_migrations_option != nullptr && max_migrations_option->count() > 0) ||
         (max_migration_bytes_option != nullptr && max_migration_bytes_option->count() > 0) ||
         (migration_cost_option != nullptr && migration_cost_option->count() > 0);
}

void AddBalanceFlags(CLI::App& app, BalanceFlags& flags, BalanceFlagsFor command) {
  const std::string group = "Load balancing (many objects per slot; any of these enables it)";
  app.add_flag("--balance", flags.balance,
               absl::StrCat("Tasks are migratable objects placed many per slot under a "
                            "load-balance cap (implied by the other flags of this group); ",
                            command == BalanceFlagsFor::kMap
                                ? "--algorithm then names a balancer (`hopmap algorithms`), "
                                  "--initial is the objects' current placement"
                                : "--initial is the objects' current placement, which "
                                  "migrations are counted from"))
      ->group(group);
  app.add_option("--loads", flags.loads,
                 "Object loads: one number >= 0 per line, line i for object i ('#' comments); "
                 "default: every load 1")
      ->group(group);
  flags.imbalance_option =
      app.add_option("--imbalance", flags.imbalance,
                     "Every slot's load stays within (1 + E) x the average slot load, rounded "
                     "up to a whole load when every load is whole (as Scotch's -b and "
                     "SharedMap's -e), E from 0 to 1000")
          ->check(CLI::Range(0.0, 1000.0))
          ->capture_default_str()
          ->group(group);
  app.add_option("--state-bytes", flags.state_bytes,
                 "Bytes of each object's state, one integer per line (what a migration moves); "
                 "default: 1 per object")
      ->group(group);
  app.add_option("--fixed", flags.fixed,
                 "Objects that stay on their --initial slot whatever the balance (a runtime's "
                 "non-migratable objects): one line per object, 1 stays, 0 may move")
      ->group(group);
  app.add_option("--background", flags.background,
                 "Load each slot carries besides the objects (other work on that core): one "
                 "number >= 0 per line, line s for slot s of the allocation; counts in the "
                 "slot loads and the average")
      ->group(group);
  flags.max_migrations_option =
      app.add_option("--max-migrations", flags.max_migrations,
                     "Move at most K objects away from their --initial slots")
          ->check(NonNegativeInteger())
          ->group(group);
  flags.max_migration_bytes_option =
      app.add_option("--max-migration-bytes", flags.max_migration_bytes,
                     "Move at most B bytes of object state (--state-bytes)")
          ->check(NonNegativeInteger())
          ->group(group);
  flags.migration_cost_option =
      app.add_option("--migration-cost", flags.migration_cost,
                     "Hop-bytes charged per migrated byte of state: the search minimises "
                     "hop-bytes + F x migrated bytes")
          ->check(NonNegativeReal())
          ->group(group);
}

namespace {

// A per-object file's count checked here, where its name is known.
absl::Status CheckCount(const std::string& path, size_t entries, int64_t num_objects,
                        absl::string_view what) {
  if (static_cast<int64_t>(entries) == num_objects) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", entries, " ", what, " for ",
                                                 num_objects,
                                                 " objects (the graph's tasks): one per object"));
}

}  // namespace

absl::Status WithBalanceHint(absl::Status status, const BalanceFlags& flags,
                             const std::string& algorithm) {
  if (status.ok() || flags.active()) return status;
  std::string hint;
  if (absl::StrContains(status.message(), "but the allocation has only")) {
    hint = "to place many objects per slot under a load cap, add --balance (or --loads FILE)";
  } else if (algorithm != "auto" &&
             std::any_of(BuiltinBalancers().begin(), BuiltinBalancers().end(),
                         [&](const BalancerInfo& b) { return b.name == algorithm; })) {
    hint = absl::StrCat("'", algorithm,
                        "' places objects under a load cap: add --balance (or --loads FILE)");
  }
  if (hint.empty()) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), "; ", hint));
}

absl::StatusOr<BalanceRequest> LoadBalanceRequest(const BalanceFlags& flags,
                                                  const std::string& current_path,
                                                  int64_t num_objects,
                                                  const Allocation* allocation) {
  BalanceRequest data;
  if (!flags.loads.empty()) {
    absl::StatusOr<std::vector<double>> loads = ReadLoadsFile(flags.loads);
    if (!loads.ok()) return loads.status();
    data.loads = *std::move(loads);
    if (absl::Status s = CheckCount(flags.loads, data.loads.size(), num_objects, "loads");
        !s.ok()) {
      return s;
    }
  }
  if (!flags.state_bytes.empty()) {
    absl::StatusOr<std::vector<Bytes>> bytes = ReadStateBytesFile(flags.state_bytes);
    if (!bytes.ok()) return bytes.status();
    data.state_bytes = *std::move(bytes);
    if (absl::Status s =
            CheckCount(flags.state_bytes, data.state_bytes.size(), num_objects, "state sizes");
        !s.ok()) {
      return s;
    }
  }
  if (!flags.fixed.empty()) {
    absl::StatusOr<std::vector<uint8_t>> fixed = ReadFixedFlagsFile(flags.fixed);
    if (!fixed.ok()) return fixed.status();
    if (absl::Status s = CheckCount(flags.fixed, fixed->size(), num_objects, "fixed flags");
        !s.ok()) {
      return s;
    }
    data.set_fixed(*fixed);
    if (current_path.empty()) {
      return absl::InvalidArgumentError(
          "--fixed keeps objects on their current slots: give the current placement with "
          "--initial FILE");
    }
  }
  if (!flags.background.empty()) {
    absl::StatusOr<std::vector<double>> background = ReadBackgroundLoadsFile(flags.background);
    if (!background.ok()) return background.status();
    data.background_load = *std::move(background);
  }
  if (!current_path.empty()) {
    absl::StatusOr<std::vector<SlotId>> current = ReadMappingFile(current_path, allocation);
    if (!current.ok()) return current.status();
    data.current_slot = *std::move(current);
    if (absl::Status s =
            CheckCount(current_path, data.current_slot.size(), num_objects, "current slots");
        !s.ok()) {
      return s;
    }
  }
  data.options.imbalance = flags.imbalance;
  data.options.max_migrations = flags.max_migrations;
  data.options.max_migration_bytes = flags.max_migration_bytes;
  data.options.migration_cost = flags.migration_cost;
  if (absl::Status s = data.options.Validate(); !s.ok()) return s;
  return data;
}

std::string BalanceSummary(const MappingReport& r) {
  const LoadBalanceReport& b = *r.balance;
  std::string text = absl::StrFormat(
      "hopmap: %d objects on %d slots with %s: hop-bytes %d (%s %d, %.1f%% %s), "
      "max/avg load %.3f (%s), lower bound %d (%s)",
      r.tasks, r.slots, r.algorithm, r.hop_bytes, b.has_current ? "current" : "block",
      r.baseline_hop_bytes, 100.0 * std::abs(r.improvement), r.improvement >= 0 ? "less" : "more",
      b.avg_load > 0 ? b.max_load / b.avg_load : 0.0,
      b.balanced ? absl::StrFormat("within 1 + %g", b.imbalance) : "NOT balanced: " + b.note,
      r.lower_bound.value, r.lower_bound.method);
  if (b.has_current) {
    absl::StrAppend(&text, absl::StrFormat(", %d objects migrated (%d bytes)", b.migrated_objects,
                                           b.migrated_bytes));
  }
  absl::StrAppend(&text, absl::StrFormat(", %.3f s\n", r.solve_seconds));
  return text;
}

}  // namespace hopmap::cli
