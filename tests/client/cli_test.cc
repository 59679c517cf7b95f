// The hopmap command line end to end: real files in, real output formats out.
#include <dirent.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ReadFile;
using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kData = std::string(HOPMAP_DATA_DIR);
const std::string kTmp = hopmap::testing::TempFolder();

std::vector<std::string> RealGraphs() {
  std::vector<std::string> graphs;
  const std::string dir = kData + "/commgraphs";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return graphs;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (absl::EndsWith(name, ".edgelist") || absl::EndsWith(name, ".csv")) {
      graphs.push_back(dir + "/" + name);
    }
  }
  closedir(d);
  std::sort(graphs.begin(), graphs.end());
  return graphs;
}

void ExpectUserError(const std::string& args, const std::string& message) {
  auto r = RunHopmap(args);
  EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
  EXPECT_THAT(r.err, HasSubstr(message)) << args;
  // One line on stderr, nothing on stdout.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "") << args;
}

// Checks the JSON report of `hopmap map` for internal consistency.
void CheckReport(const nlohmann::json& j, int64_t tasks) {
  EXPECT_EQ(j["tasks"].get<int64_t>(), tasks);
  EXPECT_EQ(j["slot_of_task"].size(), static_cast<size_t>(tasks));
  EXPECT_EQ(j["node_of_task"].size(), static_cast<size_t>(tasks));
  EXPECT_EQ(j["core_of_task"].size(), static_cast<size_t>(tasks));
  const int64_t hb = j["hop_bytes"].get<int64_t>();
  EXPECT_LE(j["lower_bound"].get<int64_t>(), hb);
  EXPECT_LE(hb, j["baseline_hop_bytes"].get<int64_t>());
  EXPECT_GE(j["improvement"].get<double>(), 0.0);
  for (const char* key :
       {"total_bytes", "avg_hops_per_byte", "lower_bound_method", "gap", "max_dilation",
        "max_link_load", "solve_seconds", "candidates", "algorithm", "slots"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  std::vector<int64_t> slots = j["slot_of_task"].get<std::vector<int64_t>>();
  std::sort(slots.begin(), slots.end());
  EXPECT_EQ(std::adjacent_find(slots.begin(), slots.end()), slots.end()) << "a slot used twice";
}

TEST(CliTest, MapsEveryRealGraphOntoAFragmentedKrakenAllocation) {
  const std::vector<std::string> graphs = RealGraphs();
  ASSERT_GE(graphs.size(), 30u);
  // 250 nodes in three pieces of the 25x16x24 torus, 12 cores each: 3000 slots.
  const std::string nodes = "100-199,1000-1099,4000-4049";
  for (const std::string& graph : graphs) {
    auto r = RunHopmap("map --local --machine kraken --nodes " + nodes + " --graph " + graph +
                       " --time-limit 5");
    ASSERT_EQ(r.exit_code, 0) << graph << "\n" << r.err;
    const auto j = nlohmann::json::parse(r.out);
    CheckReport(j, j["tasks"].get<int64_t>());
    EXPECT_GT(j["tasks"].get<int64_t>(), 0);
    for (const auto& node : j["node_of_task"]) {
      const int64_t id = node.get<int64_t>();
      EXPECT_TRUE((id >= 100 && id <= 199) || (id >= 1000 && id <= 1099) ||
                  (id >= 4000 && id <= 4049))
          << id;
    }
  }
}

TEST(CliTest, MapsRealGraphsOntoTheRealSlurmTopologies) {
  const std::string confs = kData + "/machines/slurm_topology_conf/";
  // tara: 12 nodes; circe: 80 nodes.
  const std::vector<std::pair<std::string, int>> machines = {
      {"nstda_tara_topology.conf", 128}, {"nvidia_circe_superpod_topology.conf", 16}};
  for (const auto& [conf, cores] : machines) {
    for (const std::string& graph : RealGraphs()) {
      auto r = RunHopmap("map --local --machine slurm:" + confs + conf + " --cores " +
                         std::to_string(cores) + " --graph " + graph + " --time-limit 5");
      ASSERT_EQ(r.exit_code, 0) << conf << " " << graph << "\n" << r.err;
      const auto j = nlohmann::json::parse(r.out);
      CheckReport(j, j["tasks"].get<int64_t>());
    }
  }
  // Hostnames from the file select nodes, as a Slurm prolog would pass them.
  auto r = RunHopmap("map --local --machine slurm:" + confs +
                     "nstda_tara_topology.conf --nodes tara-c-[001-004],tara-m-001 --cores 16 "
                     "--graph " +
                     kData + "/commgraphs/cnca_minimd_64.edgelist --format hostfile -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> hosts = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  EXPECT_EQ(hosts.size(), 64u);
  for (const std::string& h : hosts) EXPECT_THAT(h, StartsWith("tara-"));
}

TEST(CliTest, PermOutputRoundTripsThroughEval) {
  const std::string graph = kData + "/commgraphs/cnca_lulesh_64.edgelist";
  const std::string perm = kTmp + "/lulesh.perm";
  auto map = RunHopmap("map --local --machine torus:4x4x4:cores=2 --graph " + graph +
                       " --algorithm axis-order --format perm -q -o " + perm);
  ASSERT_EQ(map.exit_code, 0) << map.err;
  auto json = RunHopmap("map --local --machine torus:4x4x4:cores=2 --graph " + graph +
                        " --algorithm axis-order");
  auto eval = RunHopmap("eval --local --machine torus:4x4x4:cores=2 --graph " + graph +
                        " --mapping " + perm);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto mapped = nlohmann::json::parse(json.out);
  const auto evaluated = nlohmann::json::parse(eval.out);
  EXPECT_EQ(mapped["hop_bytes"], evaluated["hop_bytes"]);
  EXPECT_EQ(mapped["slot_of_task"], evaluated["slot_of_task"]);
  EXPECT_EQ(evaluated["algorithm"], "given");
  EXPECT_TRUE(evaluated.contains("busiest_links"));
  // The JSON report is itself a mapping file.
  const std::string report = kTmp + "/lulesh.json";
  WriteFile(report, json.out);
  auto eval2 = RunHopmap("eval --local --machine torus:4x4x4:cores=2 --graph " + graph +
                         " --mapping " + report + " --routing adaptive");
  ASSERT_EQ(eval2.exit_code, 0) << eval2.err;
  const auto adaptive = nlohmann::json::parse(eval2.out);
  EXPECT_EQ(adaptive["hop_bytes"], mapped["hop_bytes"]);
  EXPECT_EQ(adaptive["routing"], "adaptive");
  EXPECT_LE(adaptive["max_link_load"].get<double>(),
            evaluated["max_link_load"].get<double>() + 1e-6);
}

TEST(CliTest, EveryOutputFormat) {
  const std::string graph = kTmp + "/ring8.edgelist";
  ASSERT_EQ(RunHopmap("gen ring --tasks 8 --bytes 10 -o " + graph).exit_code, 0);
  const std::string base = "map --local --machine torus:2x2:cores=2 --graph " + graph +
                           " --algorithm in-order -q --format ";
  EXPECT_EQ(RunHopmap(base + "perm").out, "0\n1\n2\n3\n4\n5\n6\n7\n");
  EXPECT_THAT(RunHopmap(base + "rankfile").out,
              StartsWith("rank 0=nid00000 slot=0\nrank 1=nid00000 slot=1\nrank 2=nid00001"));
  EXPECT_THAT(RunHopmap(base + "hostfile").out, StartsWith("nid00000\nnid00000\nnid00001\n"));
  EXPECT_THAT(RunHopmap(base + "mpich-rank-order").out, HasSubstr("0-7"));
  EXPECT_THAT(RunHopmap(base + "bg-mapfile").out, StartsWith("0 0 0\n0 0 1\n1 0 0\n"));
  EXPECT_THAT(RunHopmap(base + "csv").out, StartsWith("task,slot,node,hostname,core\n"));
  auto summary =
      RunHopmap("map --local --machine torus:2x2:cores=2 --graph " + graph + " --format perm");
  EXPECT_THAT(summary.err, HasSubstr("hop-bytes"));
}

// -o into a pipe writes into the pipe (`-o /dev/null` once renamed a regular file
// over the device), and -o through a symbolic link replaces the file it names.
TEST(CliTest, OutputIntoAPipeOrThroughALink) {
  const std::string graph = kTmp + "/ring8_out.edgelist";
  ASSERT_EQ(RunHopmap("gen ring --tasks 8 --bytes 10 -o " + graph).exit_code, 0);
  const std::string map = "map --local --machine torus:2x2:cores=2 --graph " + graph +
                          " --algorithm in-order -q --format perm -o ";
  // A named pipe with a reader (that gives up after 20 s if nothing ever opens it).
  const std::string pipe = kTmp + "/perm_pipe";
  auto piped = hopmap::testing::RunShell(
      "rm -f " + pipe + " && mkfifo " + pipe + " && { timeout 20 cat " + pipe + " >" + kTmp +
      "/perm_from_pipe.txt & " + HOPMAP_CLI + " " + map + pipe + "; rc=$?; wait; exit $rc; }");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(ReadFile(kTmp + "/perm_from_pipe.txt"), "0\n1\n2\n3\n4\n5\n6\n7\n");
  struct stat st;
  ASSERT_EQ(lstat(pipe.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  const std::string target = kTmp + "/perm_target.txt";
  const std::string link = kTmp + "/perm_link.txt";
  std::remove(link.c_str());
  WriteFile(target, "old\n");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(RunHopmap(map + link).exit_code, 0);
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(ReadFile(target), "0\n1\n2\n3\n4\n5\n6\n7\n");
}

TEST(CliTest, UserErrorsExitOneWithOneLine) {
  const std::string graph = kData + "/commgraphs/cnca_minimd_64.edgelist";
  ExpectUserError("map --local --machine nosuch --graph " + graph, "unknown machine 'nosuch'");
  ExpectUserError("map --local --machine torus:4x0 --graph " + graph, "dimension");
  ExpectUserError("map --local --machine mesh:4x4 --graph " + graph,
                  "64 tasks but the allocation has only 16 slots");
  ExpectUserError("map --local --machine mesh:8x8 --graph /nonexistent.edgelist",
                  "/nonexistent.edgelist");
  ExpectUserError("map --local --machine mesh:8x8 --nodes 0-70 --graph " + graph,
                  "node 70 is outside machine mesh:8x8");
  ExpectUserError("map --local --machine mesh:8x8 --nodes 0-10,5 --graph " + graph, "listed twice");
  ExpectUserError("map --local --machine mesh:8x8 --graph " + graph + " --algorithm nope",
                  "unknown algorithm 'nope'");
  ExpectUserError("map --local --machine mesh:8x8 --graph " + graph + " --format xml", "xml");
  ExpectUserError("map --machine mesh:8x8 --graph " + graph, "--local is required");
  ExpectUserError("map --local --graph " + graph, "--machine is required");
  ExpectUserError("map --local --machine mesh:8x8 --graph " + graph + " --time-limit -1",
                  "time limit");
  const std::string bad = kTmp + "/bad.edgelist";
  WriteFile(bad, "0 1 5\n1 2 x\n");
  ExpectUserError("map --local --machine mesh:8x8 --graph " + bad, "bad.edgelist:2");
  ExpectUserError("eval --local --machine mesh:8x8 --graph " + graph + " --mapping " + bad,
                  "bad.edgelist:1");
  const std::string short_perm = kTmp + "/short.perm";
  WriteFile(short_perm, "0\n1\n");
  ExpectUserError("eval --local --machine mesh:8x8 --graph " + graph + " --mapping " + short_perm,
                  "has 2 entries but the graph has 64 tasks");
  const std::string node_file = kTmp + "/nodes.txt";
  WriteFile(node_file, "# my nodes\n0-31\nnid99999\n");
  ExpectUserError("map --local --machine mesh:8x8 --nodes @" + node_file + " --graph " + graph,
                  "nodes.txt:3");
  ExpectUserError("gen stencil2d-5 --dims 4x4x4", "dims");
}

// A graph without a task, in any format, is refused by every command that reads one
// with one line naming the file; declared tasks without edges are a job.
TEST(CliTest, EmptyGraphsInEveryFormatAreRefusedNamingTheFile) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"empty.mtx", ""},
      {"comments.mtx", "%%MatrixMarket matrix coordinate integer general\n% nothing\n"},
      {"zero.mtx", "%%MatrixMarket matrix coordinate integer general\n0 0 0\n"},
      {"empty.graph", ""},
      {"comments.graph", "% nothing\n\n"},
      {"zero.graph", "0 0\n"},
      {"empty.grf", ""},
      {"blank.grf", "\n \n"},
      {"zero.grf", "0\n0 0\n0 000\n"},
      {"empty.edgelist", ""},
      {"comments.edgelist", "# nothing\n"},
      {"zero.edgelist", "# tasks: 0\n"},
      {"empty.csv", ""},
      {"comments.csv", "# nothing\n"},
      {"header.csv", "a,b,c\n"},
  };
  const std::string perm = kTmp + "/empty_graph_one.perm";
  WriteFile(perm, "0\n");
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    const std::string path = kTmp + "/empty_graph_" + name;
    WriteFile(path, text);
    const std::string message = "hopmap: " + path + ": the graph is empty: no tasks\n";
    const std::string problem = " --local --machine torus:2x2 --graph " + path;
    for (const std::string& command :
         {"map" + problem + " --format perm", "map" + problem,
          "eval" + problem + " --mapping " + perm, "simulate" + problem,
          "draw" + problem + " --mapping " + perm + " -o " + kTmp + "/empty_graph.svg",
          "analyze --local --graph " + path, "convert " + path + " --to mm"}) {
      const auto r = RunHopmap(command);
      EXPECT_EQ(r.exit_code, 1) << command;
      EXPECT_EQ(r.err, message) << command;
      EXPECT_EQ(r.out, "") << command;
    }
  }
  // Five declared tasks without traffic: a job of 5 isolated tasks.
  const std::string idle = kTmp + "/idle5.edgelist";
  WriteFile(idle, "# tasks: 5\n");
  const auto r = RunHopmap("map --local --machine torus:2x2:cores=2 --graph " + idle +
                           " --format perm --algorithm in-order");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0\n1\n2\n3\n4\n");
  // The other files a command reads refuse empty input too.
  const std::string graph = kData + "/commgraphs/cnca_minimd_64.edgelist";
  const std::string empty = kTmp + "/empty_input.txt";
  WriteFile(empty, "# nothing\n");
  ExpectUserError("eval --local --machine mesh:8x8 --graph " + graph + " --mapping " + empty,
                  empty + ": the mapping is empty");
  ExpectUserError("map --local --machine mesh:8x8 --graph " + graph + " --balance --loads " + empty,
                  empty + ": no load values in the file");
}

// A missing, mistyped or asked-for subcommand: named, with the nearest one.
TEST(CliTest, SubcommandIsNamedWhenMissingOrMistyped) {
  const auto check = [](const std::string& args, const std::string& err) {
    const auto r = RunHopmap(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(r.err, err) << args;
    EXPECT_EQ(r.out, "") << args;
  };
  check("maps", "hopmap: unknown subcommand 'maps'; did you mean 'map'? (see hopmap --help)\n");
  check("MAP", "hopmap: unknown subcommand 'MAP'; did you mean 'map'? (see hopmap --help)\n");
  check("drwa --local",
        "hopmap: unknown subcommand 'drwa'; did you mean 'draw'? (see hopmap --help)\n");
  check("sim", "hopmap: unknown subcommand 'sim'; did you mean 'simulate'? (see hopmap --help)\n");
  check("machine",
        "hopmap: unknown subcommand 'machine'; did you mean 'machines'? (see hopmap --help)\n");
  check("help maps",
        "hopmap: unknown subcommand 'maps'; did you mean 'map'? (see hopmap --help)\n");
  check("xyzzy",
        "hopmap: unknown subcommand 'xyzzy'; the subcommands are: map, eval, draw, simulate, "
        "analyze, gen, convert, machines, algorithms, qap (see hopmap --help)\n");
  check("",
        "hopmap: a subcommand is required: map, eval, draw, simulate, analyze, gen, convert, "
        "machines, algorithms, qap (see hopmap --help)\n");

  // `hopmap help` is `hopmap --help`, `hopmap help map` is `hopmap map --help`.
  const auto help = RunHopmap("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("hopmap help SUBCOMMAND"));
  const auto help_word = RunHopmap("help");
  EXPECT_EQ(help_word.exit_code, 0) << help_word.err;
  EXPECT_EQ(help_word.out, help.out);
  const auto map_help = RunHopmap("map --help");
  const auto help_map = RunHopmap("help map");
  EXPECT_EQ(help_map.exit_code, 0) << help_map.err;
  EXPECT_EQ(help_map.out, map_help.out);
  EXPECT_THAT(help_map.out, HasSubstr("--algorithm"));
}

TEST(CliTest, NodeFileAndHostlistSelectTheSameAllocation) {
  const std::string graph = kData + "/commgraphs/cnca_minife_64.edgelist";
  const std::string node_file = kTmp + "/nodes2.txt";
  WriteFile(node_file, "# allocation\n12-27\nnid00100\nnid[00040-00046]\n");
  auto a = RunHopmap("map --local --machine bgp-8x8x8 --nodes @" + node_file + " --graph " + graph +
                     " --algorithm in-order");
  auto b = RunHopmap(
      "map --local --machine bgp-8x8x8 --nodes 12-27,100,nid[00040-00046] "
      "--graph " +
      graph + " --algorithm in-order");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["node_of_task"], jb["node_of_task"]);
  EXPECT_EQ(ja["node_of_task"][0], 12);
  EXPECT_EQ(ja["nodes"], 24);
  EXPECT_EQ(ja["node_of_task"][64 - 1], 27);  // in-order fills 16 nodes x 4 cores
}

TEST(CliTest, HelpAndListings) {
  auto help = RunHopmap("map --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag :
       {"--local", "--machine", "--nodes", "--cores", "--graph", "--graph-format", "--algorithm",
        "--time-limit", "--seed", "--threads", "--format", "--output"}) {
    EXPECT_THAT(help.out, HasSubstr(flag));
  }
  auto machines = RunHopmap("machines");
  EXPECT_EQ(machines.exit_code, 0);
  for (const char* name : {"bgp-8x8x8", "kraken", "tianhe3-proto", "fattree-64x64", "dragonfly-xc",
                           "dgx-h100-superpod", "gb200-nvl72-pod"}) {
    EXPECT_THAT(machines.out, HasSubstr(name));
  }
  EXPECT_THAT(RunHopmap("machines kraken").out, HasSubstr("9600"));
  EXPECT_THAT(RunHopmap("algorithms").out, HasSubstr("axis-order"));
}

// Each column of the catalog listing is as wide as its widest cell: every row's
// values start where their headers do, however long the specs are.
TEST(CliTest, MachineListingColumnsStartUnderTheirHeaders) {
  auto machines = RunHopmap("machines --local");
  ASSERT_EQ(machines.exit_code, 0) << machines.err;
  const std::vector<std::string> lines = absl::StrSplit(machines.out, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 6u);
  const std::string& header = lines[0];
  for (const char* column : {"SPEC", "NODES", "CORES", "DESCRIPTION"}) {
    const size_t at = header.find(column);
    ASSERT_NE(at, std::string::npos) << column;
    for (size_t i = 1; i < lines.size(); ++i) {
      const std::string& row = lines[i];
      ASSERT_GT(row.size(), at) << row;
      EXPECT_EQ(row[at - 1], ' ') << column << " of: " << row;
      EXPECT_NE(row[at], ' ') << column << " of: " << row;
      if (std::string(column) == "NODES" || std::string(column) == "CORES") {
        EXPECT_TRUE(absl::ascii_isdigit(row[at])) << column << " of: " << row;
      }
    }
  }
  // The spec column holds the whole spec: its cell ends before NODES starts.
  EXPECT_THAT(machines.out, HasSubstr("dragonfly:15,96,4:cores=24"));
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

using ::hopmap::testing::RunHopmap;

// A real profiler graph rewritten as Scotch .grf and back keeps every edge and weight;
// errors name the file.
TEST(ConvertCommandTest, RealGraphRoundTripsThroughScotchFormat) {
  const std::string source = std::string(HOPMAP_DATA_DIR) + "/commgraphs/cnca_lulesh_64.edgelist";
  const std::string grf = hopmap::testing::TempPath("convert_lulesh.grf");
  const std::string back = hopmap::testing::TempPath("convert_lulesh.mtx");
  ASSERT_EQ(RunHopmap("convert " + source + " -o " + grf).exit_code, 0);
  ASSERT_EQ(RunHopmap("convert " + grf + " -o " + back).exit_code, 0);
  const auto original = RunHopmap("convert " + source + " --to edgelist");
  const auto round_trip = RunHopmap("convert " + back + " --to edgelist");
  ASSERT_EQ(original.exit_code, 0);
  EXPECT_EQ(original.out, round_trip.out);
  EXPECT_NE(original.out.find("\n"), std::string::npos);

  const auto missing = RunHopmap("convert /nonexistent/g.edgelist -o x.grf");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/g.edgelist"), std::string::npos) << missing.err;
  const auto bad_ext =
      RunHopmap("convert " + source + " -o " + hopmap::testing::TempPath("x.weird"));
  EXPECT_EQ(bad_ext.exit_code, 1);
  EXPECT_NE(bad_ext.err.find("--to"), std::string::npos) << bad_ext.err;
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

using ::hopmap::testing::RunHopmap;

// --initial: refine improves the given mapping; auto lists it as a candidate; a
// mapping of the wrong size is refused with one line naming it.
TEST(MapInitialTest, RefineAndAutoStartFromTheGivenMapping) {
  const std::string graph = std::string(HOPMAP_DATA_DIR) + "/commgraphs/cnca_lulesh_64.edgelist";
  const std::string perm = hopmap::testing::TempPath("initial_random.perm");
  const std::string problem = "--local --machine torus:4x4x4:cores=2 --graph " + graph;
  ASSERT_EQ(
      RunHopmap("map " + problem + " --algorithm random --format perm -q -o " + perm).exit_code, 0);
  const auto given = nlohmann::json::parse(RunHopmap("eval " + problem + " --mapping " + perm).out);
  const auto refined = RunHopmap("map " + problem + " --algorithm refine --initial " + perm);
  ASSERT_EQ(refined.exit_code, 0) << refined.err;
  const auto r = nlohmann::json::parse(refined.out);
  EXPECT_LT(r["hop_bytes"].get<int64_t>(), given["hop_bytes"].get<int64_t>());
  EXPECT_NE(r["algorithm"].get<std::string>().find("from initial"), std::string::npos)
      << r["algorithm"];
  // What the search did is in figures, not in its name.
  EXPECT_GE(r["stats"]["passes"].get<int64_t>(), 1) << r["stats"];
  EXPECT_EQ(r["stats"]["stopped_early"], 0) << r["stats"];
  EXPECT_EQ(r["candidates"][0]["stats"], r["stats"]);

  const auto with_auto = RunHopmap("map " + problem + " --initial " + perm);
  ASSERT_EQ(with_auto.exit_code, 0) << with_auto.err;
  const auto a = nlohmann::json::parse(with_auto.out);
  ASSERT_FALSE(a["candidates"].empty());
  EXPECT_EQ(a["candidates"][0]["algorithm"], "initial");
  EXPECT_EQ(a["candidates"][0]["hop_bytes"], given["hop_bytes"]);
  EXPECT_LE(a["hop_bytes"].get<int64_t>(), r["hop_bytes"].get<int64_t>());

  const std::string short_perm = hopmap::testing::TempPath("initial_short.perm");
  ::hopmap::testing::WriteFile(short_perm, "0\n1\n2\n");
  const auto bad = RunHopmap("map " + problem + " --algorithm refine --initial " + short_perm);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "hopmap: initial mapping: has 3 entries but the graph has 64 tasks\n");
}

}  // namespace
}  // namespace hopmap
