// Scotch source graph files (.grf; Scotch 7 user's guide, "Source graph files").
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/io/graph_io_internal.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace io_internal {
namespace {

// Reads the next token as an integer; errors name what was expected. At the end of
// the text the error is "SOURCE: unexpected end of file: expected WHAT".
absl::Status NextInteger(TokenReader& reader, absl::string_view what, int64_t* out) {
  absl::string_view token;
  if (!reader.Next(&token)) {
    return reader.FileError(absl::StrCat("unexpected end of file: expected ", what));
  }
  if (!ParseInteger(token, out)) {
    return reader.Error(absl::StrCat(what, ": ", Quote(token), " is not an integer"));
  }
  return absl::OkStatus();
}

// What the header (version, counts, base value and flags) declares.
struct Header {
  int64_t vertnbr = 0;
  int64_t edgenbr = 0;
  int64_t baseval = 0;
  bool has_labels = false;
  bool has_edge_weights = false;
  bool has_vertex_weights = false;
};

// The header's flags, "up to 3 digits 0/1", read into `header`.
absl::Status ReadFlags(TokenReader& reader, Header& header) {
  absl::string_view flags;
  if (!reader.Next(&flags)) {
    return reader.FileError("unexpected end of file: expected the flags (e.g. 000)");
  }
  if (flags.empty() || flags.size() > 3 ||
      flags.find_first_not_of("01") != absl::string_view::npos) {
    return reader.Error(absl::StrCat("flags ", Quote(flags),
                                     " must be up to 3 digits 0/1 (vertex labels, edge weights, "
                                     "vertex weights), e.g. 010"));
  }
  const std::string digits = std::string(3 - flags.size(), '0') + std::string(flags);
  header.has_labels = digits[0] == '1';
  header.has_edge_weights = digits[1] == '1';
  header.has_vertex_weights = digits[2] == '1';
  return absl::OkStatus();
}

absl::StatusOr<Header> ReadHeader(TokenReader& reader) {
  int64_t version = 0;
  if (absl::Status s = NextInteger(reader, "the version number (0)", &version); !s.ok()) return s;
  if (version != 0) {
    return reader.Error(absl::StrCat("Scotch graph file version ", version,
                                     " is not supported: expected 0 (a centralized source graph)"));
  }
  Header header;
  int64_t& vertnbr = header.vertnbr;
  int64_t& edgenbr = header.edgenbr;
  if (absl::Status s = NextInteger(reader, "the vertex count", &vertnbr); !s.ok()) return s;
  if (vertnbr < 0 || vertnbr > kMaxTasks) {
    return reader.Error(
        absl::StrCat("vertex count ", vertnbr, " is out of range [0, ", kMaxTasks, "]"));
  }
  if (absl::Status s = NextInteger(reader, "the arc count", &edgenbr); !s.ok()) return s;
  if (edgenbr < 0 || edgenbr % 2 != 0) {
    return reader.Error(absl::StrCat("arc count ", edgenbr,
                                     " must be even and non-negative (each edge is two arcs)"));
  }
  int64_t& baseval = header.baseval;
  if (absl::Status s = NextInteger(reader, "the base value (0 or 1)", &baseval); !s.ok()) return s;
  if (baseval != 0 && baseval != 1) {
    return reader.Error(absl::StrCat("base value ", baseval, " must be 0 or 1"));
  }
  if (absl::Status s = ReadFlags(reader, header); !s.ok()) return s;
  return header;
}

// The vertex records as the file gives them. Everything grows as the file is read;
// nothing is sized from the header.
struct Records {
  std::vector<EdgeIndex> xadj = {0};
  std::vector<int64_t> ends;  // neighbours as the file gives them (labels or based ids)
  std::vector<Bytes> adjwgt;
  std::vector<int64_t> vertex_line;
  std::vector<int64_t> labels;
};

// The record of vertex u: [label] [weight] degree, then the arcs ([weight] neighbour),
// appended to `records`.
absl::Status ReadVertex(TokenReader& reader, const Header& header, int64_t u, Records& records) {
  const int64_t baseval = header.baseval;
  const int64_t vertnbr = header.vertnbr;
  const int64_t edgenbr = header.edgenbr;
  const std::string vertex = absl::StrCat("vertex ", u + baseval);
  int64_t value = 0;
  int64_t record_line = 0;  // the line of the record's first token
  if (header.has_labels) {
    if (absl::Status s = NextInteger(reader, absl::StrCat("the label of ", vertex), &value);
        !s.ok()) {
      return s;
    }
    records.labels.push_back(value);
    record_line = reader.line_number();
  }
  if (header.has_vertex_weights) {
    const std::string what = absl::StrCat("the weight of ", vertex);
    if (absl::Status s = NextInteger(reader, what, &value); !s.ok()) return s;
    if (value < 0) return reader.Error(absl::StrCat(what, " is negative (", value, ")"));
    if (record_line == 0) record_line = reader.line_number();
  }
  int64_t degree = 0;
  if (absl::Status s = NextInteger(reader, absl::StrCat("the degree of ", vertex), &degree);
      !s.ok()) {
    return s;
  }
  records.vertex_line.push_back(record_line == 0 ? reader.line_number() : record_line);
  if (degree < 0) {
    return reader.Error(absl::StrCat("the degree of ", vertex, " is negative (", degree, ")"));
  }
  if (degree > edgenbr - static_cast<int64_t>(records.ends.size())) {
    return reader.Error(absl::StrCat("the degree ", degree, " of ", vertex,
                                     " takes the arcs past the ", edgenbr, " the header declares"));
  }
  for (int64_t k = 0; k < degree; ++k) {
    Bytes w = 1;
    if (header.has_edge_weights) {
      const std::string what = absl::StrCat("the weight of arc ", k + 1, " of ", vertex);
      if (absl::Status s = NextInteger(reader, what, &w); !s.ok()) return s;
      if (w <= 0) return reader.Error(absl::StrCat(what, " must be positive, got ", w));
    }
    int64_t v = 0;
    const std::string what = absl::StrCat("neighbour ", k + 1, " of ", vertex);
    if (absl::Status s = NextInteger(reader, what, &v); !s.ok()) return s;
    if (!header.has_labels) {
      if (v < baseval || v >= vertnbr + baseval) {
        return reader.Error(absl::StrCat(what, " is ", v, ", out of range [", baseval, ", ",
                                         vertnbr + baseval - 1, "]"));
      }
      if (v == u + baseval) {
        return reader.Error(
            absl::StrCat(vertex, " lists itself: Scotch graphs cannot have self loops"));
      }
    }
    records.ends.push_back(v);
    records.adjwgt.push_back(w);
  }
  records.xadj.push_back(static_cast<EdgeIndex>(records.ends.size()));
  return absl::OkStatus();
}

// Every vertex record the header declares, and nothing after them.
absl::Status ReadVertices(TokenReader& reader, const Header& header, Records& records) {
  for (int64_t u = 0; u < header.vertnbr; ++u) {
    if (absl::Status s = ReadVertex(reader, header, u, records); !s.ok()) return s;
  }
  absl::string_view extra;
  if (reader.Next(&extra)) {
    return reader.Error(absl::StrCat("unexpected ", Quote(extra), " after the last of the ",
                                     header.vertnbr, " vertices the header declares"));
  }
  if (static_cast<int64_t>(records.ends.size()) != header.edgenbr) {
    return reader.FileError(absl::StrCat("the header declares ", header.edgenbr,
                                         " arcs but the vertex degrees add up to ",
                                         records.ends.size()));
  }
  return absl::OkStatus();
}

// The neighbours as vertex ids, from the vertices' labels.
absl::StatusOr<std::vector<TaskId>> ResolveLabels(const Records& records,
                                                  const std::string& source) {
  const std::vector<int64_t>& labels = records.labels;
  const std::vector<int64_t>& vertex_line = records.vertex_line;
  const std::vector<EdgeIndex>& xadj = records.xadj;
  const std::vector<int64_t>& ends = records.ends;
  std::vector<TaskId> adjncy(ends.size());
  absl::flat_hash_map<int64_t, TaskId> index;
  index.reserve(labels.size());
  for (size_t u = 0; u < labels.size(); ++u) {
    auto [it, inserted] = index.emplace(labels[u], static_cast<TaskId>(u));
    if (!inserted) {
      return LineError(source, vertex_line[u],
                       absl::StrCat("label ", labels[u], " is used twice (also line ",
                                    vertex_line[it->second], ")"));
    }
  }
  for (size_t u = 0; u < labels.size(); ++u) {
    for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
      auto it = index.find(ends[e]);
      if (it == index.end()) {
        return LineError(source, vertex_line[u],
                         absl::StrCat("vertex ", labels[u], " lists neighbour ", ends[e],
                                      ", which is no vertex's label"));
      }
      if (it->second == static_cast<TaskId>(u)) {
        return LineError(source, vertex_line[u],
                         absl::StrCat("vertex ", labels[u],
                                      " lists itself: Scotch graphs cannot have self loops"));
      }
      adjncy[e] = it->second;
    }
  }
  return adjncy;
}

}  // namespace

absl::StatusOr<TaskGraph> ParseScotchGraph(absl::string_view text, const std::string& source) {
  TokenReader reader(text, source);
  if (absl::string_view first; !TokenReader(text, source).Next(&first)) {
    return EmptyGraphError(source);  // only blanks: Scotch files have no comments
  }
  absl::StatusOr<Header> header = ReadHeader(reader);
  if (!header.ok()) return header.status();
  Records records;
  if (absl::Status s = ReadVertices(reader, *header, records); !s.ok()) return s;
  const bool has_labels = header->has_labels;
  const int64_t baseval = header->baseval;
  std::vector<TaskId> adjncy;  // one per arc: allocated once, by the branch that fills it
  if (has_labels) {
    absl::StatusOr<std::vector<TaskId>> resolved = ResolveLabels(records, source);
    if (!resolved.ok()) return resolved.status();
    adjncy = *std::move(resolved);
  } else {
    adjncy.resize(records.ends.size());
    for (size_t e = 0; e < records.ends.size(); ++e) {
      adjncy[e] = static_cast<TaskId>(records.ends[e] - baseval);
    }
  }
  records.ends.clear();
  records.ends.shrink_to_fit();
  const std::vector<int64_t>& labels = records.labels;
  auto name = [&](TaskId u) { return has_labels ? labels[u] : int64_t{u} + baseval; };
  if (absl::Status s = CheckFileAdjacency(records.xadj, adjncy, records.adjwgt, records.vertex_line,
                                          name, source);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<TaskGraph> g =
      TaskGraph::FromCsr(std::move(records.xadj), std::move(adjncy), std::move(records.adjwgt));
  if (!g.ok()) return WithSource(source, g.status());
  return g;
}

std::string FormatScotchGraph(const TaskGraph& g) {
  // Scotch files have no comments, so dropped self traffic cannot be noted here.
  std::string out = absl::StrCat("0\n", g.num_tasks(), "\t", 2 * g.num_edges(), "\n0\t010\n");
  for (TaskId u = 0; u < g.num_tasks(); ++u) {
    absl::StrAppend(&out, g.degree(u));
    g.ForEachNeighbor(u, [&](TaskId v, Bytes w) { absl::StrAppend(&out, "\t", w, " ", v); });
    out += '\n';
  }
  return out;
}

}  // namespace io_internal
}  // namespace hopmap
