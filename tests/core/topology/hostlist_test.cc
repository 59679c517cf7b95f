#include "core/topology/hostlist.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Expand(absl::string_view expr) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(expr);
  EXPECT_TRUE(names.ok()) << names.status();
  return names.ok() ? *names : std::vector<std::string>{};
}

std::string ExpandError(absl::string_view expr, size_t max_names = 10'000'000) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(expr, max_names);
  EXPECT_FALSE(names.ok()) << expr;
  return names.ok() ? "" : std::string(names.status().message());
}

TEST(HostlistTest, RangesAndSinglesKeepPadding) {
  EXPECT_THAT(Expand("nid[00012-00014,00200]"),
              ElementsAre("nid00012", "nid00013", "nid00014", "nid00200"));
  EXPECT_THAT(Expand("n[8-10]"), ElementsAre("n8", "n9", "n10"));
  EXPECT_THAT(Expand("n[08-10]"), ElementsAre("n08", "n09", "n10"));
  EXPECT_THAT(Expand("n[098-101]"), ElementsAre("n098", "n099", "n100", "n101"));
  EXPECT_THAT(Expand("n[7]"), ElementsAre("n7"));
  EXPECT_THAT(Expand("n[3-3]"), ElementsAre("n3"));
  // Each range keeps its own first number's width.
  EXPECT_THAT(Expand("n[1-2,007]"), ElementsAre("n1", "n2", "n007"));
}

TEST(HostlistTest, PlainNamesAndTopLevelItems) {
  EXPECT_THAT(Expand("circe-n005"), ElementsAre("circe-n005"));
  EXPECT_THAT(Expand("a1,b[1-2]"), ElementsAre("a1", "b1", "b2"));
  EXPECT_THAT(Expand(" a , b[1-2] "), ElementsAre("a", "b1", "b2"));
  EXPECT_THAT(Expand("circe-n[001-002],n[019-020]"),
              ElementsAre("circe-n001", "circe-n002", "n019", "n020"));
  EXPECT_THAT(Expand("[1-3]"), ElementsAre("1", "2", "3"));
}

TEST(HostlistTest, CartesianProductLeftmostSlowest) {
  EXPECT_THAT(Expand("r[1-2]n[01-02]"), ElementsAre("r1n01", "r1n02", "r2n01", "r2n02"));
  EXPECT_THAT(Expand("a[1-2]-ib"), ElementsAre("a1-ib", "a2-ib"));
  EXPECT_THAT(Expand("r[1,3]c[0-1]s[5]"), ElementsAre("r1c0s5", "r1c1s5", "r3c0s5", "r3c1s5"));
  EXPECT_EQ(Expand("x[0-9][0-9][0-9]").size(), 1000u);
  EXPECT_EQ(Expand("x[0-9][0-9][0-9]")[123], "x123");
}

TEST(HostlistTest, ErrorsNameProblemAndPosition) {
  EXPECT_THAT(ExpandError("nid[1-2"), HasSubstr("unbalanced '[' (no matching ']') at position 3"));
  EXPECT_THAT(ExpandError("nid1-2]"), HasSubstr("unbalanced ']' at position 6"));
  EXPECT_THAT(ExpandError("a,,b"), HasSubstr("empty item at position 2"));
  EXPECT_THAT(ExpandError("a,"), HasSubstr("empty item at position 2"));
  EXPECT_THAT(ExpandError(""), HasSubstr("empty hostlist at position 0"));
  EXPECT_THAT(ExpandError("n[5-3]"), HasSubstr("reversed range 5-3 (5 > 3) at position 2"));
  EXPECT_THAT(ExpandError("a,n[1,5-3]"), HasSubstr("reversed range 5-3 (5 > 3) at position 6"));
  EXPECT_THAT(ExpandError("n[1-x]"), HasSubstr("non-digit 'x' in range '1-x' at position 4"));
  EXPECT_THAT(ExpandError("n[1-2-3]"), HasSubstr("non-digit '-'"));
  EXPECT_THAT(ExpandError("n[-3]"), HasSubstr("has no first number at position 2"));
  EXPECT_THAT(ExpandError("n[3-]"), HasSubstr("has no last number at position 4"));
  EXPECT_THAT(ExpandError("n[]"), HasSubstr("empty '[]' at position 1"));
  EXPECT_THAT(ExpandError("n[1,,2]"), HasSubstr("empty range inside '[...]' at position 4"));
  EXPECT_THAT(ExpandError("n[[1]]"), HasSubstr("nested '[' at position 2"));
  EXPECT_THAT(ExpandError("a b"), HasSubstr("whitespace"));
  EXPECT_THAT(ExpandError("n[1234567890123456789]"), HasSubstr("more than 18 digits"));
  EXPECT_EQ(ExpandError("n[5-3]"), "hostlist 'n[5-3]': reversed range 5-3 (5 > 3) at position 2");
}

TEST(HostlistTest, MaxNames) {
  EXPECT_EQ(ExpandHostlist("n[1-3]", 3)->size(), 3u);
  EXPECT_THAT(ExpandError("n[1-4]", 3), HasSubstr("more than 3 host names"));
  EXPECT_THAT(ExpandError("a,b,c,d", 3), HasSubstr("more than 3 host names at position 6"));
  EXPECT_THAT(ExpandError("r[1-2]n[1-2]", 3), HasSubstr("more than 3 host names"));
  // A huge range is refused before anything is expanded.
  EXPECT_THAT(ExpandError("n[0-999999999999]"), HasSubstr("more than 10000000 host names"));
  EXPECT_THAT(ExpandError("r[0-99999]n[0-99999]"), HasSubstr("more than 10000000 host names"));
}

TEST(HostlistTest, SplitTopLevelCommas) {
  EXPECT_THAT(SplitTopLevelCommas("a[1,2],b"), ElementsAre("a[1,2]", "b"));
  EXPECT_THAT(SplitTopLevelCommas("0-3, 17,nid[1-2,5]"), ElementsAre("0-3", " 17", "nid[1-2,5]"));
  EXPECT_THAT(SplitTopLevelCommas(""), ElementsAre(""));
  EXPECT_THAT(SplitTopLevelCommas("a,"), ElementsAre("a", ""));
  EXPECT_THAT(SplitTopLevelCommas("a[1,2"), ElementsAre("a[1,2"));
}

// CompressHostlist gives back what ExpandHostlist turns into the same names.
TEST(HostlistTest, CompressIsTheInverseOfExpand) {
  EXPECT_EQ(CompressHostlist({"n01", "n02", "n03", "n07", "m1"}), "n[01-03,07],m1");
  EXPECT_EQ(CompressHostlist({"node05"}), "node05");
  EXPECT_EQ(CompressHostlist({}), "");
  EXPECT_EQ(CompressHostlist({"b1", "b2", "b3", "b4"}), "b[1-4]");
  EXPECT_EQ(CompressHostlist({"n9", "n10", "n08", "n09"}), "n[9-10,08-09]");
  EXPECT_EQ(CompressHostlist({"top", "spine", "r1n01", "r1n02", "r2n01"}),
            "top,spine,r1n[01-02],r2n01");
  EXPECT_EQ(CompressHostlist({"a3", "a2", "a1"}), "a[3,2,1]");
  EXPECT_EQ(CompressHostlist({"pod:0:1", "pod:0:2", "12", "13"}), "pod:0:[1-2],12,13");
  for (const std::vector<std::string>& names :
       std::vector<std::vector<std::string>>{{"n9", "n10", "n010", "n11"},
                                             {"x", "x1", "x01", "x001", "y"},
                                             {"gpu001", "gpu002", "gpu010", "gpu011", "cpu1"}}) {
    EXPECT_EQ(Expand(CompressHostlist(names)), names) << CompressHostlist(names);
  }
}

}  // namespace
}  // namespace hopmap
