#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/io/graph_format.h"
#include "core/io/line_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// Parses `text`; fails the test (and returns an empty graph) on an error.
TaskGraph MustParse(const std::string& text, GraphFormat format) {
  absl::StatusOr<TaskGraph> g = ParseGraph(text, format, "test-input");
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return TaskGraph();
  return std::move(*g);
}

// The error message of parsing `text` as `source`, or "" if it parsed.
std::string ParseError(const std::string& text, GraphFormat format, const std::string& source) {
  absl::StatusOr<TaskGraph> g = ParseGraph(text, format, source);
  if (g.ok()) return "";
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
  return std::string(g.status().message());
}

void ExpectSameGraph(const TaskGraph& a, const TaskGraph& b) {
  EXPECT_EQ(a.num_tasks(), b.num_tasks());
  EXPECT_THAT(a.xadj(), ElementsAreArray(b.xadj()));
  EXPECT_THAT(a.adjncy(), ElementsAreArray(b.adjncy()));
  EXPECT_THAT(a.adjwgt(), ElementsAreArray(b.adjwgt()));
  EXPECT_EQ(a.total_bytes(), b.total_bytes());
}

std::string WriteTemp(const std::string& name, const std::string& contents) {
  const std::string path = hopmap::testing::TempPath(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

// ---------------------------------------------------------------- format names

TEST(GraphFormatTest, ParsesNames) {
  const std::map<std::string, GraphFormat> names = {{"mm", GraphFormat::kMatrixMarket},
                                                    {"mtx", GraphFormat::kMatrixMarket},
                                                    {"matrix-market", GraphFormat::kMatrixMarket},
                                                    {"metis", GraphFormat::kMetis},
                                                    {"graph", GraphFormat::kMetis},
                                                    {"scotch", GraphFormat::kScotch},
                                                    {"grf", GraphFormat::kScotch},
                                                    {"edgelist", GraphFormat::kEdgeList},
                                                    {"edges", GraphFormat::kEdgeList},
                                                    {"dense", GraphFormat::kDense},
                                                    {"csv", GraphFormat::kDense},
                                                    {"METIS", GraphFormat::kMetis}};
  for (const auto& [name, format] : names) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(name);
    ASSERT_TRUE(f.ok()) << name << ": " << f.status();
    EXPECT_EQ(*f, format) << name;
  }
  EXPECT_EQ(GraphFormatName(GraphFormat::kMatrixMarket), "mm");
  EXPECT_EQ(GraphFormatName(GraphFormat::kMetis), "metis");
  EXPECT_EQ(GraphFormatName(GraphFormat::kScotch), "scotch");
  EXPECT_EQ(GraphFormatName(GraphFormat::kEdgeList), "edgelist");
  EXPECT_EQ(GraphFormatName(GraphFormat::kDense), "dense");
  for (GraphFormat f : {GraphFormat::kMatrixMarket, GraphFormat::kMetis, GraphFormat::kScotch,
                        GraphFormat::kEdgeList, GraphFormat::kDense}) {
    absl::StatusOr<GraphFormat> back = ParseGraphFormat(GraphFormatName(f));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, f);
  }
}

TEST(GraphFormatTest, UnknownNameListsAcceptedNames) {
  absl::StatusOr<GraphFormat> f = ParseGraphFormat("xml");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(Msg(f.status()), HasSubstr("'xml'"));
  EXPECT_THAT(Msg(f.status()),
              HasSubstr("mm, mtx, matrix-market, metis, graph, scotch, grf, edgelist, edges, "
                        "dense, csv"));
}

TEST(GraphFormatTest, DetectsByExtension) {
  const std::map<std::string, GraphFormat> paths = {
      {"a.mtx", GraphFormat::kMatrixMarket},  {"/x/y/A.MM", GraphFormat::kMatrixMarket},
      {"g.graph", GraphFormat::kMetis},       {"g.Metis", GraphFormat::kMetis},
      {"g.grf", GraphFormat::kScotch},        {"g.src", GraphFormat::kScotch},
      {"g.edgelist", GraphFormat::kEdgeList}, {"g.edges", GraphFormat::kEdgeList},
      {"g.el", GraphFormat::kEdgeList},       {"dir.v2/g.txt", GraphFormat::kEdgeList},
      {"m.csv", GraphFormat::kDense},         {"m.dense", GraphFormat::kDense},
      {"m.MAT", GraphFormat::kDense}};
  for (const auto& [path, format] : paths) {
    absl::StatusOr<GraphFormat> f = GraphFormatFromPath(path);
    ASSERT_TRUE(f.ok()) << path << ": " << f.status();
    EXPECT_EQ(*f, format) << path;
  }
}

TEST(GraphFormatTest, UnknownExtensionSaysToPassTheFormat) {
  absl::StatusOr<GraphFormat> f = GraphFormatFromPath("/data/job.bin");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(Msg(f.status()), StartsWith("/data/job.bin: "));
  EXPECT_THAT(Msg(f.status()), HasSubstr("'.bin'"));
  EXPECT_THAT(Msg(f.status()), HasSubstr("--graph-format"));
  f = GraphFormatFromPath("/data.d/job");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(Msg(f.status()), HasSubstr("no extension"));
  EXPECT_THAT(Msg(f.status()), HasSubstr("--graph-format"));
}

// ---------------------------------------------------------------- Matrix Market

TEST(MatrixMarketTest, GeneralIntegerSumsDirectionsAndKeepsTheDiagonal) {
  const TaskGraph g = MustParse(
      "%%MatrixMarket matrix coordinate integer general\n"
      "% a comment\n"
      "\n"
      "3 3 4\n"
      "1 2 5\n"
      "2 1 3\n"
      "3 3 7\n"
      "1 3 2\n",
      GraphFormat::kMatrixMarket);
  EXPECT_EQ(g.num_tasks(), 3);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 2, 3, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 2, 0, 0));
  EXPECT_THAT(g.adjwgt(), ElementsAre(8, 2, 8, 2));
  EXPECT_EQ(g.self_bytes(), 7);
  EXPECT_EQ(g.total_bytes(), 10);
}

TEST(MatrixMarketTest, SymmetricRealCountsOffDiagonalBothWaysAndRounds) {
  // 2.4 -> 2 and 1.5 -> 2, then x2 for the two directions; the diagonal once.
  const TaskGraph g = MustParse(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 3\n"
      "2 1 2.4\n"
      "3 2 1.5\n"
      "1 1 4e0\n",
      GraphFormat::kMatrixMarket);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 3, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 0, 2, 1));
  EXPECT_THAT(g.adjwgt(), ElementsAre(4, 4, 4, 4));
  EXPECT_EQ(g.self_bytes(), 4);
}

TEST(MatrixMarketTest, SymmetricPatternEqualsItsGeneralExpansion) {
  const TaskGraph sym =
      MustParse("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n4 2\n3 3\n",
                GraphFormat::kMatrixMarket);
  const TaskGraph gen = MustParse(
      "%%MatrixMarket matrix coordinate pattern general\n4 4 5\n2 1\n1 2\n4 2\n2 4\n3 3\n",
      GraphFormat::kMatrixMarket);
  EXPECT_THAT(sym.xadj(), ElementsAre(0, 1, 3, 3, 4));
  EXPECT_THAT(sym.adjncy(), ElementsAre(1, 0, 3, 1));
  EXPECT_THAT(sym.adjwgt(), ElementsAre(2, 2, 2, 2));
  EXPECT_EQ(sym.self_bytes(), 1);
  ExpectSameGraph(sym, gen);
  EXPECT_EQ(sym.self_bytes(), gen.self_bytes());
}

TEST(MatrixMarketTest, ErrorsNameFileAndLine) {
  const auto mm = GraphFormat::kMatrixMarket;
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n", mm, "a.mtx"),
      AllOf(StartsWith("a.mtx:1: "), HasSubstr("'array'")));
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate complex general\n1 1 0\n", mm, "a.mtx"),
              AllOf(StartsWith("a.mtx:1: "), HasSubstr("complex")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n", mm, "a.mtx"),
      AllOf(StartsWith("a.mtx:1: "), HasSubstr("skew-symmetric")));
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", mm, "a.mtx"),
              AllOf(StartsWith("a.mtx:1: "), HasSubstr("hermitian")));
  EXPECT_THAT(ParseError("1 2 3\n", mm, "a.mtx"),
              AllOf(StartsWith("a.mtx:1: "), HasSubstr("not a Matrix Market file")));
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate\n", mm, "a.mtx"),
              StartsWith("a.mtx:1: the header has 2 words"));
  EXPECT_THAT(ParseError("%%MatrixMarket\n", mm, "a.mtx"),
              StartsWith("a.mtx:1: the header has 0 words"));
  // Not square, after a comment line.
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate integer general\n% c\n3 4 1\n1 2 1\n",
                         mm, "b.mtx"),
              AllOf(StartsWith("b.mtx:3: "), HasSubstr("3 x 4"), HasSubstr("square")));
  // Index out of range.
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n4 1 1\n",
                         mm, "c.mtx"),
              AllOf(StartsWith("c.mtx:4: "), HasSubstr("row index '4'"), HasSubstr("[1, 3]")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 0 1\n", mm, "c.mtx"),
      AllOf(StartsWith("c.mtx:3: "), HasSubstr("column index '0'")));
  // Negative and non-integer weights.
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 3 -2\n",
                         mm, "d.mtx"),
              AllOf(StartsWith("d.mtx:4: "), HasSubstr("'-2'"), HasSubstr("negative")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", mm, "d.mtx"),
      AllOf(StartsWith("d.mtx:3: "), HasSubstr("'1.5'"), HasSubstr("not an integer")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 -0.5\n", mm, "d.mtx"),
      AllOf(StartsWith("d.mtx:3: "), HasSubstr("negative")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n", mm, "d.mtx"),
      AllOf(StartsWith("d.mtx:3: "), HasSubstr("not finite")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1e19\n", mm, "d.mtx"),
      AllOf(StartsWith("d.mtx:3: "), HasSubstr("9.2e18")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 5\n", mm, "d.mtx"),
      AllOf(StartsWith("d.mtx:3: "), HasSubstr("extra value '5'")));
  // Wrong counts: one entry too many (named by its line), too few (end of file).
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1\n2 3 1\n",
                         mm, "e.mtx"),
              AllOf(StartsWith("e.mtx:4: "), HasSubstr("more entries than the 1")));
  EXPECT_THAT(ParseError("%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 1\n2 3 1\n",
                         mm, "e.mtx"),
              AllOf(StartsWith("e.mtx: "), HasSubstr("declares 3 entries"), HasSubstr("after 2")));
  // The banner and comments only: no matrix (EmptyGraphTest has the other empty files).
  EXPECT_EQ(ParseError("%%MatrixMarket matrix coordinate integer general\n% only comments\n", mm,
                       "e.mtx"),
            "e.mtx: the graph is empty: no tasks");
}

TEST(MatrixMarketTest, HostileSizeLineIsRejectedBeforeAllocating) {
  const auto mm = GraphFormat::kMatrixMarket;
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate pattern general\n1000000000000 1000000000000 "
                 "0\n",
                 mm, "h.mtx"),
      AllOf(StartsWith("h.mtx:2: "), HasSubstr("more than hopmap accepts")));
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate pattern general\n100000000 100000000 1\n1 2\n",
                 mm, "h.mtx"),
      AllOf(StartsWith("h.mtx:2: "), HasSubstr("at most max(2^20, 8 x file size)")));
  // A declared entry count far beyond the file is just a count error at the end.
  EXPECT_THAT(
      ParseError("%%MatrixMarket matrix coordinate pattern general\n3 3 4000000000000000000\n1 2\n",
                 mm, "h.mtx"),
      AllOf(StartsWith("h.mtx: "), HasSubstr("ends after 1")));
  // Up to 2^20 tasks are always allowed, even in a tiny file.
  const TaskGraph g =
      MustParse("%%MatrixMarket matrix coordinate pattern general\n1000 1000 0\n", mm);
  EXPECT_EQ(g.num_tasks(), 1000);
  EXPECT_EQ(g.num_edges(), 0);
}

// ---------------------------------------------------------------- METIS

TEST(MetisTest, EdgeWeightsCommentsAndBlankVertexLine) {
  // Vertex 2 has no neighbours: its line is blank.
  const TaskGraph g = MustParse(
      "% a METIS graph\n"
      "4 2 001\n"
      "4 5\n"
      "\n"
      "4 1\n"
      "% a comment between vertex lines\n"
      "1 5 3 1\n",
      GraphFormat::kMetis);
  EXPECT_EQ(g.num_tasks(), 4);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 1, 2, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(3, 3, 0, 2));
  EXPECT_THAT(g.adjwgt(), ElementsAre(5, 1, 5, 1));
  EXPECT_EQ(g.self_bytes(), 0);
}

TEST(MetisTest, SkipsVertexWeightsAndSizes) {
  const TaskGraph g = MustParse("3 2 011 2\n7 8 2 4\n1 1 1 4 3 6\n0 0 2 6\n", GraphFormat::kMetis);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 3, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 0, 2, 1));
  EXPECT_THAT(g.adjwgt(), ElementsAre(4, 4, 6, 6));
  const TaskGraph s = MustParse("2 1 101\n9 2 3\n9 1 3\n", GraphFormat::kMetis);
  EXPECT_THAT(s.adjwgt(), ElementsAre(3, 3));
}

TEST(MetisTest, WithoutEdgeWeightsEveryEdgeWeighsOne) {
  const TaskGraph g = MustParse("3 2\n2\n1 3\n2\n\n\n", GraphFormat::kMetis);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 3, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 0, 2, 1));
  EXPECT_THAT(g.adjwgt(), ElementsAre(1, 1, 1, 1));
}

TEST(MetisTest, ErrorsNameFileAndLine) {
  const auto metis = GraphFormat::kMetis;
  // Vertex 1 lists 2, but 2 lists 3 instead of 1 (counts are right).
  EXPECT_THAT(ParseError("3 1\n2\n3\n\n", metis, "a.graph"),
              AllOf(StartsWith("a.graph:2: "), HasSubstr("not symmetric"),
                    HasSubstr("vertex 1 lists neighbour 2 but vertex 2 (line 3) does not list 1")));
  EXPECT_THAT(ParseError("2 1 001\n2 5\n1 6\n", metis, "a.graph"),
              AllOf(StartsWith("a.graph:2: "), HasSubstr("edge 1-2 weighs 5"),
                    HasSubstr("(line 3) weighs 6")));
  EXPECT_THAT(ParseError("3 2\n2 2\n1 1\n\n", metis, "a.graph"),
              AllOf(StartsWith("a.graph:2: "), HasSubstr("twice")));
  EXPECT_THAT(ParseError("2 1\n1\n2\n", metis, "b.graph"),
              AllOf(StartsWith("b.graph:2: "), HasSubstr("self loop")));
  EXPECT_THAT(ParseError("2 1 1\n2 0\n1 0\n", metis, "b.graph"),
              AllOf(StartsWith("b.graph:2: "), HasSubstr("weight '0'"), HasSubstr("positive")));
  EXPECT_THAT(ParseError("2 1 1\n2 4\n1 -4\n", metis, "b.graph"),
              AllOf(StartsWith("b.graph:3: "), HasSubstr("weight '-4'")));
  EXPECT_THAT(ParseError("2 1 1\n2 4\n1\n", metis, "b.graph"),
              AllOf(StartsWith("b.graph:3: "), HasSubstr("no weight")));
  EXPECT_THAT(ParseError("% c\n3 1\n2\n1 4\n\n", metis, "c.graph"),
              AllOf(StartsWith("c.graph:4: "), HasSubstr("neighbour '4'"), HasSubstr("[1, 3]")));
  // Counts.
  EXPECT_THAT(ParseError("3 2\n2\n1 3\n", metis, "d.graph"),
              AllOf(StartsWith("d.graph: "), HasSubstr("declares 3 vertices"),
                    HasSubstr("after 2 vertex lines")));
  EXPECT_THAT(ParseError("3 3\n2\n1 3\n2\n", metis, "d.graph"),
              AllOf(StartsWith("d.graph: "), HasSubstr("declares 3 edges"), HasSubstr("list 4")));
  EXPECT_THAT(ParseError("2 1\n2\n1\n2\n", metis, "d.graph"),
              AllOf(StartsWith("d.graph:4: "), HasSubstr("more vertex lines than the 2")));
  // Header.
  EXPECT_THAT(ParseError("% c\n3 x\n", metis, "e.graph"),
              AllOf(StartsWith("e.graph:2: "), HasSubstr("edge count 'x'")));
  EXPECT_THAT(ParseError("3 1 012\n", metis, "e.graph"),
              AllOf(StartsWith("e.graph:1: "), HasSubstr("fmt '012'")));
  EXPECT_THAT(ParseError("3\n", metis, "e.graph"), StartsWith("e.graph:1: the header"));
  EXPECT_EQ(ParseError("% only a comment\n", metis, "e.graph"),
            "e.graph: the graph is empty: no tasks");
  EXPECT_THAT(ParseError("3 2 010 2\n5\n1 1 1 3\n1 1 2\n", metis, "f.graph"),
              AllOf(StartsWith("f.graph:2: "), HasSubstr("2 vertex weight(s)")));
  EXPECT_THAT(ParseError("2 1 010\n-5 2\n1 1\n", metis, "f.graph"),
              AllOf(StartsWith("f.graph:2: "), HasSubstr("vertex weight '-5'")));
}

TEST(MetisTest, HostileHeaderDoesNotAllocate) {
  // A billion vertices declared, two lines given: a count error, not an allocation.
  EXPECT_THAT(ParseError("1000000000 1000000000000\n\n\n", GraphFormat::kMetis, "h.graph"),
              AllOf(StartsWith("h.graph: "), HasSubstr("after 2 vertex lines")));
  EXPECT_THAT(ParseError("100000000000 1\n", GraphFormat::kMetis, "h.graph"),
              AllOf(StartsWith("h.graph:1: "), HasSubstr("more than hopmap accepts")));
}

// ---------------------------------------------------------------- Scotch

TEST(ScotchTest, EdgeWeightsBaseZero) {
  const TaskGraph g = MustParse(
      "0\n"
      "4 4\n"
      "0 010\n"
      "1 5 3\n"
      "0\n"
      "1 1 3\n"
      "2 5 0 1 2\n",
      GraphFormat::kScotch);
  EXPECT_EQ(g.num_tasks(), 4);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 1, 2, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(3, 3, 0, 2));
  EXPECT_THAT(g.adjwgt(), ElementsAre(5, 1, 5, 1));
}

TEST(ScotchTest, TokensSpreadOverLines) {
  const TaskGraph g = MustParse("0 4\n4 0 10 1 5\n3 0 1 1 3 2\n5\n0\n1\t2\n", GraphFormat::kScotch);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 1, 2, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(3, 3, 0, 2));
  EXPECT_THAT(g.adjwgt(), ElementsAre(5, 1, 5, 1));
}

TEST(ScotchTest, LabelsMapToIndices) {
  const TaskGraph g = MustParse(
      "0\n3 4\n1 100\n"
      "10 1 30\n"
      "20 1 30\n"
      "30 2 10 20\n",
      GraphFormat::kScotch);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 2, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(2, 2, 0, 1));
  EXPECT_THAT(g.adjwgt(), ElementsAre(1, 1, 1, 1));
}

TEST(ScotchTest, VertexWeightsBaseOne) {
  const TaskGraph g = MustParse("0\n2 2\n1 011\n7 1 3 2\n8 1 3 1\n", GraphFormat::kScotch);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 2));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 0));
  EXPECT_THAT(g.adjwgt(), ElementsAre(3, 3));
}

TEST(ScotchTest, ErrorsNameFileAndLine) {
  const auto scotch = GraphFormat::kScotch;
  EXPECT_THAT(ParseError("1\n2 2\n0 000\n1 1\n1 0\n", scotch, "a.grf"),
              AllOf(StartsWith("a.grf:1: "), HasSubstr("version 1")));
  EXPECT_THAT(ParseError("0\n2 2\n0 000\n1 1\n1 2\n", scotch, "a.grf"),
              AllOf(StartsWith("a.grf:5: "), HasSubstr("out of range [0, 1]")));
  EXPECT_THAT(ParseError("0\n2 2\n0 000\n1\n0\n1 0\n", scotch, "a.grf"),
              AllOf(StartsWith("a.grf:5: "), HasSubstr("lists itself")));
  EXPECT_THAT(ParseError("0\n2 2\n0 010\n1 -3 1\n1 3 0\n", scotch, "a.grf"),
              AllOf(StartsWith("a.grf:4: "), HasSubstr("must be positive, got -3")));
  EXPECT_THAT(ParseError("0\n2 2\n0 010\n1 3 1\n1 4 0\n", scotch, "a.grf"),
              AllOf(StartsWith("a.grf:4: "), HasSubstr("edge 0-1 weighs 3"),
                    HasSubstr("(line 5) weighs 4")));
  EXPECT_THAT(ParseError("0\n3 2\n0 000\n1 1\n0\n1 1\n", scotch, "b.grf"),
              AllOf(StartsWith("b.grf:4: "), HasSubstr("not symmetric")));
  EXPECT_THAT(ParseError("0\n2 4\n0 000\n1 1\n1 0\n", scotch, "b.grf"),
              AllOf(StartsWith("b.grf: "), HasSubstr("declares 4 arcs"), HasSubstr("add up to 2")));
  EXPECT_THAT(ParseError("0\n2 2\n0 000\n3 1 1 1\n", scotch, "b.grf"),
              AllOf(StartsWith("b.grf:4: "), HasSubstr("past the 2")));
  EXPECT_THAT(ParseError("0\n2 2\n0 000\n1 1\n", scotch, "b.grf"),
              AllOf(StartsWith("b.grf: "), HasSubstr("unexpected end of file"),
                    HasSubstr("degree of vertex 1")));
  EXPECT_THAT(ParseError("0\n2 2\n0 000\n1 1\n1 0\n7\n", scotch, "b.grf"),
              AllOf(StartsWith("b.grf:6: "), HasSubstr("unexpected '7'")));
  EXPECT_THAT(ParseError("0\n2 2\n0 0x0\n", scotch, "c.grf"),
              AllOf(StartsWith("c.grf:3: "), HasSubstr("flags '0x0'")));
  EXPECT_THAT(ParseError("0\n2 3\n0 000\n", scotch, "c.grf"),
              AllOf(StartsWith("c.grf:2: "), HasSubstr("must be even")));
  EXPECT_THAT(ParseError("0\n2 2\n0 000\n1 x\n", scotch, "c.grf"),
              AllOf(StartsWith("c.grf:4: "), HasSubstr("'x' is not an integer")));
  // Labels: an unknown label and a duplicate label.
  EXPECT_THAT(
      ParseError("0\n2 2\n0 100\n10 1 20\n30 1 10\n", scotch, "d.grf"),
      AllOf(StartsWith("d.grf:4: "), HasSubstr("neighbour 20, which is no vertex's label")));
  EXPECT_THAT(ParseError("0\n2 2\n0 100\n10 1 10\n20 1 10\n", scotch, "d.grf"),
              AllOf(StartsWith("d.grf:4: "), HasSubstr("lists itself")));
  EXPECT_THAT(ParseError("0\n2 2\n0 100\n10 1 10\n10 1 10\n", scotch, "d.grf"),
              AllOf(StartsWith("d.grf:5: "), HasSubstr("label 10 is used twice (also line 4)")));
}

// ---------------------------------------------------------------- edge list

TEST(EdgeListTest, DeclaredTasksDuplicatesSelfTrafficAndComments) {
  const TaskGraph g = MustParse(
      "# tasks: 5\n"
      "0 1 10\n"
      "1 0 5\n"
      "2 2 7\n"
      "3 1\n"
      "   # an indented comment\n"
      "\n"
      "1\t3 4   # a trailing comment\n",
      GraphFormat::kEdgeList);
  EXPECT_EQ(g.num_tasks(), 5);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 1, 3, 3, 4, 4));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 0, 3, 1));
  EXPECT_THAT(g.adjwgt(), ElementsAre(15, 15, 5, 5));
  EXPECT_EQ(g.self_bytes(), 7);
  EXPECT_EQ(g.total_bytes(), 20);
}

TEST(EdgeListTest, TaskCountFromMaxIdOrVerticesComment) {
  const TaskGraph g = MustParse("0 2\n", GraphFormat::kEdgeList);
  EXPECT_EQ(g.num_tasks(), 3);
  EXPECT_THAT(g.adjwgt(), ElementsAre(1, 1));
  const TaskGraph h =
      MustParse("# converted from 'u , v = w' lines (0-based ranks); vertices=6 edges=1\n0 2 9\n",
                GraphFormat::kEdgeList);
  EXPECT_EQ(h.num_tasks(), 6);
  EXPECT_THAT(h.xadj(), ElementsAre(0, 1, 1, 2, 2, 2, 2));
  EXPECT_THAT(h.adjwgt(), ElementsAre(9, 9));
  // "tasks" inside another word or without a number is not a declaration.
  const TaskGraph k = MustParse("# subtasks: 9\n# tasks: many\n0 1\n", GraphFormat::kEdgeList);
  EXPECT_EQ(k.num_tasks(), 2);
  // No line declares or names a task: no job (EmptyGraphTest).
  EXPECT_EQ(ParseError("", GraphFormat::kEdgeList, "e.edges"),
            "e.edges: the graph is empty: no tasks");
}

// Found by fuzz_graph_edgelist: without a declared count, one large id asked for
// gigabytes of isolated tasks. Ids are held to the bound a declaration has.
TEST(EdgeListTest, HugeIdsInASmallFileAreRefused) {
  absl::StatusOr<TaskGraph> g =
      ParseGraph("0 1 5\n600000000 1 5\n", GraphFormat::kEdgeList, "big.edgelist");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()),
              StartsWith("big.edgelist:2: task id 600000000 makes"));
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("max(2^20, 8 x file size)"));
  // Up to 2^20 tasks are always accepted, whatever the file's size.
  EXPECT_EQ(MustParse("1048575 0 1\n", GraphFormat::kEdgeList).num_tasks(), 1 << 20);
}

// Plain "u v [w]" lines take a fast path; every spelling of the same records must give
// the same graph whichever path reads it (signs and trailing comments take the
// general one).
TEST(EdgeListTest, PlainAndGeneralLinesGiveTheSameGraph) {
  const TaskGraph plain = MustParse("0 1 10\n1 2\n2 3 7\n3 0 0\n", GraphFormat::kEdgeList);
  for (const std::string& text : {
           std::string("  0\t1   10  \n001 2\n2\t\t3\t7\t\n3 0 0\n"),
           std::string("+0 1 10\n1 +2 # c\n2 3 +7\n3 0 0 # c\n"),
           std::string("0 1 10\r\n1 2 1\r\n2 3 7\r\n3 0 000000000000000000\r\n"),
       }) {
    const TaskGraph g = MustParse(text, GraphFormat::kEdgeList);
    EXPECT_EQ(g.xadj(), plain.xadj()) << text;
    EXPECT_EQ(g.adjncy(), plain.adjncy()) << text;
    EXPECT_EQ(g.adjwgt(), plain.adjwgt()) << text;
  }
  EXPECT_EQ(plain.num_tasks(), 4);
  EXPECT_THAT(plain.adjwgt(), ElementsAre(10, 10, 1, 1, 7, 7));
  // An 18-digit weight is read on the fast path, a 19-digit one on the general path.
  EXPECT_THAT(MustParse("0 1 123456789012345678\n", GraphFormat::kEdgeList).adjwgt(),
              ElementsAre(123456789012345678, 123456789012345678));
  EXPECT_THAT(MustParse("0 1 1234567890123456789\n", GraphFormat::kEdgeList).adjwgt(),
              ElementsAre(1234567890123456789, 1234567890123456789));
}

TEST(EdgeListTest, ErrorsNameFileAndLine) {
  const auto el = GraphFormat::kEdgeList;
  EXPECT_THAT(ParseError("# tasks: 3\n0 1 1\n0 3 1\n", el, "a.edgelist"),
              AllOf(StartsWith("a.edgelist:3: "), HasSubstr("task id 3 is out of range [0, 3)"),
                    HasSubstr("line 1")));
  EXPECT_THAT(ParseError("0 5 1\n# tasks: 3\n", el, "a.edgelist"),
              AllOf(StartsWith("a.edgelist:1: "), HasSubstr("task id 5 is out of range [0, 3)")));
  EXPECT_THAT(ParseError("# tasks: 3\n# vertices=4\n", el, "a.edgelist"),
              AllOf(StartsWith("a.edgelist:2: "), HasSubstr("declares 4 tasks but line 1")));
  EXPECT_THAT(ParseError("0 1 2\n1 2 -4\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:2: "), HasSubstr("'-4'"), HasSubstr("negative")));
  EXPECT_THAT(ParseError("0 1 2\n\n1 2 1.5\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:3: "), HasSubstr("'1.5'"), HasSubstr("not an integer")));
  EXPECT_THAT(ParseError("0 1 2 3\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:1: "), HasSubstr("extra token '3'")));
  EXPECT_THAT(ParseError("0 1\n7\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:2: "), HasSubstr("got only '7'")));
  EXPECT_THAT(ParseError("-1 0 2\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:1: "), HasSubstr("task id '-1'")));
  EXPECT_THAT(ParseError("0 x 2\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:1: "), HasSubstr("task id 'x'")));
  EXPECT_THAT(ParseError("0 1 99999999999999999999\n", el, "b.edgelist"),
              AllOf(StartsWith("b.edgelist:1: "), HasSubstr("does not fit in 64 bits")));
  EXPECT_THAT(ParseError("0 1 9223372036854775807\n1 0 1\n", el, "c.edgelist"),
              AllOf(StartsWith("c.edgelist: "), HasSubstr("overflows 64 bits")));
  // Hostile declarations.
  EXPECT_THAT(ParseError("# tasks: 100000000000\n", el, "h.edgelist"),
              AllOf(StartsWith("h.edgelist:1: "), HasSubstr("more than hopmap accepts")));
  EXPECT_THAT(ParseError("# tasks: 100000000\n0 1\n", el, "h.edgelist"),
              AllOf(StartsWith("h.edgelist:1: "), HasSubstr("at most max(2^20")));
}

// ---------------------------------------------------------------- dense

TEST(DenseTest, CsvWithHeaderRowSumsBothDirections) {
  const TaskGraph g = MustParse(
      "rank0,rank1,rank2\n"
      "0,5,1\n"
      "3,2,0\n"
      "0,4,0\n",
      GraphFormat::kDense);
  EXPECT_EQ(g.num_tasks(), 3);
  EXPECT_THAT(g.xadj(), ElementsAre(0, 2, 4, 6));
  EXPECT_THAT(g.adjncy(), ElementsAre(1, 2, 0, 2, 0, 1));
  EXPECT_THAT(g.adjwgt(), ElementsAre(8, 1, 8, 4, 1, 4));
  EXPECT_EQ(g.self_bytes(), 2);
  EXPECT_EQ(g.total_bytes(), 13);
}

TEST(DenseTest, WhitespaceCrlfRealsAndTrailingComma) {
  const TaskGraph g = MustParse("# comment\r\n0 5.4\r\n5 0\r\n", GraphFormat::kDense);
  EXPECT_THAT(g.adjwgt(), ElementsAre(10, 10));
  const TaskGraph h = MustParse("0, 1, 2,\n1 ,0 ,0,\n3\t,0, 0,\n", GraphFormat::kDense);
  EXPECT_THAT(h.xadj(), ElementsAre(0, 2, 3, 4));
  EXPECT_THAT(h.adjwgt(), ElementsAre(2, 5, 2, 5));
}

TEST(DenseTest, ErrorsNameFileLineAndColumn) {
  const auto dense = GraphFormat::kDense;
  EXPECT_THAT(ParseError("0,1,2\n1,0\n2,0,0\n", dense, "a.csv"),
              AllOf(StartsWith("a.csv:2: "), HasSubstr("row 2 has 2 columns"),
                    HasSubstr("row 1 (line 1) has 3")));
  EXPECT_THAT(ParseError("0,1,2\n1,0,3\n2,0,x7\n", dense, "a.csv"),
              AllOf(StartsWith("a.csv:3: "), HasSubstr("row 3, column 3"), HasSubstr("'x7'"),
                    HasSubstr("not a number")));
  EXPECT_THAT(ParseError("a,b\n1,x\n", dense, "a.csv"),
              AllOf(StartsWith("a.csv:2: "), HasSubstr("row 1, column 2")));
  // A first row with one number is data, not a header.
  EXPECT_THAT(ParseError("a,1\n1,0\n", dense, "a.csv"),
              AllOf(StartsWith("a.csv:1: "), HasSubstr("row 1, column 1"), HasSubstr("'a'")));
  EXPECT_THAT(ParseError("a,b,c\n0,1\n1,0\n", dense, "a.csv"),
              AllOf(StartsWith("a.csv:2: "), HasSubstr("header (line 1) has 3 names")));
  EXPECT_THAT(ParseError("0,1,2\n1,0,2\n", dense, "b.csv"),
              AllOf(StartsWith("b.csv: "), HasSubstr("2 rows of 3 columns"), HasSubstr("square")));
  EXPECT_THAT(ParseError("0,1\n1,0\n1,1\n", dense, "b.csv"),
              AllOf(StartsWith("b.csv:3: "), HasSubstr("more than 2 rows")));
  EXPECT_THAT(ParseError("0,1\n-1,0\n", dense, "b.csv"),
              AllOf(StartsWith("b.csv:2: "), HasSubstr("row 2, column 1"), HasSubstr("negative")));
  EXPECT_THAT(ParseError("0,,1\n1,0,0\n0,0,0\n", dense, "b.csv"),
              AllOf(StartsWith("b.csv:1: "), HasSubstr("column 2: empty cell")));
}

// ---------------------------------------------------------------- round trips

// A small irregular graph: an isolated task, an odd weight, a weight above 2^32,
// and self traffic.
TaskGraph IrregularGraph() {
  TaskGraphBuilder b(6);
  EXPECT_TRUE(b.AddTraffic(0, 1, 5).ok());
  EXPECT_TRUE(b.AddTraffic(3, 0, 7).ok());
  EXPECT_TRUE(b.AddTraffic(1, 2, 1).ok());
  EXPECT_TRUE(b.AddTraffic(1, 5, 1000000000001).ok());
  EXPECT_TRUE(b.AddTraffic(2, 3, 3).ok());
  EXPECT_TRUE(b.AddTraffic(5, 3, 9).ok());
  EXPECT_TRUE(b.AddTraffic(2, 2, 11).ok());
  EXPECT_TRUE(b.AddTraffic(4, 4, 2).ok());
  absl::StatusOr<TaskGraph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return std::move(*g);
}

TEST(RoundTripTest, EveryFormatReadsBackTheSameGraph) {
  const TaskGraph g = IrregularGraph();
  ASSERT_EQ(g.num_tasks(), 6);
  ASSERT_EQ(g.num_edges(), 6);
  ASSERT_EQ(g.self_bytes(), 13);
  for (GraphFormat f : {GraphFormat::kMatrixMarket, GraphFormat::kMetis, GraphFormat::kScotch,
                        GraphFormat::kEdgeList, GraphFormat::kDense}) {
    SCOPED_TRACE(GraphFormatName(f));
    const std::string text = FormatGraph(g, f);
    absl::StatusOr<TaskGraph> back = ParseGraph(text, f, "round-trip");
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
    ExpectSameGraph(*back, g);
    // METIS and Scotch files cannot hold self traffic: it is dropped.
    const bool holds_self = f != GraphFormat::kMetis && f != GraphFormat::kScotch;
    EXPECT_EQ(back->self_bytes(), holds_self ? 13 : 0);
  }
}

TEST(RoundTripTest, WritersProduceTheDocumentedText) {
  TaskGraphBuilder b(3);
  ASSERT_TRUE(b.AddTraffic(0, 2, 3).ok());
  ASSERT_TRUE(b.AddTraffic(1, 1, 4).ok());
  absl::StatusOr<TaskGraph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(FormatGraph(*g, GraphFormat::kDense), "4,0,3\n0,0,0\n0,0,0\n");
  EXPECT_THAT(FormatGraph(*g, GraphFormat::kEdgeList), HasSubstr("# tasks: 3\n"));
  EXPECT_THAT(FormatGraph(*g, GraphFormat::kEdgeList), HasSubstr("\n0 0 4\n0 2 3\n"));
  EXPECT_THAT(FormatGraph(*g, GraphFormat::kMatrixMarket),
              AllOf(StartsWith("%%MatrixMarket matrix coordinate integer general\n"),
                    HasSubstr("\n3 3 2\n1 1 4\n1 3 3\n")));
  EXPECT_THAT(FormatGraph(*g, GraphFormat::kMetis), HasSubstr("\n3 1 001\n3 3\n\n1 3\n"));
  EXPECT_EQ(FormatGraph(*g, GraphFormat::kScotch), "0\n3\t2\n0\t010\n1\t3 2\n0\n1\t3 0\n");
}

// ---------------------------------------------------------------- empty graphs

// A job has at least one task: every format refuses a text without one with the same
// message, whether the file is empty, holds only blank and comment lines, or has a
// header of 0 tasks.
TEST(EmptyGraphTest, EveryFormatRefusesAGraphWithoutTasks) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::vector<std::pair<GraphFormat, std::vector<std::string>>> cases = {
      {GraphFormat::kMatrixMarket,
       {"", "\n\n", "  \r\n\t\n", bom, "% only a comment\n",
        "%%MatrixMarket matrix coordinate integer general\n",
        "%%MatrixMarket matrix coordinate integer general\n% c\n\n",
        "%%MatrixMarket matrix coordinate integer general\n0 0 0\n",
        "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n0 0 0\n"}},
      {GraphFormat::kMetis, {"", "\n\n", bom, "% c\n", "%c\n\n  % d\n", "0 0\n", "% c\n0 0 001\n"}},
      {GraphFormat::kScotch, {"", "\n\n", " \t\r\n", bom, "0\n0 0\n0 000\n", "0 0 0 1 010"}},
      {GraphFormat::kEdgeList,
       {"", "\n\n", bom, "# a comment\n", "# tasks: 0\n", "# vertices=0\n\n",
        "# tasks: 0\n# tasks: 0\n"}},
      {GraphFormat::kDense, {"", "\n\n", bom, "# a comment\n\n", "a,b,c\n", "# c\nname\n"}},
  };
  for (const auto& [format, texts] : cases) {
    for (const std::string& text : texts) {
      SCOPED_TRACE(GraphFormatName(format) + ": '" + text + "'");
      EXPECT_EQ(ParseError(text, format, "z.in"), "z.in: the graph is empty: no tasks");
    }
  }
}

TEST(EmptyGraphTest, TasksWithoutTrafficAreAJob) {
  // Declared tasks without edges: isolated tasks, a real (if idle) job.
  EXPECT_EQ(MustParse("# tasks: 5\n", GraphFormat::kEdgeList).num_tasks(), 5);
  EXPECT_EQ(MustParse("# vertices=2\n# no edges\n", GraphFormat::kEdgeList).num_tasks(), 2);
  EXPECT_EQ(MustParse("%%MatrixMarket matrix coordinate integer general\n1 1 0\n",
                      GraphFormat::kMatrixMarket)
                .num_tasks(),
            1);
  EXPECT_EQ(MustParse("2 0\n\n\n", GraphFormat::kMetis).num_tasks(), 2);
  EXPECT_EQ(MustParse("0\n3 0\n0 000\n0\n0\n0\n", GraphFormat::kScotch).num_tasks(), 3);
  EXPECT_EQ(MustParse("0\n", GraphFormat::kDense).num_tasks(), 1);
}

TEST(EmptyGraphTest, ZeroByteFilesAreRefusedNamingTheFile) {
  for (const std::string name : {"io_test_empty.mtx", "io_test_empty.graph", "io_test_empty.grf",
                                 "io_test_empty.edgelist", "io_test_empty.csv"}) {
    const std::string path = WriteTemp(name, "");
    absl::StatusOr<TaskGraph> g = ReadGraph(path);
    ASSERT_FALSE(g.ok()) << name;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(g.status().message(), path + ": the graph is empty: no tasks");
  }
}

// ---------------------------------------------------------------- files

TEST(ReadGraphTest, ReadsByExtensionOrGivenFormat) {
  const std::string path = WriteTemp("io_test_read.edges", "# tasks: 3\n0 2 6\n");
  absl::StatusOr<TaskGraph> g = ReadGraph(path);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_tasks(), 3);
  EXPECT_THAT(g->adjwgt(), ElementsAre(6, 6));
  // The same text under a name with no known extension, format given.
  const std::string other = WriteTemp("io_test_read.data", "0 2 6\n");
  EXPECT_THAT(Msg(ReadGraph(other).status()), HasSubstr("--graph-format"));
  g = ReadGraph(other, GraphFormat::kEdgeList);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_tasks(), 3);
  // Errors carry the path.
  const std::string bad = WriteTemp("io_test_bad.mtx",
                                    "%%MatrixMarket matrix coordinate "
                                    "integer general\n2 2 1\n1 3 1\n");
  EXPECT_THAT(Msg(ReadGraph(bad).status()), StartsWith(bad + ":3: "));
}

TEST(ReadGraphTest, MissingFileIsNotFoundWithThePath) {
  const std::string path = hopmap::testing::TempPath("io_test_no_such_file.mtx");
  absl::StatusOr<TaskGraph> g = ReadGraph(path);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Msg(g.status()), StartsWith(path + ": cannot open"));
  absl::StatusOr<TaskGraph> dir = ReadGraph(::testing::TempDir(), GraphFormat::kMetis);
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(Msg(dir.status()), HasSubstr("cannot read"));
}

// An empty folder `name` in the test's temporary folder.
std::filesystem::path EmptyFolder(const std::string& name) {
  const std::filesystem::path dir(hopmap::testing::TempPath(name));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The names of the entries of `dir`.
std::vector<std::string> NamesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST(WriteGraphTest, WritesAtomicallyAndReadsBack) {
  const std::filesystem::path dir = EmptyFolder("io_test_write_graph");
  const TaskGraph g = IrregularGraph();
  const std::string path = (dir / "g.mtx").string();
  ASSERT_TRUE(WriteGraph(g, path, GraphFormat::kMatrixMarket).ok());
  // Overwrite an existing file.
  ASSERT_TRUE(WriteGraph(g, path, GraphFormat::kMatrixMarket).ok());
  EXPECT_THAT(NamesIn(dir), ElementsAre("g.mtx"));  // no temporary file left behind
  absl::StatusOr<TaskGraph> back = ReadGraph(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(*back, g);
  EXPECT_EQ(back->self_bytes(), 13);
  const absl::Status fail =
      WriteGraph(g, (dir / "no_such_dir" / "g.mtx").string(), GraphFormat::kMetis);
  EXPECT_FALSE(fail.ok());
  EXPECT_THAT(Msg(fail), HasSubstr("no_such_dir"));
  std::filesystem::remove_all(dir);
}

// What is not a regular file is written in place, never renamed over: `-o /dev/null`
// once put a regular file where the device was. A FIFO stands in for the device (a
// failing test must not break the machine's /dev/null), and a symbolic link stays a
// link to the file it named.
TEST(WriteGraphTest, WritesIntoAFifoInPlaceAndThroughALink) {
  const std::filesystem::path dir = EmptyFolder("io_test_write_special");
  const TaskGraph g = IrregularGraph();
  const std::string fifo = (dir / "pipe.mtx").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // The reader end opened first without blocking, so the writer's open does not
  // wait; the graph's text fits in the pipe's buffer, so its write does not either.
  // A writer that renamed over the FIFO leaves the reader an empty pipe, not a hang.
  const int read_end = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(read_end, 0) << std::strerror(errno);
  const absl::Status written = WriteGraph(g, fifo, GraphFormat::kMatrixMarket);
  std::string received;
  char buffer[4096];
  for (ssize_t got; (got = ::read(read_end, buffer, sizeof(buffer))) > 0;)
    received.append(buffer, got);
  ::close(read_end);
  ASSERT_TRUE(written.ok()) << written;
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  absl::StatusOr<TaskGraph> through_fifo =
      ParseGraph(received, GraphFormat::kMatrixMarket, "the FIFO's text");
  ASSERT_TRUE(through_fifo.ok()) << through_fifo.status();
  ExpectSameGraph(*through_fifo, g);

  const std::string target = (dir / "target.mtx").string();
  const std::string link = (dir / "link.mtx").string();
  std::ofstream(target) << "old";
  std::filesystem::create_symlink(target, link);
  ASSERT_TRUE(WriteGraph(g, link, GraphFormat::kMatrixMarket).ok());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  absl::StatusOr<TaskGraph> back = ReadGraph(target);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(*back, g);
  EXPECT_THAT(NamesIn(dir), ::testing::UnorderedElementsAre("pipe.mtx", "target.mtx", "link.mtx"));
  std::filesystem::remove_all(dir);
}

TEST(LineReaderTest, LinesAndTokens) {
  LineReader lines("\xEF\xBB\xBFone\r\ntwo\n\nlast", "src");
  absl::string_view line;
  std::vector<std::string> got;
  while (lines.Next(&line)) got.emplace_back(line);
  EXPECT_THAT(got, ElementsAre("one", "two", "", "last"));
  EXPECT_EQ(lines.line_number(), 4);
  EXPECT_EQ(Msg(lines.Error("bad")), "src:4: bad");
  TokenReader tokens("a b\n\n  c\td\n", "src");
  absl::string_view token;
  std::vector<std::pair<std::string, int64_t>> toks;
  while (tokens.Next(&token)) toks.emplace_back(std::string(token), tokens.line_number());
  EXPECT_THAT(toks, ElementsAre(std::pair<std::string, int64_t>("a", 1),
                                std::pair<std::string, int64_t>("b", 1),
                                std::pair<std::string, int64_t>("c", 3),
                                std::pair<std::string, int64_t>("d", 3)));
}

// ---------------------------------------------------------------- real data

struct RealGraph {
  int64_t n;
  int64_t edges;
  Bytes total_weight;  // SOURCES.md's "total weight" column
  Bytes self_bytes;    // the diagonal's sum (MapLib), computed outside hopmap
};

// data/commgraphs/SOURCES.md, tables A and B.
const std::map<std::string, RealGraph>& RealGraphs() {
  static const auto* const graphs = new std::map<std::string, RealGraph>{
      {"maplib_amg_64ranks_p2p_count.csv", {64, 2001, 1257257, 1240}},
      {"maplib_amg_64ranks_p2p_size.csv", {64, 2001, 5431711224, 44640}},
      {"maplib_btmz_64ranks_p2p_count.csv", {64, 455, 182910, 0}},
      {"maplib_btmz_64ranks_p2p_size.csv", {64, 455, 4785761760, 0}},
      {"maplib_cg_64ranks_p2p_count.csv", {64, 124, 1279232, 15808}},
      {"maplib_cg_64ranks_p2p_size.csv", {64, 124, 75884703744, 2371200000}},
      {"maplib_lulesh_64ranks_p2p_count.csv", {64, 468, 1692936, 0}},
      {"maplib_lulesh_64ranks_p2p_size.csv", {64, 468, 20161171008, 0}},
      {"cnca_amg2013_1000.edgelist", {1000, 225518, 239554118393, 0}},
      {"cnca_amg2013_64.edgelist", {64, 1899, 10038944317, 0}},
      {"cnca_cloverleaf_1152.edgelist", {1152, 3385, 484124464408, 0}},
      {"cnca_cloverleaf_64.edgelist", {64, 173, 99983915416, 0}},
      {"cnca_lulesh_1000.edgelist", {1000, 11468, 7147799385336, 0}},
      {"cnca_lulesh_64.edgelist", {64, 524, 135920072376, 0}},
      {"cnca_miniamr_1000.edgelist", {1000, 3696, 497669583060, 0}},
      {"cnca_miniamr_64.edgelist", {64, 204, 26542379124, 0}},
      {"cnca_minife_1024.edgelist", {1024, 11636, 143282383200, 0}},
      {"cnca_minife_64.edgelist", {64, 524, 11082005856, 0}},
      {"cnca_minimd_1024.edgelist", {1024, 3072, 140828848080, 0}},
      {"cnca_minimd_64.edgelist", {64, 192, 39906485928, 0}},
      {"cnca_npb_bt_C_1024.edgelist", {1024, 4089, 271830861012, 0}},
      {"cnca_npb_bt_C_64.edgelist", {64, 249, 51169711572, 0}},
      {"cnca_npb_cg_C_1024.edgelist", {1024, 4074, 453067312116, 0}},
      {"cnca_npb_cg_C_64.edgelist", {64, 184, 73513504500, 0}},
      {"cnca_npb_is_C_1024.edgelist", {1024, 2045, 20460, 0}},
      {"cnca_npb_is_C_64.edgelist", {64, 125, 1260, 0}},
      {"cnca_npb_lu_C_1024.edgelist", {1024, 3005, 97997897004, 0}},
      {"cnca_npb_lu_C_64.edgelist", {64, 173, 22128537900, 0}},
      {"cnca_npb_mg_C_1024.edgelist", {1024, 5893, 12523393472, 0}},
      {"cnca_npb_mg_C_64.edgelist", {64, 261, 4533559744, 0}},
  };
  return *graphs;
}

TEST(RealDataTest, CommGraphsMatchSourcesTable) {
  const std::filesystem::path dir = std::filesystem::path(HOPMAP_DATA_DIR) / "commgraphs";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool edgelist = entry.path().extension() == ".edgelist";
    const bool maplib = name.rfind("maplib_", 0) == 0 && entry.path().extension() == ".csv";
    if (!edgelist && !maplib) continue;
    SCOPED_TRACE(name);
    auto it = RealGraphs().find(name);
    ASSERT_NE(it, RealGraphs().end()) << "not in the SOURCES.md table";
    const RealGraph& want = it->second;
    absl::StatusOr<TaskGraph> g = ReadGraph(entry.path().string());  // by extension
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->num_tasks(), want.n);
    EXPECT_EQ(g->num_edges(), want.edges);
    EXPECT_EQ(g->self_bytes(), want.self_bytes);
    EXPECT_EQ(g->total_bytes() + g->self_bytes(), want.total_weight);
    ++read;
  }
  EXPECT_EQ(read, static_cast<int>(RealGraphs().size()));
}

TEST(RealDataTest, MaplibCgRoundTripsThroughEveryFormat) {
  absl::StatusOr<TaskGraph> g =
      ReadGraph(std::string(HOPMAP_DATA_DIR) + "/commgraphs/maplib_cg_64ranks_p2p_size.csv");
  ASSERT_TRUE(g.ok()) << g.status();
  for (GraphFormat f : {GraphFormat::kMatrixMarket, GraphFormat::kMetis, GraphFormat::kScotch,
                        GraphFormat::kEdgeList, GraphFormat::kDense}) {
    SCOPED_TRACE(GraphFormatName(f));
    absl::StatusOr<TaskGraph> back = ParseGraph(FormatGraph(*g, f), f, "cg");
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSameGraph(*back, *g);
  }
}

}  // namespace
}  // namespace hopmap
