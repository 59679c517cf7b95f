// The compute profile's medians (sim/compute_profile.h), on profile files written
// here in the layout hopmap_smpi_compute.c writes.
#include "sim/compute_profile.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap::sim {
namespace {

using ::testing::HasSubstr;

template <typename Item>
void WriteItems(const std::string& path, const char* magic, const std::vector<Item>& items) {
  std::ofstream out(path, std::ios::binary);
  const int64_t count = static_cast<int64_t>(items.size());
  out.write(magic, 8);
  out.write(reinterpret_cast<const char*>(&count), sizeof count);
  out.write(reinterpret_cast<const char*>(items.data()),
            static_cast<std::streamsize>(items.size() * sizeof(Item)));
}

std::vector<std::pair<uint64_t, double>> ReadMedians(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  int64_t count = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&count), sizeof count);
  EXPECT_EQ(std::string(magic, 8), "HMMEDIA1");
  std::vector<std::pair<uint64_t, double>> medians;
  for (int64_t i = 0; i < count && in; ++i) {
    uint64_t region = 0;
    double seconds = 0;
    in.read(reinterpret_cast<char*>(&region), sizeof region);
    in.read(reinterpret_cast<char*>(&seconds), sizeof seconds);
    medians.emplace_back(region, seconds);
  }
  return medians;
}

class RegionMediansTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void WriteRank(int rank, const std::vector<double>& bursts,
                 const std::vector<uint64_t>& regions) {
    const std::string stem = dir_ + "/rank-" + std::to_string(rank);
    WriteItems(stem + ".bursts", "HMBURST1", bursts);
    WriteItems(stem + ".sites", "HMSITES1", regions);
  }
  std::string dir_ = hopmap::testing::TempPath("region_medians");
};

TEST_F(RegionMediansTest, EachRegionCostsItsMedianOverRanksAndRepeats) {
  // Region 7 ran four times (1, 3, 5, 7 s: median 4), region 9 three times (2, 8, 4:
  // median 4), region 3 once.
  WriteRank(0, {1, 2, 3}, {7, 9, 7});
  WriteRank(1, {5, 8, 7, 4, 0.5}, {7, 9, 7, 9, 3});
  ASSERT_TRUE(WriteRegionMedians(dir_, 2).ok());
  const std::vector<std::pair<uint64_t, double>> medians = ReadMedians(dir_ + "/sites.median");
  const std::vector<std::pair<uint64_t, double>> expected = {{3, 0.5}, {7, 4.0}, {9, 4.0}};
  EXPECT_EQ(medians, expected);
}

TEST_F(RegionMediansTest, AMissingOrMismatchedFileIsNamed) {
  WriteRank(0, {1, 2}, {7, 9});
  absl::Status status = WriteRegionMedians(dir_, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rank-1.bursts: cannot open"));
  WriteRank(1, {1, 2}, {7});
  status = WriteRegionMedians(dir_, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rank-1.sites: 1 sites for 2 bursts"));
  WriteItems<double>(dir_ + "/rank-1.sites", "HMBURST1", {1, 2});
  status = WriteRegionMedians(dir_, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rank-1.sites: not a compute profile file"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/sites.median"));
}

}  // namespace
}  // namespace hopmap::sim
