#include "core/bisection/metis_adapter.h"

#include <dlfcn.h>
#include <metis.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

// hopmap hands METIS its int32_t and float arrays as they are.
static_assert(std::is_same_v<idx_t, int32_t>, "hopmap passes METIS 32-bit indices");
static_assert(std::is_same_v<real_t, float>, "hopmap passes METIS float fractions");

// The private generator of the thread inside a ScopedMetisRandom (SplitMix64); null elsewhere.
thread_local uint64_t* metis_state = nullptr;
thread_local uint64_t metis_state_storage = 0;

int NextMetisRand(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<int>(z >> 33);  // 0 .. 2^31 - 1 = RAND_MAX
}

template <typename F>
F NextSymbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

int64_t MetisWeightCap(int64_t entries) {
  return std::max<int64_t>(
      1, std::min<int64_t>(int64_t{1} << 20, (int64_t{1} << 30) / std::max<int64_t>(1, entries)));
}

std::vector<int32_t> ScaledMetisEdgeWeights(const TaskGraph& graph) {
  const std::vector<Bytes>& w = graph.adjwgt();
  Bytes max_w = 1;
  for (Bytes b : w) max_w = std::max(max_w, b);
  const int64_t cap = MetisWeightCap(static_cast<int64_t>(w.size()));
  std::vector<int32_t> scaled(w.size());
  for (size_t e = 0; e < w.size(); ++e) {
    scaled[e] = max_w <= cap
                    ? static_cast<int32_t>(w[e])
                    : static_cast<int32_t>(std::max<int64_t>(
                          1, static_cast<int64_t>(static_cast<__int128>(w[e]) * cap / max_w)));
  }
  return scaled;
}

absl::StatusOr<MetisCsr> MetisCsrOf(const TaskGraph& graph) {
  if (graph.adjncy().size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return absl::ResourceExhaustedError(absl::StrCat("the graph has ", graph.adjncy().size(),
                                                     " adjacency entries, more than METIS's "
                                                     "32-bit indices hold"));
  }
  MetisCsr csr;
  csr.xadj.assign(graph.xadj().begin(), graph.xadj().end());
  csr.adjncy.assign(graph.adjncy().begin(), graph.adjncy().end());
  csr.adjwgt = ScaledMetisEdgeWeights(graph);
  return csr;
}

absl::Status MetisPartition(const MetisGraph& graph, const MetisPartitionOptions& options,
                            std::span<int32_t> part) {
  if (graph.xadj.empty()) return absl::InvalidArgumentError("METIS: xadj is empty");
  const size_t n = graph.xadj.size() - 1;
  if (static_cast<size_t>(graph.xadj.back()) != graph.adjncy.size() ||
      (!graph.adjwgt.empty() && graph.adjwgt.size() != graph.adjncy.size()) ||
      (!graph.vwgt.empty() && graph.vwgt.size() != n) || part.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "METIS: arrays of different lengths (", n, " vertices, xadj ends at ", graph.xadj.back(),
        ", adjncy ", graph.adjncy.size(), ", adjwgt ", graph.adjwgt.size(), ", vwgt ",
        graph.vwgt.size(), ", part ", part.size(), ")"));
  }
  if (options.parts < 1 || (!options.part_fractions.empty() &&
                            options.part_fractions.size() != static_cast<size_t>(options.parts))) {
    return absl::InvalidArgumentError(absl::StrCat("METIS: ", options.parts, " parts with ",
                                                   options.part_fractions.size(), " fractions"));
  }
  idx_t metis_options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(metis_options);
  metis_options[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed & 0x7fffffff);
  metis_options[METIS_OPTION_NUMBERING] = 0;
  if (options.cuts > 0) metis_options[METIS_OPTION_NCUTS] = options.cuts;
  idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = options.parts, objval = 0;
  real_t ubvec = options.imbalance.has_value() ? static_cast<real_t>(1.0 + *options.imbalance) : 0;
  // METIS's arrays are not const in its interface; with 0-based numbering it does not
  // write them.
  auto in = [](std::span<const int32_t> a) {
    return a.empty() ? nullptr : const_cast<idx_t*>(a.data());
  };
  real_t* tpwgts =
      options.part_fractions.empty() ? nullptr : const_cast<real_t*>(options.part_fractions.data());
  real_t* ubvec_ptr = options.imbalance.has_value() ? &ubvec : nullptr;
  int status;
  {
    const ScopedMetisRandom private_rand;
    status =
        (options.method == MetisMethod::kKway ? METIS_PartGraphKway : METIS_PartGraphRecursive)(
            &nvtxs, &ncon, in(graph.xadj), in(graph.adjncy), in(graph.vwgt), nullptr,
            in(graph.adjwgt), &nparts, tpwgts, ubvec_ptr, metis_options, &objval, part.data());
  }
  switch (status) {
    case METIS_OK:
      return absl::OkStatus();
    case METIS_ERROR_INPUT:
      return absl::InvalidArgumentError("METIS refused its input (METIS_ERROR_INPUT)");
    case METIS_ERROR_MEMORY:
      return absl::ResourceExhaustedError("METIS ran out of memory (METIS_ERROR_MEMORY)");
    default:
      return absl::InternalError(absl::StrCat("METIS failed (status ", status, ")"));
  }
}

ScopedMetisRandom::ScopedMetisRandom() {
  metis_state_storage = 0;
  metis_state = &metis_state_storage;
}

ScopedMetisRandom::~ScopedMetisRandom() { metis_state = nullptr; }

}  // namespace hopmap

// Interposed C library functions: the private generator inside a ScopedMetisRandom, the C
// library's everywhere else.
extern "C" int rand(void) {
  if (hopmap::metis_state != nullptr) return hopmap::NextMetisRand(*hopmap::metis_state);
  static const auto libc_rand = hopmap::NextSymbol<int (*)(void)>("rand");
  return libc_rand();
}

extern "C" void srand(unsigned int seed) {
  if (hopmap::metis_state != nullptr) {
    *hopmap::metis_state = seed;
    return;
  }
  static const auto libc_srand = hopmap::NextSymbol<void (*)(unsigned int)>("srand");
  libc_srand(seed);
}
