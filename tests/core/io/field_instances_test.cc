// The field's benchmark instances in data/instances/ (its SOURCES.md): each file reads
// through hopmap's METIS reader into the graph its header declares, and the sources
// table, the header and the graph agree.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/graph/task_graph.h"
#include "core/io/graph_format.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

struct FieldInstance {
  int64_t vertices;
  int64_t edges;
  int64_t max_degree;  // counted outside hopmap from the vertex lines
  int64_t isolated;    // vertices without neighbours (blank vertex lines)
};

// data/instances/SOURCES.md's table.
const std::map<std::string, FieldInstance>& FieldInstances() {
  static const auto* const instances = new std::map<std::string, FieldInstance>{
      {"rgg_n_2_15_s0.graph", {32768, 160240, 24, 2}},
      {"delaunay_n15.graph", {32768, 98274, 18, 0}},
      {"4elt.graph", {15606, 45878, 10, 0}},
      {"wing.graph", {62032, 121544, 4, 0}},
      {"luxembourg.osm.graph", {114599, 119666, 6, 0}},
      {"PGPgiantcompo.graph", {10680, 24316, 205, 0}},
  };
  return *instances;
}

// The "vertices edges" of the first line that is not a '%' comment, read without
// hopmap's reader so that the reader is checked against the file itself.
void ReadHeader(const std::filesystem::path& path, int64_t* vertices, int64_t* edges) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() != '%') break;
  }
  std::istringstream(line) >> *vertices >> *edges;
}

TEST(RealDataTest, FieldInstancesMatchSourcesTable) {
  const std::filesystem::path dir = std::filesystem::path(HOPMAP_DATA_DIR) / "instances";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".graph") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    auto it = FieldInstances().find(name);
    ASSERT_NE(it, FieldInstances().end()) << "not in the SOURCES.md table";
    const FieldInstance& want = it->second;

    int64_t header_vertices = -1;
    int64_t header_edges = -1;
    ReadHeader(entry.path(), &header_vertices, &header_edges);
    EXPECT_EQ(header_vertices, want.vertices);
    EXPECT_EQ(header_edges, want.edges);

    absl::StatusOr<TaskGraph> g = ReadGraph(entry.path().string());  // .graph: METIS
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->num_tasks(), want.vertices);
    EXPECT_EQ(g->num_edges(), want.edges);
    EXPECT_EQ(g->max_degree(), want.max_degree);
    int64_t isolated = 0;
    for (TaskId u = 0; u < g->num_tasks(); ++u) isolated += g->degree(u) == 0 ? 1 : 0;
    EXPECT_EQ(isolated, want.isolated);
    // Unweighted files: every edge weighs 1 byte, and nothing is self traffic.
    EXPECT_EQ(g->total_bytes(), want.edges);
    EXPECT_EQ(g->self_bytes(), 0);
    ++read;
  }
  EXPECT_EQ(read, static_cast<int>(FieldInstances().size()));
}

}  // namespace
}  // namespace hopmap
