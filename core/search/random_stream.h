// Reproducible random streams: one per (seed, work item), never per thread.
#ifndef HOPMAP_CORE_SEARCH_RANDOM_STREAM_H_
#define HOPMAP_CORE_SEARCH_RANDOM_STREAM_H_

#include <cstdint>
#include <span>
#include <utility>

namespace hopmap {

// SplitMix64 (Steele, Lea, Flood 2014): a small generator whose output is the same
// on every platform and standard library, unlike std::shuffle and the std
// distributions.
class RandomStream {
 public:
  RandomStream(uint64_t seed, uint64_t work_item)
      : state_(Mix(seed ^ Mix(work_item + 0x9e3779b97f4a7c15ULL))) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return Mix(state_);
  }
  // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift, without the
  // rejection step: the bias is below 2^-32 for every bound hopmap uses).
  uint64_t Below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  template <typename T>
  void Shuffle(std::span<T> values) {
    for (size_t i = values.size(); i > 1; --i) {
      std::swap(values[i - 1], values[Below(i)]);
    }
  }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_SEARCH_RANDOM_STREAM_H_
