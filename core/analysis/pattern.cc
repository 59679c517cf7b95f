// Regular-pattern detection: seed 000's Algorithm 1 (read the rank distances of the
// neighbours, check every rank against them), generalized to 2D/3D/4D grids with
// or without wraparound, 5/9/7/27-point stencils, rings, FFT transposes, recursive
// doubling and binomial trees.
//
// Steps:
//  1. Hub candidates (degree > n/2, or >= 16 and >= 8x the median degree; none when
//     there are more than n/8 of them: that is a dense graph, not a hub).
//  2. Kept edges: weight >= weight_threshold x the mean weight of the edges between
//     non-hubs. "Core" edges = kept edges between two non-hubs.
//  3. Hypotheses (ring; grids whose strides come from the core edges' rank
//     differences; fft2d; recursive doubling; binomial tree). A hypothesis holds when
//     every core edge fits it and every edge it expects is present and kept (boundary
//     tasks of a grid without wrap expect fewer). Hub edges that fit count as
//     explained; the others are left out.
//  4. The hypothesis that explains the most bytes wins; ties go to the earlier one.
// Cost: O(m log m) for the difference histogram plus O(m) per hypothesis tried; wrong
// hypotheses usually fail on the first few edges.
#include "core/analysis/pattern.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hopmap {

absl::Status AnalyzerOptions::Validate() const {
  if (!std::isfinite(weight_threshold) || weight_threshold < 0 || weight_threshold >= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight threshold must be in [0, 1), got ", weight_threshold));
  }
  return absl::OkStatus();
}

namespace {

struct Edge {
  TaskId u;  // u < v
  TaskId v;
  Bytes w;
  bool kept;  // weight at or above the threshold
  bool core;  // kept and neither end is a hub candidate
};

struct Prepared {
  TaskId n = 0;
  std::vector<Edge> edges;
  std::vector<char> hub;  // hub candidate flags
};

// Fit of an edge under a hypothesis: 0 = does not fit, 1 = primary edge (a face of a
// grid, or any edge of the other kinds), 2 = diagonal of a grid.
using FitFn = std::function<int(TaskId u, TaskId v)>;

struct Outcome {
  bool ok = false;
  Bytes explained_bytes = 0;
  int64_t explained_edges = 0;
  std::vector<char> hub_left_out;  // per task: a hub candidate with a left-out edge
};

// Every core edge must fit; the kept fitting edges must number `expected`.
Outcome CheckSimple(const Prepared& p, const FitFn& fit, int64_t expected) {
  Outcome out;
  for (const Edge& e : p.edges) {
    if (e.core && fit(e.u, e.v) == 0) return out;
  }
  int64_t kept_fit = 0;
  for (const Edge& e : p.edges) {
    if (fit(e.u, e.v) != 0) {
      out.explained_bytes += e.w;
      ++out.explained_edges;
      if (e.kept) ++kept_fit;
    }
  }
  out.ok = kept_fit == expected;
  return out;
}

// A grid hypothesis: dims first-fastest, strides s_i = D0*...*D(i-1).
struct Grid {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
};

// Classifies u-v under the grid: returns the number of dims where they differ
// (0 = not a neighbour) and sets *wrap_mask to the dims crossed by a wrap.
int GridDelta(const Grid& g, TaskId u, TaskId v, uint32_t* wrap_mask) {
  int nz = 0;
  *wrap_mask = 0;
  for (size_t i = 0; i < g.dims.size(); ++i) {
    const int64_t d = g.dims[i];
    const int64_t cu = (u / g.strides[i]) % d;
    const int64_t cv = (v / g.strides[i]) % d;
    int64_t delta = cv - cu;
    if (delta == 0) continue;
    ++nz;
    if (delta == 1 || delta == -1) continue;
    if (d >= 3 && (delta == d - 1 || delta == 1 - d)) {
      *wrap_mask |= 1u << i;
      continue;
    }
    return 0;
  }
  return nz;
}

// Pairs of tasks at one offset pattern over the dims in `mask` (the others equal),
// summed over the sign patterns up to an overall sign.
int64_t ExpectedPairs(const Grid& g, uint32_t mask, uint32_t periodic) {
  int64_t count = 1;
  int bits = 0;
  for (size_t i = 0; i < g.dims.size(); ++i) {
    const int64_t d = g.dims[i];
    if ((mask >> i) & 1u) {
      ++bits;
      count *= ((periodic >> i) & 1u) && d >= 3 ? d : d - 1;
    } else {
      count *= d;
    }
  }
  return count << (bits - 1);
}

struct GridOutcome {
  Outcome outcome;
  bool diagonals = false;
  uint32_t periodic = 0;
};

GridOutcome CheckGrid(const Prepared& p, const Grid& g) {
  GridOutcome r;
  const int k = static_cast<int>(g.dims.size());
  bool any_diag = false;
  for (const Edge& e : p.edges) {
    if (!e.core) continue;
    uint32_t wrap = 0;
    const int nz = GridDelta(g, e.u, e.v, &wrap);
    if (nz == 0 || (nz >= 2 && k == 4)) return r;
    any_diag = any_diag || nz >= 2;
    r.periodic |= wrap;
  }
  // Second pass over every edge under the periodicity the core edges showed.
  int64_t kept_faces = 0;
  int64_t kept_diags = 0;
  for (const Edge& e : p.edges) {
    uint32_t wrap = 0;
    const int nz = GridDelta(g, e.u, e.v, &wrap);
    if (nz == 0 || (wrap & ~r.periodic) != 0 || (nz >= 2 && !any_diag)) continue;
    r.outcome.explained_bytes += e.w;
    ++r.outcome.explained_edges;
    if (e.kept) ++(nz == 1 ? kept_faces : kept_diags);
  }
  int64_t expected_faces = 0;
  int64_t expected_diags = 0;
  for (uint32_t mask = 1; mask < (1u << k); ++mask) {
    const int bits = __builtin_popcount(mask);
    const int64_t pairs = ExpectedPairs(g, mask, r.periodic);
    if (bits == 1) {
      expected_faces += pairs;
    } else {
      expected_diags += pairs;
    }
  }
  if (kept_faces != expected_faces) return r;
  if (any_diag && 2 * kept_diags < expected_diags) return r;
  r.diagonals = any_diag;
  r.outcome.ok = true;
  return r;
}

struct Candidate {
  PatternReport report;
  Outcome outcome;
  FitFn fit;  // the final fit, to list the hubs whose edges were left out
};

Prepared Prepare(const TaskGraph& graph, const AnalyzerOptions& options) {
  Prepared p;
  p.n = graph.num_tasks();
  const TaskId n = p.n;
  p.hub.assign(n, 0);
  if (options.ignore_hubs && n >= 4) {
    std::vector<int64_t> degrees(n);
    for (TaskId t = 0; t < n; ++t) degrees[t] = graph.degree(t);
    std::vector<int64_t> sorted = degrees;
    std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
    const int64_t median = sorted[n / 2];
    int64_t count = 0;
    for (TaskId t = 0; t < n; ++t) {
      const int64_t d = degrees[t];
      if (2 * d > n || (d >= 16 && d >= 8 * std::max<int64_t>(median, 1))) {
        p.hub[t] = 1;
        ++count;
      }
    }
    if (count > n / 8) std::fill(p.hub.begin(), p.hub.end(), 0);
  }
  p.edges.reserve(graph.num_edges());
  Bytes core_bytes = 0;
  int64_t core_edges = 0;
  for (TaskId u = 0; u < n; ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (v <= u) return;
      const bool core = !p.hub[u] && !p.hub[v];
      p.edges.push_back({u, v, w, false, core});
      if (core) {
        core_bytes += w;
        ++core_edges;
      }
    });
  }
  const double mean = core_edges > 0 ? static_cast<double>(core_bytes) / core_edges : 0.0;
  const double threshold = options.weight_threshold * mean;
  for (Edge& e : p.edges) {
    e.kept = static_cast<double>(e.w) >= threshold;
    e.core = e.core && e.kept;
  }
  return p;
}

// Grid stride candidates: rank differences of core edges that divide n, are at most
// n/2 and occur at least n/8 times; the most frequent first, at most 16.
std::vector<int64_t> StrideCandidates(const Prepared& p) {
  std::vector<int64_t> diffs;
  for (const Edge& e : p.edges) {
    if (e.core) diffs.push_back(e.v - e.u);
  }
  std::sort(diffs.begin(), diffs.end());
  std::vector<std::pair<int64_t, int64_t>> freq;  // (-count, diff)
  for (size_t i = 0; i < diffs.size();) {
    size_t j = i;
    while (j < diffs.size() && diffs[j] == diffs[i]) ++j;
    const int64_t d = diffs[i];
    const int64_t c = static_cast<int64_t>(j - i);
    if (d > 1 && 2 * d <= p.n && p.n % d == 0 && 8 * c >= p.n) freq.push_back({-c, d});
    i = j;
  }
  std::sort(freq.begin(), freq.end());
  if (freq.size() > 16) freq.resize(16);
  std::vector<int64_t> out;
  for (const auto& [c, d] : freq) out.push_back(d);
  std::sort(out.begin(), out.end());
  return out;
}

void TryGrid(const Prepared& p, const std::vector<int64_t>& strides,
             std::vector<Candidate>* found) {
  Grid g;
  g.strides.push_back(1);
  for (int64_t s : strides) g.strides.push_back(s);
  bool all_two = true;
  for (size_t i = 0; i < g.strides.size(); ++i) {
    const int64_t next = i + 1 < g.strides.size() ? g.strides[i + 1] : p.n;
    const int64_t d = next / g.strides[i];
    if (d < 2) return;
    all_two = all_two && d == 2;
    g.dims.push_back(d);
  }
  if (all_two) return;  // a hypercube: recursive doubling says it better
  GridOutcome r = CheckGrid(p, g);
  if (!r.outcome.ok) return;
  Candidate c;
  const size_t k = g.dims.size();
  static const char* const kFaces[] = {"", "", "stencil2d-5", "stencil3d-7", "stencil4d-9"};
  static const char* const kFull[] = {"", "", "stencil2d-9", "stencil3d-27", ""};
  c.report.kind = r.diagonals ? kFull[k] : kFaces[k];
  bool wraps = false;
  bool all_wrap = true;
  for (size_t i = 0; i < k; ++i) {
    c.report.dims.push_back(static_cast<int32_t>(g.dims[i]));
    const bool per = (r.periodic >> i) & 1u;
    c.report.periodic.push_back(per);
    if (g.dims[i] >= 3) {
      wraps = wraps || per;
      all_wrap = all_wrap && per;
    }
  }
  c.report.wrap = wraps && all_wrap;
  c.report.rank_order = "row-major";
  c.outcome = std::move(r.outcome);
  const uint32_t periodic = r.periodic;
  const bool diag = r.diagonals;
  c.fit = [g, periodic, diag](TaskId u, TaskId v) {
    uint32_t wrap = 0;
    const int nz = GridDelta(g, u, v, &wrap);
    return nz == 0 || (wrap & ~periodic) != 0 || (nz >= 2 && !diag) ? 0 : 1;
  };
  found->push_back(std::move(c));
}

void TryRing(const Prepared& p, std::vector<Candidate>* found) {
  const TaskId n = p.n;
  if (n < 3) return;
  bool closed = false;
  for (const Edge& e : p.edges) {
    if (e.core && e.u == 0 && e.v == n - 1) closed = true;
  }
  FitFn fit = [n, closed](TaskId u, TaskId v) {
    return v - u == 1 || (closed && u == 0 && v == n - 1) ? 1 : 0;
  };
  Candidate c;
  c.outcome = CheckSimple(p, fit, closed ? n : n - 1);
  if (!c.outcome.ok) return;
  c.report.kind = "ring";
  c.fit = fit;
  c.report.dims = {n};
  c.report.wrap = closed;
  found->push_back(std::move(c));
}

void TryFft2d(const Prepared& p, std::vector<Candidate>* found) {
  const TaskId n = p.n;
  std::vector<char> seen(n, 0);
  for (const Edge& e : p.edges) {
    if (e.core) seen[e.v - e.u] = 1;
  }
  TaskId r = 0;
  while (r + 1 < n && seen[r + 1]) ++r;
  if (r < 2 || n % r != 0 || n / r < 2) return;
  const int64_t rows = r;
  const int64_t cols = n / r;
  FitFn fit = [rows](TaskId u, TaskId v) {
    return u / rows == v / rows || u % rows == v % rows ? 1 : 0;
  };
  const int64_t expected = cols * rows * (rows - 1) / 2 + rows * cols * (cols - 1) / 2;
  Candidate c;
  c.outcome = CheckSimple(p, fit, expected);
  if (!c.outcome.ok) return;
  c.report.kind = "fft2d";
  c.fit = fit;
  c.report.dims = {static_cast<int32_t>(rows), static_cast<int32_t>(cols)};
  c.report.rank_order = "row-major";
  found->push_back(std::move(c));
}

void TryRecursiveDoubling(const Prepared& p, std::vector<Candidate>* found) {
  const TaskId n = p.n;
  if (n < 3) return;
  FitFn fit = [](TaskId u, TaskId v) {
    const uint32_t x = static_cast<uint32_t>(u ^ v);
    return (x & (x - 1)) == 0 ? 1 : 0;
  };
  int64_t expected = 0;
  for (int64_t bit = 1; bit < n; bit <<= 1) {
    // Pairs {i, i ^ bit} with both < n: i has the bit clear and i + bit < n.
    for (int64_t base = 0; base < n; base += 2 * bit) {
      expected += std::max<int64_t>(0, std::min(bit, n - base - bit));
    }
  }
  Candidate c;
  c.outcome = CheckSimple(p, fit, expected);
  if (!c.outcome.ok) return;
  c.report.kind = "recursive-doubling";
  c.fit = fit;
  c.report.dims = {n};
  found->push_back(std::move(c));
}

void TryBinomialTree(const Prepared& p, std::vector<Candidate>* found) {
  const TaskId n = p.n;
  if (n < 3) return;
  FitFn fit = [](TaskId u, TaskId v) {
    const uint32_t d = static_cast<uint32_t>(v - u);
    return (d & (d - 1)) == 0 && u < static_cast<TaskId>(d) ? 1 : 0;
  };
  Candidate c;
  c.outcome = CheckSimple(p, fit, n - 1);
  if (!c.outcome.ok) return;
  c.report.kind = "binomial-tree";
  c.fit = fit;
  c.report.dims = {n};
  found->push_back(std::move(c));
}

}  // namespace

absl::StatusOr<PatternReport> AnalyzePattern(const TaskGraph& graph,
                                             const AnalyzerOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  const Prepared p = Prepare(graph, options);
  std::vector<Candidate> found;
  if (p.n >= 3 && !p.edges.empty()) {
    TryRing(p, &found);
    const std::vector<int64_t> cand = StrideCandidates(p);
    for (size_t a = 0; a < cand.size(); ++a) TryGrid(p, {cand[a]}, &found);
    for (size_t a = 0; a < cand.size(); ++a) {
      for (size_t b = a + 1; b < cand.size(); ++b) {
        if (cand[b] % cand[a] == 0) TryGrid(p, {cand[a], cand[b]}, &found);
      }
    }
    for (size_t a = 0; a < cand.size(); ++a) {
      for (size_t b = a + 1; b < cand.size(); ++b) {
        if (cand[b] % cand[a] != 0) continue;
        for (size_t c = b + 1; c < cand.size(); ++c) {
          if (cand[c] % cand[b] == 0) TryGrid(p, {cand[a], cand[b], cand[c]}, &found);
        }
      }
    }
    TryFft2d(p, &found);
    TryRecursiveDoubling(p, &found);
    TryBinomialTree(p, &found);
  }

  PatternReport report;
  const Candidate* best = nullptr;
  for (const Candidate& c : found) {
    if (best == nullptr || c.outcome.explained_bytes > best->outcome.explained_bytes) best = &c;
  }
  std::vector<char> hub_left_out(p.n, 0);
  if (best != nullptr) {
    report = best->report;
    const FitFn& fit = best->fit;
    for (const Edge& e : p.edges) {
      if (fit(e.u, e.v) != 0) continue;
      if (p.hub[e.u]) hub_left_out[e.u] = 1;
      if (p.hub[e.v]) hub_left_out[e.v] = 1;
    }
    report.edges_left_out = graph.num_edges() - best->outcome.explained_edges;
    report.bytes_left_out = graph.total_bytes() - best->outcome.explained_bytes;
  } else {
    hub_left_out = p.hub;
    report.edges_left_out = graph.num_edges();
    report.bytes_left_out = graph.total_bytes();
  }
  for (TaskId t = 0; t < p.n; ++t) {
    if (hub_left_out[t]) report.hubs.push_back(t);
  }
  const Bytes total = graph.total_bytes();
  report.explained_share =
      total > 0 ? static_cast<double>(total - report.bytes_left_out) / static_cast<double>(total)
                : 0.0;
  return report;
}

}  // namespace hopmap
