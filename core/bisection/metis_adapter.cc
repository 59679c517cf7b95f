#include "core/bisection/metis_adapter.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>

namespace hopmap {
namespace {

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
