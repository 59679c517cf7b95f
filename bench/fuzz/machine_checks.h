// What every machine-reader fuzzer asks of a machine it accepted.
#ifndef HOPMAP_BENCH_FUZZ_MACHINE_CHECKS_H_
#define HOPMAP_BENCH_FUZZ_MACHINE_CHECKS_H_

#include <cstdint>
#include <cstdlib>

#include "core/topology/machine.h"

namespace hopmap {

// At least one node, and hops between the first and last nodes symmetric, zero on the
// diagonal, within the diameter; aborts (a finding) otherwise.
inline void CheckAcceptedMachine(const Machine& machine) {
  const NodeId n = machine.num_nodes();
  if (n < 1) std::abort();
  const int32_t h = machine.Hops(0, n - 1);
  if (h != machine.Hops(n - 1, 0) || machine.Hops(0, 0) != 0 || h > machine.max_hops()) {
    std::abort();
  }
}

}  // namespace hopmap

#endif  // HOPMAP_BENCH_FUZZ_MACHINE_CHECKS_H_
