// METIS graph files (METIS 5 manual, section 4.1.1).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/io/graph_io_internal.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace io_internal {
namespace {

std::vector<absl::string_view> SplitFields(absl::string_view line) {
  return absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
}

bool IsComment(absl::string_view line) {
  line = absl::StripLeadingAsciiWhitespace(line);
  return !line.empty() && line.front() == '%';
}

bool IsBlank(absl::string_view line) { return absl::StripAsciiWhitespace(line).empty(); }

}  // namespace

absl::StatusOr<TaskGraph> ParseMetisGraph(absl::string_view text, const std::string& source) {
  LineReader reader(text, source);
  absl::string_view line;
  bool have_header = false;
  while (reader.Next(&line)) {
    if (IsComment(line) || IsBlank(line)) continue;
    have_header = true;
    break;
  }
  if (!have_header) return EmptyGraphError(source);  // only comments and blank lines
  const int64_t header_line = reader.line_number();
  const std::vector<absl::string_view> header = SplitFields(line);
  if (header.size() < 2 || header.size() > 4) {
    return reader.Error(
        absl::StrCat("the header must be 'vertices edges [fmt [ncon]]', got ", Quote(line)));
  }
  int64_t n = 0;
  int64_t m = 0;
  if (!ParseInteger(header[0], &n) || n < 0) {
    return reader.Error(
        absl::StrCat("vertex count ", Quote(header[0]), " is not a non-negative integer"));
  }
  if (n > kMaxTasks) {
    return reader.Error(
        absl::StrCat("vertex count ", n, " is more than hopmap accepts (", kMaxTasks, ")"));
  }
  if (!ParseInteger(header[1], &m) || m < 0 || m > (int64_t{1} << 61)) {
    return reader.Error(
        absl::StrCat("edge count ", Quote(header[1]), " is not a non-negative integer"));
  }
  bool has_sizes = false;
  bool has_vertex_weights = false;
  bool has_edge_weights = false;
  int64_t ncon = 1;
  if (header.size() >= 3) {
    const absl::string_view fmt = header[2];
    if (fmt.empty() || fmt.size() > 3 || fmt.find_first_not_of("01") != absl::string_view::npos) {
      return reader.Error(absl::StrCat("fmt ", Quote(fmt),
                                       " must be up to 3 digits 0/1 (vertex sizes, vertex weights, "
                                       "edge weights), e.g. 001"));
    }
    const std::string digits = std::string(3 - fmt.size(), '0') + std::string(fmt);
    has_sizes = digits[0] == '1';
    has_vertex_weights = digits[1] == '1';
    has_edge_weights = digits[2] == '1';
  }
  if (header.size() == 4) {
    if (!ParseInteger(header[3], &ncon) || ncon < 1 || ncon > 1000000) {
      return reader.Error(absl::StrCat("ncon ", Quote(header[3]),
                                       " (vertex weights per vertex) must be a positive integer"));
    }
  }
  if (!has_vertex_weights) ncon = 0;

  // CSR grown line by line: nothing is sized from the header.
  std::vector<EdgeIndex> xadj = {0};
  std::vector<TaskId> adjncy;
  std::vector<Bytes> adjwgt;
  std::vector<int64_t> vertex_line;
  while (reader.Next(&line)) {
    if (IsComment(line)) continue;
    const int64_t u = static_cast<int64_t>(xadj.size()) - 1;  // this line's vertex, 0-based
    if (u == n) {
      if (IsBlank(line)) continue;  // trailing blank lines
      return reader.Error(absl::StrCat("more vertex lines than the ", n,
                                       " vertices the header (line ", header_line, ") declares"));
    }
    const std::vector<absl::string_view> f = SplitFields(line);
    size_t k = 0;
    if (!f.empty()) {
      // Vertex size and weights are checked and skipped: tasks have no weights here.
      const size_t skip = (has_sizes ? 1 : 0) + static_cast<size_t>(ncon);
      if (f.size() < skip) {
        return reader.Error(
            absl::StrCat("vertex ", u + 1, ": expected ", has_sizes ? "its size and " : "", ncon,
                         " vertex weight(s) first (fmt in the header), got ", f.size(), " values"));
      }
      for (; k < skip; ++k) {
        int64_t value = 0;
        if (!ParseInteger(f[k], &value) || value < 0) {
          return reader.Error(absl::StrCat("vertex ", u + 1, ": ",
                                           has_sizes && k == 0 ? "size " : "vertex weight ",
                                           Quote(f[k]), " is not a non-negative integer"));
        }
      }
      if (has_edge_weights && (f.size() - k) % 2 != 0) {
        return reader.Error(absl::StrCat("vertex ", u + 1,
                                         ": neighbours and edge weights must come in pairs "
                                         "'neighbour weight', the last neighbour ",
                                         Quote(f.back()), " has no weight"));
      }
    }
    while (k < f.size()) {
      int64_t v = 0;
      if (!ParseInteger(f[k], &v) || v < 1 || v > n) {
        return reader.Error(absl::StrCat("vertex ", u + 1, ": neighbour ", Quote(f[k]),
                                         " is out of range [1, ", n, "]"));
      }
      if (v == u + 1) {
        return reader.Error(
            absl::StrCat("vertex ", u + 1, " lists itself: METIS graphs cannot have self loops"));
      }
      ++k;
      Bytes w = 1;
      if (has_edge_weights) {
        if (!ParseInteger(f[k], &w) || w <= 0) {
          return reader.Error(absl::StrCat("vertex ", u + 1, ": weight ", Quote(f[k]), " of edge ",
                                           u + 1, "-", v, " must be a positive integer"));
        }
        ++k;
      }
      adjncy.push_back(static_cast<TaskId>(v - 1));
      adjwgt.push_back(w);
    }
    xadj.push_back(static_cast<EdgeIndex>(adjncy.size()));
    vertex_line.push_back(reader.line_number());
  }
  const int64_t found = static_cast<int64_t>(xadj.size()) - 1;
  if (found < n) {
    return reader.FileError(absl::StrCat("the header (line ", header_line, ") declares ", n,
                                         " vertices but the file ends after ", found,
                                         " vertex lines"));
  }
  if (static_cast<int64_t>(adjncy.size()) != 2 * m) {
    return reader.FileError(absl::StrCat(
        "the header (line ", header_line, ") declares ", m, " edges, i.e. ", 2 * m,
        " neighbour entries (each edge is listed by both ends), but the vertex lines list ",
        adjncy.size()));
  }
  if (absl::Status s = CheckFileAdjacency(
          xadj, adjncy, adjwgt, vertex_line, [](TaskId u) { return int64_t{u} + 1; }, source);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<TaskGraph> g =
      TaskGraph::FromCsr(std::move(xadj), std::move(adjncy), std::move(adjwgt));
  if (!g.ok()) return WithSource(source, g.status());
  return g;
}

std::string FormatMetisGraph(const TaskGraph& g) {
  std::string out =
      "% hopmap task graph in METIS format: fmt 001, edge weights = bytes, vertices 1-based\n";
  if (g.self_bytes() > 0) {
    absl::StrAppend(&out, "% self traffic of ", g.self_bytes(),
                    " bytes cannot be written in METIS format and was dropped\n");
  }
  absl::StrAppend(&out, g.num_tasks(), " ", g.num_edges(), " 001\n");
  for (TaskId u = 0; u < g.num_tasks(); ++u) {
    bool first = true;
    g.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      absl::StrAppend(&out, first ? "" : " ", v + 1, " ", w);
      first = false;
    });
    out += '\n';
  }
  return out;
}

}  // namespace io_internal
}  // namespace hopmap
