#include "core/io/qaplib.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace {

// Reads the next token as an integer; `what` names it in errors ("n", "flow[2][3]").
absl::Status NextInteger(TokenReader& tokens, absl::string_view what, int64_t* value) {
  absl::string_view token;
  if (!tokens.Next(&token)) {
    return tokens.Error(absl::StrCat("file ends before ", what));
  }
  if (!absl::SimpleAtoi(token, value)) {
    return tokens.Error(absl::StrCat(what, ": '", token, "' is not an integer"));
  }
  return absl::OkStatus();
}

absl::Status ExpectEnd(TokenReader& tokens, absl::string_view after) {
  absl::string_view token;
  if (tokens.Next(&token)) {
    return tokens.Error(absl::StrCat("extra value '", token, "' after ", after));
  }
  return absl::OkStatus();
}

absl::Status ReadMatrix(TokenReader& tokens, int32_t n, absl::string_view name,
                        std::vector<int64_t>* matrix) {
  matrix->resize(static_cast<size_t>(n) * n);
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = 0; j < n; ++j) {
      if (absl::Status s = NextInteger(tokens, absl::StrCat(name, "[", i + 1, "][", j + 1, "]"),
                                       &(*matrix)[static_cast<size_t>(i) * n + j]);
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<QapInstance> ParseQaplib(absl::string_view text, absl::string_view source) {
  TokenReader tokens(text, std::string(source));
  int64_t n = 0;
  if (absl::Status s = NextInteger(tokens, "n", &n); !s.ok()) return s;
  if (n < 1 || n > kMaxQapSize) {
    return tokens.Error(absl::StrCat("n = ", n, " is outside 1..", kMaxQapSize));
  }
  QapInstance instance;
  instance.n = static_cast<int32_t>(n);
  // Row and column numbers in errors are 1-based, as QAPLIB numbers facilities.
  if (absl::Status s = ReadMatrix(tokens, instance.n, "A", &instance.flow); !s.ok()) return s;
  if (absl::Status s = ReadMatrix(tokens, instance.n, "B", &instance.distance); !s.ok()) return s;
  if (absl::Status s = ExpectEnd(tokens, absl::StrCat("the two ", n, "x", n, " matrices"));
      !s.ok()) {
    return s;
  }
  return instance;
}

absl::StatusOr<QapInstance> ReadQaplib(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return ParseQaplib(*text, path);
}

absl::StatusOr<QapSolution> ParseQaplibSolution(absl::string_view text, absl::string_view source) {
  // Commas separate values in some files (ste36a.sln): read them as spaces. The
  // copy keeps every line break, so line numbers stay right.
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  TokenReader tokens(spaced, std::string(source));
  int64_t n = 0;
  if (absl::Status s = NextInteger(tokens, "n", &n); !s.ok()) return s;
  if (n < 1 || n > kMaxQapSize) {
    return tokens.Error(absl::StrCat("n = ", n, " is outside 1..", kMaxQapSize));
  }
  QapSolution solution;
  solution.n = static_cast<int32_t>(n);
  if (absl::Status s = NextInteger(tokens, "the cost", &solution.cost); !s.ok()) return s;
  std::vector<int64_t> values(n);
  std::vector<int64_t> value_line(n);
  for (int64_t i = 0; i < n; ++i) {
    if (absl::Status s = NextInteger(tokens, absl::StrCat("p(", i + 1, ")"), &values[i]); !s.ok()) {
      return s;
    }
    value_line[i] = tokens.line_number();
  }
  if (absl::Status s = ExpectEnd(tokens, absl::StrCat("the ", n, " permutation values")); !s.ok()) {
    return s;
  }
  // QAPLIB is 1-based, but some files (tai40a.sln) hold 0..n-1: a 0 and no n is
  // unambiguous.
  const bool zero_based = std::find(values.begin(), values.end(), 0) != values.end() &&
                          std::find(values.begin(), values.end(), n) == values.end();
  const int64_t base = zero_based ? 0 : 1;
  std::vector<bool> seen(n, false);
  solution.permutation.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = values[i] - base;
    if (v < 0 || v >= n) {
      return LineError(std::string(source), value_line[i],
                       absl::StrCat("p(", i + 1, ") = ", values[i], " is outside 1..", n));
    }
    if (seen[v]) {
      return LineError(std::string(source), value_line[i],
                       absl::StrCat("p(", i + 1, ") = ", values[i], " appears twice"));
    }
    seen[v] = true;
    solution.permutation[i] = static_cast<int32_t>(v);
  }
  return solution;
}

}  // namespace hopmap
