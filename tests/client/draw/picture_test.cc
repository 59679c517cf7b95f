// Real pictures, read back with real readers: libxml2 parses the SVG, Cairo reads
// the PNG, poppler's pdfinfo reads the PDF, and headless Chromium renders the SVG.
#include "client/draw/picture.h"

#include <cairo.h>
#include <dirent.h>
#include <libxml/parser.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/graph/generators.h"
#include "core/topology/chipmesh.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap::draw {
namespace {

using ::testing::HasSubstr;

std::string Dir() {
  static const std::string dir = [] {
    std::string d = ::testing::TempDir() + "/draw_test_" + std::to_string(getpid());
    mkdir(d.c_str(), 0755);
    return d;
  }();
  return dir;
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

// Runs a shell command; its exit code and standard output.
std::pair<int, std::string> RunCommand(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, out};
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The SVG parses as XML and its root is <svg> of the page's width.
void ExpectValidSvg(const std::string& path) {
  xmlDocPtr doc = xmlReadFile(path.c_str(), nullptr, XML_PARSE_NONET | XML_PARSE_HUGE);
  ASSERT_NE(doc, nullptr) << path << " is not well-formed XML";
  xmlNodePtr root = xmlDocGetRootElement(doc);
  ASSERT_NE(root, nullptr);
  EXPECT_STREQ(reinterpret_cast<const char*>(root->name), "svg");
  xmlChar* width = xmlGetProp(root, reinterpret_cast<const xmlChar*>("width"));
  ASSERT_NE(width, nullptr);
  EXPECT_THAT(std::string(reinterpret_cast<const char*>(width)), ::testing::StartsWith("1400"));
  xmlFree(width);
  xmlFreeDoc(doc);
}

struct PngFacts {
  int width = 0, height = 0;
  double ink = 0;   // share of pixels that are not white
  int colours = 0;  // distinct colours seen (up to 1000)
};

PngFacts ReadPng(const std::string& path) {
  PngFacts facts;
  cairo_surface_t* s = cairo_image_surface_create_from_png(path.c_str());
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    ADD_FAILURE() << path << ": " << cairo_status_to_string(cairo_surface_status(s));
    cairo_surface_destroy(s);
    return facts;
  }
  facts.width = cairo_image_surface_get_width(s);
  facts.height = cairo_image_surface_get_height(s);
  const int stride = cairo_image_surface_get_stride(s);
  const unsigned char* data = cairo_image_surface_get_data(s);
  int64_t inked = 0;
  std::set<uint32_t> colours;
  for (int y = 0; y < facts.height; ++y) {
    const uint32_t* row = reinterpret_cast<const uint32_t*>(data + static_cast<size_t>(y) * stride);
    for (int x = 0; x < facts.width; ++x) {
      if ((row[x] & 0xffffff) != 0xffffff) ++inked;
      if (colours.size() < 1000) colours.insert(row[x] & 0xffffff);
    }
  }
  facts.ink = static_cast<double>(inked) / (static_cast<double>(facts.width) * facts.height);
  facts.colours = static_cast<int>(colours.size());
  cairo_surface_destroy(s);
  return facts;
}

void ExpectValidPdf(const std::string& path) {
  const auto [code, out] = RunCommand(absl::StrCat(HOPMAP_PDFINFO, " '", path, "' 2>&1"));
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("Pages:           1"));
  EXPECT_THAT(out, HasSubstr("Page size:       1400 x "));
}

// A job: a 3D stencil on the machine, placed in order from the last slot down (so
// it is not the in-order placement), on every node.
struct Job {
  std::shared_ptr<const Machine> machine;
  std::optional<Allocation> allocation;
  TaskGraph graph;
  std::vector<SlotId> mapping;
};

Job MakeJob(std::shared_ptr<const Machine> machine, std::vector<int32_t> grid_dims) {
  Job job;
  job.machine = std::move(machine);
  job.allocation.emplace(*Allocation::WholeMachine(job.machine));
  GeneratorOptions g;
  g.kind = grid_dims.size() == 2 ? "stencil2d-5" : "stencil3d-7";
  g.dims = std::move(grid_dims);
  job.graph = *GenerateGraph(g);
  job.mapping.resize(job.graph.num_tasks());
  const SlotId slots = static_cast<SlotId>(job.allocation->num_slots());
  for (TaskId t = 0; t < job.graph.num_tasks(); ++t) {
    job.mapping[t] = (slots - 1 - t * 7 % slots + slots) % slots;
  }
  std::vector<bool> used(slots, false);
  for (SlotId& s : job.mapping) {  // make it a permutation: next free slot on a clash
    while (used[s]) s = (s + 1) % slots;
    used[s] = true;
  }
  return job;
}

std::shared_ptr<const Machine> Torus() {
  return std::make_shared<TorusMachine>(*TorusMachine::Create({4, 4, 2}, {true, true, true}));
}
std::shared_ptr<const Machine> FatTree() {
  return std::make_shared<FatTreeMachine>(*FatTreeMachine::Create({4, 8}));
}
std::shared_ptr<const Machine> Dragonfly() {
  return std::make_shared<DragonflyMachine>(*DragonflyMachine::Create(8, 2, 2));
}
std::shared_ptr<const Machine> ChipMesh() {
  return std::make_shared<ChipMeshMachine>(*ChipMeshMachine::Create(2, 2, 8));
}

struct Case {
  std::string name;
  std::shared_ptr<const Machine> (*machine)();
};

// gtest prints the parameter with the test's name: the machine's name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class PictureTest : public ::testing::TestWithParam<std::tuple<Case, What>> {};

TEST_P(PictureTest, WritesSvgPngAndPdf) {
  const auto& [c, what] = GetParam();
  Job job = MakeJob(c.machine(), {8, 4});  // 32 tasks on 32 nodes
  DrawJob draw{&job.graph, &*job.allocation, job.mapping, "stencil 8x4"};
  DrawOptions options;
  options.what = what;
  const std::string base = absl::StrCat(Dir(), "/", c.name, "_", WhatName(what));
  ASSERT_TRUE(DrawPicture(draw, options, base + ".svg").ok());
  ExpectValidSvg(base + ".svg");
  ASSERT_TRUE(DrawPicture(draw, options, base + ".png").ok());
  const PngFacts png = ReadPng(base + ".png");
  EXPECT_EQ(png.width, 1400);
  EXPECT_GT(png.height, 200);
  EXPECT_GT(png.ink, 0.02) << "the picture is nearly blank";
  EXPECT_GT(png.colours, 20) << "expected colour scales and text";
  ASSERT_TRUE(DrawPicture(draw, options, base + ".pdf").ok());
  ExpectValidPdf(base + ".pdf");
}

INSTANTIATE_TEST_SUITE_P(
    EveryMachineAndPicture, PictureTest,
    ::testing::Combine(::testing::Values(Case{"torus", Torus}, Case{"fattree", FatTree},
                                         Case{"dragonfly", Dragonfly}, Case{"chipmesh", ChipMesh}),
                       ::testing::Values(What::kPlacement, What::kLinks, What::kHops,
                                         What::kCompare)),
    [](const auto& info) {
      return absl::StrCat(std::get<0>(info.param).name, "_", WhatName(std::get<1>(info.param)));
    });

TEST(PictureRenderTest, ChromiumRendersTheSvg) {
  Job job = MakeJob(Torus(), {8, 4});
  DrawJob draw{&job.graph, &*job.allocation, job.mapping, "stencil 8x4"};
  const std::string svg = Dir() + "/render.svg";
  const std::string own_png = Dir() + "/render_cairo.png";
  DrawOptions options;
  ASSERT_TRUE(DrawPicture(draw, options, svg).ok());
  ASSERT_TRUE(DrawPicture(draw, options, own_png).ok());
  const int height = ReadPng(own_png).height;
  const std::string shot = Dir() + "/render_chromium.png";
  std::remove(shot.c_str());
  // A profile of its own in the temp dir; --no-sandbox as CI runs as root.
  const auto [code, out] = RunCommand(absl::StrCat(
      "timeout 120 ", HOPMAP_CHROMIUM, " --headless --no-sandbox --disable-gpu --hide-scrollbars ",
      "--user-data-dir=", Dir(), "/chromium-profile --window-size=1400,", height,
      " --screenshot=", shot, " file://", svg, " 2>&1"));
  ASSERT_EQ(code, 0) << out;
  const PngFacts facts = ReadPng(shot);
  EXPECT_EQ(facts.width, 1400);
  EXPECT_EQ(facts.height, height);
  EXPECT_GT(facts.ink, 0.02) << "Chromium rendered a blank page";
  EXPECT_GT(facts.colours, 20);
}

TEST(PictureErrorTest, NamesWhatIsWrong) {
  Job job = MakeJob(Torus(), {8, 4});
  DrawJob draw{&job.graph, &*job.allocation, job.mapping, "j"};
  DrawOptions options;
  EXPECT_THAT(DrawPicture(draw, options, Dir() + "/x.jpg").message(),
              HasSubstr(".svg, .png or .pdf"));
  const absl::Status unwritable = DrawPicture(draw, options, "/nonexistent/dir/x.svg");
  EXPECT_THAT(unwritable.message(), HasSubstr("cannot write '/nonexistent/dir/x.svg'"));
  EXPECT_THAT(unwritable.message(), HasSubstr("No such file or directory"));
  std::vector<SlotId> short_mapping(job.mapping.begin(), job.mapping.end() - 1);
  DrawJob wrong{&job.graph, &*job.allocation, short_mapping, "j"};
  EXPECT_THAT(DrawPicture(wrong, options, Dir() + "/x.svg").message(),
              HasSubstr("the mapping places 31 tasks but the graph has 32"));
  std::vector<SlotId> outside = job.mapping;
  outside[3] = 32;
  DrawJob bad_slot{&job.graph, &*job.allocation, outside, "j"};
  EXPECT_FALSE(DrawPicture(bad_slot, options, Dir() + "/x.svg").ok());
  EXPECT_THAT(ParseWhat("heat").status().message(),
              HasSubstr("unknown picture 'heat' (known: placement, links, hops, compare)"));
  options.max_cells = 3;
  EXPECT_THAT(DrawPicture(draw, options, Dir() + "/x.svg").message(), HasSubstr("max_cells"));
  EXPECT_EQ(FileSize(Dir() + "/x.svg"), -1) << "no file after a failed draw";
}

TEST(PictureErrorTest, LinksNeedALinkModel) {
  // A distance matrix (8 nodes on a line) has hops but no links: links is refused,
  // the other pictures still draw (compare shows the placements instead).
  std::vector<int32_t> hops(64);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) hops[a * 8 + b] = a > b ? a - b : b - a;
  }
  auto machine = std::make_shared<DistanceMatrixMachine>(*DistanceMatrixMachine::Create(8, hops));
  machine->set_cores_per_node(4);
  Job job = MakeJob(machine, {8, 4});
  DrawJob draw{&job.graph, &*job.allocation, job.mapping, "j"};
  DrawOptions options;
  options.what = What::kLinks;
  EXPECT_THAT(DrawPicture(draw, options, Dir() + "/matrix_links.svg").message(),
              HasSubstr("--what links: the matrix model has no links"));
  for (What what : {What::kPlacement, What::kHops, What::kCompare}) {
    options.what = what;
    EXPECT_TRUE(
        DrawPicture(draw, options, absl::StrCat(Dir(), "/matrix_", WhatName(what), ".png")).ok());
  }
}

TEST(PictureTest, LargeJobStaysSmall) {
  // 262,144 tasks on a 64^3 torus: drawn in 4x4x4 blocks, the files stay small.
  Job job = MakeJob(
      std::make_shared<TorusMachine>(*TorusMachine::Create({64, 64, 64}, {true, true, true})),
      {64, 64, 64});
  DrawJob draw{&job.graph, &*job.allocation, job.mapping, "stencil 64^3"};
  for (What what : {What::kPlacement, What::kLinks, What::kCompare}) {
    DrawOptions options;
    options.what = what;
    const std::string path = absl::StrCat(Dir(), "/large_", WhatName(what), ".svg");
    ASSERT_TRUE(DrawPicture(draw, options, path).ok());
    EXPECT_LT(FileSize(path), 5'000'000) << path;
    ExpectValidSvg(path);
  }
}

}  // namespace
}  // namespace hopmap::draw
