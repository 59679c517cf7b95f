// Reading mappings back: the perm format and its errors (the JSON report's round
// trip is in tests/core/solve/report_json_test.cc).
#include "core/io/mapping_files.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::Status MappingError(const std::string& text) {
  absl::StatusOr<std::vector<SlotId>> slots = ParseMapping(text, "src");
  EXPECT_FALSE(slots.ok()) << text;
  return slots.status();
}

TEST(ParseMappingTest, PermWithCommentsAndBlankLines) {
  absl::StatusOr<std::vector<SlotId>> slots =
      ParseMapping("# slot of each task\n\n3\n  1   # task 1\n\t\n0\r\n2", "m.perm");
  ASSERT_TRUE(slots.ok()) << slots.status();
  EXPECT_THAT(*slots, ElementsAre(3, 1, 0, 2));
}

TEST(ParseMappingTest, Errors) {
  absl::Status s = MappingError("0\n# c\n1\nx\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "src:4: expected the slot of task 2 (a non-negative integer), got 'x'");
  EXPECT_EQ(MappingError("0\n\n-1\n").message(),
            "src:3: expected the slot of task 1 (a non-negative integer), got '-1'");
  EXPECT_EQ(MappingError("0\n1.5\n").message(),
            "src:2: expected the slot of task 1 (a non-negative integer), got '1.5'");
  EXPECT_EQ(MappingError("4 5\n").message(),
            "src:1: expected the slot of task 0 (a non-negative integer), got '4 5'");
  EXPECT_EQ(MappingError("2147483647\n").message(),
            "src:1: expected the slot of task 0 (a non-negative integer), got '2147483647'");

  EXPECT_EQ(MappingError(R"({"tasks": 2, "slots": [0, 1]})").message(),
            "src: JSON has no \"slot_of_task\" array");
  EXPECT_EQ(MappingError(R"({"slot_of_task": 3})").message(),
            "src: JSON has no \"slot_of_task\" array");
  EXPECT_EQ(MappingError(R"({"slot_of_task": [0, -2]})").message(),
            "src: slot_of_task[1] is not a slot number: -2");
  EXPECT_EQ(MappingError(R"({"slot_of_task": [0, "1"]})").message(),
            "src: slot_of_task[1] is not a slot number: \"1\"");
  EXPECT_EQ(MappingError(R"({"slot_of_task": [0.5]})").message(),
            "src: slot_of_task[0] is not a slot number: 0.5");
  EXPECT_EQ(MappingError("{\"slot_of_task\": [0, 1]").message(),
            "src: not valid JSON (a mapping file is JSON or perm)");

  EXPECT_EQ(MappingError("").message(), "src: the mapping is empty");
  EXPECT_EQ(MappingError("# nothing\n\n").message(), "src: the mapping is empty");
  EXPECT_EQ(MappingError(" \n\t\n").message(), "src: the mapping is empty");
  EXPECT_EQ(MappingError(R"({"slot_of_task": []})").message(),
            "src: the mapping is empty (\"slot_of_task\": [])");
}

TEST(ParseMappingTest, MissingFile) {
  const std::string path = hopmap::testing::TempPath("report_json_test_no_such.perm");
  absl::StatusOr<std::vector<SlotId>> slots = ReadMappingFile(path);
  ASSERT_FALSE(slots.ok());
  EXPECT_EQ(slots.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(slots.status().message(), path + ": cannot open mapping file");
}

}  // namespace
}  // namespace hopmap
