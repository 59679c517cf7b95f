// Per-object value files of the balanced problem (`hopmap map --loads`,
// `--state-bytes`, `--fixed`): one value per line, line i (not counting '#'
// comments and blank lines) for object i; and the per-slot `--background` file,
// line s for slot s.
#ifndef HOPMAP_CORE_IO_OBJECT_VALUES_H_
#define HOPMAP_CORE_IO_OBJECT_VALUES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/types.h"

namespace hopmap {

// A finite decimal number ("1", "0.25", "3e2"): false for anything else, hexadecimal
// included (absl::SimpleAtod and strtod read "0x10" as 16).
bool ParseFiniteDecimal(absl::string_view text, double* value);

// Loads: non-negative finite numbers ("1", "0.25", "3e2"). Errors name the file
// and line ("loads.txt:4: expected the load of object 2 (a number >= 0), got 'x'").
absl::StatusOr<std::vector<double>> ReadLoadsFile(const std::string& path);
absl::StatusOr<std::vector<double>> ParseLoads(const std::string& text,
                                               const std::string& source_name);

// State bytes: non-negative integers.
absl::StatusOr<std::vector<Bytes>> ReadStateBytesFile(const std::string& path);
absl::StatusOr<std::vector<Bytes>> ParseStateBytes(const std::string& text,
                                                   const std::string& source_name);

// Fixed flags: 1 (the object stays on its current slot) or 0.
absl::StatusOr<std::vector<uint8_t>> ReadFixedFlagsFile(const std::string& path);
absl::StatusOr<std::vector<uint8_t>> ParseFixedFlags(const std::string& text,
                                                     const std::string& source_name);

// Background loads, one per slot: numbers as for loads ("bg.txt:3: expected the
// background load of slot 2 ...").
absl::StatusOr<std::vector<double>> ReadBackgroundLoadsFile(const std::string& path);
absl::StatusOr<std::vector<double>> ParseBackgroundLoads(const std::string& text,
                                                         const std::string& source_name);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_OBJECT_VALUES_H_
