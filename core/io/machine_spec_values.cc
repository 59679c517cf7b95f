#include "core/io/machine_spec_values.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace hopmap::io_internal {

absl::StatusOr<int32_t> ParsePositive(absl::string_view text, absl::string_view what,
                                      const std::string& spec) {
  int32_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "machine spec '", spec, "': ", what, " must be a positive integer, got '", text, "'"));
  }
  return value;
}

absl::StatusOr<std::vector<int32_t>> ParseList(absl::string_view text, char sep,
                                               absl::string_view what, const std::string& spec) {
  std::vector<int32_t> values;
  for (absl::string_view part : absl::StrSplit(text, sep)) {
    absl::StatusOr<int32_t> v = ParsePositive(part, what, spec);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  return values;
}

absl::StatusOr<double> ParseInRange(absl::string_view text, absl::string_view what, double low,
                                    double high, absl::string_view unit, const std::string& spec) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !(value >= low && value <= high)) {
    return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec, "': ", what,
                                                   " must be a number from ", low, " to ", high,
                                                   " (", unit, "), got '", text, "'"));
  }
  return value;
}

}  // namespace hopmap::io_internal
