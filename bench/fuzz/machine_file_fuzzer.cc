// libFuzzer target: one machine-file reader (HOPMAP_FUZZ_MACHINE_READER, set by
// CMake: ParseSlurmTopology, ParseSwitchGraphFile or ParseDistanceMatrixFile) on
// arbitrary text; an accepted machine must answer hops between any two nodes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/io/machine_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto machine = hopmap::HOPMAP_FUZZ_MACHINE_READER(text, "fuzz.conf");
  if (!machine.ok()) {
    if (machine.status().message().find("fuzz.conf") == std::string::npos) std::abort();
    return 0;
  }
  const hopmap::NodeId n = machine->num_nodes();
  if (n < 1) std::abort();
  // The first and last nodes: symmetric, zero on the diagonal, within the diameter.
  const int32_t h = machine->Hops(0, n - 1);
  if (h != machine->Hops(n - 1, 0) || machine->Hops(0, 0) != 0 || h > machine->max_hops()) {
    std::abort();
  }
  return 0;
}
