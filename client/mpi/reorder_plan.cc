#include "client/mpi/reorder_plan.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap::mpi {

absl::StatusOr<TaskGraph> CartPattern(std::span<const int> dims, std::span<const int> periods) {
  int64_t cells = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 1) return absl::InvalidArgumentError(absl::StrCat("dims[", d, "] is ", dims[d]));
    cells *= dims[d];
    if (cells > INT32_MAX) return absl::InvalidArgumentError("the grid has more than 2^31 cells");
  }
  TaskGraphBuilder builder(static_cast<TaskId>(cells));
  builder.Reserve(static_cast<size_t>(cells) * 2 * dims.size());
  std::vector<int> coords(dims.size());
  for (int64_t cell = 0; cell < cells; ++cell) {
    // Row-major: the last dimension varies fastest.
    int64_t rest = cell;
    for (size_t d = dims.size(); d-- > 0;) {
      coords[d] = static_cast<int>(rest % dims[d]);
      rest /= dims[d];
    }
    int64_t stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      for (int step : {-1, 1}) {
        int c = coords[d] + step;
        if (c < 0 || c >= dims[d]) {
          if (periods[d] == 0) continue;
          c = (c + dims[d]) % dims[d];
        }
        const int64_t neighbour = cell + (c - coords[d]) * stride;
        if (absl::Status s =
                builder.AddTraffic(static_cast<TaskId>(cell), static_cast<TaskId>(neighbour), 1);
            !s.ok()) {
          return s;
        }
      }
      stride *= dims[d];
    }
  }
  return std::move(builder).Build();
}

absl::StatusOr<TaskGraph> GraphPattern(int nnodes, std::span<const int> index,
                                       std::span<const int> edges) {
  if (nnodes < 1 || index.size() != static_cast<size_t>(nnodes)) {
    return absl::InvalidArgumentError(absl::StrCat("nnodes is ", nnodes));
  }
  TaskGraphBuilder builder(nnodes);
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < previous || static_cast<size_t>(index[i]) > edges.size()) {
      return absl::InvalidArgumentError(absl::StrCat("index[", i, "] is ", index[i]));
    }
    for (int e = previous; e < index[i]; ++e) {
      if (edges[e] < 0 || edges[e] >= nnodes) {
        return absl::InvalidArgumentError(absl::StrCat("edges[", e, "] is ", edges[e]));
      }
      if (absl::Status s = builder.AddTraffic(i, edges[e], 1); !s.ok()) return s;
    }
    previous = index[i];
  }
  return std::move(builder).Build();
}

absl::StatusOr<TaskGraph> EdgesPattern(int32_t num_vertices, std::span<const WeightedEdge> edges) {
  TaskGraphBuilder builder(num_vertices);
  builder.Reserve(edges.size());
  for (const WeightedEdge& e : edges) {
    if (e.from < 0 || e.from >= num_vertices || e.to < 0 || e.to >= num_vertices) {
      return absl::InvalidArgumentError(absl::StrCat(
          "edge ", e.from, " -> ", e.to, " names a rank outside [0, ", num_vertices, ")"));
    }
    if (e.weight < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("edge ", e.from, " -> ", e.to, " has weight ", e.weight));
    }
    if (absl::Status s = builder.AddTraffic(e.from, e.to, e.weight); !s.ok()) return s;
  }
  return std::move(builder).Build();
}

absl::StatusOr<NodeLayout> LayOutNodes(const std::vector<std::string>& node_of_process) {
  NodeLayout layout;
  std::map<std::string, int32_t> index;
  std::vector<int32_t> count;
  for (size_t p = 0; p < node_of_process.size(); ++p) {
    const std::string& name = node_of_process[p];
    if (name.empty())
      return absl::InvalidArgumentError(absl::StrCat("process ", p, " has no node name"));
    if (name.find_first_of(",[] \t\r\n") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("process ", p, "'s node name '", name,
                       "' holds ',', '[', ']' or whitespace; it cannot be sent as a node list"));
    }
    auto [it, added] = index.emplace(name, static_cast<int32_t>(layout.nodes.size()));
    if (added) {
      layout.nodes.push_back(name);
      count.push_back(0);
    }
    layout.node_of_process.push_back(it->second);
    ++count[it->second];
  }
  if (layout.nodes.empty()) return absl::InvalidArgumentError("no processes");
  layout.processes_per_node = *std::max_element(count.begin(), count.end());
  layout.processes_on_node = std::move(count);
  return layout;
}

bool NodeLayout::even() const {
  return std::all_of(processes_on_node.begin(), processes_on_node.end(),
                     [this](int32_t n) { return n == processes_per_node; });
}

std::vector<int32_t> NodeLayout::SlotOfProcess() const {
  std::vector<int32_t> next_core(nodes.size(), 0);
  std::vector<int32_t> slot(node_of_process.size());
  for (size_t p = 0; p < node_of_process.size(); ++p) {
    const int32_t node = node_of_process[p];
    slot[p] = node * processes_per_node + next_core[node]++;
  }
  return slot;
}

std::vector<double> PhantomSlotLoads(const NodeLayout& layout) {
  if (layout.even()) return {};
  std::vector<double> loads(layout.nodes.size() * static_cast<size_t>(layout.processes_per_node),
                            0.0);
  for (size_t node = 0; node < layout.nodes.size(); ++node) {
    for (int32_t core = layout.processes_on_node[node]; core < layout.processes_per_node; ++core) {
      loads[node * static_cast<size_t>(layout.processes_per_node) + core] = 1.0;
    }
  }
  return loads;
}

std::string NodeList(const NodeLayout& layout) { return absl::StrJoin(layout.nodes, ","); }

absl::StatusOr<std::vector<int32_t>> VertexOfProcess(const NodeLayout& layout,
                                                     std::span<const int32_t> slot_of_vertex) {
  const int32_t per_node = layout.processes_per_node;
  std::vector<std::vector<int32_t>> processes_of_node(layout.nodes.size());
  for (size_t p = 0; p < layout.node_of_process.size(); ++p) {
    processes_of_node[layout.node_of_process[p]].push_back(static_cast<int32_t>(p));
  }
  std::vector<int32_t> vertex_of_process(layout.node_of_process.size(), -1);
  const int64_t slots = static_cast<int64_t>(layout.nodes.size()) * per_node;
  for (size_t v = 0; v < slot_of_vertex.size(); ++v) {
    const int32_t slot = slot_of_vertex[v];
    if (slot < 0 || slot >= slots) {
      return absl::InvalidArgumentError(
          absl::StrCat("vertex ", v, " is on slot ", slot, ", not in [0, ", slots, ")"));
    }
    const std::vector<int32_t>& on_node = processes_of_node[slot / per_node];
    if (slot % per_node >= static_cast<int32_t>(on_node.size())) {
      return absl::InvalidArgumentError(absl::StrCat("vertex ", v, " is on slot ", slot,
                                                     " of node ", layout.nodes[slot / per_node],
                                                     ", which has ", on_node.size(), " processes"));
    }
    const int32_t process = on_node[slot % per_node];
    if (vertex_of_process[process] >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("slot ", slot, " holds vertices ", vertex_of_process[process], " and ", v));
    }
    vertex_of_process[process] = static_cast<int32_t>(v);
  }
  return vertex_of_process;
}

}  // namespace hopmap::mpi
