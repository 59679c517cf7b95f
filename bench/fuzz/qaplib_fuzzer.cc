// libFuzzer target: the QAPLIB instance and solution readers on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/io/qaplib.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hopmap::QapInstance> instance = hopmap::ParseQaplib(text, "fuzz.dat");
  if (!instance.ok() && instance.status().message().find("fuzz.dat") == std::string::npos) {
    std::abort();  // every error names its source
  }
  absl::StatusOr<hopmap::QapSolution> solution = hopmap::ParseQaplibSolution(text, "fuzz.sln");
  if (!solution.ok() && solution.status().message().find("fuzz.sln") == std::string::npos) {
    std::abort();
  }
  return 0;
}
