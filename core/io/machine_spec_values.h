// Internal to core/io: the values inside a machine spec (positive integers, lists
// of them) and the machine a kind's parser hands back, each error naming the spec.
// Shared by ParseMachineSpec's options (machine_spec.cc) and the kinds' parsers
// (machine_kinds.cc). Not a public API.
#ifndef HOPMAP_CORE_IO_MACHINE_SPEC_VALUES_H_
#define HOPMAP_CORE_IO_MACHINE_SPEC_VALUES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/topology/machine.h"

namespace hopmap::io_internal {

// `text` as an integer >= 1; else "machine spec 'SPEC': WHAT must be a positive
// integer, got 'TEXT'".
absl::StatusOr<int32_t> ParsePositive(absl::string_view text, absl::string_view what,
                                      const std::string& spec);

// `text` split at `sep`, each part ParsePositive.
absl::StatusOr<std::vector<int32_t>> ParseList(absl::string_view text, char sep,
                                               absl::string_view what, const std::string& spec);

// `text` as a number from `low` to `high`; else "machine spec 'SPEC': WHAT must be a
// number from LOW to HIGH (UNIT), got 'TEXT'".
absl::StatusOr<double> ParseInRange(absl::string_view text, absl::string_view what, double low,
                                    double high, absl::string_view unit, const std::string& spec);

// The machine a model's Create gave, shared; its error keeps its code (a missing
// file stays NotFound) and gets the spec in front of its message.
template <typename T>
absl::StatusOr<std::shared_ptr<Machine>> Share(absl::StatusOr<T> machine, const std::string& spec) {
  if (!machine.ok()) {
    return absl::Status(machine.status().code(),
                        absl::StrCat("machine spec '", spec, "': ", machine.status().message()));
  }
  return std::shared_ptr<Machine>(std::make_shared<T>(*std::move(machine)));
}

}  // namespace hopmap::io_internal

#endif  // HOPMAP_CORE_IO_MACHINE_SPEC_VALUES_H_
