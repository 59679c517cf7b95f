// The MPI-free half of reordering a communicator (libhopmap_mpi): the pattern a
// topology constructor describes, where the processes are, and which process takes
// which vertex once hopmapd has answered. The MPI wrappers (pmpi_reorder.cc) gather
// and scatter; these decide.
#ifndef HOPMAP_CLIENT_MPI_REORDER_PLAN_H_
#define HOPMAP_CLIENT_MPI_REORDER_PLAN_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"

namespace hopmap::mpi {

// A Cartesian grid (row-major, as MPI numbers it): every process sends one unit to
// each of its 2 x ndims neighbours (MPI_Cart_shift by +1 and -1; none across a
// non-periodic edge). InvalidArgument on a dimension < 1 or more than 2^31 cells.
absl::StatusOr<TaskGraph> CartPattern(std::span<const int> dims, std::span<const int> periods);

// MPI_Graph_create's (nnodes, index, edges): node i sends one unit to each of
// edges[index[i-1] .. index[i]). InvalidArgument on a bad index or neighbour.
absl::StatusOr<TaskGraph> GraphPattern(int nnodes, std::span<const int> index,
                                       std::span<const int> edges);

// Directed weighted edges (distributed graphs): (from, to, weight) triples.
struct WeightedEdge {
  int32_t from = 0;
  int32_t to = 0;
  int64_t weight = 1;
};
absl::StatusOr<TaskGraph> EdgesPattern(int32_t num_vertices, std::span<const WeightedEdge> edges);

// Where the processes of a communicator are: nodes in the order of their first
// process. hopmapd's allocation gives every node processes_per_node slots (the most
// any node holds); on a node with fewer processes the slots past them hold none
// (phantom slots, see PhantomSlotLoads).
struct NodeLayout {
  std::vector<std::string> nodes;
  std::vector<int32_t> node_of_process;    // index into nodes
  std::vector<int32_t> processes_on_node;  // per node
  int32_t processes_per_node = 0;          // the most on any node
  [[nodiscard]] bool even() const;         // every node holds processes_per_node
  // Slot of process p: its node's position x processes_per_node + its rank order
  // among the node's processes.
  [[nodiscard]] std::vector<int32_t> SlotOfProcess() const;
};

// From each process's node name (HOPMAP_NODE or MPI_Get_processor_name).
// InvalidArgument when a name is empty or holds ',', '[', ']' or whitespace (it
// could not be sent as a node list). Nodes may hold different numbers of
// processes (a scheduler's uneven allocation).
absl::StatusOr<NodeLayout> LayOutNodes(const std::vector<std::string>& node_of_process);

// Uneven nodes: the background load of every slot of the allocation for hopmapd's
// balanced Map, 1 on a phantom slot (no process) and 0 on the others, so that with
// unit loads and imbalance 0 every vertex lands on a slot that has a process, one
// each. Empty when the layout is even.
std::vector<double> PhantomSlotLoads(const NodeLayout& layout);

// The nodes as hopmapd's allocation takes them: "a,b,c".
std::string NodeList(const NodeLayout& layout);

// Which vertex each process takes, -1 for none, from hopmapd's slot of each vertex
// (slot = node position x processes_per_node + core): the process of rank order
// `core` on that node. InvalidArgument if a slot is out of range, repeated, or a
// phantom slot (past the processes of its node).
absl::StatusOr<std::vector<int32_t>> VertexOfProcess(const NodeLayout& layout,
                                                     std::span<const int32_t> slot_of_vertex);

}  // namespace hopmap::mpi

#endif  // HOPMAP_CLIENT_MPI_REORDER_PLAN_H_
