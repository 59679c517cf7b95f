#include "server/catalog.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/topology/catalog.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/convert/convert.h"

namespace hopmap::server {
namespace {

namespace fs = std::filesystem;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A fresh directory per test (and per process: other build trees may run the same
// test at the same time), removed afterwards unless the test failed.
class MachineCatalogTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }

  // Empties and returns the test's directory.
  std::string TestDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::path(::testing::TempDir()) /
            absl::StrCat("hopmap_catalog_", info->name(), "_", ::getpid()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    return dir_;
  }

 private:
  std::string dir_;
};

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out) << path;
  out << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string MachinesDir(const std::string& state) {
  return (fs::path(state) / "machines").string();
}

v1::Machine TorusMachine(const std::string& name, std::vector<int32_t> dims) {
  v1::Machine m;
  m.set_name(name);
  m.set_description(absl::StrCat("test torus ", name));
  v1::Torus* torus = m.mutable_torus();
  for (int32_t d : dims) torus->add_dims(d);
  return m;
}

std::unique_ptr<MachineCatalog> OpenOrDie(const std::string& config, const std::string& state) {
  absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open(config, state);
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  return catalog.ok() ? *std::move(catalog) : nullptr;
}

// Two machines: a 4x4 torus that wraps in x only, and a small switch graph given
// as the text of a switch-graph file.
constexpr char kTwoMachineConfig[] = R"json({
  "machines": [
    {
      "name": "lab-torus",
      "description": "4x4, x wraps, y does not",
      "cores_per_node": 2,
      "torus": {"dims": [4, 4], "wrap": [true, false]}
    },
    {
      "name": "pod",
      "description": "a spine over two leaves",
      "cores_per_node": 8,
      "switch_graph_file": "switch spine leaf[1-2]\nnode n[01-04]\nlink spine leaf1\nlink spine leaf2\nlink leaf1 n01\nlink leaf1 n02\nlink leaf2 n03\nlink leaf2 n04\n"
    }
  ]
})json";

TEST_F(MachineCatalogTest, BuiltinsArePresentWithTheirSizes) {
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", "");
  ASSERT_NE(catalog, nullptr);
  struct Expected {
    const char* name;
    int32_t nodes;
    int32_t cores;
  };
  for (const Expected& e : std::vector<Expected>{{"bgp-8x8x8", 512, 4},
                                                 {"kraken", 9600, 12},
                                                 {"tianhe3-proto", 1536, 1},
                                                 {"fattree-64x64", 4096, 16},
                                                 {"dragonfly-xc", 5760, 24},
                                                 {"dgx-h100-superpod", 128, 8},
                                                 {"gb200-nvl72-pod", 144, 4}}) {
    SCOPED_TRACE(e.name);
    absl::StatusOr<std::shared_ptr<const CatalogEntry>> entry = catalog->Get(e.name);
    ASSERT_TRUE(entry.ok()) << entry.status();
    EXPECT_EQ((*entry)->origin, MachineOrigin::kBuiltin);
    EXPECT_EQ((*entry)->machine.name(), e.name);
    EXPECT_EQ((*entry)->machine.spec(), FindCatalogEntry(e.name)->spec);
    EXPECT_EQ((*entry)->machine.description(), FindCatalogEntry(e.name)->description);
    EXPECT_EQ((*entry)->machine.cores_per_node(), e.cores);
    EXPECT_EQ((*entry)->model->num_nodes(), e.nodes);
    EXPECT_EQ((*entry)->model->cores_per_node(), e.cores);
  }
  std::vector<std::string> names;
  for (const auto& entry : catalog->List()) names.push_back(entry->machine.name());
  EXPECT_THAT(names, ElementsAre("bgp-8x8x8", "dgx-h100-superpod", "dragonfly-xc", "fattree-64x64",
                                 "gb200-nvl72-pod", "kraken", "tianhe3-proto"));
  EXPECT_EQ(MachineOriginName(MachineOrigin::kBuiltin), "builtin");
  EXPECT_EQ(MachineOriginName(MachineOrigin::kConfig), "config");
  EXPECT_EQ(MachineOriginName(MachineOrigin::kStored), "stored");
}

TEST_F(MachineCatalogTest, GetUnknownIsNotFoundListingTheNames) {
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", "");
  ASSERT_NE(catalog, nullptr);
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> entry = catalog->Get("no-such-machine");
  ASSERT_EQ(entry.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(entry.status().message(), HasSubstr("no-such-machine"));
  EXPECT_THAT(entry.status().message(), HasSubstr("bgp-8x8x8, dgx-h100-superpod, dragonfly-xc, "
                                                  "fattree-64x64, gb200-nvl72-pod, kraken, "
                                                  "tianhe3-proto"));
}

TEST_F(MachineCatalogTest, ConfigFileMachinesLoad) {
  const std::string dir = TestDir();
  const std::string config = dir + "/catalog.json";
  WriteFile(config, kTwoMachineConfig);
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie(config, "");
  ASSERT_NE(catalog, nullptr);
  EXPECT_EQ(catalog->List().size(), BuiltinCatalog().size() + 2);

  absl::StatusOr<std::shared_ptr<const CatalogEntry>> torus = catalog->Get("lab-torus");
  ASSERT_TRUE(torus.ok()) << torus.status();
  EXPECT_EQ((*torus)->origin, MachineOrigin::kConfig);
  EXPECT_EQ((*torus)->machine.description(), "4x4, x wraps, y does not");
  const Machine& t = *(*torus)->model;
  EXPECT_EQ(t.num_nodes(), 16);
  EXPECT_EQ(t.cores_per_node(), 2);
  EXPECT_EQ(t.Hops(0, 3), 1);   // (0,0)-(3,0): x wraps
  EXPECT_EQ(t.Hops(0, 12), 3);  // (0,0)-(0,3): y does not
  EXPECT_EQ(t.Hops(0, 15), 4);  // (0,0)-(3,3)

  absl::StatusOr<std::shared_ptr<const CatalogEntry>> pod = catalog->Get("pod");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ((*pod)->origin, MachineOrigin::kConfig);
  const Machine& p = *(*pod)->model;
  EXPECT_EQ(p.num_nodes(), 4);
  EXPECT_EQ(p.cores_per_node(), 8);
  EXPECT_EQ(p.Hops(0, 1), 2);  // n01-n02 share leaf1
  EXPECT_EQ(p.Hops(0, 2), 4);  // n01-n03 via the spine
  EXPECT_EQ(p.NodeName(3), "n04");
}

TEST_F(MachineCatalogTest, ConfigMachineWithABuiltinNameIsAnErrorNamingTheFile) {
  const std::string dir = TestDir();
  const std::string config = dir + "/catalog.json";
  WriteFile(config, R"({"machines": [{"name": "kraken", "spec": "torus:2x2"}]})");
  absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open(config, "");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr(config));
  EXPECT_THAT(catalog.status().message(), HasSubstr("'kraken'"));
  EXPECT_THAT(catalog.status().message(), HasSubstr("builtin"));
}

TEST_F(MachineCatalogTest, MalformedConfigIsAnErrorNamingTheFile) {
  const std::string dir = TestDir();
  struct Case {
    const char* what;
    const char* json;
    const char* expected;
  };
  int index = 0;
  for (const Case& c : std::vector<Case>{
           {"not json", R"({"machines": [ {"name": "x", )", "not a hopmap.v1.CatalogConfig"},
           {"unknown field", R"({"machines": [], "extra": 1})", "not a hopmap.v1.CatalogConfig"},
           {"unknown machine field",
            R"({"machines": [{"name": "x", "spec": "torus:2", "nods": 3}]})",
            "not a hopmap.v1.CatalogConfig"},
           {"bad name", R"({"machines": [{"name": "a b", "spec": "torus:2"}]})", "machine.name"},
           {"bad model",
            R"({"machines": [{"name": "x", "torus": {"dims": [4], "wrap": [true, false]}}]})",
            "machine.torus.wrap"},
           {"no model", R"({"machines": [{"name": "x"}]})", "no model"},
           {"twice",
            R"({"machines": [{"name": "x", "spec": "torus:2"}, {"name": "x", "spec": "torus:3"}]})",
            "machines[1]"},
       }) {
    SCOPED_TRACE(c.what);
    const std::string config = absl::StrCat(dir, "/config", index++, ".json");
    WriteFile(config, c.json);
    absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open(config, "");
    ASSERT_FALSE(catalog.ok());
    EXPECT_EQ(catalog.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(catalog.status().message(), HasSubstr(config));
    EXPECT_THAT(catalog.status().message(), HasSubstr(c.expected));
  }
  const std::string missing = dir + "/missing.json";
  absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open(missing, "");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr(missing));
}

TEST_F(MachineCatalogTest, PutValidatesNameAndModel) {
  const std::string state = TestDir();
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
  ASSERT_NE(catalog, nullptr);

  absl::StatusOr<std::shared_ptr<const CatalogEntry>> put =
      catalog->Put(TorusMachine("bad name", {4}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.name"));

  put = catalog->Put(TorusMachine("", {4}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.name"));

  put = catalog->Put(TorusMachine("lab", {4, 0}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.torus.dims[1]: must be positive, got 0"));

  v1::Machine bad_wrap = TorusMachine("lab", {4, 4});
  bad_wrap.mutable_torus()->add_wrap(true);
  put = catalog->Put(bad_wrap);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.torus.wrap"));

  v1::Machine file_spec;
  file_spec.set_name("lab");
  file_spec.set_spec("graph:/etc/passwd");
  put = catalog->Put(file_spec);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.spec"));

  put = catalog->Put(TorusMachine("lab", {}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.torus.dims"));

  v1::Machine bad_graph;
  bad_graph.set_name("lab");
  bad_graph.set_switch_graph_file("switch s\nnode n1 n2\nlink s n1\nlink s n3\n");
  put = catalog->Put(bad_graph);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.switch_graph_file:4"));

  // Nothing was stored or published.
  EXPECT_THAT(ListDir(MachinesDir(state)), IsEmpty());
  EXPECT_EQ(catalog->Get("lab").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(MachineCatalogTest, PutTakesFileTextKinds) {
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", "");
  ASSERT_NE(catalog, nullptr);
  v1::Machine matrix;
  matrix.set_name("line3");
  matrix.set_cores_per_node(2);
  matrix.set_distance_matrix_file("names: a b c\n0 1 2\n1 0 1\n2 1 0\n");
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> put = catalog->Put(matrix);
  ASSERT_TRUE(put.ok()) << put.status();
  EXPECT_EQ((*put)->model->num_nodes(), 3);
  EXPECT_EQ((*put)->model->Hops(0, 2), 2);
  EXPECT_EQ((*put)->model->cores_per_node(), 2);
  EXPECT_EQ((*put)->model->NodeName(2), "c");

  matrix.set_distance_matrix_file("0 1\n2 0\n");  // not symmetric
  put = catalog->Put(matrix);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.distance_matrix_file"));
  EXPECT_EQ((*catalog->Get("line3"))->model->num_nodes(), 3);  // the old one stays

  matrix.set_node_name_prefix("x");
  put = catalog->Put(matrix);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(put.status().message(), HasSubstr("machine.node_name_prefix"));
}

TEST_F(MachineCatalogTest, PutPersistsAcrossARestart) {
  const std::string state = TestDir();
  v1::Machine machine = TorusMachine("lab", {4, 6});
  machine.set_cores_per_node(3);
  {
    std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
    ASSERT_NE(catalog, nullptr);
    EXPECT_EQ(catalog->state_dir(), state);
    absl::StatusOr<std::shared_ptr<const CatalogEntry>> put = catalog->Put(machine);
    ASSERT_TRUE(put.ok()) << put.status();
    EXPECT_EQ((*put)->origin, MachineOrigin::kStored);
    EXPECT_EQ((*put)->model->num_nodes(), 24);
    absl::StatusOr<std::shared_ptr<const CatalogEntry>> got = catalog->Get("lab");
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, *put);
  }
  EXPECT_THAT(ListDir(MachinesDir(state)), ElementsAre("lab.json"));

  // A second Open of the same state directory: what hopmapd sees after a restart.
  std::unique_ptr<MachineCatalog> reopened = OpenOrDie("", state);
  ASSERT_NE(reopened, nullptr);
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> got = reopened->Get("lab");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)->origin, MachineOrigin::kStored);
  EXPECT_TRUE(MessageDifferencer::Equals((*got)->machine, machine))
      << (*got)->machine.DebugString();
  EXPECT_EQ((*got)->model->num_nodes(), 24);
  EXPECT_EQ((*got)->model->cores_per_node(), 3);
  EXPECT_EQ(reopened->List().size(), BuiltinCatalog().size() + 1);
}

TEST_F(MachineCatalogTest, PutThatReplacesKeepsOneFileAndBumpsTheVersion) {
  const std::string state = TestDir();
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
  ASSERT_NE(catalog, nullptr);
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> first =
      catalog->Put(TorusMachine("lab", {4, 4}));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> second =
      catalog->Put(TorusMachine("lab", {8}));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_GT((*second)->version, (*first)->version);
  // The first snapshot is untouched: a solve holding it keeps its machine.
  EXPECT_EQ((*first)->model->num_nodes(), 16);
  EXPECT_EQ((*second)->model->num_nodes(), 8);
  EXPECT_EQ((*catalog->Get("lab"))->version, (*second)->version);
  EXPECT_THAT(ListDir(MachinesDir(state)), ElementsAre("lab.json"));

  std::unique_ptr<MachineCatalog> reopened = OpenOrDie("", state);
  ASSERT_NE(reopened, nullptr);
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> got = reopened->Get("lab");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)->model->num_nodes(), 8);
}

TEST_F(MachineCatalogTest, FailedWriteLeavesTheCatalogUnchanged) {
  const std::string state = TestDir();
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
  ASSERT_NE(catalog, nullptr);
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> first =
      catalog->Put(TorusMachine("lab", {4}));
  ASSERT_TRUE(first.ok()) << first.status();
  fs::remove_all(MachinesDir(state));  // the disk goes away under the daemon

  absl::StatusOr<std::shared_ptr<const CatalogEntry>> put = catalog->Put(TorusMachine("lab", {9}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(put.status().message(), HasSubstr(MachinesDir(state) + "/lab.json.tmp"));
  put = catalog->Put(TorusMachine("new", {9}));
  EXPECT_FALSE(put.ok());
  EXPECT_EQ(*catalog->Get("lab"), *first);
  EXPECT_EQ(catalog->Get("new").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(MachineCatalogTest, DeleteRemovesTheFile) {
  const std::string state = TestDir();
  {
    std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
    ASSERT_NE(catalog, nullptr);
    ASSERT_TRUE(catalog->Put(TorusMachine("lab", {4})).ok());
    ASSERT_TRUE(catalog->Put(TorusMachine("other", {5})).ok());
    EXPECT_THAT(ListDir(MachinesDir(state)), ElementsAre("lab.json", "other.json"));
    ASSERT_TRUE(catalog->Delete("lab").ok());
    EXPECT_THAT(ListDir(MachinesDir(state)), ElementsAre("other.json"));
    EXPECT_EQ(catalog->Get("lab").status().code(), absl::StatusCode::kNotFound);
    const absl::Status again = catalog->Delete("lab");
    EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(again.message(), HasSubstr("other"));  // lists what is there
  }
  std::unique_ptr<MachineCatalog> reopened = OpenOrDie("", state);
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->Get("lab").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(reopened->Get("other").ok());
}

TEST_F(MachineCatalogTest, BuiltinAndConfigNamesCannotBeChanged) {
  const std::string dir = TestDir();
  const std::string config = dir + "/catalog.json";
  WriteFile(config, kTwoMachineConfig);
  const std::string state = dir + "/state";
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie(config, state);
  ASSERT_NE(catalog, nullptr);

  absl::StatusOr<std::shared_ptr<const CatalogEntry>> put =
      catalog->Put(TorusMachine("kraken", {4}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(put.status().message(), HasSubstr("built in"));
  absl::Status del = catalog->Delete("kraken");
  EXPECT_EQ(del.code(), absl::StatusCode::kFailedPrecondition);

  put = catalog->Put(TorusMachine("pod", {4}));
  EXPECT_EQ(put.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(put.status().message(), HasSubstr(config));
  del = catalog->Delete("lab-torus");
  EXPECT_EQ(del.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(del.message(), HasSubstr(config));

  EXPECT_EQ((*catalog->Get("kraken"))->model->num_nodes(), 9600);
  EXPECT_EQ((*catalog->Get("pod"))->model->num_nodes(), 4);
  EXPECT_THAT(ListDir(MachinesDir(state)), IsEmpty());
}

TEST_F(MachineCatalogTest, TornTempFilesAreIgnoredAndRemoved) {
  const std::string state = TestDir();
  const std::string machines = MachinesDir(state);
  fs::create_directories(machines);
  v1::Machine keep = TorusMachine("keep", {6});
  WriteFile(machines + "/keep.json", R"({"name": "keep", "torus": {"dims": [6]}})");
  // A crash in the middle of a Put of "keep" (its new version never renamed in) and
  // of a first Put of "ghost".
  WriteFile(machines + "/keep.json.tmp", R"({"name": "keep", "torus": {"di)");
  WriteFile(machines + "/ghost.json.tmp", R"({"name": "gho)");
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
  ASSERT_NE(catalog, nullptr);
  EXPECT_EQ(catalog->Get("ghost").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> got = catalog->Get("keep");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)->model->num_nodes(), 6);
  EXPECT_THAT(ListDir(machines), ElementsAre("keep.json"));
}

// A stored file that cannot be read back makes Open fail, naming the file, rather
// than starting without it: the file is a machine a user put, and starting without
// it would silently drop it (requests naming it would fail later, far from the
// cause, and the next Put of another machine would look like it "lost" one).
// Nothing a user gave is silently dropped; the operator fixes or removes the file.
TEST_F(MachineCatalogTest, BadStoredFilesAreSetAsideAndTheRestServed) {
  struct Case {
    const char* file;
    const char* json;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"broken.json", R"({"name": "broken", "torus": {"dims": [4,)", "not a hopmap.v1.Machine"},
      {"badmodel.json", R"({"name": "badmodel", "torus": {"dims": [4], "wrap": [true, false]}})",
       "machine.torus.wrap"},
      {"nomodel.json", R"({"name": "nomodel"})", "no model"},
      {"renamed.json", R"({"name": "other", "spec": "torus:4"})", "<name>.json"},
      {"kraken.json", R"({"name": "kraken", "spec": "torus:4"})", "builtin"},
  };
  const std::string state = TestDir();
  fs::create_directories(MachinesDir(state));
  for (const Case& c : cases) WriteFile(MachinesDir(state) + "/" + c.file, c.json);
  WriteFile(MachinesDir(state) + "/good.json", R"({"name": "good", "spec": "torus:4x4"})");
  // An earlier rejected copy of broken.json is never overwritten.
  WriteFile(MachinesDir(state) + "/broken.json.rejected", "older");

  absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open("", state);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_TRUE((*catalog)->Get("good").ok());
  EXPECT_TRUE((*catalog)->Get("kraken").ok());  // the built-in one
  const std::vector<std::string> rejected = (*catalog)->rejected();
  ASSERT_EQ(rejected.size(), cases.size());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = MachinesDir(state) + "/" + c.file;
    const std::string aside =
        path + (std::string(c.file) == "broken.json" ? ".rejected.1" : ".rejected");
    EXPECT_FALSE(fs::exists(path));
    EXPECT_EQ(ReadFile(aside), c.json);  // kept, byte for byte, for the operator
    bool found = false;
    for (const std::string& line : rejected) {
      if (line.rfind(path + ":", 0) != 0) continue;
      found = true;
      EXPECT_THAT(line, HasSubstr(c.expected));
      EXPECT_THAT(line, HasSubstr("moved to " + aside));
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;  // one log line
    }
    EXPECT_TRUE(found) << ::testing::PrintToString(rejected);
  }
  EXPECT_EQ(ReadFile(MachinesDir(state) + "/broken.json.rejected"), "older");
  // The missing machine's error says why; a Put of the name clears it.
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> broken = (*catalog)->Get("broken");
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(broken.status().message(), HasSubstr("set aside"));
  EXPECT_THAT(broken.status().message(), HasSubstr("broken.json.rejected.1"));
  v1::Machine again;
  again.set_name("broken");
  again.set_spec("torus:4");
  ASSERT_TRUE((*catalog)->Put(again).ok());
  EXPECT_TRUE((*catalog)->Get("broken").ok());
  EXPECT_EQ((*catalog)->rejected().size(), cases.size() - 1);

  // A second start loads what is left and sets nothing more aside.
  absl::StatusOr<std::unique_ptr<MachineCatalog>> reopened = MachineCatalog::Open("", state);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_TRUE((*reopened)->rejected().empty()) << ::testing::PrintToString((*reopened)->rejected());
  EXPECT_TRUE((*reopened)->Get("broken").ok());
  EXPECT_TRUE((*reopened)->Get("good").ok());
}

TEST_F(MachineCatalogTest, WithoutAStateDirectoryPutIsInMemoryOnly) {
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", "");
  ASSERT_NE(catalog, nullptr);
  EXPECT_EQ(catalog->state_dir(), "");
  ASSERT_TRUE(catalog->Put(TorusMachine("lab", {3})).ok());
  EXPECT_EQ((*catalog->Get("lab"))->model->num_nodes(), 3);
  EXPECT_TRUE(catalog->Delete("lab").ok());
  EXPECT_EQ(catalog->Get("lab").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(MachineCatalogTest, ConcurrentPutAndGetStayConsistent) {
  const std::string state = TestDir();
  std::unique_ptr<MachineCatalog> catalog = OpenOrDie("", state);
  ASSERT_NE(catalog, nullptr);
  constexpr int kWriters = 4;
  constexpr int kReaders = 4;
  constexpr int kRounds = 10;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kRounds; ++i) {
        if (!catalog->Put(TorusMachine(absl::StrCat("w", w), {2 + i})).ok()) ++failures;
        if (!catalog->Put(TorusMachine("shared", {100 * (w + 1) + i})).ok()) ++failures;
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&] {
      uint64_t last_version = 0;
      do {
        absl::StatusOr<std::shared_ptr<const CatalogEntry>> shared = catalog->Get("shared");
        if (shared.ok()) {
          // The message and the model of one snapshot always agree, and a reader
          // never sees an older version after a newer one.
          if ((*shared)->model->num_nodes() != (*shared)->machine.torus().dims(0)) ++failures;
          if ((*shared)->version < last_version) ++failures;
          last_version = (*shared)->version;
        } else if (shared.status().code() != absl::StatusCode::kNotFound) {
          ++failures;
        }
        for (const auto& entry : catalog->List()) {
          if (entry->machine.has_torus() &&
              entry->model->num_nodes() != entry->machine.torus().dims(0)) {
            ++failures;
          }
        }
      } while (!done.load());
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  done = true;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  EXPECT_EQ(failures.load(), 0);

  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ((*catalog->Get(absl::StrCat("w", w)))->model->num_nodes(), 2 + kRounds - 1);
  }
  EXPECT_THAT(ListDir(MachinesDir(state)),
              ElementsAre("shared.json", "w0.json", "w1.json", "w2.json", "w3.json"));
  // What is on disk is exactly what is published (the last Put of each name won
  // both places).
  std::unique_ptr<MachineCatalog> reopened = OpenOrDie("", state);
  ASSERT_NE(reopened, nullptr);
  for (const auto& entry : catalog->List()) {
    SCOPED_TRACE(entry->machine.name());
    absl::StatusOr<std::shared_ptr<const CatalogEntry>> got = reopened->Get(entry->machine.name());
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(MessageDifferencer::Equals((*got)->machine, entry->machine));
  }
}

}  // namespace
}  // namespace hopmap::server

namespace hopmap::server {
namespace {

// A SharedStore kept in memory with etcd's revision counting: what MachineCatalog
// does with a store (etcd's own wire is tested in tests/scaleout).
class MemoryStore final : public SharedStore {
 public:
  absl::StatusOr<int64_t> Write(const std::string& name, const std::string& json) override {
    if (down) return absl::UnavailableError("the shared catalog (memory) is down");
    values[name] = json;
    return ++revision;
  }
  absl::StatusOr<int64_t> Remove(const std::string& name) override {
    if (down) return absl::UnavailableError("the shared catalog (memory) is down");
    values.erase(name);
    return ++revision;
  }
  std::map<std::string, std::string> values;
  int64_t revision = 0;
  bool down = false;
};

v1::Machine SharedTorus(const std::string& name, std::vector<int32_t> dims) {
  v1::Machine m;
  m.set_name(name);
  for (int32_t d : dims) m.mutable_torus()->add_dims(d);
  return m;
}

TEST(SharedCatalogTest, PutAndDeleteGoThroughTheStore) {
  absl::StatusOr<std::unique_ptr<MachineCatalog>> catalog = MachineCatalog::Open("", "");
  ASSERT_TRUE(catalog.ok());
  MemoryStore store;
  (*catalog)->UseSharedStore(&store);
  ASSERT_TRUE((*catalog)->Put(SharedTorus("lab", {4, 4})).ok());
  ASSERT_EQ(store.values.count("lab"), 1u);
  EXPECT_THAT(store.values["lab"], HasSubstr("\"lab\""));
  EXPECT_EQ((*(*catalog)->Get("lab"))->shared_revision, 1);
  // The store refuses: nothing changes, the error is the store's.
  store.down = true;
  absl::StatusOr<std::shared_ptr<const CatalogEntry>> refused =
      (*catalog)->Put(SharedTorus("other", {2, 2}));
  EXPECT_TRUE(absl::IsUnavailable(refused.status()));
  EXPECT_FALSE((*catalog)->Get("other").ok());
  EXPECT_TRUE(absl::IsUnavailable((*catalog)->Delete("lab")));
  EXPECT_TRUE((*catalog)->Get("lab").ok());
  store.down = false;
  ASSERT_TRUE((*catalog)->Delete("lab").ok());
  EXPECT_EQ(store.values.count("lab"), 0u);
  EXPECT_FALSE((*catalog)->Get("lab").ok());
}

TEST(SharedCatalogTest, ChangesApplyInRevisionOrderWhateverTheyArriveIn) {
  absl::StatusOr<std::unique_ptr<MachineCatalog>> opened = MachineCatalog::Open("", "");
  ASSERT_TRUE(opened.ok());
  MachineCatalog& catalog = **opened;
  const std::string v4 = MachineToJson(SharedTorus("lab", {4, 4}));
  const std::string v8 = MachineToJson(SharedTorus("lab", {8, 8}));
  ASSERT_TRUE(catalog.ApplySharedPut("lab", v8, 7).ok());
  // An older put arriving late is ignored.
  ASSERT_TRUE(catalog.ApplySharedPut("lab", v4, 5).ok());
  EXPECT_EQ((*catalog.Get("lab"))->model->num_nodes(), 64);
  // The same machine again keeps the entry's version (the allocation cache keys on it).
  const uint64_t version = (*catalog.Get("lab"))->version;
  ASSERT_TRUE(catalog.ApplySharedPut("lab", v8, 9).ok());
  EXPECT_EQ((*catalog.Get("lab"))->version, version);
  // A removal older than the entry is ignored; a newer one removes it, and a put
  // older than the removal does not bring it back.
  catalog.ApplySharedDelete("lab", 8);
  EXPECT_TRUE(catalog.Get("lab").ok());
  catalog.ApplySharedDelete("lab", 10);
  EXPECT_FALSE(catalog.Get("lab").ok());
  ASSERT_TRUE(catalog.ApplySharedPut("lab", v4, 10).ok());
  EXPECT_FALSE(catalog.Get("lab").ok());
  ASSERT_TRUE(catalog.ApplySharedPut("lab", v4, 11).ok());
  EXPECT_EQ((*catalog.Get("lab"))->model->num_nodes(), 16);
  // After a full read, what the store no longer has goes.
  ASSERT_TRUE(catalog.ApplySharedPut("kept", MachineToJson(SharedTorus("kept", {2, 2})), 12).ok());
  catalog.RetainShared({"kept"}, 13);
  EXPECT_FALSE(catalog.Get("lab").ok());
  EXPECT_TRUE(catalog.Get("kept").ok());
}

TEST(SharedCatalogTest, EntriesThatCannotBeServedAreRefusedByName) {
  absl::StatusOr<std::unique_ptr<MachineCatalog>> opened = MachineCatalog::Open("", "");
  ASSERT_TRUE(opened.ok());
  MachineCatalog& catalog = **opened;
  absl::Status bad_json = catalog.ApplySharedPut("lab", "{not json", 3);
  EXPECT_THAT(std::string(bad_json.message()), HasSubstr("shared catalog entry 'lab'"));
  absl::Status other_name =
      catalog.ApplySharedPut("lab", MachineToJson(SharedTorus("elsewhere", {2})), 4);
  EXPECT_THAT(std::string(other_name.message()), HasSubstr("holds machine 'elsewhere', not 'lab'"));
  // A built-in name is never taken over, and the built-in stays.
  const std::string builtin = (*catalog.List().begin())->machine.name();
  absl::Status taken = catalog.ApplySharedPut(builtin, MachineToJson(SharedTorus(builtin, {2})), 5);
  EXPECT_THAT(std::string(taken.message()), HasSubstr("built in"));
  EXPECT_EQ((*catalog.Get(builtin))->origin, MachineOrigin::kBuiltin);
  catalog.ApplySharedDelete(builtin, 6);
  EXPECT_TRUE(catalog.Get(builtin).ok());
}

}  // namespace
}  // namespace hopmap::server
