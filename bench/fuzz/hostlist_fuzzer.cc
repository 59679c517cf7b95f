// libFuzzer target: Slurm hostlist expressions ("nid[0-3,7]", "r[1-2]n[01-02]") as
// --nodes and topology.conf use them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/topology/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // A cap the fuzzer can reach: the reader must refuse more names, not allocate them.
  constexpr size_t kMaxNames = 100'000;
  absl::StatusOr<std::vector<std::string>> names = hopmap::ExpandHostlist(text, kMaxNames);
  if (names.ok() && names->size() > kMaxNames) std::abort();
  for (const std::string& piece : hopmap::SplitTopLevelCommas(text)) {
    (void)hopmap::ExpandHostlist(piece, kMaxNames);
  }
  return 0;
}
