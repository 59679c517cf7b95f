#include "core/topology/node_selection.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/topology/hostlist.h"

namespace hopmap {
namespace {

constexpr size_t kMaxSelected = 10'000'000;

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Parses a run of digits; -1 when the number does not fit an int64.
int64_t ParseId(absl::string_view digits) {
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  if (digits.size() > 18) return -1;
  int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

absl::Status OutsideError(const Machine& machine, absl::string_view id_text) {
  return absl::InvalidArgumentError(absl::StrCat("node ", id_text, " is outside machine ",
                                                 machine.Spec(), " (nodes 0..",
                                                 machine.num_nodes() - 1, ")"));
}

}  // namespace

absl::StatusOr<std::vector<NodeId>> ParseNodeSelection(absl::string_view text,
                                                       const Machine& machine) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError("node selection is empty");
  }
  const NodeId n = machine.num_nodes();
  std::vector<NodeId> nodes;
  const std::vector<std::string> pieces = SplitTopLevelCommas(text);
  for (size_t p = 0; p < pieces.size(); ++p) {
    const absl::string_view item = absl::StripAsciiWhitespace(pieces[p]);
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node selection '", text, "': item ", p + 1, " is empty"));
    }
    const size_t dash = item.find('-');
    if (AllDigits(item)) {
      const int64_t id = ParseId(item);
      if (id < 0 || id >= n) return OutsideError(machine, item);
      if (nodes.size() >= kMaxSelected) {
        return absl::InvalidArgumentError(
            absl::StrCat("node selection has more than ", kMaxSelected, " nodes"));
      }
      nodes.push_back(static_cast<NodeId>(id));
      continue;
    }
    if (dash != absl::string_view::npos && AllDigits(item.substr(0, dash)) &&
        AllDigits(item.substr(dash + 1))) {
      const int64_t lo = ParseId(item.substr(0, dash));
      const int64_t hi = ParseId(item.substr(dash + 1));
      if (lo < 0 || lo >= n) return OutsideError(machine, item.substr(0, dash));
      if (hi < 0 || hi >= n) return OutsideError(machine, item.substr(dash + 1));
      if (hi < lo) {
        return absl::InvalidArgumentError(
            absl::StrCat("node selection: reversed range ", item, " (", lo, " > ", hi, ")"));
      }
      if (static_cast<uint64_t>(hi - lo + 1) > kMaxSelected - nodes.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("node selection has more than ", kMaxSelected, " nodes"));
      }
      for (int64_t id = lo; id <= hi; ++id) nodes.push_back(static_cast<NodeId>(id));
      continue;
    }
    absl::StatusOr<std::vector<std::string>> names =
        ExpandHostlist(item, kMaxSelected - nodes.size());
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      std::optional<NodeId> id = machine.node_names().Find(std::string_view(name), n);
      if (!id.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("host '", name, "' is not a node of ", machine.Spec()));
      }
      nodes.push_back(*id);
    }
  }
  return nodes;
}

}  // namespace hopmap
