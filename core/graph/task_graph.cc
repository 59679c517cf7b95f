#include "core/graph/task_graph.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/parallel_sort.h"

namespace hopmap {

absl::StatusOr<TaskGraph> TaskGraph::FromCsr(std::vector<EdgeIndex> xadj,
                                             std::vector<TaskId> adjncy, std::vector<Bytes> adjwgt,
                                             Bytes self_bytes) {
  if (xadj.empty()) {
    return absl::InvalidArgumentError("xadj: must have n+1 entries, got 0");
  }
  if (static_cast<int64_t>(xadj.size()) - 1 > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("xadj: ", xadj.size() - 1, " tasks is more than ", kMaxTasks));
  }
  const int64_t n = static_cast<int64_t>(xadj.size()) - 1;
  if (xadj[0] != 0) {
    return absl::InvalidArgumentError(absl::StrCat("xadj[0]: must be 0, got ", xadj[0]));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (xadj[i + 1] < xadj[i]) {
      return absl::InvalidArgumentError(absl::StrCat("xadj[", i + 1, "] = ", xadj[i + 1],
                                                     " is less than xadj[", i, "] = ", xadj[i],
                                                     " (not monotone)"));
    }
  }
  if (xadj[n] != static_cast<int64_t>(adjncy.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("xadj[n] = ", xadj[n], " but adjncy has ", adjncy.size(), " entries"));
  }
  if (adjwgt.size() != adjncy.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("adjwgt has ", adjwgt.size(), " entries but adjncy has ", adjncy.size()));
  }
  if (self_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("self_bytes: negative (", self_bytes, ")"));
  }
  // Range, self loops, weights and duplicates, one task at a time. `seen` maps a
  // neighbour to the last row that listed it, so duplicate detection is O(m).
  std::vector<int64_t> seen(n, -1);
  for (int64_t u = 0; u < n; ++u) {
    for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
      const int64_t v = adjncy[e];
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(absl::StrCat("adjncy[", e, "] = ", v, " (task ", u,
                                                       "): neighbour out of range [0, ", n, ")"));
      }
      if (v == u) {
        return absl::InvalidArgumentError(
            absl::StrCat("adjncy[", e, "]: task ", u, " lists itself (self loop)"));
      }
      if (adjwgt[e] <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("adjwgt[", e, "] = ", adjwgt[e], " (edge ",
                                                       u, "-", v, "): weight must be positive"));
      }
      if (seen[v] == u) {
        return absl::InvalidArgumentError(
            absl::StrCat("adjncy: task ", u, " lists neighbour ", v, " twice"));
      }
      seen[v] = u;
    }
  }
  // Symmetry: every (u, v, w) needs its (v, u, w). Sort a copy of each row's pairs
  // by neighbour so the reverse edge is found by binary search. Rows are independent,
  // so both steps run in parallel (a cache miss per edge when tasks are numbered
  // randomly: docs/tuning.md); the error names the first bad edge in (task,
  // position) order, as a sequential scan would.
  std::vector<std::pair<TaskId, Bytes>> sorted_rows(adjncy.size());
  constexpr int64_t kRowsPerBlock = 4096;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, kRowsPerBlock),
                    [&](const tbb::blocked_range<int64_t>& rows) {
                      for (int64_t u = rows.begin(); u < rows.end(); ++u) {
                        for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
                          sorted_rows[e] = {adjncy[e], adjwgt[e]};
                        }
                        std::sort(sorted_rows.begin() + xadj[u], sorted_rows.begin() + xadj[u + 1]);
                      }
                    });
  auto check_row = [&](int64_t u) -> absl::Status {
    for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
      const TaskId v = adjncy[e];
      auto begin = sorted_rows.begin() + xadj[v];
      auto end = sorted_rows.begin() + xadj[v + 1];
      auto it = std::lower_bound(begin, end, std::pair<TaskId, Bytes>(static_cast<TaskId>(u), 0));
      if (it == end || it->first != u) {
        return absl::InvalidArgumentError(absl::StrCat("graph is not symmetric: edge ", u, "-", v,
                                                       " has no reverse edge ", v, "-", u));
      }
      if (it->second != adjwgt[e]) {
        return absl::InvalidArgumentError(absl::StrCat("graph is not symmetric: edge ", u, "-", v,
                                                       " weighs ", adjwgt[e], " but ", v, "-", u,
                                                       " weighs ", it->second));
      }
    }
    return absl::OkStatus();
  };
  std::atomic<int64_t> first_bad{n};
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, kRowsPerBlock),
                    [&](const tbb::blocked_range<int64_t>& rows) {
                      for (int64_t u = rows.begin(); u < rows.end(); ++u) {
                        if (u >= first_bad.load(std::memory_order_relaxed)) return;
                        if (!check_row(u).ok()) {
                          int64_t known = first_bad.load();
                          while (u < known && !first_bad.compare_exchange_weak(known, u)) {
                          }
                          return;
                        }
                      }
                    });
  if (first_bad.load() < n) return check_row(first_bad.load());
  Bytes total = 0;
  for (int64_t u = 0; u < n; ++u) {
    for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
      if (u < adjncy[e] && __builtin_add_overflow(total, adjwgt[e], &total)) {
        return absl::InvalidArgumentError("adjwgt: total bytes overflow 64 bits");
      }
    }
  }
  TaskGraph g;
  g.xadj_ = std::move(xadj);
  g.adjncy_ = std::move(adjncy);
  g.adjwgt_ = std::move(adjwgt);
  g.total_bytes_ = total;
  g.self_bytes_ = self_bytes;
  return g;
}

Bytes TaskGraph::weighted_degree(TaskId u) const {
  Bytes sum = 0;
  for (EdgeIndex e = xadj_[u]; e < xadj_[u + 1]; ++e) sum += adjwgt_[e];
  return sum;
}

int64_t TaskGraph::max_degree() const {
  int64_t best = 0;
  for (TaskId u = 0; u < num_tasks(); ++u) best = std::max(best, degree(u));
  return best;
}

absl::Status TaskGraphBuilder::AddTraffic(TaskId u, TaskId v, Bytes bytes) {
  if (u < 0 || u >= num_tasks_) {
    return absl::InvalidArgumentError(
        absl::StrCat("task ", u, " out of range [0, ", num_tasks_, ")"));
  }
  if (v < 0 || v >= num_tasks_) {
    return absl::InvalidArgumentError(
        absl::StrCat("task ", v, " out of range [0, ", num_tasks_, ")"));
  }
  if (bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative weight ", bytes));
  }
  if (bytes == 0) return absl::OkStatus();
  if (u == v) {
    if (__builtin_add_overflow(self_bytes_, bytes, &self_bytes_)) {
      return absl::InvalidArgumentError("self traffic overflows 64 bits");
    }
    return absl::OkStatus();
  }
  if (u > v) std::swap(u, v);
  records_.push_back({u, v, bytes});
  return absl::OkStatus();
}

absl::StatusOr<TaskGraph> TaskGraphBuilder::Build() && {
  tbb::parallel_sort(records_.begin(), records_.end(), [](const Record& a, const Record& b) {
    return a.u != b.u ? a.u < b.u : a.v < b.v;
  });
  // Merge records of the same pair in place.
  size_t out = 0;
  for (size_t i = 0; i < records_.size(); ++i) {
    if (out > 0 && records_[out - 1].u == records_[i].u && records_[out - 1].v == records_[i].v) {
      if (__builtin_add_overflow(records_[out - 1].bytes, records_[i].bytes,
                                 &records_[out - 1].bytes)) {
        return absl::InvalidArgumentError(absl::StrCat("weight of edge ", records_[i].u, "-",
                                                       records_[i].v, " overflows 64 bits"));
      }
    } else {
      records_[out++] = records_[i];
    }
  }
  records_.resize(out);

  const int64_t n = num_tasks_;
  std::vector<EdgeIndex> xadj(n + 1, 0);
  for (const Record& r : records_) {
    ++xadj[r.u + 1];
    ++xadj[r.v + 1];
  }
  for (int64_t i = 0; i < n; ++i) xadj[i + 1] += xadj[i];
  std::vector<TaskId> adjncy(2 * records_.size());
  std::vector<Bytes> adjwgt(2 * records_.size());
  std::vector<EdgeIndex> fill(xadj.begin(), xadj.end() - 1);
  Bytes total = 0;
  // Records are sorted by (u, v), so each row comes out sorted by neighbour.
  for (const Record& r : records_) {
    adjncy[fill[r.v]] = r.u;
    adjwgt[fill[r.v]++] = r.bytes;
  }
  for (const Record& r : records_) {
    adjncy[fill[r.u]] = r.v;
    adjwgt[fill[r.u]++] = r.bytes;
    if (__builtin_add_overflow(total, r.bytes, &total)) {
      return absl::InvalidArgumentError("total bytes overflow 64 bits");
    }
  }
  records_.clear();
  records_.shrink_to_fit();
  TaskGraph g;
  g.xadj_ = std::move(xadj);
  g.adjncy_ = std::move(adjncy);
  g.adjwgt_ = std::move(adjwgt);
  g.total_bytes_ = total;
  g.self_bytes_ = self_bytes_;
  return g;
}

absl::StatusOr<TaskGraph> TaskGraph::Permuted(std::span<const TaskId> order) const {
  const TaskId n = num_tasks();
  if (static_cast<TaskId>(order.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("the new order has ", order.size(), " tasks, the graph ", n));
  }
  std::vector<TaskId> new_id(n, -1);
  for (TaskId i = 0; i < n; ++i) {
    const TaskId t = order[i];
    if (t < 0 || t >= n || new_id[t] >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the new order names task ", t, " twice or out of range"));
    }
    new_id[t] = i;
  }
  TaskGraph out;
  out.xadj_.resize(xadj_.size());
  out.xadj_[0] = 0;
  for (TaskId i = 0; i < n; ++i) out.xadj_[i + 1] = out.xadj_[i] + degree(order[i]);
  out.adjncy_.resize(adjncy_.size());
  out.adjwgt_.resize(adjwgt_.size());
  constexpr TaskId kRowsPerBlock = 4096;
  tbb::parallel_for(
      tbb::blocked_range<TaskId>(0, n, kRowsPerBlock), [&](const tbb::blocked_range<TaskId>& rows) {
        std::vector<std::pair<TaskId, Bytes>> row;
        for (TaskId i = rows.begin(); i < rows.end(); ++i) {
          row.clear();
          ForEachNeighbor(order[i], [&](TaskId v, Bytes w) { row.push_back({new_id[v], w}); });
          std::sort(row.begin(), row.end());
          for (size_t k = 0; k < row.size(); ++k) {
            out.adjncy_[out.xadj_[i] + k] = row[k].first;
            out.adjwgt_[out.xadj_[i] + k] = row[k].second;
          }
        }
      });
  out.total_bytes_ = total_bytes_;
  out.self_bytes_ = self_bytes_;
  return out;
}

std::vector<TaskId> BreadthFirstOrder(const TaskGraph& graph) {
  const TaskId n = graph.num_tasks();
  std::vector<TaskId> order;
  order.reserve(n);
  std::vector<uint8_t> seen(n, 0);
  for (TaskId root = 0; root < n; ++root) {
    if (seen[root]) continue;
    seen[root] = 1;
    order.push_back(root);
    for (size_t head = order.size() - 1; head < order.size(); ++head) {
      graph.ForEachNeighbor(order[head], [&](TaskId u, Bytes) {
        if (!seen[u]) {
          seen[u] = 1;
          order.push_back(u);
        }
      });
    }
  }
  return order;
}

absl::StatusOr<TaskGraph> InducedSubgraph(const TaskGraph& graph, std::span<const TaskId> tasks) {
  // (id, index in tasks), sorted by id: a neighbour's local index by binary search.
  std::vector<std::pair<TaskId, TaskId>> local;
  local.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) local.push_back({tasks[i], static_cast<TaskId>(i)});
  std::sort(local.begin(), local.end());
  TaskGraphBuilder builder(static_cast<TaskId>(tasks.size()));
  absl::Status added = absl::OkStatus();
  for (size_t i = 0; i < tasks.size() && added.ok(); ++i) {
    graph.ForEachNeighbor(tasks[i], [&](TaskId u, Bytes w) {
      const auto it = std::lower_bound(local.begin(), local.end(), std::make_pair(u, TaskId{0}));
      // Each edge once, from its lower local end.
      if (added.ok() && it != local.end() && it->first == u &&
          it->second > static_cast<TaskId>(i)) {
        added = builder.AddTraffic(static_cast<TaskId>(i), it->second, w);
      }
    });
  }
  if (!added.ok()) return added;
  return std::move(builder).Build();
}

}  // namespace hopmap
