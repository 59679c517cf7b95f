#include "core/io/mapping_files.h"

#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"

namespace hopmap {

absl::StatusOr<std::vector<SlotId>> ParseMapping(const std::string& text,
                                                 const std::string& source_name,
                                                 const Allocation* allocation) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": not valid JSON (a mapping file is JSON or perm)"));
    }
    if (!j.contains("slot_of_task") || !j["slot_of_task"].is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": JSON has no \"slot_of_task\" array"));
    }
    if (allocation != nullptr && j.contains("nodes") && j["nodes"].is_number_integer() &&
        j.contains("cores_per_node") && j["cores_per_node"].is_number_integer()) {
      const int64_t nodes = j["nodes"].get<int64_t>();
      const int64_t cores = j["cores_per_node"].get<int64_t>();
      if (nodes != allocation->num_nodes() || cores != allocation->cores_per_node()) {
        const std::string machine = j.contains("machine") && j["machine"].is_string()
                                        ? absl::StrCat(" (", j["machine"].get<std::string>(), ")")
                                        : std::string();
        return absl::InvalidArgumentError(
            absl::StrCat(source_name, ": the mapping was made for ", nodes, " nodes x ", cores,
                         " cores", machine, ", not for this allocation's ", allocation->num_nodes(),
                         " nodes x ", allocation->cores_per_node(), " cores"));
      }
    }
    std::vector<SlotId> slots;
    for (size_t i = 0; i < j["slot_of_task"].size(); ++i) {
      const auto& v = j["slot_of_task"][i];
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxTasks) {
        return absl::InvalidArgumentError(
            absl::StrCat(source_name, ": slot_of_task[", i, "] is not a slot number: ", v.dump()));
      }
      slots.push_back(v.get<SlotId>());
    }
    if (slots.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": the mapping is empty (\"slot_of_task\": [])"));
    }
    return slots;
  }
  std::vector<SlotId> slots;
  std::istringstream in(text);
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    absl::string_view s = line;
    if (size_t hash = s.find('#'); hash != absl::string_view::npos) s = s.substr(0, hash);
    s = absl::StripAsciiWhitespace(s);
    if (s.empty()) continue;
    int64_t slot = 0;
    if (!absl::SimpleAtoi(s, &slot) || slot < 0 || slot > kMaxTasks) {
      return absl::InvalidArgumentError(absl::StrCat(source_name, ":", line_number,
                                                     ": expected the slot of task ", slots.size(),
                                                     " (a non-negative integer), got '", s, "'"));
    }
    slots.push_back(static_cast<SlotId>(slot));
  }
  if (slots.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": the mapping is empty"));
  }
  return slots;
}

absl::StatusOr<std::vector<SlotId>> ReadMappingFile(const std::string& path,
                                                    const Allocation* allocation) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open mapping file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseMapping(buffer.str(), path, allocation);
}

}  // namespace hopmap
