// The value files of load balancing (--loads, --state-bytes, --fixed, --background).
#include "core/io/object_values.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ObjectValuesTest, ReadsOneValuePerLineWithComments) {
  absl::StatusOr<std::vector<double>> loads =
      ParseLoads("# loads of 3 objects\n1\n\n  0.25  # a light one\n3e2\n", "l.txt");
  ASSERT_TRUE(loads.ok()) << loads.status();
  EXPECT_THAT(*loads, ElementsAre(1.0, 0.25, 300.0));
  absl::StatusOr<std::vector<Bytes>> bytes = ParseStateBytes("10\n0\n4096\n", "b.txt");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_THAT(*bytes, ElementsAre(10, 0, 4096));
}

TEST(ObjectValuesTest, ErrorsNameTheFileLineAndObject) {
  EXPECT_EQ(ParseLoads("1\n# c\n-2\n", "l.txt").status().message(),
            "l.txt:3: expected the load of object 1 (a number from 0 to 1e+15), got '-2'");
  EXPECT_THAT(std::string(ParseLoads("1\nnan\n", "l.txt").status().message()),
              HasSubstr("l.txt:2:"));
  EXPECT_THAT(std::string(ParseLoads("1 2\n", "l.txt").status().message()), HasSubstr("got '1 2'"));
  // Hexadecimal (which strtod reads: "0x10" = 16) is refused.
  EXPECT_THAT(std::string(ParseLoads("1\n0x10\n", "l.txt").status().message()),
              HasSubstr("l.txt:2: expected the load of object 1"));
  EXPECT_THAT(std::string(ParseLoads("# nothing\n", "l.txt").status().message()),
              HasSubstr("l.txt: no load values"));
  EXPECT_EQ(ParseStateBytes("5\n1.5\n", "b.txt").status().message(),
            "b.txt:2: expected the state bytes of object 1 (an integer >= 0), got '1.5'");
  EXPECT_EQ(ReadLoadsFile("/nonexistent/l.txt").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ParseFixedFlags("1\n0\nyes\n", "f.txt").status().message(),
            "f.txt:3: expected the fixed flag of object 2 (1: stays on its current slot, 0: may "
            "move), got 'yes'");
  EXPECT_EQ(ParseBackgroundLoads("0\n-1\n", "bg.txt").status().message(),
            "bg.txt:2: expected the background load of slot 1 (a number from 0 to 1e+15), got "
            "'-1'");
}

TEST(ObjectValuesTest, EmptyFilesAreRefusedNamingTheFile) {
  for (const std::string text : {"", "\n  \n", "# only a comment\n"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ParseLoads(text, "l.txt").status().message(), "l.txt: no load values in the file");
    EXPECT_EQ(ParseStateBytes(text, "b.txt").status().message(),
              "b.txt: no state bytes values in the file");
    EXPECT_EQ(ParseFixedFlags(text, "f.txt").status().message(),
              "f.txt: no fixed flag values in the file");
    EXPECT_EQ(ParseBackgroundLoads(text, "bg.txt").status().message(),
              "bg.txt: no background load values in the file");
  }
}

TEST(ObjectValuesTest, ReadsFixedFlagsAndBackgroundLoads) {
  absl::StatusOr<std::vector<uint8_t>> fixed = ParseFixedFlags("1\n0 # moves\n1\n", "f.txt");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_THAT(*fixed, ElementsAre(1, 0, 1));
  absl::StatusOr<std::vector<double>> background = ParseBackgroundLoads("0.5\n0\n", "bg.txt");
  ASSERT_TRUE(background.ok()) << background.status();
  EXPECT_THAT(*background, ElementsAre(0.5, 0.0));
}

}  // namespace
}  // namespace hopmap
