#include "core/graph/generators.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph/training_job.h"

namespace hopmap {
namespace {

constexpr char kStencil2d5[] = "stencil2d-5";
constexpr char kStencil2d9[] = "stencil2d-9";
constexpr char kStencil3d7[] = "stencil3d-7";
constexpr char kStencil3d27[] = "stencil3d-27";
constexpr char kRing[] = "ring";
constexpr char kRecursiveDoubling[] = "recursive-doubling";
constexpr char kBinomialTree[] = "binomial-tree";
constexpr char kBruck[] = "bruck";
constexpr char kFft2d[] = "fft2d";
constexpr char kRandomGeometric[] = "random-geometric";
constexpr char kTraining[] = "training";

// What a kind needs: grid dims (how many) or a task count.
struct KindShape {
  int grid_dims;         // 0: sized by `tasks`
  bool stencil;          // uses wrap
  int positive_offsets;  // stencils: half of the neighbour offsets
};

KindShape ShapeOf(const std::string& kind) {
  if (kind == kStencil2d5) return {2, true, 2};
  if (kind == kStencil2d9) return {2, true, 4};
  if (kind == kStencil3d7) return {3, true, 3};
  if (kind == kStencil3d27) return {3, true, 13};
  if (kind == kFft2d) return {2, false, 0};
  return {0, false, 0};
}

bool IsKnownKind(const std::string& kind) {
  for (const GeneratorKind& k : GeneratorKinds()) {
    if (kind == k.name) return true;
  }
  return false;
}

std::string KnownKinds() {
  std::vector<std::string> names;
  for (const GeneratorKind& k : GeneratorKinds()) names.emplace_back(k.name);
  return absl::StrJoin(names, ", ");
}

// Number of rounds k with 2^k < n.
int32_t Rounds(int64_t n) {
  int32_t k = 0;
  while ((int64_t{1} << k) < n) ++k;
  return k;
}

// The half of the stencil's neighbour offsets whose first non-zero component is
// positive; every offset o of the stencil is either in it or -o is.
std::vector<std::array<int32_t, 3>> PositiveOffsets(const std::string& kind) {
  const bool three_d = kind == kStencil3d7 || kind == kStencil3d27;
  const bool faces_only = kind == kStencil2d5 || kind == kStencil3d7;
  std::vector<std::array<int32_t, 3>> offsets;
  const int32_t z_range = three_d ? 1 : 0;
  for (int32_t dz = -z_range; dz <= z_range; ++dz) {
    for (int32_t dy = -1; dy <= 1; ++dy) {
      for (int32_t dx = -1; dx <= 1; ++dx) {
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 0 || (faces_only && nonzero != 1)) continue;
        const int32_t first = dx != 0 ? dx : (dy != 0 ? dy : dz);
        if (first > 0) offsets.push_back({dx, dy, dz});
      }
    }
  }
  return offsets;
}

// An upper bound on the AddTraffic records (so on the edges) a kind makes.
double RecordBound(const GeneratorOptions& o, int64_t n, double radius) {
  const double dn = static_cast<double>(n);
  const KindShape shape = ShapeOf(o.kind);
  if (shape.stencil) return dn * shape.positive_offsets;
  if (o.kind == kFft2d) {
    const double r = o.dims[0], c = o.dims[1];
    return c * r * (r - 1) / 2 + r * c * (c - 1) / 2;
  }
  if (o.kind == kRing || o.kind == kBinomialTree) return dn;
  if (o.kind == kRecursiveDoubling) return dn / 2 * Rounds(n);
  if (o.kind == kBruck) return dn * Rounds(n);
  // random-geometric: the expected number of pairs closer than the radius.
  const double p = std::min(1.0, std::numbers::pi * radius * radius);
  return dn * (dn - 1) / 2 * p;
}

// The largest single record weight a kind makes, or an error if it overflows.
absl::Status CheckWeights(const GeneratorOptions& o, int64_t n) {
  Bytes w = 0;
  if (o.kind == kBinomialTree || o.kind == kRandomGeometric) return absl::OkStatus();
  if (o.kind == kBruck) {
    int64_t max_blocks = 0;
    for (int32_t k = 0; k < Rounds(n); ++k) {
      max_blocks = std::max(max_blocks, std::min(int64_t{1} << k, n - (int64_t{1} << k)));
    }
    if (__builtin_mul_overflow(o.bytes, max_blocks, &w)) {
      return absl::InvalidArgumentError(absl::StrCat("bytes: ", o.bytes, " x ", max_blocks,
                                                     " blocks (bruck, ", n,
                                                     " tasks) overflows 64 bits"));
    }
    return absl::OkStatus();
  }
  if (__builtin_mul_overflow(o.bytes, Bytes{2}, &w)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bytes: ", o.bytes,
                     " is too large: an exchange weighs 2 x bytes, which overflows 64 bits"));
  }
  return absl::OkStatus();
}

// The training kind's job: the spec, with `tasks` as its GPU count when given.
absl::StatusOr<TrainingJob> TrainingJobOf(const GeneratorOptions& o) {
  absl::StatusOr<TrainingJob> job = ParseTrainingJob(o.job);
  if (!job.ok()) return absl::InvalidArgumentError(absl::StrCat("job: ", job.status().message()));
  if (o.tasks != 0 && o.tasks != job->num_gpus()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tasks: ", o.tasks, ", but the job's tp*cp*dp*pp = ", job->tp, "*", job->cp,
                     "*", job->dp, "*", job->pp, " = ", job->num_gpus()));
  }
  return job;
}

absl::Status Annotate(const GeneratorOptions& o, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(o.kind, ": ", status.message()));
}

absl::StatusOr<TaskGraph> Stencil(const GeneratorOptions& o) {
  const int32_t nx = o.dims[0], ny = o.dims[1], nz = o.dims.size() > 2 ? o.dims[2] : 1;
  const int64_t n = static_cast<int64_t>(nx) * ny * nz;
  const std::vector<std::array<int32_t, 3>> offsets = PositiveOffsets(o.kind);
  const Bytes w = 2 * o.bytes;  // one message each way
  TaskGraphBuilder builder(static_cast<TaskId>(n));
  builder.Reserve(static_cast<size_t>(n) * offsets.size());
  const std::array<int32_t, 3> size = {nx, ny, nz};
  // Wraps or drops one coordinate; -1 when it leaves a non-periodic grid.
  auto step = [&](int32_t c, int32_t d, int dim) -> int32_t {
    int32_t v = c + d;
    if (v >= 0 && v < size[dim]) return v;
    if (!o.wrap) return -1;
    return ((v % size[dim]) + size[dim]) % size[dim];
  };
  TaskId u = 0;
  for (int32_t z = 0; z < nz; ++z) {
    for (int32_t y = 0; y < ny; ++y) {
      for (int32_t x = 0; x < nx; ++x, ++u) {
        for (const auto& off : offsets) {
          const int32_t vx = step(x, off[0], 0), vy = step(y, off[1], 1), vz = step(z, off[2], 2);
          if (vx < 0 || vy < 0 || vz < 0) continue;
          const TaskId v = static_cast<TaskId>(vx + static_cast<int64_t>(nx) *
                                                        (vy + static_cast<int64_t>(ny) * vz));
          if (absl::Status s = builder.AddTraffic(u, v, w); !s.ok()) return s;
        }
      }
    }
  }
  return std::move(builder).Build();
}

absl::StatusOr<TaskGraph> Collective(const GeneratorOptions& o) {
  const int64_t n = o.tasks;
  TaskGraphBuilder builder(static_cast<TaskId>(n));
  builder.Reserve(static_cast<size_t>(RecordBound(o, n, 0)));
  auto add = [&](int64_t u, int64_t v, Bytes w) {
    return builder.AddTraffic(static_cast<TaskId>(u), static_cast<TaskId>(v), w);
  };
  absl::Status s;
  if (o.kind == kRing) {
    for (int64_t i = 0; i < n && s.ok(); ++i) s = add(i, (i + 1) % n, 2 * o.bytes);
  } else if (o.kind == kRecursiveDoubling) {
    for (int32_t k = 0; k < Rounds(n); ++k) {
      for (int64_t i = 0; i < n && s.ok(); ++i) {
        const int64_t partner = i ^ (int64_t{1} << k);
        if (partner < n && i < partner) s = add(i, partner, 2 * o.bytes);
      }
    }
  } else if (o.kind == kBinomialTree) {
    for (int32_t k = 0; k < Rounds(n); ++k) {
      const int64_t half = int64_t{1} << k;
      for (int64_t i = 0; i < half && i + half < n && s.ok(); ++i) s = add(i, i + half, o.bytes);
    }
  } else if (o.kind == kBruck) {
    for (int32_t k = 0; k < Rounds(n); ++k) {
      const int64_t dist = int64_t{1} << k;
      const Bytes w = o.bytes * std::min(dist, n - dist);  // checked in Validate()
      for (int64_t i = 0; i < n && s.ok(); ++i) s = add(i, ((i - dist) % n + n) % n, w);
    }
  }
  if (!s.ok()) return s;
  return std::move(builder).Build();
}

absl::StatusOr<TaskGraph> Fft2d(const GeneratorOptions& o) {
  const int64_t rows = o.dims[0], cols = o.dims[1];
  TaskGraphBuilder builder(static_cast<TaskId>(rows * cols));
  builder.Reserve(static_cast<size_t>(RecordBound(o, rows * cols, 0)));
  const Bytes w = 2 * o.bytes;
  for (int64_t c = 0; c < cols; ++c) {  // tasks sharing c
    for (int64_t r1 = 0; r1 < rows; ++r1) {
      for (int64_t r2 = r1 + 1; r2 < rows; ++r2) {
        absl::Status s = builder.AddTraffic(static_cast<TaskId>(r1 + rows * c),
                                            static_cast<TaskId>(r2 + rows * c), w);
        if (!s.ok()) return s;
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r) {  // tasks sharing r
    for (int64_t c1 = 0; c1 < cols; ++c1) {
      for (int64_t c2 = c1 + 1; c2 < cols; ++c2) {
        absl::Status s = builder.AddTraffic(static_cast<TaskId>(r + rows * c1),
                                            static_cast<TaskId>(r + rows * c2), w);
        if (!s.ok()) return s;
      }
    }
  }
  return std::move(builder).Build();
}

absl::StatusOr<TaskGraph> RandomGeometric(const GeneratorOptions& o) {
  const int32_t n = o.tasks;
  const double radius = o.radius > 0 ? o.radius : DefaultGeometricRadius(n);
  TaskGraphBuilder builder(n);
  if (n < 2 || radius <= 0) return std::move(builder).Build();
  const std::vector<std::pair<double, double>> points = RandomUnitSquarePoints(n, o.seed);
  // Cells of side 1/g >= radius: a pair closer than the radius lies in one cell
  // or two adjacent ones. At most ~n cells, so the grid stays O(n).
  const double by_radius = std::floor(1.0 / radius);
  const double by_count = std::ceil(std::sqrt(static_cast<double>(n)));
  const int64_t g = static_cast<int64_t>(std::max(1.0, std::min(by_radius, by_count)));
  auto cell_of = [g](double v) { return std::min<int64_t>(g - 1, static_cast<int64_t>(v * g)); };
  std::vector<int64_t> start(g * g + 1, 0);
  std::vector<int64_t> cell(n);
  for (int32_t i = 0; i < n; ++i) {
    cell[i] = cell_of(points[i].first) + g * cell_of(points[i].second);
    ++start[cell[i] + 1];
  }
  for (int64_t c = 0; c < g * g; ++c) start[c + 1] += start[c];
  std::vector<int32_t> order(n);
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int32_t i = 0; i < n; ++i) order[fill[cell[i]]++] = i;
  }
  builder.Reserve(static_cast<size_t>(RecordBound(o, n, radius) * 1.1) + 16);
  const double r2 = radius * radius;
  // Each unordered pair of cells once: the cell itself and 4 of its 8 neighbours.
  static constexpr int kNeighbours[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
  auto close = [&](int32_t a, int32_t b) {
    const double dx = points[a].first - points[b].first;
    const double dy = points[a].second - points[b].second;
    return dx * dx + dy * dy < r2;
  };
  for (int64_t cy = 0; cy < g; ++cy) {
    for (int64_t cx = 0; cx < g; ++cx) {
      const int64_t c = cx + g * cy;
      for (int64_t i = start[c]; i < start[c + 1]; ++i) {
        for (int64_t j = i + 1; j < start[c + 1]; ++j) {
          if (close(order[i], order[j])) {
            if (absl::Status s = builder.AddTraffic(order[i], order[j], o.bytes); !s.ok()) {
              return s;
            }
          }
        }
      }
      for (const auto& d : kNeighbours) {
        const int64_t nx = cx + d[0], ny = cy + d[1];
        if (nx < 0 || nx >= g || ny >= g) continue;
        const int64_t nc = nx + g * ny;
        for (int64_t i = start[c]; i < start[c + 1]; ++i) {
          for (int64_t j = start[nc]; j < start[nc + 1]; ++j) {
            if (close(order[i], order[j])) {
              if (absl::Status s = builder.AddTraffic(order[i], order[j], o.bytes); !s.ok()) {
                return s;
              }
            }
          }
        }
      }
    }
  }
  return std::move(builder).Build();
}

}  // namespace

const std::vector<GeneratorKind>& GeneratorKinds() {
  static const std::vector<GeneratorKind>* const kinds = new std::vector<GeneratorKind>{
      {kStencil2d5, "2D 5-point stencil halo exchange; dims X,Y; wrap for periodic"},
      {kStencil2d9, "2D 9-point stencil (with diagonals); dims X,Y; wrap for periodic"},
      {kStencil3d7, "3D 7-point stencil halo exchange; dims X,Y,Z; wrap for periodic"},
      {kStencil3d27, "3D 27-point stencil (faces, edges, corners); dims X,Y,Z; wrap"},
      {kRing, "ring: task i exchanges with i+1 mod n; tasks"},
      {kRecursiveDoubling, "recursive-doubling allreduce: round k pairs i and i XOR 2^k; tasks"},
      {kBinomialTree, "binomial-tree broadcast from task 0; tasks"},
      {kBruck, "Bruck allgather: round k, i sends min(2^k, n-2^k) blocks to i-2^k; tasks"},
      {kFft2d, "2D FFT transposes: all-to-all within each row and column; dims R,C"},
      {kRandomGeometric,
       "random geometric graph in the unit square; tasks, radius (0: mean degree ~8), seed"},
      {kTraining,
       "one step of a Megatron-LM training job (TP, PP, DP, CP, EP groups); job, bytes per step"},
  };
  return *kinds;
}

absl::Status GeneratorOptions::Validate() const {
  if (!IsKnownKind(kind)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kind: unknown generator '", kind, "'; known: ", KnownKinds()));
  }
  if (bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes: must be positive, got ", bytes));
  }
  if (!std::isfinite(radius) || radius < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("radius: must be a finite number >= 0, got ", radius));
  }
  if (radius != 0 && kind != kRandomGeometric) {
    return absl::InvalidArgumentError(
        absl::StrCat("radius: only random-geometric uses a radius; ", kind, " got ", radius));
  }
  if (!job.empty() && kind != kTraining) {
    return absl::InvalidArgumentError(
        absl::StrCat("job: only training takes a job; ", kind, " got '", job, "'"));
  }
  const KindShape shape = ShapeOf(kind);
  if (wrap && !shape.stencil) {
    return absl::InvalidArgumentError(
        absl::StrCat("wrap: only the stencils have boundaries to wrap; ", kind, " does not"));
  }
  if (kind == kTraining) {
    if (!dims.empty()) {
      return absl::InvalidArgumentError("dims: training takes its size from the job, not dims");
    }
    return TrainingJobOf(*this).status();
  }
  int64_t n = 0;
  if (shape.grid_dims > 0) {
    if (static_cast<int>(dims.size()) != shape.grid_dims) {
      return absl::InvalidArgumentError(
          absl::StrCat("dims: ", kind, " needs ", shape.grid_dims, " dims, got ", dims.size()));
    }
    n = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("dims[", i, "]: must be >= 1, got ", dims[i]));
      }
      n *= dims[i];  // at most 3 dims of < 2^31: no overflow before the check
      if (n > kMaxTasks) {
        return absl::InvalidArgumentError(absl::StrCat("dims: ", absl::StrJoin(dims, " x "),
                                                       " is more tasks than hopmap supports (",
                                                       kMaxTasks, ")"));
      }
    }
    if (tasks != 0 && tasks != n) {
      return absl::InvalidArgumentError(absl::StrCat("tasks: ", kind, " takes its size from dims (",
                                                     absl::StrJoin(dims, " x "), " = ", n,
                                                     " tasks), but tasks is ", tasks));
    }
  } else {
    if (!dims.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("dims: ", kind,
                                                     " takes its size from tasks, not dims (got ",
                                                     absl::StrJoin(dims, "x"), ")"));
    }
    if (tasks < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("tasks: ", kind, " needs tasks >= 1, got ", tasks));
    }
    if (tasks > kMaxTasks) {
      return absl::InvalidArgumentError(
          absl::StrCat("tasks: ", tasks, " is more than hopmap supports (", kMaxTasks, ")"));
    }
    n = tasks;
  }
  const double effective_radius =
      radius > 0 ? radius : DefaultGeometricRadius(static_cast<int32_t>(n));
  const double edges = RecordBound(*this, n, effective_radius);
  if (edges > static_cast<double>(kMaxGeneratedEdges)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, ": ", n, " tasks would make about ", static_cast<int64_t>(edges),
                     " edges, more than the generator limit of ", kMaxGeneratedEdges));
  }
  return CheckWeights(*this, n);
}

absl::StatusOr<TaskGraph> GenerateGraph(const GeneratorOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  absl::StatusOr<TaskGraph> graph;
  if (ShapeOf(options.kind).stencil) {
    graph = Stencil(options);
  } else if (options.kind == kFft2d) {
    graph = Fft2d(options);
  } else if (options.kind == kRandomGeometric) {
    graph = RandomGeometric(options);
  } else if (options.kind == kTraining) {
    absl::StatusOr<TrainingJob> job = TrainingJobOf(options);
    graph = job.ok() ? TrainingGraph(*job) : job.status();
  } else {
    graph = Collective(options);
  }
  if (!graph.ok()) return Annotate(options, graph.status());
  return graph;
}

std::vector<std::pair<double, double>> RandomUnitSquarePoints(int32_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  constexpr double kScale = 0x1.0p-53;
  std::vector<std::pair<double, double>> points(std::max<int32_t>(n, 0));
  for (auto& p : points) {
    p.first = static_cast<double>(gen() >> 11) * kScale;
    p.second = static_cast<double>(gen() >> 11) * kScale;
  }
  return points;
}

double DefaultGeometricRadius(int32_t n) {
  if (n < 2) return 0;
  return std::sqrt(8.0 / (std::numbers::pi * static_cast<double>(n - 1)));
}

}  // namespace hopmap
