// Matrix Market coordinate files (https://math.nist.gov/MatrixMarket/formats.html).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/io/graph_io_internal.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace io_internal {
namespace {

constexpr absl::string_view kBanner = "%%MatrixMarket";
constexpr absl::string_view kExpectedHeader =
    "'%%MatrixMarket matrix coordinate {integer|real|pattern} {general|symmetric}'";

enum class Field { kInteger, kReal, kPattern };

std::vector<absl::string_view> SplitFields(absl::string_view line) {
  return absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
}

// Blank lines and '%' comments are skipped before the size line and between entries.
bool IsSkipped(absl::string_view line) {
  line = absl::StripLeadingAsciiWhitespace(line);
  return line.empty() || line.front() == '%';
}

// What the header line declares.
struct Header {
  Field field = Field::kInteger;
  bool symmetric = false;
};

// The header's field word (lower case; `word` as written, for messages).
absl::StatusOr<Field> ParseField(const LineReader& reader, const std::string& field_name,
                                 absl::string_view word) {
  if (field_name == "integer") return Field::kInteger;
  if (field_name == "real") return Field::kReal;
  if (field_name == "pattern") return Field::kPattern;
  if (field_name == "complex") {
    return reader.Error(
        "field 'complex' is not supported: weights are bytes; use integer, real or pattern");
  }
  return reader.Error(
      absl::StrCat("field ", Quote(word), " is not supported: use integer, real or pattern"));
}

// Whether the header's symmetry word (lower case; `word` as written, for messages)
// says symmetric.
absl::StatusOr<bool> ParseSymmetry(const LineReader& reader, const std::string& symmetry,
                                   absl::string_view word) {
  if (symmetry == "general") return false;
  if (symmetry == "symmetric") return true;
  if (symmetry == "skew-symmetric" || symmetry == "hermitian") {
    return reader.Error(absl::StrCat("symmetry ", Quote(word),
                                     " is not supported: a communication matrix is "
                                     "non-negative; use general or symmetric"));
  }
  return reader.Error(
      absl::StrCat("symmetry ", Quote(word), " is not supported: use general or symmetric"));
}

// The header "%%MatrixMarket object format field symmetry", case-insensitive: `line`,
// the first line of `text`, which `reader` has just read.
absl::StatusOr<Header> ParseHeader(const LineReader& reader, absl::string_view line,
                                   absl::string_view text, const std::string& source) {
  const std::vector<absl::string_view> header = SplitFields(line);
  if (header.empty() || !absl::EqualsIgnoreCase(header[0], kBanner)) {
    // No banner and nothing but blank and '%' lines: no matrix at all.
    if (OnlyBlankOrCommentLines(text, '%')) return EmptyGraphError(source);
    return reader.Error(absl::StrCat("not a Matrix Market file: the first line must be ",
                                     kExpectedHeader, ", got ", Quote(line)));
  }
  if (header.size() != 5) {
    return reader.Error(absl::StrCat("the header has ", header.size() - 1,
                                     " words after %%MatrixMarket, expected 4: ", kExpectedHeader));
  }
  const std::string object = absl::AsciiStrToLower(header[1]);
  const std::string storage = absl::AsciiStrToLower(header[2]);
  const std::string field_name = absl::AsciiStrToLower(header[3]);
  const std::string symmetry = absl::AsciiStrToLower(header[4]);
  if (object != "matrix") {
    return reader.Error(
        absl::StrCat("object ", Quote(header[1]), " is not supported: a task graph is a 'matrix'"));
  }
  if (storage == "array") {
    return reader.Error(
        "'array' (dense) storage is not supported: use 'coordinate' storage, or save the "
        "matrix as a dense CSV and read it with --graph-format dense");
  }
  if (storage != "coordinate") {
    return reader.Error(
        absl::StrCat("storage ", Quote(header[2]), " is not supported: expected 'coordinate'"));
  }
  Header h;
  absl::StatusOr<Field> field = ParseField(reader, field_name, header[3]);
  if (!field.ok()) return field.status();
  h.field = *field;
  absl::StatusOr<bool> symmetric = ParseSymmetry(reader, symmetry, header[4]);
  if (!symmetric.ok()) return symmetric.status();
  h.symmetric = *symmetric;
  return h;
}

// The size line "M N NNZ" of a square matrix, and where it is.
struct SizeLine {
  int64_t rows = 0;
  int64_t nnz = 0;
  int64_t line = 0;
};

// The size line after comments and blank lines; without one, the banner declares no
// matrix (an empty graph error).
absl::StatusOr<SizeLine> ReadSizeLine(LineReader& reader, const std::string& source) {
  absl::string_view line;
  bool have_size = false;
  while (reader.Next(&line)) {
    if (IsSkipped(line)) continue;
    have_size = true;
    break;
  }
  if (!have_size) return EmptyGraphError(source);
  SizeLine result;
  result.line = reader.line_number();
  const std::vector<absl::string_view> size = SplitFields(line);
  if (size.size() != 3) {
    return reader.Error(absl::StrCat(
        "the size line must be 'rows columns entries' (3 integers), got ", Quote(line)));
  }
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;
  if (!ParseInteger(size[0], &rows) || rows < 0) {
    return reader.Error(
        absl::StrCat("row count ", Quote(size[0]), " is not a non-negative integer"));
  }
  if (!ParseInteger(size[1], &cols) || cols < 0) {
    return reader.Error(
        absl::StrCat("column count ", Quote(size[1]), " is not a non-negative integer"));
  }
  if (!ParseInteger(size[2], &nnz) || nnz < 0) {
    return reader.Error(
        absl::StrCat("entry count ", Quote(size[2]), " is not a non-negative integer"));
  }
  if (rows != cols) {
    return reader.Error(absl::StrCat("the matrix is ", rows, " x ", cols,
                                     ": a communication matrix must be square (tasks x tasks)"));
  }
  if (absl::Status s = CheckDeclaredTasks(rows, reader.text_size()); !s.ok()) {
    return reader.Error(s.message());
  }
  result.rows = rows;
  result.nnz = nnz;
  return result;
}

// The entries after the size line, added to `builder` (of size.rows tasks).
absl::Status ReadEntries(LineReader& reader, const Header& header, const SizeLine& size,
                         TaskGraphBuilder& builder) {
  const auto n = static_cast<TaskId>(size.rows);
  const int64_t nnz = size.nnz;
  const Field field = header.field;
  const size_t expected_fields = field == Field::kPattern ? 2 : 3;
  const absl::string_view expected_entry =
      field == Field::kPattern ? "'row column'" : "'row column value'";
  absl::string_view line;
  int64_t entries = 0;
  while (reader.Next(&line)) {
    if (IsSkipped(line)) continue;
    const std::vector<absl::string_view> f = SplitFields(line);
    if (entries == nnz) {
      return reader.Error(absl::StrCat("more entries than the ", nnz, " the size line (line ",
                                       size.line, ") declares"));
    }
    ++entries;
    if (f.size() < expected_fields) {
      return reader.Error(absl::StrCat("entry ", Quote(line), " has ", f.size(),
                                       " values, expected ", expected_entry));
    }
    if (f.size() > expected_fields) {
      return reader.Error(absl::StrCat("extra value ", Quote(f[expected_fields]),
                                       " after the entry, expected ", expected_entry));
    }
    int64_t i = 0;
    int64_t j = 0;
    if (!ParseInteger(f[0], &i) || i < 1 || i > n) {
      return reader.Error(absl::StrCat("row index ", Quote(f[0]), " is out of range [1, ", n, "]"));
    }
    if (!ParseInteger(f[1], &j) || j < 1 || j > n) {
      return reader.Error(
          absl::StrCat("column index ", Quote(f[1]), " is out of range [1, ", n, "]"));
    }
    Bytes w = 1;
    if (field != Field::kPattern) {
      if (absl::Status s = ParseWeight(f[2], field == Field::kReal, &w); !s.ok()) {
        return reader.Error(s.message());
      }
    }
    // Symmetric storage: (i,j) stands for A(i,j) and A(j,i), traffic both ways.
    if (header.symmetric && i != j && __builtin_mul_overflow(w, 2, &w)) {
      return reader.Error(absl::StrCat("weight ", Quote(f[2]),
                                       " overflows 64 bits when counted both ways (symmetric)"));
    }
    if (absl::Status s =
            builder.AddTraffic(static_cast<TaskId>(i - 1), static_cast<TaskId>(j - 1), w);
        !s.ok()) {
      return reader.Error(s.message());
    }
  }
  if (entries < nnz) {
    return reader.FileError(absl::StrCat("the size line (line ", size.line, ") declares ", nnz,
                                         " entries but the file ends after ", entries));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TaskGraph> ParseMatrixMarket(absl::string_view text, const std::string& source) {
  LineReader reader(text, source);
  absl::string_view line;
  if (!reader.Next(&line)) return EmptyGraphError(source);
  absl::StatusOr<Header> header = ParseHeader(reader, line, text, source);
  if (!header.ok()) return header.status();
  absl::StatusOr<SizeLine> size = ReadSizeLine(reader, source);
  if (!size.ok()) return size.status();
  TaskGraphBuilder builder(static_cast<TaskId>(size->rows));
  // Each entry takes at least 4 bytes ("1 1\n"): never reserve more than the file holds.
  builder.Reserve(static_cast<size_t>(std::min<int64_t>(size->nnz, reader.text_size() / 4)));
  if (absl::Status s = ReadEntries(reader, *header, *size, builder); !s.ok()) return s;
  absl::StatusOr<TaskGraph> g = std::move(builder).Build();
  if (!g.ok()) return WithSource(source, g.status());
  return g;
}

std::string FormatMatrixMarket(const TaskGraph& g) {
  const TaskId n = g.num_tasks();
  const bool has_self = g.self_bytes() > 0 && n > 0;
  std::string out = "%%MatrixMarket matrix coordinate integer general\n";
  absl::StrAppend(&out,
                  "% hopmap task graph: entry (u,v,w) = w bytes between tasks u and v, each "
                  "undirected edge once (u < v)\n");
  if (has_self) {
    absl::StrAppend(&out, "% entry (1,1) holds all self traffic (", g.self_bytes(),
                    " bytes), whichever tasks sent it\n");
  }
  absl::StrAppend(&out, n, " ", n, " ", g.num_edges() + (has_self ? 1 : 0), "\n");
  if (has_self) absl::StrAppend(&out, "1 1 ", g.self_bytes(), "\n");
  for (TaskId u = 0; u < n; ++u) {
    g.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v) absl::StrAppend(&out, u + 1, " ", v + 1, " ", w, "\n");
    });
  }
  return out;
}

}  // namespace io_internal
}  // namespace hopmap
