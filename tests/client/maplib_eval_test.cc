// An outside check of the evaluator: `hopmap eval` reproduces the hop-bytes MapLib
// published for its own mappings of real 64-rank applications on a 4x4x4 mesh and
// torus (data/commgraphs/SOURCES.md, section A2).
#include <algorithm>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ReadFile;
using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::WriteFile;

const std::string kCommgraphs = std::string(HOPMAP_DATA_DIR) + "/commgraphs/";

// MapLib's mapping file: 2 header lines, then "x y z nprocs pid..." per node. Our
// node id on a 4x4x4 grid is x + 4 * (y + 4 * z); one process per node.
std::string MapLibToPerm(const std::string& path) {
  std::istringstream in(ReadFile(path));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::vector<int> slot_of_task(64, -1);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    int x, y, z, nprocs;
    if (!(fields >> x >> y >> z >> nprocs)) continue;
    for (int i = 0; i < nprocs; ++i) {
      int pid;
      fields >> pid;
      EXPECT_EQ(nprocs, 1) << path;
      slot_of_task.at(pid) = x + 4 * (y + 4 * z);
    }
  }
  std::string perm;
  for (int slot : slot_of_task) {
    EXPECT_GE(slot, 0) << path;
    perm += std::to_string(slot) + "\n";
  }
  return perm;
}

TEST(MapLibEvalTest, ReproducesPublishedHopBytes) {
  std::istringstream table(
      ReadFile(kCommgraphs + "reference_mappings/maplib_hopbytes_reference.tsv"));
  std::string line;
  int checked_eq = 0, checked_diag = 0;
  const std::string perm_path = hopmap::testing::TempPath("maplib.perm");
  while (std::getline(table, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("app\t", 0) == 0) continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    ASSERT_EQ(f.size(), 10u) << line;
    const std::string& relation = f[9];
    if (relation != "EQ" && relation != "EQ+diag") continue;  // "diff": a different run
    const std::string machine = f[2] == "mesh_4x4x4" ? "mesh:4x4x4" : "torus:4x4x4";
    WriteFile(perm_path, MapLibToPerm(kCommgraphs + f[5]));
    auto r = RunHopmap("eval --local --machine " + machine + " --graph " + kCommgraphs + f[4] +
                       " --mapping " + perm_path + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    int64_t published = 0, recomputed = 0, diag = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[6], &published));
    ASSERT_TRUE(absl::SimpleAtoi(f[7], &recomputed));
    ASSERT_TRUE(absl::SimpleAtoi(f[8], &diag));
    const int64_t hop_bytes = j["hop_bytes"].get<int64_t>();
    if (relation == "EQ") {
      EXPECT_EQ(hop_bytes, published) << f[0] << " " << f[1] << " " << f[2] << " " << f[3];
      ++checked_eq;
    } else {
      // MapLib's torus routing also counts each self-message once; hop-bytes of a
      // self-message is 0, and hopmap reports that traffic as self_bytes instead.
      EXPECT_EQ(hop_bytes, published - diag) << f[0] << " " << f[1] << " " << f[3];
      EXPECT_EQ(j["self_bytes"].get<int64_t>(), diag);
      ++checked_diag;
    }
  }
  EXPECT_EQ(checked_eq, 138);
  EXPECT_EQ(checked_diag, 46);
}

}  // namespace
}  // namespace hopmap
