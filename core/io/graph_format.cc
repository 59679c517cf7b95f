#include "core/io/graph_format.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/io/graph_io_internal.h"
#include "core/io/line_reader.h"

namespace hopmap {

absl::StatusOr<GraphFormat> ParseGraphFormat(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "mm" || lower == "mtx" || lower == "matrix-market") {
    return GraphFormat::kMatrixMarket;
  }
  if (lower == "metis" || lower == "graph") return GraphFormat::kMetis;
  if (lower == "scotch" || lower == "grf") return GraphFormat::kScotch;
  if (lower == "edgelist" || lower == "edges") return GraphFormat::kEdgeList;
  if (lower == "dense" || lower == "csv") return GraphFormat::kDense;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown graph format ", io_internal::Quote(name),
      "; accepted: mm, mtx, matrix-market, metis, graph, scotch, grf, edgelist, edges, dense, "
      "csv"));
}

std::string GraphFormatName(GraphFormat f) {
  switch (f) {
    case GraphFormat::kMatrixMarket:
      return "mm";
    case GraphFormat::kMetis:
      return "metis";
    case GraphFormat::kScotch:
      return "scotch";
    case GraphFormat::kEdgeList:
      return "edgelist";
    case GraphFormat::kDense:
      return "dense";
  }
  return "unknown";
}

absl::StatusOr<GraphFormat> GraphFormatFromPath(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const absl::string_view base = slash == std::string::npos
                                     ? absl::string_view(path)
                                     : absl::string_view(path).substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  if (dot == absl::string_view::npos || dot == 0 || dot + 1 == base.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": cannot tell the graph format: the file name has no extension; pass "
                     "--graph-format (mm, metis, scotch, edgelist or dense)"));
  }
  const std::string ext = absl::AsciiStrToLower(base.substr(dot + 1));
  if (ext == "mtx" || ext == "mm") return GraphFormat::kMatrixMarket;
  if (ext == "graph" || ext == "metis") return GraphFormat::kMetis;
  if (ext == "grf" || ext == "src") return GraphFormat::kScotch;
  if (ext == "edgelist" || ext == "edges" || ext == "el" || ext == "txt") {
    return GraphFormat::kEdgeList;
  }
  if (ext == "csv" || ext == "dense" || ext == "mat") return GraphFormat::kDense;
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": cannot tell the graph format from the extension '.", ext,
      "' (known: .mtx .mm .graph .metis .grf .src .edgelist .edges .el .txt .csv .dense .mat); "
      "pass --graph-format (mm, metis, scotch, edgelist or dense)"));
}

namespace {

absl::StatusOr<TaskGraph> ParseByFormat(absl::string_view text, GraphFormat format,
                                        const std::string& source_name) {
  switch (format) {
    case GraphFormat::kMatrixMarket:
      return io_internal::ParseMatrixMarket(text, source_name);
    case GraphFormat::kMetis:
      return io_internal::ParseMetisGraph(text, source_name);
    case GraphFormat::kScotch:
      return io_internal::ParseScotchGraph(text, source_name);
    case GraphFormat::kEdgeList:
      return io_internal::ParseEdgeList(text, source_name);
    case GraphFormat::kDense:
      return io_internal::ParseDenseMatrix(text, source_name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(source_name, ": unknown graph format ", static_cast<int>(format)));
}

}  // namespace

absl::StatusOr<TaskGraph> ParseGraph(absl::string_view text, GraphFormat format,
                                     const std::string& source_name) {
  absl::StatusOr<TaskGraph> g = ParseByFormat(text, format, source_name);
  // The readers refuse a file without data themselves; this is the rest: a header
  // of 0 tasks ("0 0 0", "# tasks: 0") or an edge list or matrix without a row. A
  // job has at least one task.
  if (g.ok() && g->num_tasks() == 0) return io_internal::EmptyGraphError(source_name);
  return g;
}

absl::StatusOr<TaskGraph> ReadGraph(const std::string& path, std::optional<GraphFormat> format) {
  if (!format.has_value()) {
    absl::StatusOr<GraphFormat> detected = GraphFormatFromPath(path);
    if (!detected.ok()) return detected.status();
    format = *detected;
  }
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return ParseGraph(*text, *format, path);
}

std::string FormatGraph(const TaskGraph& g, GraphFormat format) {
  switch (format) {
    case GraphFormat::kMatrixMarket:
      return io_internal::FormatMatrixMarket(g);
    case GraphFormat::kMetis:
      return io_internal::FormatMetisGraph(g);
    case GraphFormat::kScotch:
      return io_internal::FormatScotchGraph(g);
    case GraphFormat::kEdgeList:
      return io_internal::FormatEdgeList(g);
    case GraphFormat::kDense:
      return io_internal::FormatDenseMatrix(g);
  }
  return "";
}

absl::Status WriteGraph(const TaskGraph& g, const std::string& path, GraphFormat format) {
  return WriteFileAtomically(path, FormatGraph(g, format));
}

}  // namespace hopmap
