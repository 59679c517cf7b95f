#include "core/io/object_values.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace hopmap {
namespace {

// Calls parse(value, index) for every value line; parse returns false on a bad
// value, which becomes "SOURCE:LINE: expected the WHAT of object I (RULE), got 'V'".
template <typename Parse>
absl::Status ForEachValue(const std::string& text, const std::string& source,
                          absl::string_view what, absl::string_view rule, Parse parse,
                          absl::string_view unit = "object") {
  std::istringstream in(text);
  std::string line;
  size_t index = 0;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    absl::string_view s = line;
    if (size_t hash = s.find('#'); hash != absl::string_view::npos) s = s.substr(0, hash);
    s = absl::StripAsciiWhitespace(s);
    if (s.empty()) continue;
    if (index >= static_cast<size_t>(kMaxTasks) || !parse(s)) {
      return absl::InvalidArgumentError(absl::StrCat(source, ":", line_number, ": expected the ",
                                                     what, " of ", unit, " ", index, " (", rule,
                                                     "), got '", s, "'"));
    }
    ++index;
  }
  if (index == 0) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": no ", what, " values in the file"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Slurp(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the ", what, " file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A value file read whole, then parsed with `parse` (errors name the file).
template <typename T>
absl::StatusOr<std::vector<T>> ReadValuesFile(
    const std::string& path, absl::string_view what,
    absl::StatusOr<std::vector<T>> (*parse)(const std::string&, const std::string&)) {
  absl::StatusOr<std::string> text = Slurp(path, what);
  if (!text.ok()) return text.status();
  return parse(*text, path);
}

absl::StatusOr<std::vector<double>> ParseLoadValues(const std::string& text,
                                                    const std::string& source_name,
                                                    absl::string_view what,
                                                    absl::string_view unit) {
  std::vector<double> loads;
  absl::Status s = ForEachValue(
      text, source_name, what, absl::StrCat("a number from 0 to ", kMaxObjectLoad),
      [&](absl::string_view v) {
        double load = 0;
        if (!ParseFiniteDecimal(v, &load) || load < 0 || load > kMaxObjectLoad) {
          return false;
        }
        loads.push_back(load);
        return true;
      },
      unit);
  if (!s.ok()) return s;
  return loads;
}

}  // namespace

bool ParseFiniteDecimal(absl::string_view text, double* value) {
  return text.find_first_of("xX") == absl::string_view::npos && absl::SimpleAtod(text, value) &&
         std::isfinite(*value);
}

absl::StatusOr<std::vector<double>> ParseLoads(const std::string& text,
                                               const std::string& source_name) {
  return ParseLoadValues(text, source_name, "load", "object");
}

absl::StatusOr<std::vector<double>> ParseBackgroundLoads(const std::string& text,
                                                         const std::string& source_name) {
  return ParseLoadValues(text, source_name, "background load", "slot");
}

absl::StatusOr<std::vector<double>> ReadBackgroundLoadsFile(const std::string& path) {
  return ReadValuesFile(path, "background load", &ParseBackgroundLoads);
}

absl::StatusOr<std::vector<uint8_t>> ParseFixedFlags(const std::string& text,
                                                     const std::string& source_name) {
  std::vector<uint8_t> fixed;
  absl::Status s =
      ForEachValue(text, source_name, "fixed flag", "1: stays on its current slot, 0: may move",
                   [&](absl::string_view v) {
                     if (v != "0" && v != "1") return false;
                     fixed.push_back(v == "1" ? 1 : 0);
                     return true;
                   });
  if (!s.ok()) return s;
  return fixed;
}

absl::StatusOr<std::vector<uint8_t>> ReadFixedFlagsFile(const std::string& path) {
  return ReadValuesFile(path, "fixed", &ParseFixedFlags);
}

absl::StatusOr<std::vector<double>> ReadLoadsFile(const std::string& path) {
  return ReadValuesFile(path, "loads", &ParseLoads);
}

absl::StatusOr<std::vector<Bytes>> ParseStateBytes(const std::string& text,
                                                   const std::string& source_name) {
  std::vector<Bytes> bytes;
  absl::Status s =
      ForEachValue(text, source_name, "state bytes", "an integer >= 0", [&](absl::string_view v) {
        int64_t b = 0;
        if (!absl::SimpleAtoi(v, &b) || b < 0) return false;
        bytes.push_back(b);
        return true;
      });
  if (!s.ok()) return s;
  return bytes;
}

absl::StatusOr<std::vector<Bytes>> ReadStateBytesFile(const std::string& path) {
  return ReadValuesFile(path, "state bytes", &ParseStateBytes);
}

}  // namespace hopmap
