// hopmap eval's text report: the busiest links when asked for.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::RunHopmap;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kTmp = hopmap::testing::TempFolder();

// The lines of `text` after the one that starts with `header`, up to the first line
// that is not indented.
std::vector<std::string> IndentedLinesAfter(const std::string& text, const std::string& header) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::vector<std::string> block;
  bool in_block = false;
  for (const std::string& line : lines) {
    if (in_block && !absl::StartsWith(line, "  ")) break;
    if (in_block) block.push_back(line);
    if (absl::StartsWith(line, header)) in_block = true;
  }
  return block;
}

TEST(EvalTextTest, ListsTheBusiestLinksWhenAsked) {
  const std::string graph = kTmp + "/eval_text.edgelist";
  const std::string mapping = kTmp + "/eval_text.perm";
  ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 8x8 -o " + graph).exit_code, 0);
  // In order on a fragmented allocation: the two pieces' messages share few links.
  const std::string problem =
      "--local --machine torus:8x8 --nodes 0-31,48-63 --cores 2 --graph " + graph;
  ASSERT_EQ(RunHopmap("map " + problem + " --algorithm in-order --format perm -q -o " + mapping)
                .exit_code,
            0);
  const std::string eval = "eval " + problem + " --mapping " + mapping + " --format text";

  const testing::RunResult plain = RunHopmap(eval);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("max_link_load"));
  EXPECT_THAT(plain.out, Not(HasSubstr("busiest_links")));

  const testing::RunResult asked = RunHopmap(eval + " --busiest-links 3");
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  const std::vector<std::string> links = IndentedLinesAfter(asked.out, "busiest_links");
  ASSERT_EQ(links.size(), 3u) << asked.out;
  // Heaviest first, the first at 100% of itself, and the same links as the JSON's.
  EXPECT_THAT(links[0], HasSubstr("100.0%"));
  const nlohmann::json json = nlohmann::json::parse(
      RunHopmap("eval " + problem + " --mapping " + mapping + " --busiest-links 3").out);
  ASSERT_EQ(json["busiest_links"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const std::string name = json["busiest_links"][i]["link"];
    EXPECT_THAT(links[i], HasSubstr(name)) << i;
  }
  // The heaviest link's bytes are the report's max_link_load.
  const double max_load = json["max_link_load"];
  EXPECT_DOUBLE_EQ(json["busiest_links"][0]["bytes"].get<double>(), max_load);
}

}  // namespace
}  // namespace hopmap
