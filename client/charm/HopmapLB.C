#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "HopmapLB.h"
#include "LBManager.h"
#include "ckgraph.h"
#include "hopmap.h"

extern int quietModeRequested;

namespace {

// The runtime options (+hopmap...), read once on every process at startup.
struct Options {
  std::string server;            // +hopmapServer ADDR, else $HOPMAP_SERVER
  std::string token;             // +hopmapToken T, else $HOPMAP_TOKEN
  std::string machine;           // +hopmapMachine NAME|SPEC, else $HOPMAP_MACHINE
  std::string nodes;             // +hopmapNodes LIST (the allocation, in PE order)
  std::string algorithm;         // +hopmapAlgorithm NAME (a balancer; default auto)
  int pes_per_node = 0;          // +hopmapPesPerNode N; 0: Charm++'s node size
  double imbalance = 0.05;       // +hopmapImbalance E
  int max_migrations = -1;       // +hopmapMaxMigrations N
  double migration_cost = 0;     // +hopmapMigrationCost C (hop-bytes per byte of state)
  double deadline_seconds = 10;  // +hopmapDeadline S: the whole call
  bool print_moves = false;      // +hopmapPrintMoves: a line of FROM->TO:COUNT per step
  bool background = true;        // +hopmapNoBackground: do not send the PEs' background load
  std::string dump_dir;          // +hopmapDump DIR: each step's problem as hopmap's files
};
Options options;
// The balancing step under way, from 1 (HopmapLB::work runs on PE 0 only).
int step_number = 0;

std::string FromEnv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

void lbinit() {
  char** argv = CkGetArgv();
  char* text = nullptr;
  if (CmiGetArgStringDesc(argv, "+hopmapServer", &text, "HopmapLB: hopmapd's address")) {
    options.server = text;
  } else {
    options.server = FromEnv("HOPMAP_SERVER");
  }
  if (CmiGetArgStringDesc(argv, "+hopmapToken", &text, "HopmapLB: hopmapd's token")) {
    options.token = text;
  } else {
    options.token = FromEnv("HOPMAP_TOKEN");
  }
  if (CmiGetArgStringDesc(argv, "+hopmapMachine", &text,
                          "HopmapLB: machine (catalog name or spec)")) {
    options.machine = text;
  } else {
    options.machine = FromEnv("HOPMAP_MACHINE");
  }
  if (CmiGetArgStringDesc(argv, "+hopmapNodes", &text, "HopmapLB: the PEs' nodes, in order")) {
    options.nodes = text;
  }
  if (CmiGetArgStringDesc(argv, "+hopmapAlgorithm", &text, "HopmapLB: hopmap balancer")) {
    options.algorithm = text;
  }
  CmiGetArgIntDesc(argv, "+hopmapPesPerNode", &options.pes_per_node,
                   "HopmapLB: PEs per model node (default: Charm++'s)");
  CmiGetArgDoubleDesc(argv, "+hopmapImbalance", &options.imbalance,
                      "HopmapLB: load imbalance allowed (0.05)");
  CmiGetArgIntDesc(argv, "+hopmapMaxMigrations", &options.max_migrations,
                   "HopmapLB: objects moved per step at most (-1: no limit)");
  CmiGetArgDoubleDesc(argv, "+hopmapMigrationCost", &options.migration_cost,
                      "HopmapLB: hop-bytes charged per migrated byte (0)");
  CmiGetArgDoubleDesc(argv, "+hopmapDeadline", &options.deadline_seconds,
                      "HopmapLB: seconds a step may wait for hopmapd (10)");
  options.print_moves =
      CmiGetArgFlagDesc(argv, "+hopmapPrintMoves", "HopmapLB: print the moves by PE each step");
  options.background = !CmiGetArgFlagDesc(argv, "+hopmapNoBackground",
                                          "HopmapLB: do not count the PEs' background load");
  if (CmiGetArgStringDesc(argv, "+hopmapDump", &text,
                          "HopmapLB: write each step's problem into this directory")) {
    options.dump_dir = text;
  }
  // Charm++ measures an object's packed size (LDObjData::pupSize) at each AtSync
  // only when a balancer asks; otherwise the field is never set and decodes to
  // anything up to 1.4e11 bytes. Asked for here, so migration costs and limits in
  // bytes see the objects' real state (one PUP::sizer pass per object per step).
  _lb_psizer_on = true;
  LBRegisterBalancer<HopmapLB>("HopmapLB",
                               "Place objects through hopmapd (hop-bytes on a machine model)");
  LBTurnCommOn();
}

// The objects' communication as CSR with both directions summed and listed once
// per pair (what hopmapd takes).
struct Csr {
  std::vector<int64_t> xadj;
  std::vector<int32_t> adjncy;
  std::vector<int64_t> adjwgt;
};

Csr CommunicationOf(const ObjGraph& graph) {
  const int n = static_cast<int>(graph.vertices.size());
  std::vector<std::map<int32_t, int64_t>> bytes(n);
  for (int i = 0; i < n; ++i) {
    for (const CkEdge& e : graph.vertices[i].sendToList) {
      const int j = e.getNeighborId();
      if (j == i || j < 0 || j >= n) continue;
      bytes[i][j] += e.getNumBytes();
      bytes[j][i] += e.getNumBytes();
    }
  }
  Csr csr;
  csr.xadj.push_back(0);
  for (int i = 0; i < n; ++i) {
    for (const auto& [j, b] : bytes[i]) {
      if (b <= 0) continue;
      csr.adjncy.push_back(j);
      csr.adjwgt.push_back(b);
    }
    csr.xadj.push_back(static_cast<int64_t>(csr.adjncy.size()));
  }
  return csr;
}

// What one balancing step asks hopmapd, as the files `hopmap map --balance` reads.
struct Problem {
  std::string machine;
  std::string nodes;
  int per_node = 1;
  const Csr* csr = nullptr;
  const std::vector<double>* loads = nullptr;
  const std::vector<int32_t>* current = nullptr;
  const std::vector<int64_t>* state_bytes = nullptr;
  const std::vector<unsigned char>* fixed = nullptr;
  const std::vector<double>* background = nullptr;
};

// Writes `problem` as DIR/stepK.{graph,loads,initial,fixed,state-bytes,background}
// and DIR/stepK.sh, the `hopmap map --local` command that solves it again offline
// (to see why a step ended as it did). Returns what failed, or "".
std::string DumpProblem(int step, const Problem& problem) {
  const std::string base = options.dump_dir + "/step" + std::to_string(step);
  const Csr& csr = *problem.csr;
  const size_t n = problem.loads->size();
  auto write = [&](const std::string& suffix, auto&& body) -> std::string {
    std::ofstream out(base + suffix);
    out.precision(17);
    body(out);
    out.close();
    return out ? "" : "cannot write " + base + suffix;
  };
  auto lines = [&](const auto& values) {
    return [&values](std::ofstream& out) {
      for (const auto& v : values) out << +v << "\n";
    };
  };
  std::string failed;
  // METIS: 1-based neighbours with edge weights (fmt 001), each pair in both rows.
  failed += write(".graph", [&](std::ofstream& out) {
    out << n << " " << csr.adjncy.size() / 2 << " 001\n";
    for (size_t i = 0; i < n; ++i) {
      for (int64_t k = csr.xadj[i]; k < csr.xadj[i + 1]; ++k) {
        out << (k > csr.xadj[i] ? " " : "") << csr.adjncy[k] + 1 << " " << csr.adjwgt[k];
      }
      out << "\n";
    }
  });
  failed += write(".loads", lines(*problem.loads));
  failed += write(".initial", lines(*problem.current));
  failed += write(".fixed", lines(*problem.fixed));
  failed += write(".state-bytes", lines(*problem.state_bytes));
  failed += write(".background", lines(*problem.background));
  failed += write(".sh", [&](std::ofstream& out) {
    out.precision(15);  // the options as typed: 0.05, not 0.050000000000000003
    const std::string b = "step" + std::to_string(step);
    out << "# HopmapLB step " << step << ": what it asked hopmapd, solved here\n"
        << "cd \"$(dirname \"$0\")\"\n"
        << "hopmap map --local --machine '" << problem.machine << "' --nodes '" << problem.nodes
        << "' --cores " << problem.per_node << " --graph " << b << ".graph --loads " << b
        << ".loads --initial " << b << ".initial --fixed " << b << ".fixed --state-bytes " << b
        << ".state-bytes --background " << b << ".background --imbalance " << options.imbalance
        << " --migration-cost " << options.migration_cost;
    if (options.max_migrations >= 0) out << " --max-migrations " << options.max_migrations;
    if (!options.algorithm.empty()) out << " --algorithm " << options.algorithm;
    out << " --time-limit " << std::max(0.1, options.deadline_seconds / 2) << " \"$@\"\n";
  });
  return failed;
}

// Asks hopmapd; on success fills new_pe (one per object) and a summary line.
std::string Ask(const BaseLB::LDStats& stats, const ObjGraph& graph, std::vector<int32_t>* new_pe,
                std::string* summary) {
  if (options.server.empty()) return "no hopmapd: pass +hopmapServer ADDR (or set HOPMAP_SERVER)";
  if (options.machine.empty())
    return "no machine: pass +hopmapMachine NAME (or set HOPMAP_MACHINE)";
  const int n = static_cast<int>(graph.vertices.size());
  if (n == 0) return "no objects";
  const int pes = CkNumPes();
  const int per_node = options.pes_per_node > 0 ? options.pes_per_node : CkNodeSize(0);
  if (pes % per_node != 0) {
    return "the " + std::to_string(pes) + " PEs are not whole nodes of " + std::to_string(per_node);
  }
  const Csr csr = CommunicationOf(graph);
  std::vector<double> loads(n);
  std::vector<int32_t> current(n);
  // What a migration moves: the object's packed size as Charm++ measured it at its
  // last AtSync (lbinit asks for it). A size of 0 (not measured) or over 1 TiB (or
  // over hopmapd's 2^62 total spread over the objects) is taken as unknown: 1 byte,
  // as without sizes.
  const int64_t max_state_bytes = std::min<int64_t>(int64_t{1} << 40, (int64_t{1} << 62) / n);
  std::vector<int64_t> state_bytes(n);
  // Objects Charm++ may not migrate stay where they are (hopmapd keeps them home).
  std::vector<unsigned char> fixed(n);
  for (int i = 0; i < n; ++i) {
    loads[i] = graph.vertices[i].getVertexLoad();
    current[i] = graph.vertices[i].getCurrentPe();
    const size_t packed = pup_decodeSize(stats.objData[i].pupSize);
    state_bytes[i] = packed >= 1 && packed <= static_cast<size_t>(max_state_bytes)
                         ? static_cast<int64_t>(packed)
                         : 1;
    fixed[i] = graph.vertices[i].isMigratable() ? 0 : 1;
  }
  // Each PE's background load: its busy time outside the objects (as GreedyLB and
  // the other Charm++ strategies count it through ProcArray).
  if (static_cast<int>(stats.procs.size()) != pes) {
    return "the load database has " + std::to_string(stats.procs.size()) + " PEs, not " +
           std::to_string(pes);
  }
  std::vector<double> background(pes);
  for (int pe = 0; pe < pes; ++pe) {
    if (!stats.procs[pe].available) {
      return "PE " + std::to_string(pe) + " is not available (hopmapd places on every PE)";
    }
    background[pe] = options.background ? std::max(0.0, stats.procs[pe].bg_walltime) : 0.0;
  }

  hopmap_connect_options connect;
  hopmap_connect_options_init(&connect);
  connect.address = options.server.c_str();
  connect.token = options.token.c_str();
  connect.connect_timeout_seconds = std::min(5.0, options.deadline_seconds);
  hopmap_client* client = nullptr;
  char* error = nullptr;
  if (hopmap_connect(&connect, &client, &error) != HOPMAP_OK) {
    std::string why = error != nullptr ? error : "cannot connect";
    hopmap_free_string(error);
    return why;
  }
  hopmap_map_request request;
  hopmap_map_request_init(&request);
  request.machine = options.machine.c_str();
  request.nodes = options.nodes.empty() ? nullptr : options.nodes.c_str();
  std::string first_nodes;
  if (options.nodes.empty()) {
    // The first nodes of the machine, one per group of PEs.
    first_nodes = "0-" + std::to_string(pes / per_node - 1);
    request.nodes = first_nodes.c_str();
  }
  request.cores_per_node = per_node;
  request.num_objects = n;
  request.xadj = csr.xadj.data();
  request.adjncy = csr.adjncy.data();
  request.adjwgt = csr.adjwgt.data();
  request.loads = loads.data();
  request.imbalance = options.imbalance;
  request.current_slot = current.data();
  request.state_bytes = state_bytes.data();
  request.fixed = fixed.data();
  request.background_load = background.data();
  request.num_background_loads = pes;
  request.max_migrations = options.max_migrations;
  request.migration_cost = options.migration_cost;
  request.algorithm = options.algorithm.empty() ? nullptr : options.algorithm.c_str();
  request.deadline_seconds = options.deadline_seconds;
  request.time_limit_seconds = std::max(0.1, options.deadline_seconds / 2);
  if (!options.dump_dir.empty()) {
    const std::string failed =
        DumpProblem(step_number, {options.machine, request.nodes, per_node, &csr, &loads, &current,
                                  &state_bytes, &fixed, &background});
    if (!failed.empty()) CkPrintf("HopmapLB> +hopmapDump: %s\n", failed.c_str());
  }
  hopmap_map_result result;
  const hopmap_status status = hopmap_map(client, &request, &result, &error);
  hopmap_close(client);
  if (status != HOPMAP_OK) {
    std::string why =
        std::string(hopmap_status_name(status)) + ": " + (error != nullptr ? error : "");
    hopmap_free_string(error);
    return why;
  }
  if (result.num_objects != n) {
    hopmap_map_result_free(&result);
    return "hopmapd answered for " + std::to_string(result.num_objects) + " objects, not " +
           std::to_string(n);
  }
  new_pe->assign(result.slot_of_object, result.slot_of_object + n);
  char line[512];
  std::snprintf(line, sizeof(line),
                "%s: hop-bytes %lld (current %lld, bound %lld), max/avg load %.3f, %d moves%s%s",
                result.algorithm, static_cast<long long>(result.hop_bytes),
                static_cast<long long>(result.baseline_hop_bytes),
                static_cast<long long>(result.lower_bound),
                result.avg_load > 0 ? result.max_load / result.avg_load : 0.0, result.num_moves,
                result.balanced ? "" : "; not balanced: ", result.note);
  *summary = line;
  hopmap_map_result_free(&result);
  return "";
}

}  // namespace

HopmapLB::HopmapLB(const CkLBOptions& opt) : CBase_HopmapLB(opt) {
  lbname = "HopmapLB";
  if (CkMyPe() == 0 && !quietModeRequested) CkPrintf("CharmLB> HopmapLB created.\n");
}

void HopmapLB::work(LDStats* stats) {
  ObjGraph graph(stats);
  ++step_number;
  const double start = CkWallTimer();
  std::vector<int32_t> new_pe;
  std::string summary;
  std::string problem;
  try {
    problem = Ask(*stats, graph, &new_pe, &summary);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!problem.empty()) {
    // The step keeps the current placement: the program goes on.
    CkPrintf("HopmapLB> placement kept: %s\n", problem.c_str());
    return;
  }
  int moved = 0;
  std::map<std::pair<int, int>, int> moves_by_pe;  // (from PE, to PE) -> objects
  for (size_t i = 0; i < graph.vertices.size(); ++i) {
    CkVertex& v = graph.vertices[i];
    if (new_pe[i] == v.getCurrentPe()) continue;
    if (!v.isMigratable()) {
      // hopmapd was told it is fixed: an answer that moves it is not applied at all.
      CkPrintf("HopmapLB> placement kept: hopmapd moved non-migratable object %zu\n", i);
      return;
    }
    ++moves_by_pe[{v.getCurrentPe(), new_pe[i]}];
    v.setNewPe(new_pe[i]);
    ++moved;
  }
  graph.convertDecisions(stats);
  if (options.print_moves) {
    std::string line;
    for (const auto& [from_to, count] : moves_by_pe) {
      line += " " + std::to_string(from_to.first) + "->" + std::to_string(from_to.second) + ":" +
              std::to_string(count);
    }
    CkPrintf("HopmapLB> moves:%s\n", line.c_str());
  }
  CkPrintf("HopmapLB> %s; %d migrated in %.3f s\n", summary.c_str(), moved, CkWallTimer() - start);
}

#include "HopmapLB.def.h"
