// Dense communication matrices (profiler output, MapLib's CSVs): row i = sender i,
// column j = receiver j, cells separated by commas and/or whitespace.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/io/graph_io_internal.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace io_internal {
namespace {

// Splits a row into cells: commas separate cells, and so does whitespace inside a
// comma-separated piece. One trailing comma is allowed; any other empty cell is an
// error naming its 1-based column.
absl::Status SplitCells(absl::string_view line, std::vector<absl::string_view>* cells) {
  cells->clear();
  const std::vector<absl::string_view> pieces = absl::StrSplit(line, ',');
  for (size_t p = 0; p < pieces.size(); ++p) {
    const absl::string_view piece = absl::StripAsciiWhitespace(pieces[p]);
    if (piece.empty()) {
      if (p + 1 == pieces.size() && p > 0) break;  // a trailing comma
      return absl::InvalidArgumentError(absl::StrCat("column ", cells->size() + 1, ": empty cell"));
    }
    for (absl::string_view cell :
         absl::StrSplit(piece, absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      cells->push_back(cell);
    }
  }
  return absl::OkStatus();
}

bool IsNumber(absl::string_view cell) {
  double unused = 0;
  return absl::SimpleAtod(cell, &unused);
}

}  // namespace

absl::StatusOr<TaskGraph> ParseDenseMatrix(absl::string_view text, const std::string& source) {
  LineReader reader(text, source);
  std::vector<absl::string_view> cells;
  std::optional<TaskGraphBuilder> builder;
  int64_t n = 0;  // columns of the first row
  int64_t first_row_line = 0;
  int64_t header_line = 0;  // the line of a header row of names, 0 if none
  int64_t header_cells = 0;
  int64_t rows = 0;
  absl::string_view line;
  while (reader.Next(&line)) {
    const absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (stripped.empty() || stripped.front() == '#') continue;
    if (absl::Status s = SplitCells(line, &cells); !s.ok()) return reader.Error(s.message());
    if (rows == 0 && header_line == 0 && !builder.has_value()) {
      bool any_number = false;
      for (absl::string_view cell : cells) any_number = any_number || IsNumber(cell);
      if (!any_number) {  // a header row of names
        header_line = reader.line_number();
        header_cells = static_cast<int64_t>(cells.size());
        continue;
      }
    }
    const int64_t width = static_cast<int64_t>(cells.size());
    if (!builder.has_value()) {
      if (header_line != 0 && width != header_cells) {
        return reader.Error(absl::StrCat("row 1 has ", width, " columns but the header (line ",
                                         header_line, ") has ", header_cells, " names"));
      }
      if (width > kMaxTasks) {
        return reader.Error(
            absl::StrCat(width, " columns is more than hopmap accepts (", kMaxTasks, ")"));
      }
      n = width;
      first_row_line = reader.line_number();
      builder.emplace(static_cast<TaskId>(n));
    } else if (width != n) {
      return reader.Error(absl::StrCat("row ", rows + 1, " has ", width,
                                       " columns but row 1 (line ", first_row_line, ") has ", n,
                                       " (ragged matrix)"));
    }
    if (rows == n) {
      return reader.Error(absl::StrCat("more than ", n,
                                       " rows: the matrix must be square (row 1, "
                                       "line ",
                                       first_row_line, ", has ", n, " columns)"));
    }
    for (int64_t c = 0; c < width; ++c) {
      Bytes w = 0;
      if (absl::Status s = ParseWeight(cells[c], /*allow_real=*/true, &w); !s.ok()) {
        return reader.Error(absl::StrCat("row ", rows + 1, ", column ", c + 1, ": ", s.message()));
      }
      if (absl::Status s =
              builder->AddTraffic(static_cast<TaskId>(rows), static_cast<TaskId>(c), w);
          !s.ok()) {
        return reader.Error(absl::StrCat("row ", rows + 1, ", column ", c + 1, ": ", s.message()));
      }
    }
    ++rows;
  }
  if (rows != n) {
    return reader.FileError(absl::StrCat("the matrix has ", rows, " rows of ", n,
                                         " columns: it must be square (tasks x tasks)"));
  }
  if (!builder.has_value()) builder.emplace(0);  // no rows: an empty graph
  absl::StatusOr<TaskGraph> g = std::move(*builder).Build();
  if (!g.ok()) return WithSource(source, g.status());
  return g;
}

std::string FormatDenseMatrix(const TaskGraph& g) {
  const TaskId n = g.num_tasks();
  std::string out;
  std::vector<Bytes> row(n, 0);
  for (TaskId u = 0; u < n; ++u) {
    // Upper triangle only, so odd weights need not be split; the reader adds
    // M[u][v] + M[v][u]. M[0][0] holds all self traffic.
    g.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v) row[v] = w;
    });
    if (u == 0) row[0] = g.self_bytes();
    for (TaskId v = 0; v < n; ++v) {
      if (v > 0) out += ',';
      absl::StrAppend(&out, row[v]);
      row[v] = 0;
    }
    out += '\n';
  }
  return out;
}

}  // namespace io_internal
}  // namespace hopmap
