// Task-graph file formats: names, detection by extension, readers and writers.
//
// Every reader builds the same TaskGraph (core/graph/task_graph.h): w(u,v) = bytes
// between u and v, both directions summed; self traffic goes to self_bytes().
// Errors are InvalidArgument with "PATH:LINE: what is wrong", or "PATH: ..." when
// not tied to one line (a file that cannot be opened, a count checked at the end).
//
// Formats (these rules are what users are told):
//  - Matrix Market (kMatrixMarket): "%%MatrixMarket matrix coordinate F S" with F in
//    {integer, real, pattern} and S in {general, symmetric}; 1-based, square.
//    general: each entry (i,j,a) is a bytes from i to j. symmetric: an off-diagonal
//    entry stands for A(i,j) and A(j,i), i.e. 2a bytes between i and j, so a
//    symmetric file and its general expansion give the same graph. The diagonal is
//    self traffic. pattern weighs 1; real is rounded to the nearest integer.
//  - METIS (kMetis): "n m [fmt [ncon]]", then one line per vertex (a blank line is a
//    vertex without neighbours), 1-based, '%' comments. Vertex sizes and weights are
//    skipped; without edge weights every edge weighs 1. No self loops.
//  - Scotch source graph (kScotch): version 0, "vertnbr edgenbr" (edgenbr counts
//    arcs, 2 per edge), "baseval flags" (flags "abc": a labels, b edge weights,
//    c vertex weights), then per vertex [label] [weight] degree {[weight] neighbour}.
//    With labels, neighbours are labels. Tokens may be spread over lines freely.
//  - Edge list (kEdgeList): "u v [w]" per line, 0-based, w defaults to 1, '#'
//    comments. n = max id + 1 unless a comment declares it ("# tasks: N", or
//    "vertices=N" anywhere in a comment). "t t w" is self traffic.
//  - Dense matrix (kDense): a square matrix of non-negative numbers separated by
//    commas and/or whitespace; row i = sender, column j = receiver; w(i,j) = M[i][j]
//    + M[j][i]; the diagonal is self traffic; reals are rounded to the nearest
//    integer. An optional first row of names is skipped when none of its cells is
//    a number. '#' comment lines and blank lines are skipped.
//
// A job has at least one task: a text without one is refused in every format with
// "PATH: the graph is empty: no tasks": a zero-byte file, nothing but blank and
// comment lines (in Matrix Market, also a valid banner without a size line), a
// header of 0 tasks, an edge list of "# tasks: 0", a dense matrix without rows. An
// edge list of "# tasks: 5" and no edges is 5 isolated tasks.
//
// A header that declares the number of tasks (Matrix Market, edge list) may declare
// at most max(2^20, 8 x file size in bytes) of them, so a hostile header cannot make
// the reader allocate without bound. Other sizes are grown as the file is read.
#ifndef HOPMAP_CORE_IO_GRAPH_FORMAT_H_
#define HOPMAP_CORE_IO_GRAPH_FORMAT_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph/task_graph.h"

namespace hopmap {

enum class GraphFormat { kMatrixMarket, kMetis, kScotch, kEdgeList, kDense };

// Names accepted on the command line (case-insensitive): "mm"/"mtx"/"matrix-market",
// "metis"/"graph", "scotch"/"grf", "edgelist"/"edges", "dense"/"csv". The error
// lists the accepted names.
absl::StatusOr<GraphFormat> ParseGraphFormat(absl::string_view name);

// The canonical name: "mm", "metis", "scotch", "edgelist", "dense".
std::string GraphFormatName(GraphFormat f);

// By extension, case-insensitive: .mtx/.mm -> kMatrixMarket, .graph/.metis -> kMetis,
// .grf/.src -> kScotch, .edgelist/.edges/.el/.txt -> kEdgeList, .csv/.dense/.mat ->
// kDense. Otherwise an error that says to pass --graph-format.
absl::StatusOr<GraphFormat> GraphFormatFromPath(const std::string& path);

// Reads a graph file; `format` nullopt means by extension.
absl::StatusOr<TaskGraph> ReadGraph(const std::string& path,
                                    std::optional<GraphFormat> format = std::nullopt);

// The same from text in memory; `source_name` stands in for the path in messages.
absl::StatusOr<TaskGraph> ParseGraph(absl::string_view text, GraphFormat format,
                                     const std::string& source_name);

// Text in `format` that the matching reader reads back to an identical graph
// (same xadj/adjncy/adjwgt/self_bytes), except that METIS and Scotch files cannot
// hold self traffic: there self_bytes() is dropped (a comment in the METIS file
// says how much). The others write self_bytes() as self traffic of task 0 (a
// diagonal entry "1 1 s", an edge "0 0 s", M[0][0] = s). Writers:
//  - Matrix Market "coordinate integer general", each undirected edge once (u < v).
//  - METIS with fmt 001 (edge weights), neighbours in CSR order.
//  - Scotch with baseval 0 and flags 010 (edge weights), neighbours in CSR order.
//  - edge list with a "# tasks: N" header and "u v w" lines, u < v.
//  - dense CSV with w(u,v) in the upper triangle (row u < column v) and 0 below, so
//    odd weights survive; n x n cells, so only for small graphs.
// The readers of Matrix Market, edge lists and dense matrices sort each row by
// neighbour, so those round trips are exact for graphs with sorted rows (every graph
// TaskGraphBuilder makes).
std::string FormatGraph(const TaskGraph& g, GraphFormat format);

// Writes FormatGraph(g, format) to `path` atomically (a temporary file renamed over it).
absl::Status WriteGraph(const TaskGraph& g, const std::string& path, GraphFormat format);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_GRAPH_FORMAT_H_
