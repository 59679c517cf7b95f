#include "core/io/graph_io_internal.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace io_internal {
namespace {

// The largest real weight accepted (just under 2^63, so rounding cannot overflow).
constexpr double kMaxRealWeight = 9.2e18;

}  // namespace

std::string Quote(absl::string_view token) {
  constexpr size_t kMax = 40;
  if (token.size() <= kMax) return absl::StrCat("'", token, "'");
  return absl::StrCat("'", token.substr(0, kMax), "...'");
}

bool ParseInteger(absl::string_view token, int64_t* out) {
  if (token.empty()) return false;
  size_t start = (token[0] == '-' || token[0] == '+') ? 1 : 0;
  if (start == token.size()) return false;
  for (size_t i = start; i < token.size(); ++i) {
    if (token[i] < '0' || token[i] > '9') return false;
  }
  return absl::SimpleAtoi(token, out);
}

absl::Status ParseWeight(absl::string_view token, bool allow_real, Bytes* out) {
  int64_t value = 0;
  if (ParseInteger(token, &value)) {
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("weight ", Quote(token), " is negative (weights are bytes, >= 0)"));
    }
    *out = value;
    return absl::OkStatus();
  }
  double real = 0;
  if (!allow_real) {
    const bool digits_only =
        !token.empty() && token.find_first_not_of("+-0123456789") == absl::string_view::npos;
    return absl::InvalidArgumentError(absl::StrCat(
        "weight ", Quote(token),
        digits_only ? " does not fit in 64 bits" : " is not an integer number of bytes"));
  }
  if (!absl::SimpleAtod(token, &real)) {
    return absl::InvalidArgumentError(absl::StrCat("weight ", Quote(token), " is not a number"));
  }
  if (!std::isfinite(real)) {
    return absl::InvalidArgumentError(absl::StrCat("weight ", Quote(token), " is not finite"));
  }
  if (real < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight ", Quote(token), " is negative (weights are bytes, >= 0)"));
  }
  if (real > kMaxRealWeight) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight ", Quote(token), " is larger than 9.2e18 bytes"));
  }
  *out = static_cast<Bytes>(std::llround(real));
  return absl::OkStatus();
}

absl::Status CheckDeclaredTasks(int64_t n, size_t text_size) {
  if (n < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative number of tasks ", n));
  }
  if (n > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat(n, " tasks is more than hopmap accepts (", kMaxTasks, ")"));
  }
  constexpr int64_t kAlwaysAllowed = int64_t{1} << 20;
  const int64_t bound = std::max<int64_t>(kAlwaysAllowed, 8 * static_cast<int64_t>(text_size));
  if (n > bound) {
    return absl::InvalidArgumentError(absl::StrCat(
        n, " tasks declared in a file of ", text_size,
        " bytes; a header may declare at most max(2^20, 8 x file size) = ", bound, " tasks"));
  }
  return absl::OkStatus();
}

absl::Status CheckFileAdjacency(const std::vector<EdgeIndex>& xadj,
                                const std::vector<TaskId>& adjncy, const std::vector<Bytes>& adjwgt,
                                const std::vector<int64_t>& vertex_line,
                                absl::FunctionRef<int64_t(TaskId)> vertex_name,
                                const std::string& source) {
  const int64_t n = static_cast<int64_t>(xadj.size()) - 1;
  // Each row's (neighbour, weight) pairs, sorted, so duplicates are adjacent and the
  // reverse edge is found by binary search.
  std::vector<std::pair<TaskId, Bytes>> rows(adjncy.size());
  for (int64_t u = 0; u < n; ++u) {
    for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) rows[e] = {adjncy[e], adjwgt[e]};
    std::sort(rows.begin() + xadj[u], rows.begin() + xadj[u + 1]);
    for (EdgeIndex e = xadj[u] + 1; e < xadj[u + 1]; ++e) {
      if (rows[e].first == rows[e - 1].first) {
        return LineError(source, vertex_line[u],
                         absl::StrCat("vertex ", vertex_name(static_cast<TaskId>(u)),
                                      " lists neighbour ", vertex_name(rows[e].first), " twice"));
      }
    }
  }
  for (int64_t u = 0; u < n; ++u) {
    const auto tu = static_cast<TaskId>(u);
    for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
      const TaskId v = rows[e].first;
      auto begin = rows.begin() + xadj[v];
      auto end = rows.begin() + xadj[v + 1];
      auto it = std::lower_bound(begin, end, std::pair<TaskId, Bytes>(tu, 0));
      if (it == end || it->first != tu) {
        return LineError(
            source, vertex_line[u],
            absl::StrCat("the graph is not symmetric: vertex ", vertex_name(tu),
                         " lists neighbour ", vertex_name(v), " but vertex ", vertex_name(v),
                         " (line ", vertex_line[v], ") does not list ", vertex_name(tu)));
      }
      if (it->second != rows[e].second) {
        return LineError(
            source, vertex_line[u],
            absl::StrCat("the graph is not symmetric: edge ", vertex_name(tu), "-", vertex_name(v),
                         " weighs ", rows[e].second, " but edge ", vertex_name(v), "-",
                         vertex_name(tu), " (line ", vertex_line[v], ") weighs ", it->second));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status EmptyGraphError(const std::string& source) {
  return SourceError(source, "the graph is empty: no tasks");
}

bool OnlyBlankOrCommentLines(absl::string_view text, char comment) {
  LineReader reader(text, "");
  absl::string_view line;
  while (reader.Next(&line)) {
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (!stripped.empty() && stripped.front() != comment) return false;
  }
  return true;
}

absl::Status WithSource(const std::string& source, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(source, ": ", status.message()));
}

}  // namespace io_internal
}  // namespace hopmap
