// hopmap draw and hopmap map --draw, through the real binary.
#include <sys/stat.h>

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void ExpectOneLineError(const std::string& args, const std::string& message) {
  const RunResult r = RunHopmap(args);
  EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
  EXPECT_THAT(r.err, HasSubstr(message)) << args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

class DrawCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = hopmap::testing::TempFolder();
    graph_ = dir_ + "/halo.mtx";
    ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 16x8 -o " + graph_).exit_code, 0);
    problem_ = " --local --machine torus:4x4x2:cores=4 --graph " + graph_;
    perm_ = dir_ + "/answer.perm";
    const RunResult map = RunHopmap("map" + problem_ + " --format perm -q -o " + perm_);
    ASSERT_EQ(map.exit_code, 0) << map.err;
  }
  std::string dir_, graph_, problem_, perm_;
};

TEST_F(DrawCliTest, DrawsEveryPictureInEveryFormat) {
  for (const char* what : {"placement", "links", "hops", "compare"}) {
    for (const char* ext : {"svg", "png", "pdf"}) {
      const std::string out = dir_ + "/" + what + "." + ext;
      const RunResult r =
          RunHopmap("draw" + problem_ + " --mapping " + perm_ + " --what " + what + " -o " + out);
      EXPECT_EQ(r.exit_code, 0) << what << " " << ext << ": " << r.err;
      EXPECT_GT(FileSize(out), 1000) << out;
    }
  }
}

TEST_F(DrawCliTest, MapDrawsItsAnswer) {
  const std::string png = dir_ + "/map_answer.png";
  const std::string json = dir_ + "/map_answer.json";
  const RunResult r =
      RunHopmap("map" + problem_ + " -o " + json + " --draw " + png + " --draw-what compare");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(FileSize(png), 1000);
  EXPECT_GT(FileSize(json), 100);
  // The JSON report works as --mapping too.
  const RunResult again =
      RunHopmap("draw" + problem_ + " --mapping " + json + " -o " + dir_ + "/from_json.svg");
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

TEST_F(DrawCliTest, BadInputIsOneLine) {
  const std::string base = "draw" + problem_ + " --mapping " + perm_;
  ExpectOneLineError(base + " --what heat -o " + dir_ + "/x.svg",
                     "--what: unknown picture 'heat' (known: placement, links, hops, compare)");
  ExpectOneLineError(base + " -o " + dir_ + "/x.gif", ".svg, .png or .pdf");
  ExpectOneLineError(base + " -o /nonexistent/dir/x.svg", "cannot write '/nonexistent/dir/x.svg'");
  ExpectOneLineError(base + " --max-cells 2 -o " + dir_ + "/x.svg", "--max-cells");
  // A mapping for another job: 100 lines for 128 tasks.
  const std::string short_perm = dir_ + "/short.perm";
  std::string text;
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + "\n";
  WriteFile(short_perm, text);
  ExpectOneLineError("draw" + problem_ + " --mapping " + short_perm + " -o " + dir_ + "/x.svg",
                     "100 tasks but the graph has 128");
  ExpectOneLineError("map" + problem_ + " --draw " + dir_ + "/x.bmp", "--draw");
  ExpectOneLineError("map" + problem_ + " --draw " + dir_ + "/x.svg --draw-what nope",
                     "unknown picture 'nope'");
  EXPECT_EQ(FileSize(dir_ + "/x.svg"), -1);
}

// draw runs here: neither --local nor --server (nor $HOPMAP_SERVER) is needed.
TEST_F(DrawCliTest, DrawsWithoutLocalOrServer) {
  const std::string out = dir_ + "/no_local.svg";
  const RunResult r = RunShell("env -u HOPMAP_SERVER " + std::string(HOPMAP_CLI) +
                               " draw --machine torus:4x4x2:cores=4 --graph " + graph_ +
                               " --mapping " + perm_ + " -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_GT(FileSize(out), 1000) << out;
  const RunResult help = RunHopmap("draw --help");
  EXPECT_THAT(help.out, Not(HasSubstr("is required")));
  EXPECT_THAT(help.out, HasSubstr("only its catalog knows"));
}

TEST_F(DrawCliTest, HelpNamesThePictures) {
  const RunResult r = RunHopmap("draw --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* word : {"placement", "links", "hops", "compare", ".svg", ".png", ".pdf"}) {
    EXPECT_THAT(r.out, HasSubstr(word));
  }
}

}  // namespace
}  // namespace hopmap::testing
