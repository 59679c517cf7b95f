// libhopmap_mpi under Debian's Open MPI (mpi_test) and, built again with HOPMAP_MPICH
// (tests/client/mpi/mpich), libhopmap_mpi_mpich under Debian's MPICH and its hydra
// mpiexec (mpi_mpich_test): programs launched with mpiexec record their communication
// (LD_PRELOAD) and reorder their topology communicators through a real hopmapd
// (linked); under Open MPI a recording also goes through `hopmap map --format
// rankfile` into a second run that is checked to run where the rankfile said.
#include <hwloc.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/temp_path.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;

#ifndef HOPMAP_MPICH
// The launcher's variable that holds a process's rank in MPI_COMM_WORLD.
constexpr char kRankVariable[] = "OMPI_COMM_WORLD_RANK";

// mpirun with what this machine needs: root allowed, more ranks than cores. `rest`
// passes variables as Open MPI does (-x NAME=VALUE).
std::string Mpirun(int ranks, const std::string& rest) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  return absl::StrCat("timeout 300 ", MPIEXEC, " --oversubscribe -np ", ranks, " ", rest);
}
#else
constexpr char kRankVariable[] = "PMI_RANK";

// MPICH's hydra mpiexec (it runs as root and oversubscribes as it is): every
// "-x NAME=VALUE" of `rest` becomes hydra's "-genv NAME VALUE".
std::string Mpirun(int ranks, const std::string& rest) {
  std::vector<std::string> words = absl::StrSplit(rest, ' ');
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) {
    const size_t equals = i + 1 < words.size() ? words[i + 1].find('=') : std::string::npos;
    if (words[i] == "-x" && equals != std::string::npos) {
      out.push_back(absl::StrCat("-genv ", words[i + 1].substr(0, equals), " ",
                                 words[i + 1].substr(equals + 1)));
      ++i;
    } else {
      out.push_back(words[i]);
    }
  }
  return absl::StrCat("timeout 300 ", MPIEXEC, " -n ", ranks, " ", absl::StrJoin(out, " "));
}
#endif

std::string Hostname() {
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  return name;
}

struct Pair {
  int64_t bytes = 0;
  int64_t messages = 0;
  bool operator==(const Pair&) const = default;
};

// The data lines "FROM TO BYTES # msgs=N" of a recording.
std::map<std::pair<int, int>, Pair> ReadPairs(const std::string& text) {
  std::map<std::pair<int, int>, Pair> pairs;
  std::istringstream in(text);
  std::string line;
  const std::regex data(R"(^(\d+) (\d+) (\d+) # msgs=(\d+)$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, data)) {
      Pair& p = pairs[{std::stoi(m[1]), std::stoi(m[2])}];
      p.bytes += std::stoll(m[3]);
      p.messages += std::stoll(m[4]);
    }
  }
  return pairs;
}

// What halo.c sends on a periodic grid of `dims` (row-major), per directed pair.
std::map<std::pair<int, int>, Pair> HaloPairs(const std::vector<int>& dims, int iterations,
                                              int doubles) {
  int n = 1;
  for (int d : dims) n *= d;
  std::map<std::pair<int, int>, Pair> pairs;
  for (int rank = 0; rank < n; ++rank) {
    std::vector<int> coords(dims.size());
    for (int d = static_cast<int>(dims.size()) - 1, rest = rank; d >= 0; --d) {
      coords[d] = rest % dims[d];
      rest /= dims[d];
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      for (int step : {-1, 1}) {
        std::vector<int> c = coords;
        c[d] = (c[d] + step + dims[d]) % dims[d];
        int neighbour = 0;
        for (size_t k = 0; k < dims.size(); ++k) neighbour = neighbour * dims[k] + c[k];
        // One halo message of `doubles` doubles and one int of the neighbour
        // collective, every iteration.
        Pair& p = pairs[{rank, neighbour}];
        p.bytes += int64_t{iterations} * (8 * doubles + 4);
        p.messages += 2 * iterations;
      }
    }
  }
  return pairs;
}

// `program`: halo.c, or its Fortran twin (fortran/halo.F90).
void ExpectRecordedHalo(const std::vector<int>& dims, const std::string& analyzed_dims,
                        const std::string& pattern, const std::string& program = MPI_HALO) {
  int n = 1;
  std::vector<std::string> dim_text;
  for (int d : dims) {
    n *= d;
    dim_text.push_back(std::to_string(d));
  }
  const std::string record = TempPath("halo" + std::to_string(n) + ".edgelist");
  std::remove(record.c_str());
  const RunResult run = RunShell(
      Mpirun(n, absl::StrCat("-x LD_PRELOAD=", HOPMAP_MPI_PRELOAD, " -x HOPMAP_RECORD=", record,
                             " ", program, " ", absl::StrJoin(dim_text, " "), " 3 32")));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.err, Not(HasSubstr("hopmap:")));
  const std::string text = ReadFile(record);
  ASSERT_FALSE(text.empty()) << "no recording at " << record;

  // Exactly the program's pattern and bytes.
  EXPECT_EQ(ReadPairs(text), HaloPairs(dims, 3, 32));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# ranks: ", n, "\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# host ", Hostname(), ": ranks 0-", n - 1, "\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# program: ", program, "\n")));
  EXPECT_THAT(text, ::testing::ContainsRegex("# date: 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T"));
  // One allreduce of one double per iteration, by every rank.
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# collective allreduce ranks=0-", n - 1,
                                           " calls=3 bytes=", 3 * 8 * n, "\n")));
  // Once each: one int gathered from every rank (rank 0's in place), one int
  // from every rank to every rank, one int per rank reduced and scattered.
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# collective gather ranks=0-", n - 1,
                                           " calls=1 bytes=", 4 * n, "\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# collective alltoall ranks=0-", n - 1,
                                           " calls=1 bytes=", 4 * n * n, "\n")));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("# collective ireduce_scatter_block ranks=0-", n - 1,
                                           " calls=1 bytes=", 4 * n * n, "\n")));

  // hopmap reads it and recognises the stencil and its dimensions.
  const RunResult analyzed = RunHopmap("analyze --local --graph " + record);
  ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
  EXPECT_THAT(analyzed.out, HasSubstr("\"pattern\": \"" + pattern + "\""));
  std::string compact;
  for (char c : analyzed.out) {
    if (c != ' ' && c != '\n') compact += c;
  }
  EXPECT_THAT(compact, HasSubstr("\"dims\":[" + analyzed_dims + "]"));
}

TEST(MpiRecordTest, Halo2dOn16RanksIsRecordedExactly) {
  ExpectRecordedHalo({4, 4}, "4,4", "stencil2d-5");
}

// MPI numbers the grid with the last dimension fastest; hopmap names the fastest
// dimension first.
TEST(MpiRecordTest, Halo3dOn24RanksIsRecordedExactly) {
  ExpectRecordedHalo({2, 3, 4}, "4,3,2", "stencil3d-7");
}

TEST(MpiRecordTest, AnUnwritablePathCostsOneLineNotTheExitStatus) {
  const RunResult run =
      RunShell(Mpirun(4, absl::StrCat("-x LD_PRELOAD=", HOPMAP_MPI_PRELOAD,
                                      " -x HOPMAP_RECORD=/nonexistent-dir/record.edgelist ",
                                      MPI_HALO, " 2 2 1 4")));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u) << run.err;
  EXPECT_THAT(lines[0], HasSubstr("hopmap: the recording was not written: cannot create "
                                  "/nonexistent-dir/record.edgelist.tmp."));
}

// A recording into a named pipe goes into the pipe, which stays one (a rename over
// it, as over /dev/null, would leave a regular file). Its reader gives up after 60 s
// if nothing ever opens the pipe.
TEST(MpiRecordTest, ARecordingIntoAPipeIsWrittenInPlace) {
  const std::string pipe = TempPath("record_pipe");
  const std::string out = TempPath("record_from_pipe.edgelist");
  const RunResult run = RunShell(absl::StrCat(
      "rm -f ", pipe, " && mkfifo ", pipe, " && { timeout 60 cat ", pipe, " >", out, " & ",
      Mpirun(4, absl::StrCat("-x LD_PRELOAD=", HOPMAP_MPI_PRELOAD, " -x HOPMAP_RECORD=", pipe, " ",
                             MPI_HALO, " 2 2 1 4")),
      "; rc=$?; wait; exit $rc; }"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  struct stat st;
  ASSERT_EQ(lstat(pipe.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_THAT(ReadFile(out), HasSubstr("# tasks: 4"));
  std::remove(pipe.c_str());
  std::remove(out.c_str());
}

// Hops between nodes of torus:2x2: one per coordinate that differs.
int Hops(int a, int b) { return (a % 2 != b % 2) + (a / 2 != b / 2); }

struct Placed {
  int vertex;
  int node;
};

// Runs `check` 4 4 on 16 ranks, 4 per node of torus:2x2 (rank r on node r / 4),
// against `server`; returns its lines and stderr. `check`: reorder_check and its
// kind ("PATH cart"), or the Fortran cart_check's path.
RunResult RunReorder(const std::string& check, const std::string& server) {
  return RunShell(
      Mpirun(16, absl::StrCat("-x HOPMAP_SERVER=", server, " -x HOPMAP_MACHINE=torus:2x2:cores=4",
                              " -x HOPMAP_VERBOSE=1 -x HOPMAP_CONNECT_TIMEOUT=5 sh -c "
                              "'HOPMAP_NODE=$((",
                              kRankVariable, " / 4)) exec ", check, " 4 4'")));
}

std::vector<Placed> ReadPlacement(const RunResult& run) {
  std::vector<Placed> placed;
  const std::regex line_re(R"(^vertex (-?\d+) node (\d+) (.*)$)");
  std::istringstream in(run.out);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_match(line, m, line_re)) continue;
    EXPECT_EQ(m[3], "ok") << line;
    placed.push_back({std::stoi(m[1]), std::stoi(m[2])});
  }
  return placed;
}

// Sum over every vertex's out-edges of weight x hops: what hopmapd's hop-bytes is for
// the pattern it was sent (both directions of an edge summed).
int64_t HopBytes(const std::vector<int>& node_of_vertex, bool weighted) {
  int64_t total = 0;
  for (int v = 0; v < 16; ++v) {
    const int x = v % 4, y = v / 4;
    const int left = (x + 3) % 4 + y * 4, right = (x + 1) % 4 + y * 4;
    const int down = x + ((y + 3) % 4) * 4, up = x + ((y + 1) % 4) * 4;
    for (int u : {left, right}) total += Hops(node_of_vertex[v], node_of_vertex[u]);
    for (int u : {down, up})
      total += (weighted ? 10 : 1) * Hops(node_of_vertex[v], node_of_vertex[u]);
  }
  return total;
}

void ExpectReorderedBelowIdentity(const std::string& kind, const std::string& call,
                                  const std::string& check = "") {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({"--threads", "2"}, TempPath("hopmapd_" + kind + ".log")))
      << daemon.error();
  const RunResult run = RunReorder(
      check.empty() ? absl::StrCat(MPI_REORDER_CHECK, " ", kind) : check, daemon.address());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::vector<Placed> placed = ReadPlacement(run);
  ASSERT_EQ(placed.size(), 16u) << run.out;
  std::vector<int> node_of_vertex(16, -1);
  std::set<int> vertices;
  for (const Placed& p : placed) {
    ASSERT_GE(p.vertex, 0);
    ASSERT_LT(p.vertex, 16);
    node_of_vertex[p.vertex] = p.node;
    vertices.insert(p.vertex);
  }
  ASSERT_EQ(vertices.size(), 16u) << "the vertices are not a permutation: " << run.out;

  const std::regex verbose("hopmap: " + call +
                           R"(: 16 vertices on 4 nodes x 4, reordered by )"
                           R"(hopmapd \(.*\): hop-bytes (\d+), identity (\d+), lower bound (\d+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.err, m, verbose)) << run.err;
  const int64_t reported = std::stoll(m[1]);
  const int64_t reported_identity = std::stoll(m[2]);
  const bool weighted = kind == "dist";  // reorder_check's; the Fortran one's is unweighted
  std::vector<int> identity(16);
  for (int v = 0; v < 16; ++v) identity[v] = v / 4;
  EXPECT_EQ(HopBytes(node_of_vertex, weighted), reported);
  EXPECT_EQ(HopBytes(identity, weighted), reported_identity);
  EXPECT_LT(reported, reported_identity);
}

TEST(MpiReorderTest, CartCreateOnAModelTorusBeatsTheIdentity) {
  ExpectReorderedBelowIdentity("cart", "MPI_Cart_create");
}

TEST(MpiReorderTest, DistGraphCreateAdjacentOnAModelTorusBeatsTheIdentity) {
  ExpectReorderedBelowIdentity("dist", "MPI_Dist_graph_create_adjacent");
}

TEST(MpiReorderTest, GraphCreateOnAModelTorusBeatsTheIdentity) {
  ExpectReorderedBelowIdentity("graph", "MPI_Graph_create");
}

// A scheduler's uneven allocation: 16 ranks on the 4 nodes of torus:2x2 holding 6, 4,
// 3 and 3 processes (HOPMAP_NODE from the rank). hopmapd's balanced Map places one
// vertex on each process (the slots past a node's processes carry a unit of background
// load); reorder_check checks every neighbour, and the answer beats the identity.
TEST(MpiReorderTest, CartCreateOnUnevenNodesBeatsTheIdentity) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({"--threads", "2"}, TempPath("hopmapd_uneven.log"))) << daemon.error();
  const RunResult run = RunShell(
      Mpirun(16, absl::StrCat("-x HOPMAP_SERVER=", daemon.address(), " -x HOPMAP_MACHINE=torus:2x2",
                              " -x HOPMAP_VERBOSE=1 -x HOPMAP_CONNECT_TIMEOUT=5 sh -c "
                              "'r=$",
                              kRankVariable,
                              "; if [ $r -lt 6 ]; then n=0; "
                              "elif [ $r -lt 10 ]; then n=1; elif [ $r -lt 13 ]; then n=2; "
                              "else n=3; fi; HOPMAP_NODE=$n exec ",
                              MPI_REORDER_CHECK, " cart 4 4'")));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::vector<Placed> placed = ReadPlacement(run);
  ASSERT_EQ(placed.size(), 16u) << run.out;
  std::vector<int> node_of_vertex(16, -1);
  std::vector<int> processes_on_node(4, 0);
  for (const Placed& p : placed) {
    ASSERT_GE(p.vertex, 0);
    ASSERT_LT(p.vertex, 16);
    ASSERT_EQ(node_of_vertex[p.vertex], -1) << "vertex " << p.vertex << " twice: " << run.out;
    node_of_vertex[p.vertex] = p.node;
    ++processes_on_node[p.node];
  }
  // Each node still runs the processes it had: the vertices moved, not the ranks.
  EXPECT_EQ(processes_on_node, (std::vector<int>{6, 4, 3, 3}));
  const std::regex verbose(
      R"(hopmap: MPI_Cart_create: 16 vertices on 4 nodes of 3-6 processes, reordered by )"
      R"(hopmapd \(.*\): hop-bytes (\d+), identity (\d+), lower bound (\d+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.err, m, verbose)) << run.err;
  std::vector<int> identity(16);
  for (int v = 0; v < 16; ++v) identity[v] = v < 6 ? 0 : v < 10 ? 1 : v < 13 ? 2 : 3;
  EXPECT_EQ(HopBytes(node_of_vertex, false), std::stoll(m[1]));
  EXPECT_EQ(HopBytes(identity, false), std::stoll(m[2]));
  EXPECT_LT(std::stoll(m[1]), std::stoll(m[2]));
}

// Fortran (docs/mpi.md#fortran), in every interface: the halo (fortran/halo.F90,
// halo.c's twin: persistent requests and collectives included) recorded exactly, and
// MPI_CART_CREATE and MPI_DIST_GRAPH_CREATE_ADJACENT (with Fortran's MPI_UNWEIGHTED)
// with reorder=.true. (fortran/cart_check.F90) reordered, their neighbours checked,
// below the identity.
#define HOPMAP_FORTRAN_TESTS(form, halo, cart_check)                             \
  TEST(MpiFortranTest, Halo3dIn##form##IsRecordedExactly) {                      \
    ExpectRecordedHalo({2, 3, 4}, "4,3,2", "stencil3d-7", halo);                 \
  }                                                                              \
  TEST(MpiFortranTest, CartCreateIn##form##BeatsTheIdentity) {                   \
    ExpectReorderedBelowIdentity("cart", "MPI_Cart_create", cart_check);         \
  }                                                                              \
  TEST(MpiFortranTest, DistGraphCreateAdjacentIn##form##BeatsTheIdentity) {      \
    ExpectReorderedBelowIdentity("unweighted", "MPI_Dist_graph_create_adjacent", \
                                 std::string(cart_check) + " dist");             \
  }
#ifdef MPI_HALO_F_F08
HOPMAP_FORTRAN_TESTS(UseMpiF08, MPI_HALO_F_F08, MPI_CART_CHECK_F_F08)
#endif
#ifdef MPI_HALO_F_USE_MPI
HOPMAP_FORTRAN_TESTS(UseMpi, MPI_HALO_F_USE_MPI, MPI_CART_CHECK_F_USE_MPI)
#endif
#ifdef MPI_HALO_F_MPIF_H
HOPMAP_FORTRAN_TESTS(MpifH, MPI_HALO_F_MPIF_H, MPI_CART_CHECK_F_MPIF_H)
#endif

TEST(MpiReorderTest, WithoutTheDaemonTheJobRunsInOrderAndSaysSoOnce) {
  // Port 1 on loopback: nobody listens, the connection is refused at once.
  const RunResult run = RunReorder(absl::StrCat(MPI_REORDER_CHECK, " cart"), "127.0.0.1:1");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::vector<Placed> placed = ReadPlacement(run);
  ASSERT_EQ(placed.size(), 16u);
  for (const Placed& p : placed) EXPECT_EQ(p.node, p.vertex / 4) << "vertex " << p.vertex;
  const std::vector<std::string> lines = absl::StrSplit(run.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u) << run.err;
  EXPECT_THAT(lines[0], HasSubstr("hopmap: MPI_Cart_create: not reordered: cannot reach hopmapd"));
}

// The loops from a recording to a launcher's placement to the next run. Each records
// the 2-rank halo, maps it onto this machine (one node named by its hostname, two
// cores: a hop matrix), and checks that the next run's ranks are where the file says.

// Run 1: the recording of a 2-rank halo.
std::string RecordTwoRanks() {
  const std::string record = TempPath("loop.edgelist");
  const RunResult recorded =
      RunShell(Mpirun(2, absl::StrCat("-x LD_PRELOAD=", HOPMAP_MPI_PRELOAD,
                                      " -x HOPMAP_RECORD=", record, " ", MPI_HALO, " 2 1 2 8")));
  EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
  return record;
}

// This machine as hopmap sees it: `matrix:FILE` of one node named by its hostname.
std::string ThisMachineHops() {
  const std::string machine = TempPath("this.hops");
  WriteFile(machine, "names: " + Hostname() + "\n0\n");
  return machine;
}

// Every rank of `run` (the `where` program's reports) ran on this host bound to the
// CPUs `cpus_of_rank` gives. The reports are found where they are: a launcher may
// forward two processes' lines interleaved ("rank 0 ... cpus 1rank 1 ...").
void ExpectRanksBoundAsSaid(const RunResult& run, const std::map<int, std::string>& cpus_of_rank,
                            const std::string& file) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::regex where(R"(rank (\d+) host (\S+?) cpus ((?:\d+ )*\d+))");
  int seen = 0;
  for (auto it = std::sregex_iterator(run.out.begin(), run.out.end(), where);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& found = *it;
    EXPECT_EQ(found[2], Hostname()) << file << ": " << run.out;
    auto wanted = cpus_of_rank.find(std::stoi(found[1]));
    ASSERT_NE(wanted, cpus_of_rank.end()) << file << ": " << run.out;
    EXPECT_EQ(found[3], wanted->second) << file << ": " << run.out << " (bound as the file says)";
    ++seen;
  }
  EXPECT_EQ(seen, static_cast<int>(cpus_of_rank.size())) << run.out;
}

#ifndef HOPMAP_MPICH
// Open MPI's loop: a rankfile ("rank R=HOST slot=CORE" or, with node levels, slot=P:C).
// `pus_of_core`: what each of this machine's cores is bound to (empty: core c is PU c).
std::map<int, std::string> ReadRankfile(const std::string& file,
                                        const std::vector<std::string>& pus_of_core = {}) {
  std::map<int, std::string> cpus_of_rank;
  const std::regex rank_line(R"(^rank (\d+)=(\S+) slot=(?:(\d+):)?(\d+)$)");
  std::smatch m;
  const std::vector<std::string> lines = absl::StrSplit(ReadFile(file), '\n', absl::SkipEmpty());
  for (const std::string& line : lines) {
    EXPECT_TRUE(std::regex_match(line, m, rank_line)) << line;
    if (!m[0].matched) continue;
    EXPECT_EQ(m[2], Hostname()) << line;
    if (m[3].matched) {
      EXPECT_EQ(m[3], "0") << line << " (this machine has one package)";
    }
    const size_t core = std::stoul(m[4]);
    cpus_of_rank[std::stoi(m[1])] = core < pus_of_core.size() ? pus_of_core[core] : m[4].str();
  }
  return cpus_of_rank;
}

// Run 1 records, hopmap writes a rankfile for this machine, run 2 starts from it and
// its ranks are on the host and core the rankfile names.
TEST(MpiLoopTest, RecordThenRankfileThenRunWhereItSays) {
  const std::string record = RecordTwoRanks();
  const std::string rankfile = TempPath("loop.rankfile");
  const RunResult mapped = RunHopmap(absl::StrCat("map --local --graph ", record,
                                                  " --machine matrix:", ThisMachineHops(),
                                                  ":cores=2 --format rankfile -o ", rankfile));
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  const std::string hand_made = TempPath("swapped.rankfile");
  WriteFile(hand_made,
            absl::StrCat("rank 0=", Hostname(), " slot=1\nrank 1=", Hostname(), " slot=0\n"));
  for (const std::string& file : {rankfile, hand_made}) {
    const std::map<int, std::string> cpus_of_rank = ReadRankfile(file);
    ASSERT_EQ(cpus_of_rank.size(), 2u) << ReadFile(file);
    ExpectRanksBoundAsSaid(RunShell(Mpirun(2, absl::StrCat("--rankfile ", file, " ", MPI_WHERE))),
                           cpus_of_rank, file);
  }
}

// This machine's own topology, exported by hwloc (as `lstopo --of xml` would), and
// the OS indexes of the PUs of each core in hwloc's logical order.
std::vector<std::string> ExportThisMachine(const std::string& path) {
  hwloc_topology_t topology = nullptr;
  EXPECT_EQ(hwloc_topology_init(&topology), 0);
  EXPECT_EQ(hwloc_topology_load(topology), 0);
  EXPECT_EQ(hwloc_topology_export_xml(topology, path.c_str(), 0), 0);
  std::vector<std::string> pus_of_core;
  const int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  for (int c = 0; c < cores; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, c);
    std::vector<std::string> pus;
    for (int pu = hwloc_bitmap_first(core->cpuset); pu >= 0;
         pu = hwloc_bitmap_next(core->cpuset, pu)) {
      pus.push_back(std::to_string(pu));
    }
    pus_of_core.push_back(absl::StrJoin(pus, " "));
  }
  hwloc_topology_destroy(topology);
  return pus_of_core;
}

// node=hwloc: with this machine's own topology: hopmap's rankfile names each rank's
// package and core (slot=P:C), and mpirun binds each rank to exactly that core's PUs.
TEST(MpiLoopTest, RankfileFromThisMachinesHwlocTopologyBindsPackageAndCore) {
  const std::string xml = TempPath("this.xml");
  const std::vector<std::string> pus_of_core = ExportThisMachine(xml);
  ASSERT_GE(pus_of_core.size(), 2u) << "this test needs a machine with 2 cores";
  const std::string record = RecordTwoRanks();
  const std::string rankfile = TempPath("hwloc.rankfile");
  const RunResult mapped = RunHopmap(
      absl::StrCat("map --local --graph ", record, " --machine matrix:", ThisMachineHops(),
                   ":node=hwloc:", xml, " --format rankfile -o ", rankfile));
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  EXPECT_THAT(ReadFile(rankfile), HasSubstr(" slot=0:")) << "not a package:core rankfile";
  const std::string hand_made = TempPath("hwloc_swapped.rankfile");
  WriteFile(hand_made,
            absl::StrCat("rank 0=", Hostname(), " slot=0:1\nrank 1=", Hostname(), " slot=0:0\n"));
  for (const std::string& file : {rankfile, hand_made}) {
    const std::map<int, std::string> cpus_of_rank = ReadRankfile(file, pus_of_core);
    ASSERT_EQ(cpus_of_rank.size(), 2u) << ReadFile(file);
    ExpectRanksBoundAsSaid(RunShell(Mpirun(2, absl::StrCat("--rankfile ", file, " ", MPI_WHERE))),
                           cpus_of_rank, file);
  }
}
#else
// MPICH's loop: hopmap writes a hydra machinefile for this machine (its comment gives
// the -bind-to list), run 2 starts from it with hydra's own options (-f FILE
// -bind-to user:LIST), and its ranks are on the host and core they name.
TEST(MpiLoopTest, RecordThenHydraMachinefileThenRunWhereItSays) {
  const std::string record = RecordTwoRanks();
  const std::string machinefile = TempPath("loop.hosts");
  const RunResult mapped = RunHopmap(absl::StrCat("map --local --graph ", record,
                                                  " --machine matrix:", ThisMachineHops(),
                                                  ":cores=2 --format hydra -o ", machinefile));
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  const std::string hand_made = TempPath("swapped.hosts");
  WriteFile(hand_made, absl::StrCat("# hopmap machinefile for MPICH's hydra, 2 ranks: mpiexec -f "
                                    "FILE -bind-to user:1,0 -n 2 PROGRAM\n",
                                    Hostname(), ":2\n"));
  for (const std::string& file : {machinefile, hand_made}) {
    // What the machinefile says: its one line's host, and the core of each rank.
    const std::string text = ReadFile(file);
    std::smatch m;
    const std::regex bind(R"(-bind-to user:(\d+),(\d+) -n 2 PROGRAM\n)");
    ASSERT_TRUE(std::regex_search(text, m, bind)) << text;
    const std::map<int, std::string> cpus_of_rank = {{0, m[1]}, {1, m[2]}};
    EXPECT_THAT(text, HasSubstr(absl::StrCat("\n", Hostname(), ":2\n")));
    ExpectRanksBoundAsSaid(
        RunShell(Mpirun(2, absl::StrCat("-f ", file, " -bind-to user:", cpus_of_rank.at(0), ",",
                                        cpus_of_rank.at(1), " ", MPI_WHERE))),
        cpus_of_rank, file);
  }
}
#endif  // HOPMAP_MPICH

}  // namespace
}  // namespace hopmap::testing
