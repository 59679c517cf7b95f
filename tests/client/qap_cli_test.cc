// hopmap qap end to end: the real binary on QAPLIB files.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::WriteFile;
using ::testing::HasSubstr;

const std::string kQaplib = std::string(HOPMAP_DATA_DIR) + "/qaplib";
const std::string kTmp = hopmap::testing::TempFolder();

// cost(p) = sum A[i][j] B[p(i)][p(j)] from the .dat, p 1-based: computed here so the
// test does not trust the binary's own arithmetic.
int64_t QaplibCost(const std::string& dat, const std::vector<int64_t>& one_based) {
  std::ifstream in(dat);
  int64_t n = 0;
  in >> n;
  std::vector<int64_t> a(n * n), b(n * n);
  for (int64_t& v : a) in >> v;
  for (int64_t& v : b) in >> v;
  int64_t cost = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      cost += a[i * n + j] * b[(one_based[i] - 1) * n + (one_based[j] - 1)];
    }
  }
  return cost;
}

TEST(QapCliTest, ExactProvesChr12aAndReportsTheBound) {
  const std::string dat = kQaplib + "/chr12a.dat";
  auto r = RunHopmap("qap " + dat + " --algorithm exact --time-limit 60 --threads 2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["instance"], "chr12a");
  EXPECT_EQ(j["n"], 12);
  EXPECT_EQ(j["cost"], 9552);  // the QAPLIB optimum
  EXPECT_EQ(j["proven"], true);
  EXPECT_EQ(j["algorithm"], "exact(proven)");
  EXPECT_LE(j["lower_bound"].get<int64_t>(), 9552);
  EXPECT_GT(j["lower_bound"].get<int64_t>(), 0);
  EXPECT_EQ(j["lower_bound_method"], "gilmore-lawler");
  const std::vector<int64_t> p = j["permutation"].get<std::vector<int64_t>>();
  ASSERT_EQ(p.size(), 12u);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(sorted[i], i + 1);
  EXPECT_EQ(QaplibCost(dat, p), 9552);
}

TEST(QapCliTest, AnyMapperOnAnAsymmetricInstanceAsText) {
  // lipa20a has an asymmetric flow matrix; in-order is the identity permutation.
  const std::string dat = kQaplib + "/lipa20a.dat";
  auto r = RunHopmap("qap " + dat + " --algorithm in-order --format text");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<int64_t> identity(20);
  for (int64_t i = 0; i < 20; ++i) identity[i] = i + 1;
  EXPECT_THAT(r.out, HasSubstr("cost " + std::to_string(QaplibCost(dat, identity)) + "\n"));
  EXPECT_THAT(r.out, HasSubstr("algorithm in-order\n"));
  EXPECT_THAT(r.out, HasSubstr("permutation 1 2 3 4 5"));
}

TEST(QapCliTest, ErrorsAreOneLineWithFileAndLine) {
  const std::string bad = kTmp + "/bad.dat";
  WriteFile(bad, "2\n0 1\n1 0\n0 3\nx 0\n");
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"qap " + bad, "bad.dat:5: B[2][1]: 'x' is not an integer"},
           {"qap /nonexistent.dat", "/nonexistent.dat"},
           {"qap " + kQaplib + "/nug12.dat --algorithm nope", "unknown algorithm 'nope'"},
           {"qap " + kQaplib + "/nug12.dat --format xml", "--format must be json or text"},
           {"qap " + kQaplib + "/nug25.dat --algorithm exact", "25 tasks is above the 20"},
       }) {
    auto r = RunHopmap(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_THAT(r.err, HasSubstr(message)) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  const std::string asymmetric = kTmp + "/asym.dat";
  WriteFile(asymmetric, "2\n0 1\n2 0\n0 3\n4 0\n");
  auto r = RunHopmap("qap " + asymmetric);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("asym.dat: qap: both matrices are asymmetric"));
}

}  // namespace
}  // namespace hopmap
