// libFuzzer target: one machine-file reader (HOPMAP_FUZZ_MACHINE_READER, set by
// CMake: ParseSlurmTopology, ParseSwitchGraphFile or ParseDistanceMatrixFile) on
// arbitrary text; an accepted machine must answer hops between any two nodes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bench/fuzz/machine_checks.h"
#include "core/io/machine_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto machine = hopmap::HOPMAP_FUZZ_MACHINE_READER(text, "fuzz.conf");
  if (!machine.ok()) {
    if (machine.status().message().find("fuzz.conf") == std::string::npos) std::abort();
    return 0;
  }
  hopmap::CheckAcceptedMachine(*machine);
  return 0;
}
