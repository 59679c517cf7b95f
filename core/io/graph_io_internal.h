// Internal to core/io: the per-format readers and writers behind ParseGraph and
// FormatGraph (graph_format.h), and the checks they share. Not a public API.
#ifndef HOPMAP_CORE_IO_GRAPH_IO_INTERNAL_H_
#define HOPMAP_CORE_IO_GRAPH_IO_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph/task_graph.h"
#include "core/types.h"

namespace hopmap {
namespace io_internal {

// Readers: `source` names the text in error messages.
absl::StatusOr<TaskGraph> ParseMatrixMarket(absl::string_view text, const std::string& source);
absl::StatusOr<TaskGraph> ParseMetisGraph(absl::string_view text, const std::string& source);
absl::StatusOr<TaskGraph> ParseScotchGraph(absl::string_view text, const std::string& source);
absl::StatusOr<TaskGraph> ParseEdgeList(absl::string_view text, const std::string& source);
absl::StatusOr<TaskGraph> ParseDenseMatrix(absl::string_view text, const std::string& source);

// Writers (see FormatGraph in graph_format.h).
std::string FormatMatrixMarket(const TaskGraph& g);
std::string FormatMetisGraph(const TaskGraph& g);
std::string FormatScotchGraph(const TaskGraph& g);
std::string FormatEdgeList(const TaskGraph& g);
std::string FormatDenseMatrix(const TaskGraph& g);

// `token` in single quotes for a message, cut to 40 characters.
std::string Quote(absl::string_view token);

// A whole token as a base-10 integer (optional sign); false if it is not one or
// does not fit in 64 bits.
bool ParseInteger(absl::string_view token, int64_t* out);

// A weight in bytes: a non-negative integer, or with `allow_real` also a finite
// non-negative real number up to 9.2e18, rounded to the nearest integer. The error
// message (without file and line) names the token: wrap it with the position.
absl::Status ParseWeight(absl::string_view token, bool allow_real, Bytes* out);

// A task count a header declares: at most kMaxTasks, and at most
// max(2^20, 8 x text_size) so a hostile header cannot make the reader allocate
// without bound. The error message (without position) says which limit.
absl::Status CheckDeclaredTasks(int64_t n, size_t text_size);

// Checks adjacency lists read from a METIS or Scotch file (ranges and self loops
// already checked) so that the error names a line: no neighbour twice in one
// list, and every edge u-v is listed by v too, with the same weight.
// vertex_line[u] is the line where u's list starts; vertex_name(u) is u as the file
// numbers it (1-based for METIS, baseval or label for Scotch).
absl::Status CheckFileAdjacency(const std::vector<EdgeIndex>& xadj,
                                const std::vector<TaskId>& adjncy, const std::vector<Bytes>& adjwgt,
                                const std::vector<int64_t>& vertex_line,
                                absl::FunctionRef<int64_t(TaskId)> vertex_name,
                                const std::string& source);

// "SOURCE: the graph is empty: no tasks" (InvalidArgument): every reader's answer to
// a text without a task: nothing but blank and comment lines (a zero-byte file
// included), or a header of 0 tasks. ParseGraph gives it for any graph of 0 tasks.
absl::Status EmptyGraphError(const std::string& source);

// True when every line of `text` is blank or starts, after blanks, with `comment`.
bool OnlyBlankOrCommentLines(absl::string_view text, char comment);

// Prefixes a status's message with "SOURCE: " (keeping its code); OK stays OK.
absl::Status WithSource(const std::string& source, const absl::Status& status);

}  // namespace io_internal
}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_GRAPH_IO_INTERNAL_H_
