#include "core/balance/balance_problem.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace hopmap {

absl::Status BalanceOptions::Validate() const {
  if (!(imbalance >= 0 && imbalance <= kMaxImbalance)) {
    return absl::InvalidArgumentError(absl::StrCat("imbalance ", imbalance,
                                                   " must be a number from 0 to ", kMaxImbalance,
                                                   " (0.05: 5% above average)"));
  }
  if (max_migrations < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max migrations ", max_migrations, " must be >= 0 (or -1: no limit)"));
  }
  if (max_migration_bytes < -1) {
    return absl::InvalidArgumentError(absl::StrCat("max migration bytes ", max_migration_bytes,
                                                   " must be >= 0 (or -1: no limit)"));
  }
  if (!std::isfinite(migration_cost) || migration_cost < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("migration cost ", migration_cost, " must be a number >= 0"));
  }
  return absl::OkStatus();
}

absl::Status ValidateBalanceInput(const BalanceInput& input, const BalanceOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  const size_t n = static_cast<size_t>(input.graph.num_tasks());
  auto wrong_size = [n](absl::string_view field, size_t size) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", size, " entries for ", n, " objects (one per object)"));
  };
  if (!input.loads.empty()) {
    if (input.loads.size() != n) return wrong_size("loads", input.loads.size());
    for (size_t t = 0; t < n; ++t) {
      const double load = input.loads[t];
      if (!std::isfinite(load) || load < 0 || load > kMaxObjectLoad) {
        return absl::InvalidArgumentError(absl::StrCat("loads: object ", t, " has load ", load,
                                                       "; loads must be numbers from 0 to ",
                                                       kMaxObjectLoad));
      }
    }
  }
  if (!input.state_bytes.empty()) {
    if (input.state_bytes.size() != n) return wrong_size("state bytes", input.state_bytes.size());
    Bytes total = 0;
    for (size_t t = 0; t < n; ++t) {
      const Bytes bytes = input.state_bytes[t];
      if (bytes < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("state bytes: object ", t, " has ", bytes, " bytes; must be >= 0"));
      }
      if (bytes > kMaxTotalStateBytes - total) {
        return absl::InvalidArgumentError(absl::StrCat(
            "state bytes: ", t == 0 ? "object 0 has" : absl::StrCat("objects 0..", t, " have"),
            " more than ", kMaxTotalStateBytes,
            " bytes together (2^62, the most migrated bytes are counted to)"));
      }
      total += bytes;
    }
  }
  if (!input.current_slot.empty()) {
    if (input.current_slot.size() != n) {
      return wrong_size("current placement", input.current_slot.size());
    }
    const int64_t slots = input.allocation.num_slots();
    for (size_t t = 0; t < n; ++t) {
      const SlotId s = input.current_slot[t];
      if (s < 0 || s >= slots) {
        return absl::InvalidArgumentError(
            absl::StrCat("current placement: object ", t, " is on slot ", s,
                         ", outside the allocation's slots 0..", slots - 1));
      }
    }
  } else if (options.restricts_migration()) {
    return absl::InvalidArgumentError(
        "a migration limit or cost needs the current placement of every object");
  }
  if (!input.fixed.empty()) {
    if (input.fixed.size() != n) return wrong_size("fixed", input.fixed.size());
    if (input.current_slot.empty() && HasFixedObjects(input)) {
      return absl::InvalidArgumentError(
          "fixed objects stay on their current slot: the current placement of every object is "
          "needed");
    }
  }
  if (!input.background_load.empty()) {
    const int64_t slots = input.allocation.num_slots();
    if (static_cast<int64_t>(input.background_load.size()) != slots) {
      return absl::InvalidArgumentError(
          absl::StrCat("background load: ", input.background_load.size(), " entries for ", slots,
                       " slots (one per slot of the allocation)"));
    }
    for (int64_t s = 0; s < slots; ++s) {
      const double load = input.background_load[s];
      if (!std::isfinite(load) || load < 0 || load > kMaxObjectLoad) {
        return absl::InvalidArgumentError(absl::StrCat("background load: slot ", s, " has load ",
                                                       load, "; loads must be numbers from 0 to ",
                                                       kMaxObjectLoad));
      }
    }
  }
  if (!input.object_counts.empty()) {
    if (input.object_counts.size() != n)
      return wrong_size("object counts", input.object_counts.size());
    for (size_t t = 0; t < n; ++t) {
      if (input.object_counts[t] < 1) {
        return absl::InvalidArgumentError(absl::StrCat("object counts: object ", t, " stands for ",
                                                       input.object_counts[t], "; must be >= 1"));
      }
    }
  }
  if (n > 0 && input.allocation.num_slots() > kMaxTasks) {
    return absl::InvalidArgumentError("the allocation has more slots than hopmap supports");
  }
  return absl::OkStatus();
}

std::vector<double> LoadsOf(const BalanceInput& input) {
  if (!input.loads.empty()) return std::vector<double>(input.loads.begin(), input.loads.end());
  return std::vector<double>(input.graph.num_tasks(), 1.0);
}

bool HasFixedObjects(const BalanceInput& input) {
  for (bool f : input.fixed) {
    if (f) return true;
  }
  return false;
}

void PinFixedObjects(const BalanceInput& input, std::span<SlotId> slot_of_task) {
  if (input.fixed.empty() || input.current_slot.empty()) return;
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    if (input.fixed[t]) slot_of_task[t] = input.current_slot[t];
  }
}

std::vector<double> SlotLoads(const BalanceInput& input, std::span<const SlotId> slot_of_task) {
  std::vector<double> load(input.allocation.num_slots(), 0.0);
  if (!input.background_load.empty()) {
    load.assign(input.background_load.begin(), input.background_load.end());
  }
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    load[slot_of_task[t]] += LoadOf(input, static_cast<TaskId>(t));
  }
  return load;
}

std::vector<double> FixedSlotLoads(const BalanceInput& input) {
  std::vector<SlotId> pinned(input.graph.num_tasks(), kInvalidSlot);
  PinFixedObjects(input, pinned);
  std::vector<double> load = SlotLoads(input, {});  // the background
  for (TaskId t = 0; t < input.graph.num_tasks(); ++t) {
    if (pinned[t] != kInvalidSlot) load[pinned[t]] += LoadOf(input, t);
  }
  return load;
}

bool HasWholeLoads(const BalanceInput& input) {
  auto whole = [](double load) { return load == std::floor(load); };
  return std::all_of(input.loads.begin(), input.loads.end(), whole) &&
         std::all_of(input.background_load.begin(), input.background_load.end(), whole);
}

double ImbalanceCap(double share, double imbalance, bool whole_loads) {
  const double cap = (1.0 + imbalance) * share;
  if (!whole_loads) return cap;
  const double whole = std::ceil(cap - LoadTolerance(cap));
  return whole > 0 ? whole : 0.0;
}

LoadCap ComputeLoadCap(const BalanceInput& input, double imbalance) {
  LoadCap cap;
  double total = 0;
  for (TaskId t = 0; t < input.graph.num_tasks(); ++t) {
    const double load = LoadOf(input, t);
    total += load;
    // A fixed object counts in its slot's fixed load instead.
    if (!IsFixed(input, t) && (cap.heaviest == kInvalidTask || load > cap.heaviest_load)) {
      cap.heaviest_load = load;
      cap.heaviest = t;
    }
  }
  for (double load : input.background_load) total += load;
  const std::vector<double> fixed = FixedSlotLoads(input);
  for (SlotId s = 0; s < static_cast<SlotId>(fixed.size()); ++s) {
    if (fixed[s] > cap.fixed_load) {
      cap.fixed_load = fixed[s];
      cap.fixed_slot = s;
    }
    if (cap.least_fixed_slot == kInvalidSlot || fixed[s] < cap.least_fixed_load) {
      cap.least_fixed_load = fixed[s];
      cap.least_fixed_slot = s;
    }
  }
  cap.average = total / static_cast<double>(input.allocation.num_slots());
  cap.whole_loads = HasWholeLoads(input);
  cap.requested = ImbalanceCap(cap.average, imbalance, cap.whole_loads);
  cap.heaviest_placed =
      cap.heaviest == kInvalidTask ? 0.0 : cap.heaviest_load + cap.least_fixed_load;
  cap.cap = std::max({cap.requested, cap.heaviest_placed, cap.fixed_load});
  return cap;
}

}  // namespace hopmap
