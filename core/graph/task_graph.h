// TaskGraph: the job's communication graph, undirected, weighted by bytes, in CSR.
#ifndef HOPMAP_CORE_GRAPH_TASK_GRAPH_H_
#define HOPMAP_CORE_GRAPH_TASK_GRAPH_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/types.h"

namespace hopmap {

// w(u,v) = bytes exchanged between u and v, both directions summed. Every edge is
// stored twice (u->v and v->u) with the same weight; no self loops; weights > 0.
// Self traffic (a task sending to itself) is not an edge: it is counted in
// self_bytes() so nothing the user gave is lost from the totals.
class TaskGraph {
 public:
  TaskGraph() = default;
  TaskGraph(TaskGraph&&) = default;
  TaskGraph& operator=(TaskGraph&&) = default;
  TaskGraph(const TaskGraph&) = delete;
  TaskGraph& operator=(const TaskGraph&) = delete;

  // Takes ownership of CSR arrays and validates them: xadj has n+1 entries, starts
  // at 0 and never decreases; neighbours are in range and not the task itself; no
  // neighbour twice in one list; weights are positive; the graph is symmetric with
  // equal weights both ways. The error names the first offending entry.
  static absl::StatusOr<TaskGraph> FromCsr(std::vector<EdgeIndex> xadj, std::vector<TaskId> adjncy,
                                           std::vector<Bytes> adjwgt, Bytes self_bytes = 0);

  [[nodiscard]] TaskId num_tasks() const {
    return xadj_.empty() ? 0 : static_cast<TaskId>(xadj_.size() - 1);
  }
  // Undirected edges (each stored twice).
  [[nodiscard]] int64_t num_edges() const { return static_cast<int64_t>(adjncy_.size()) / 2; }
  [[nodiscard]] const std::vector<EdgeIndex>& xadj() const { return xadj_; }
  [[nodiscard]] const std::vector<TaskId>& adjncy() const { return adjncy_; }
  [[nodiscard]] const std::vector<Bytes>& adjwgt() const { return adjwgt_; }

  // Sum of w over undirected edges (self traffic excluded).
  [[nodiscard]] Bytes total_bytes() const { return total_bytes_; }
  // Bytes a task sent to itself, dropped from the graph.
  [[nodiscard]] Bytes self_bytes() const { return self_bytes_; }
  [[nodiscard]] int64_t degree(TaskId u) const { return xadj_[u + 1] - xadj_[u]; }
  // Sum of the weights of u's edges.
  [[nodiscard]] Bytes weighted_degree(TaskId u) const;
  [[nodiscard]] int64_t max_degree() const;

  // The same graph with its tasks renumbered: task i of the result is task order[i]
  // (`order` names every task once; InvalidArgument otherwise). Each row sorted by
  // neighbour. O(m log degree), rows in parallel.
  [[nodiscard]] absl::StatusOr<TaskGraph> Permuted(std::span<const TaskId> order) const;
  // Calls f(neighbour, bytes) for every edge of u.
  template <typename F>
  void ForEachNeighbor(TaskId u, F&& f) const {
    for (EdgeIndex e = xadj_[u]; e < xadj_[u + 1]; ++e) f(adjncy_[e], adjwgt_[e]);
  }

 private:
  friend class TaskGraphBuilder;
  std::vector<EdgeIndex> xadj_;
  std::vector<TaskId> adjncy_;
  std::vector<Bytes> adjwgt_;
  Bytes total_bytes_ = 0;
  Bytes self_bytes_ = 0;
};

// Every task in breadth-first order: the component of task 0 first, then the
// component of the lowest task not yet reached, and so on; neighbours in CSR order.
std::vector<TaskId> BreadthFirstOrder(const TaskGraph& graph);

// The graph `tasks` induce: task i of the result is tasks[i] (distinct ids of
// `graph`), with the bytes of every edge between two of them; edges to other tasks
// are dropped.
absl::StatusOr<TaskGraph> InducedSubgraph(const TaskGraph& graph, std::span<const TaskId> tasks);

// Builds a TaskGraph from traffic records, as profilers and edge lists give them:
// records between the same pair are summed whichever direction they name, self
// traffic goes to self_bytes(), zero-byte records add nothing.
class TaskGraphBuilder {
 public:
  explicit TaskGraphBuilder(TaskId num_tasks) : num_tasks_(num_tasks) {}

  // Records `bytes` sent between u and v. Fails on an id out of range or a
  // negative weight (the caller adds the file and line).
  absl::Status AddTraffic(TaskId u, TaskId v, Bytes bytes);
  void Reserve(size_t records) { records_.reserve(records); }
  [[nodiscard]] TaskId num_tasks() const { return num_tasks_; }

  // Fails if a merged weight overflows 64 bits.
  absl::StatusOr<TaskGraph> Build() &&;

 private:
  struct Record {
    TaskId u;
    TaskId v;
    Bytes bytes;
  };
  TaskId num_tasks_;
  std::vector<Record> records_;
  Bytes self_bytes_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_GRAPH_TASK_GRAPH_H_
