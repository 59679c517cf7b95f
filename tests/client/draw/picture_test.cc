// Real pictures, read back with real readers: libxml2 parses the SVG, Cairo reads
// the PNG, poppler's pdfinfo reads the PDF, and headless Chromium renders the SVG.
#include "client/draw/picture.h"

#include <cairo.h>
#include <dirent.h>
#include <libxml/parser.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/draw/canvas.h"
#include "client/draw/machine_panels.h"
#include "client/draw/time_bars.h"
#include "core/graph/generators.h"
#include "core/topology/chipmesh.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap::draw {
namespace {

using ::testing::HasSubstr;

std::string Dir() { return hopmap::testing::TempFolder(); }

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

// The share of pixels in columns [x0, x1) that are not white.
double InkInColumns(const std::string& path, int x0, int x1) {
  cairo_surface_t* s = cairo_image_surface_create_from_png(path.c_str());
  EXPECT_EQ(cairo_surface_status(s), CAIRO_STATUS_SUCCESS) << path;
  const int width = cairo_image_surface_get_width(s), height = cairo_image_surface_get_height(s);
  const int stride = cairo_image_surface_get_stride(s);
  const unsigned char* data = cairo_image_surface_get_data(s);
  int64_t inked = 0, seen = 0;
  for (int y = 0; y < height; ++y) {
    const uint32_t* row = reinterpret_cast<const uint32_t*>(data + static_cast<size_t>(y) * stride);
    for (int x = std::max(x0, 0); x < std::min(x1, width); ++x, ++seen) {
      if ((row[x] & 0xffffff) != 0xffffff) ++inked;
    }
  }
  cairo_surface_destroy(s);
  return seen > 0 ? static_cast<double>(inked) / static_cast<double>(seen) : 0;
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

namespace hopmap::draw {
namespace {

TEST(TextFitTest, WrappedLinesFitAndKeepEveryCharacter) {
  const std::string text =
      "graph:/home/someone/clusters/a_cluster_with_a_long_name/topology.conf:cores=48:"
      "link-bandwidth=1.25e+10:link-latency=1e-07, 4096 tasks, allocation of 200 nodes, links "
      "12.5 GB/s and 100 ns; graph + allgather:1024; SimGrid";
  const double width = 400;
  const std::vector<std::string> lines = WrapText(text, 12, width);
  EXPECT_GT(lines.size(), 2u);
  std::string joined;
  for (const std::string& line : lines) {
    EXPECT_LE(MeasureText(line, 12), width) << line;
    EXPECT_FALSE(line.empty());
    joined += line;
  }
  std::string letters = text;
  letters.erase(std::remove(letters.begin(), letters.end(), ' '), letters.end());
  joined.erase(std::remove(joined.begin(), joined.end(), ' '), joined.end());
  EXPECT_EQ(joined, letters);
  // The spec, wider than a line, breaks after one of its separators.
  EXPECT_THAT(lines[0], ::testing::EndsWith("/"));
  EXPECT_EQ(WrapText("", 12, width), std::vector<std::string>{""});
  EXPECT_EQ(WrapText("two words", 12, width), std::vector<std::string>{"two words"});
}

TEST(TextFitTest, FitTextKeepsTheEnd) {
  const std::string path = "/tmp/a/deep/directory/of/answers/from/last/week/answer.json";
  EXPECT_EQ(FitText(path, 12, 2000), path);
  const std::string fitted = FitText(path, 12, 150);
  EXPECT_LE(MeasureText(fitted, 12), 150);
  EXPECT_THAT(fitted, ::testing::StartsWith("..."));
  EXPECT_THAT(fitted, ::testing::EndsWith("answer.json"));
}

// simulate --draw: a long spec, long mapping paths: nothing is cut at either edge.
TEST(SimulationBarsTest, LongSpecsAndPathsStayOnThePage) {
  SimulationReport report;
  report.machine =
      "graph:/home/someone/clusters/a_cluster_with_a_long_name/topology.conf:cores=48:"
      "link-bandwidth=1.25e+10:link-latency=1e-07";
  report.tasks = 4096;
  report.hosts = 200;
  report.link_bandwidth = 12.5e9;
  report.link_latency = 100e-9;
  report.patterns = {"graph", "allgather:1024", "alltoall:65536"};
  const std::vector<std::string> names = {
      "in-order", "/home/someone/runs/2026-11-27/a_mapping_with_a_long_name_from_auto.json",
      "answer.perm"};
  for (size_t i = 0; i < names.size(); ++i) {
    SimulationResult& r = report.simulations.emplace_back();
    r.mapping = names[i];
    r.time_s = 1e-3 / static_cast<double>(i + 1);
    r.ratio_to_in_order = 1.0 / static_cast<double>(i + 1);
    r.busiest_link.busy_s = r.time_s / 2;
  }
  const std::string png = Dir() + "/bars_long.png";
  ASSERT_TRUE(DrawSimulationBars(report, "a_halo_exchange_graph.mtx", png).ok());
  const PngFacts facts = ReadPng(png);
  EXPECT_EQ(facts.width, 900);
  EXPECT_EQ(InkInColumns(png, 0, 16), 0) << "something is cut at the left edge";
  EXPECT_EQ(InkInColumns(png, facts.width - 16, facts.width), 0)
      << "something is cut at the right edge";
}

// draw's title wraps: a long job name (a path) leaves the right margin blank.
TEST(PictureTitleTest, ALongJobNameWraps) {
  Job job = MakeJob(Torus(), {8, 4});
  const std::string name =
      "/home/someone/projects/a_deep/directory/structure/of_recorded_runs/"
      "a_halo_exchange_recorded_with_the_profiler_on_32_ranks_at_the_end_of_the_week.edgelist";
  DrawJob draw{&job.graph, &*job.allocation, job.mapping, name};
  for (What what : {What::kPlacement, What::kLinks, What::kHops, What::kCompare}) {
    DrawOptions options;
    options.what = what;
    const std::string png = absl::StrCat(Dir(), "/long_title_", WhatName(what), ".png");
    ASSERT_TRUE(DrawPicture(draw, options, png).ok());
    EXPECT_EQ(InkInColumns(png, 1400 - 16, 1400), 0) << png << ": cut at the right edge";
  }
}

TEST(JobNodeColoursTest, ASmallJobOnABigMachineSpansTheScale) {
  // 64 tasks, 24 per node, on the first 3 nodes of a 5760-node allocation, and
  // 5 tasks one per node, spread out.
  std::vector<int32_t> positions(64);
  for (int32_t t = 0; t < 64; ++t) positions[t] = t / 24;
  const std::vector<double> colours = JobNodeColours(5760, positions);
  ASSERT_EQ(colours.size(), 5760u);
  EXPECT_EQ(colours[0], 0);
  EXPECT_EQ(colours[1], 0.5);
  EXPECT_EQ(colours[2], 1);
  EXPECT_EQ(std::count(colours.begin(), colours.end(), -1), 5757);
  const std::vector<double> spread = JobNodeColours(5760, std::vector<int32_t>{4000, 10, 5759, 7});
  EXPECT_EQ(spread[7], 0);
  EXPECT_NEAR(spread[10], 1.0 / 3, 1e-12);
  EXPECT_NEAR(spread[4000], 2.0 / 3, 1e-12);
  EXPECT_EQ(spread[5759], 1);
  EXPECT_EQ(JobNodeColours(4, std::vector<int32_t>{2})[2], 0);  // one node: the scale's start
}

}  // namespace
}  // namespace hopmap::draw
