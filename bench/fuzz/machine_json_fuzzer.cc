// libFuzzer target: a machine definition in JSON (the catalog's stored machines and
// its config file) through MachineFromJson and MachineFromProto, as the daemon
// loads them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "proto/convert/convert.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hopmap::v1::Machine> machine = hopmap::MachineFromJson(text, "fuzz.json");
  if (!machine.ok()) {
    if (machine.status().message().find("fuzz.json") == std::string::npos) std::abort();
    return 0;
  }
  absl::StatusOr<std::shared_ptr<hopmap::Machine>> model = hopmap::MachineFromProto(*machine);
  if (model.ok() && (*model)->num_nodes() < 1) std::abort();
  return 0;
}
