// The PMPI wrappers that reorder (seed 003's idea for any pattern): with
// HOPMAP_SERVER set, MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create and
// MPI_Dist_graph_create_adjacent with reorder=1 ask hopmapd where each vertex of the
// pattern should run, and return a communicator in which the process at vertex v
// has rank v and the topology the caller asked for. Any failure gives what the MPI
// library gives and one line on stderr from rank 0: a job never fails because of
// hopmap.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/c/hopmap.h"
#include "client/mpi/mpi_header.h"
#include "client/mpi/reorder_plan.h"

namespace hopmap::mpi {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

double EnvSeconds(const char* name, double fallback) {
  double value = 0;
  return absl::SimpleAtod(Env(name), &value) && value > 0 ? value : fallback;
}

// Whether to ask hopmapd: rank 0's HOPMAP_SERVER decides for everyone (so the
// processes agree even if their environments differ). Intercommunicators and
// MPI_COMM_NULL go straight to MPI, which reports them.
bool ReorderWanted(MPI_Comm comm, int reorder) {
  if (!reorder || comm == MPI_COMM_NULL) return false;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return false;
  int wanted = CommRank(comm) == 0 && !Env("HOPMAP_SERVER").empty() ? 1 : 0;
  PMPI_Bcast(&wanted, 1, MPI_INT, 0, comm);
  return wanted != 0;
}

// This process's node: HOPMAP_NODE (a launcher or a test may set it per process),
// else MPI_Get_processor_name.
std::string NodeName() {
  std::string node = Env("HOPMAP_NODE");
  if (!node.empty()) return node;
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int length = 0;
  PMPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<size_t>(length));
}

// Rank 0's part: asks hopmapd and turns its answer into a vertex per process, or
// says why not ("" and *vertex_of_process filled on success).
std::string AskHopmapd(const char* what, const absl::StatusOr<TaskGraph>& pattern,
                       const std::vector<std::string>& node_names,
                       std::vector<int32_t>* vertex_of_process) {
  if (!pattern.ok()) return absl::StrCat("the pattern: ", pattern.status().message());
  const std::string machine = Env("HOPMAP_MACHINE");
  if (machine.empty()) return "HOPMAP_MACHINE is not set (a catalog name or a spec)";
  absl::StatusOr<NodeLayout> layout = LayOutNodes(node_names);
  if (!layout.ok()) return std::string(layout.status().message());
  const int64_t processes = static_cast<int64_t>(node_names.size());
  if (pattern->num_tasks() > processes) {
    return absl::StrCat("the pattern has ", pattern->num_tasks(), " vertices for ", processes,
                        " processes");
  }
  const std::string server = Env("HOPMAP_SERVER");
  const std::string token = Env("HOPMAP_TOKEN");
  const std::string tls_ca = Env("HOPMAP_TLS_CA");
  hopmap_connect_options options;
  hopmap_connect_options_init(&options);
  options.address = server.c_str();
  options.token = token.c_str();
  options.tls_ca_file = tls_ca.c_str();
  options.connect_timeout_seconds = EnvSeconds("HOPMAP_CONNECT_TIMEOUT", 5);
  hopmap_client* client = nullptr;
  char* error = nullptr;
  if (hopmap_connect(&options, &client, &error) != HOPMAP_OK) {
    std::string why = error != nullptr ? error : "cannot connect";
    hopmap_free_string(error);
    return why;
  }
  const std::string nodes = NodeList(*layout);
  const std::string algorithm = Env("HOPMAP_ALGORITHM");
  hopmap_map_request request;
  hopmap_map_request_init(&request);
  request.machine = machine.c_str();
  request.nodes = nodes.c_str();
  request.cores_per_node = layout->processes_per_node;
  request.num_objects = pattern->num_tasks();
  request.xadj = pattern->xadj().data();
  request.adjncy = pattern->adjncy().data();
  request.adjwgt = pattern->adjwgt().data();
  request.algorithm = algorithm.empty() ? nullptr : algorithm.c_str();
  request.time_limit_seconds = EnvSeconds("HOPMAP_TIME_LIMIT", 0);
  request.deadline_seconds = EnvSeconds("HOPMAP_DEADLINE", 60);
  // Uneven nodes (a node with fewer processes than the most loaded): the balanced
  // Map, with a unit of background load on every slot that has no process, unit
  // vertex loads and no imbalance, so each vertex gets a slot with a process. The
  // identity (vertex v on process v) is its current placement, hence its baseline;
  // HOPMAP_ALGORITHM names a mapper, so the balancer is the default (auto).
  const std::vector<double> phantom = PhantomSlotLoads(*layout);
  std::vector<int32_t> identity;
  if (!phantom.empty()) {
    identity = layout->SlotOfProcess();
    identity.resize(static_cast<size_t>(pattern->num_tasks()));
    request.background_load = phantom.data();
    request.num_background_loads = static_cast<int64_t>(phantom.size());
    request.imbalance = 0;
    request.current_slot = identity.data();
    request.algorithm = nullptr;
  }
  hopmap_map_result result;
  const hopmap_status status = phantom.empty()
                                   ? hopmap_map_processes(client, &request, &result, &error)
                                   : hopmap_map(client, &request, &result, &error);
  hopmap_close(client);
  if (status != HOPMAP_OK) {
    std::string why = absl::StrCat(hopmap_status_name(status), ": ", error != nullptr ? error : "");
    hopmap_free_string(error);
    return why;
  }
  absl::StatusOr<std::vector<int32_t>> vertices =
      VertexOfProcess(*layout, std::span<const int32_t>(result.slot_of_object, result.num_objects));
  if (!vertices.ok()) {
    hopmap_map_result_free(&result);
    return absl::StrCat("hopmapd's answer: ", vertices.status().message());
  }
  *vertex_of_process = *std::move(vertices);
  if (!Env("HOPMAP_VERBOSE").empty() && Env("HOPMAP_VERBOSE") != "0") {
    bool block_order = true;
    for (size_t p = 0; p < layout->node_of_process.size(); ++p) {
      block_order &=
          layout->node_of_process[p] == static_cast<int32_t>(p) / layout->processes_per_node;
    }
    const auto [fewest, most] =
        std::minmax_element(layout->processes_on_node.begin(), layout->processes_on_node.end());
    const std::string shape = phantom.empty()
                                  ? absl::StrCat("x ", layout->processes_per_node)
                                  : absl::StrCat("of ", *fewest, "-", *most, " processes");
    std::fprintf(stderr,
                 "hopmap: %s: %d vertices on %zu nodes %s, reordered by hopmapd (%s): "
                 "hop-bytes %lld, %s %lld, lower bound %lld\n",
                 what, pattern->num_tasks(), layout->nodes.size(), shape.c_str(), result.algorithm,
                 static_cast<long long>(result.hop_bytes),
                 block_order || !phantom.empty() ? "identity" : "in-order slots",
                 static_cast<long long>(result.baseline_hop_bytes),
                 static_cast<long long>(result.lower_bound));
  }
  hopmap_map_result_free(&result);
  return "";
}

// MPI_Bcast from rank 0 for the processes that wait while rank 0 asks hopmapd: they
// poll a nonblocking broadcast and sleep between polls, so that on an oversubscribed
// node they leave the cores to rank 0 and hopmapd instead of spinning in MPI.
void BcastFromRootSleeping(void* buffer, int count, MPI_Datatype type, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Ibcast(buffer, count, type, 0, comm, &request);
  int done = 0;
  PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    const timespec pause = {0, 100'000};  // 0.1 ms
    nanosleep(&pause, nullptr);
    PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

// Collective over comm: every process learns which vertex each process takes, or
// that there is no reordering (false; rank 0 printed why). `pattern` is read on
// rank 0 only. One broadcast carries both: element 0 says whether there is an answer.
bool PlanReorder(MPI_Comm comm, const char* what, const absl::StatusOr<TaskGraph>& pattern,
                 std::vector<int32_t>* vertex_of_process) {
  const std::vector<std::string> names = GatherStrings(comm, NodeName());
  const int size = CommSize(comm);
  std::vector<int32_t> answer(static_cast<size_t>(size) + 1, 0);
  if (CommRank(comm) == 0) {
    std::string problem;
    try {
      problem = AskHopmapd(what, pattern, names, vertex_of_process);
    } catch (const std::exception& e) {
      problem = e.what();
    }
    if (problem.empty()) {
      answer[0] = 1;
      std::copy(vertex_of_process->begin(), vertex_of_process->end(), answer.begin() + 1);
    } else {
      std::fprintf(stderr, "hopmap: %s: not reordered: %s\n", what, problem.c_str());
    }
  }
  BcastFromRootSleeping(answer.data(), size + 1, MPI_INT32_T, comm);
  if (answer[0] != 1) return false;
  vertex_of_process->assign(answer.begin() + 1, answer.end());
  return true;
}

// The processes in vertex order: rank v of the result is the process at vertex v;
// MPI_COMM_NULL for a process without a vertex.
MPI_Comm SplitByVertex(MPI_Comm comm, const std::vector<int32_t>& vertex_of_process) {
  const int32_t vertex = vertex_of_process[CommRank(comm)];
  MPI_Comm ordered = MPI_COMM_NULL;
  PMPI_Comm_split(comm, vertex < 0 ? MPI_UNDEFINED : 0, vertex, &ordered);
  return ordered;
}

// Every process's (from, to, weight) triples, gathered at rank 0 as edges.
std::vector<WeightedEdge> GatherEdges(MPI_Comm comm, const std::vector<int64_t>& triples) {
  std::vector<int> counts;
  const std::vector<int64_t> all = GatherAtRoot(comm, triples, MPI_INT64_T, &counts);
  std::vector<WeightedEdge> edges;
  for (size_t i = 0; i + 2 < all.size(); i += 3) {
    edges.push_back({static_cast<int32_t>(all[i]), static_cast<int32_t>(all[i + 1]), all[i + 2]});
  }
  return edges;
}

// A weights argument as a mode (0 MPI_UNWEIGHTED, 1 MPI_WEIGHTS_EMPTY, 2 an array)
// and back, to ship a process's adjacency to the process that takes its vertex.
int WeightMode(const int* weights) {
  return weights == MPI_UNWEIGHTED ? 0 : weights == MPI_WEIGHTS_EMPTY ? 1 : 2;
}
const int* WeightsFor(int mode, const std::vector<int>& values) {
  return mode == 0 ? MPI_UNWEIGHTED : mode == 1 ? MPI_WEIGHTS_EMPTY : values.data();
}

}  // namespace
}  // namespace hopmap::mpi

using hopmap::mpi::PlanReorder;
using hopmap::mpi::ReorderWanted;
using hopmap::mpi::SplitByVertex;

extern "C" {

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
  if (!ReorderWanted(comm_old, reorder)) {
    return PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
  }
  absl::StatusOr<hopmap::TaskGraph> pattern = absl::UnknownError("not built on this rank");
  if (hopmap::mpi::CommRank(comm_old) == 0) {
    pattern = ndims < 1 ? absl::InvalidArgumentError(absl::StrCat("ndims is ", ndims))
                        : hopmap::mpi::CartPattern(std::span<const int>(dims, ndims),
                                                   std::span<const int>(periods, ndims));
  }
  std::vector<int32_t> vertex_of_process;
  if (!PlanReorder(comm_old, "MPI_Cart_create", pattern, &vertex_of_process)) {
    return PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
  }
  MPI_Comm ordered = SplitByVertex(comm_old, vertex_of_process);
  if (ordered == MPI_COMM_NULL) {
    *comm_cart = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int rc = PMPI_Cart_create(ordered, ndims, dims, periods, 0, comm_cart);
  PMPI_Comm_free(&ordered);
  return rc;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm* comm_graph) {
  if (!ReorderWanted(comm_old, reorder)) {
    return PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph);
  }
  absl::StatusOr<hopmap::TaskGraph> pattern = absl::UnknownError("not built on this rank");
  if (hopmap::mpi::CommRank(comm_old) == 0) {
    const int entries = nnodes > 0 ? index[nnodes - 1] : 0;
    pattern = nnodes < 1 ? absl::InvalidArgumentError(absl::StrCat("nnodes is ", nnodes))
                         : hopmap::mpi::GraphPattern(nnodes, std::span<const int>(index, nnodes),
                                                     std::span<const int>(edges, entries));
  }
  std::vector<int32_t> vertex_of_process;
  if (!PlanReorder(comm_old, "MPI_Graph_create", pattern, &vertex_of_process)) {
    return PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph);
  }
  MPI_Comm ordered = SplitByVertex(comm_old, vertex_of_process);
  if (ordered == MPI_COMM_NULL) {
    *comm_graph = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int rc = PMPI_Graph_create(ordered, nnodes, index, edges, 0, comm_graph);
  PMPI_Comm_free(&ordered);
  return rc;
}

// The edges any process gives are between ranks of comm_old, which are the
// vertices; after the split they are the new ranks, so every process passes its own
// arguments on unchanged.
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* comm_dist_graph) {
  if (!ReorderWanted(comm_old, reorder)) {
    return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                                  reorder, comm_dist_graph);
  }
  std::vector<int64_t> mine;
  const bool unweighted = hopmap::mpi::WeightMode(weights) != 2;
  int64_t k = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      mine.insert(mine.end(), {sources[i], destinations[k], unweighted ? 1 : weights[k]});
    }
  }
  const std::vector<hopmap::mpi::WeightedEdge> edges = hopmap::mpi::GatherEdges(comm_old, mine);
  absl::StatusOr<hopmap::TaskGraph> pattern = absl::UnknownError("not built on this rank");
  if (hopmap::mpi::CommRank(comm_old) == 0) {
    pattern = hopmap::mpi::EdgesPattern(hopmap::mpi::CommSize(comm_old), edges);
  }
  std::vector<int32_t> vertex_of_process;
  if (!PlanReorder(comm_old, "MPI_Dist_graph_create", pattern, &vertex_of_process)) {
    return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                                  reorder, comm_dist_graph);
  }
  MPI_Comm ordered = SplitByVertex(comm_old, vertex_of_process);
  const int rc = PMPI_Dist_graph_create(ordered, n, sources, degrees, destinations, weights, info,
                                        0, comm_dist_graph);
  PMPI_Comm_free(&ordered);
  return rc;
}

// Vertex v's adjacency is what process v of comm_old passed: it is shipped to the
// process that takes vertex v, which creates the topology with it.
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  if (!ReorderWanted(comm_old, reorder)) {
    return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                           destinations, destweights, info, reorder,
                                           comm_dist_graph);
  }
  const int me = hopmap::mpi::CommRank(comm_old);
  std::vector<int64_t> mine;
  const bool unweighted = hopmap::mpi::WeightMode(destweights) != 2;
  for (int i = 0; i < outdegree; ++i) {
    mine.insert(mine.end(), {me, destinations[i], unweighted ? 1 : destweights[i]});
  }
  const std::vector<hopmap::mpi::WeightedEdge> edges = hopmap::mpi::GatherEdges(comm_old, mine);
  absl::StatusOr<hopmap::TaskGraph> pattern = absl::UnknownError("not built on this rank");
  if (me == 0) pattern = hopmap::mpi::EdgesPattern(hopmap::mpi::CommSize(comm_old), edges);
  std::vector<int32_t> vertex_of_process;
  if (!PlanReorder(comm_old, "MPI_Dist_graph_create_adjacent", pattern, &vertex_of_process)) {
    return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                           destinations, destweights, info, reorder,
                                           comm_dist_graph);
  }
  MPI_Comm ordered = SplitByVertex(comm_old, vertex_of_process);
  // Mine goes to the process at vertex `me` (rank `me` of `ordered`); I take the
  // description of process `vertex`, which is rank vertex_of_process[vertex].
  const int vertex = vertex_of_process[me];
  const int src_mode = hopmap::mpi::WeightMode(sourceweights);
  const int dst_mode = hopmap::mpi::WeightMode(destweights);
  std::vector<int> packed = {indegree, outdegree, src_mode, dst_mode};
  packed.insert(packed.end(), sources, sources + indegree);
  if (src_mode == 2) packed.insert(packed.end(), sourceweights, sourceweights + indegree);
  packed.insert(packed.end(), destinations, destinations + outdegree);
  if (dst_mode == 2) packed.insert(packed.end(), destweights, destweights + outdegree);
  const int from = vertex_of_process[vertex];
  int length = static_cast<int>(packed.size());
  int their_length = 0;
  constexpr int kTag = 7241;  // on the private `ordered` communicator
  PMPI_Sendrecv(&length, 1, MPI_INT, me, kTag, &their_length, 1, MPI_INT, from, kTag, ordered,
                MPI_STATUS_IGNORE);
  std::vector<int> theirs(static_cast<size_t>(their_length));
  PMPI_Sendrecv(packed.data(), length, MPI_INT, me, kTag, theirs.data(), their_length, MPI_INT,
                from, kTag, ordered, MPI_STATUS_IGNORE);
  const int in = theirs[0];
  const int out = theirs[1];
  size_t at = 4;
  auto take = [&](int n) {
    std::vector<int> values(theirs.begin() + at, theirs.begin() + at + n);
    at += n;
    return values;
  };
  const std::vector<int> in_ranks = take(in);
  const std::vector<int> in_weights = theirs[2] == 2 ? take(in) : std::vector<int>();
  const std::vector<int> out_ranks = take(out);
  const std::vector<int> out_weights = theirs[3] == 2 ? take(out) : std::vector<int>();
  const int rc = PMPI_Dist_graph_create_adjacent(
      ordered, in, in_ranks.data(), hopmap::mpi::WeightsFor(theirs[2], in_weights), out,
      out_ranks.data(), hopmap::mpi::WeightsFor(theirs[3], out_weights), info, 0, comm_dist_graph);
  PMPI_Comm_free(&ordered);
  return rc;
}

}  // extern "C"
