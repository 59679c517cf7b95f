#include "core/io/machine_files.h"

#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/io/line_reader.h"
#include "core/topology/hostlist.h"

namespace hopmap {
namespace {

// One line of a file with its (first) line number, comment removed and trimmed.
struct Line {
  int number;
  std::string text;
};

// Reads the non-blank lines of `path` with '#' comments removed. With
// `continuations`, a line ending in a backslash goes on with the next one (the
// joined line keeps the first line's number).
absl::StatusOr<std::vector<Line>> SplitLines(const std::string& text, bool continuations) {
  std::istringstream in(text);
  std::vector<Line> lines;
  std::string raw;
  std::string pending;
  int pending_line = 0;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    if (const size_t hash = raw.find('#'); hash != std::string::npos) raw.resize(hash);
    absl::string_view text_line = absl::StripAsciiWhitespace(raw);
    bool more = false;
    if (continuations && absl::EndsWith(text_line, "\\")) {
      text_line.remove_suffix(1);
      more = true;
    }
    if (pending_line == 0) pending_line = number;
    if (!pending.empty() && !text_line.empty()) pending.push_back(' ');
    pending.append(text_line.data(), text_line.size());
    if (more) continue;
    if (!pending.empty()) lines.push_back({pending_line, std::move(pending)});
    pending.clear();
    pending_line = 0;
  }
  if (!pending.empty()) lines.push_back({pending_line, std::move(pending)});
  return lines;
}

absl::StatusOr<std::vector<Line>> ReadLines(const std::string& path, bool continuations) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return SplitLines(buffer.str(), continuations);
}

std::vector<absl::string_view> Words(absl::string_view text) {
  return absl::StrSplit(text, absl::ByAnyChar(" \t\r\f\v"), absl::SkipEmpty());
}

// Prefixes a Create() error with the file.
absl::Status InFile(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::StatusOr<SwitchGraphMachine> SlurmTopologyFromLines(const std::vector<Line>& file_lines,
                                                          const std::string& path,
                                                          std::string spec_string);
absl::StatusOr<SwitchGraphMachine> SwitchGraphFromLines(const std::vector<Line>& file_lines,
                                                        const std::string& path,
                                                        std::string spec_string);
absl::StatusOr<DistanceMatrixMachine> DistanceMatrixFromLines(const std::vector<Line>& file_lines,
                                                              const std::string& path);

}  // namespace

absl::StatusOr<SwitchGraphMachine> ReadSlurmTopology(const std::string& path) {
  absl::StatusOr<std::vector<Line>> lines = ReadLines(path, /*continuations=*/true);
  if (!lines.ok()) return lines.status();
  return SlurmTopologyFromLines(*lines, path, absl::StrCat("slurm:", path));
}

absl::StatusOr<SwitchGraphMachine> ParseSlurmTopology(const std::string& text,
                                                      const std::string& source) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text, /*continuations=*/true);
  if (!lines.ok()) return lines.status();
  return SlurmTopologyFromLines(*lines, source, "");
}

namespace {

// The most names (nodes and switches, counted as their hostlists expand) one
// topology or switch-graph file may give: above any Slurm cluster built so far, and
// a few bytes such as "n[0-9999999]" cannot build a machine of millions of nodes
// (docs/tuning.md).
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr size_t kMaxNamesPerFile = size_t{1} << 14;  // fuzz builds: see CMakeLists.txt
#else
constexpr size_t kMaxNamesPerFile = size_t{1} << 18;
#endif

// Expands `expr` within what is left of the file's budget of names.
absl::StatusOr<std::vector<std::string>> ExpandWithinBudget(absl::string_view expr,
                                                            size_t& names_left) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(expr, names_left);
  if (!names.ok()) {
    if (names.status().message().find("more than") == absl::string_view::npos) return names;
    return absl::InvalidArgumentError(absl::StrCat(names.status().message(),
                                                   " (a file may name at most ", kMaxNamesPerFile,
                                                   " nodes and switches in all)"));
  }
  names_left -= names->size();
  return names;
}

absl::StatusOr<SwitchGraphMachine> SlurmTopologyFromLines(const std::vector<Line>& file_lines,
                                                          const std::string& path,
                                                          std::string spec_string) {
  const std::vector<Line>* lines = &file_lines;
  SwitchGraphSpec spec;
  spec.source = std::move(spec_string);  // the spec that reads it back
  size_t names_left = kMaxNamesPerFile;
  absl::flat_hash_map<std::string, int> switch_line;  // name -> defining line
  absl::flat_hash_map<std::string, NodeId> node_id;
  struct ChildRef {
    std::string parent, child;
    int line;
  };
  std::vector<ChildRef> children;
  // Links in file order; switch-switch links are checked once every switch is known.
  for (const Line& line : *lines) {
    std::optional<std::string> name, switches, nodes;
    for (absl::string_view word : Words(line.text)) {
      const size_t eq = word.find('=');
      if (eq == absl::string_view::npos) {
        return LineError(path, line.number, absl::StrCat("'", word, "' is not KEY=VALUE"));
      }
      const std::string key = absl::AsciiStrToLower(word.substr(0, eq));
      const absl::string_view value = word.substr(eq + 1);
      std::optional<std::string>* slot = nullptr;
      if (key == "switchname") {
        slot = &name;
      } else if (key == "switches") {
        slot = &switches;
      } else if (key == "nodes") {
        slot = &nodes;
      } else if (key == "linkspeed") {
        int64_t speed = 0;
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), speed);
        if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || speed < 0) {
          return LineError(path, line.number,
                           absl::StrCat("LinkSpeed '", value, "' is not a non-negative integer"));
        }
        continue;  // Slurm does not use it either
      } else {
        return LineError(path, line.number,
                         absl::StrCat("unknown key '", word.substr(0, eq),
                                      "' (expected SwitchName, Switches, Nodes or LinkSpeed)"));
      }
      if (slot->has_value()) {
        return LineError(path, line.number,
                         absl::StrCat("key '", word.substr(0, eq), "' given twice"));
      }
      if (value.empty()) {
        return LineError(path, line.number, absl::StrCat("'", word, "' has no value"));
      }
      *slot = std::string(value);
    }
    if (!name.has_value()) return LineError(path, line.number, "the line has no SwitchName=");
    if (name->find_first_of("[],") != std::string::npos) {
      return LineError(path, line.number,
                       absl::StrCat("SwitchName '", *name, "' must be a single name"));
    }
    auto [it, inserted] = switch_line.emplace(*name, line.number);
    if (!inserted) {
      return LineError(
          path, line.number,
          absl::StrCat("switch '", *name, "' is already defined on line ", it->second));
    }
    spec.switch_names.push_back(*name);
    if (switches.has_value()) {
      absl::StatusOr<std::vector<std::string>> names = ExpandWithinBudget(*switches, names_left);
      if (!names.ok()) {
        return LineError(path, line.number, absl::StrCat("Switches=: ", names.status().message()));
      }
      for (std::string& child : *names) children.push_back({*name, std::move(child), line.number});
    }
    if (nodes.has_value()) {
      absl::StatusOr<std::vector<std::string>> names = ExpandWithinBudget(*nodes, names_left);
      if (!names.ok()) {
        return LineError(path, line.number, absl::StrCat("Nodes=: ", names.status().message()));
      }
      for (std::string& node : *names) {
        if (node_id.emplace(node, static_cast<NodeId>(spec.node_names.size())).second) {
          spec.node_names.push_back(node);
        }
        spec.links.emplace_back(*name, std::move(node));
      }
    }
  }
  if (spec.switch_names.empty()) return SourceError(path, "no SwitchName lines");
  for (ChildRef& ref : children) {
    if (!switch_line.contains(ref.child)) {
      return LineError(path, ref.line,
                       absl::StrCat("switch '", ref.child, "' in Switches= of '", ref.parent,
                                    "' is never defined by a SwitchName line"));
    }
    spec.links.emplace_back(std::move(ref.parent), std::move(ref.child));
  }
  if (spec.node_names.empty()) return SourceError(path, "no Nodes= under any switch");
  absl::StatusOr<SwitchGraphMachine> machine = SwitchGraphMachine::Create(std::move(spec));
  if (!machine.ok()) return InFile(path, machine.status());
  return machine;
}

}  // namespace

absl::StatusOr<SwitchGraphMachine> ReadSwitchGraphFile(const std::string& path) {
  absl::StatusOr<std::vector<Line>> lines = ReadLines(path, /*continuations=*/false);
  if (!lines.ok()) return lines.status();
  return SwitchGraphFromLines(*lines, path, absl::StrCat("graph:", path));
}

absl::StatusOr<SwitchGraphMachine> ParseSwitchGraphFile(const std::string& text,
                                                        const std::string& source) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text, /*continuations=*/false);
  if (!lines.ok()) return lines.status();
  return SwitchGraphFromLines(*lines, source, "");
}

namespace {

absl::StatusOr<SwitchGraphMachine> SwitchGraphFromLines(const std::vector<Line>& file_lines,
                                                        const std::string& path,
                                                        std::string spec_string) {
  const std::vector<Line>* lines = &file_lines;

  SwitchGraphSpec spec;
  spec.source = std::move(spec_string);
  size_t names_left = kMaxNamesPerFile;
  struct Declared {
    bool is_node;
    int line;
    int32_t index;  // node id or switch number
  };
  absl::flat_hash_map<std::string, Declared> declared;
  struct LinkRef {
    std::string a, b;
    int line;
  };
  std::vector<LinkRef> links;
  for (const Line& line : *lines) {
    std::vector<absl::string_view> words = Words(line.text);
    const std::string keyword = absl::AsciiStrToLower(words[0]);
    if (keyword == "link") {
      if (words.size() != 3) {
        return LineError(path, line.number,
                         absl::StrCat("'link' needs two names (link A B), got ", words.size() - 1));
      }
      links.push_back({std::string(words[1]), std::string(words[2]), line.number});
      continue;
    }
    if (keyword != "node" && keyword != "switch") {
      return LineError(
          path, line.number,
          absl::StrCat("unknown keyword '", words[0], "' (expected node, switch or link)"));
    }
    const bool is_node = keyword == "node";
    if (words.size() < 2) {
      return LineError(path, line.number, absl::StrCat("'", words[0], "' names nothing"));
    }
    for (size_t w = 1; w < words.size(); ++w) {
      absl::StatusOr<std::vector<std::string>> names = ExpandWithinBudget(words[w], names_left);
      if (!names.ok()) return LineError(path, line.number, names.status().message());
      for (std::string& name : *names) {
        std::vector<std::string>& list = is_node ? spec.node_names : spec.switch_names;
        auto [it, inserted] = declared.emplace(
            name, Declared{is_node, line.number, static_cast<int32_t>(list.size())});
        if (!inserted) {
          return LineError(
              path, line.number,
              absl::StrCat("'", name, "' is already declared (as a ",
                           it->second.is_node ? "node" : "switch", ") on line ", it->second.line));
        }
        list.push_back(std::move(name));
      }
    }
  }
  if (spec.node_names.empty())
    return SourceError(path, "no 'node' lines: the machine has no nodes");
  std::vector<bool> attached(spec.node_names.size(), false);
  for (LinkRef& link : links) {
    auto ia = declared.find(link.a);
    auto ib = declared.find(link.b);
    if (ia == declared.end() || ib == declared.end()) {
      return LineError(path, link.line,
                       absl::StrCat("'", ia == declared.end() ? link.a : link.b,
                                    "' is not declared by a node or switch line"));
    }
    if (link.a == link.b) {
      return LineError(path, link.line, absl::StrCat("link joins '", link.a, "' to itself"));
    }
    if (ia->second.is_node && ib->second.is_node) {
      return LineError(path, link.line,
                       absl::StrCat("link '", link.a, "' '", link.b,
                                    "' joins two compute nodes; connect nodes through a switch"));
    }
    if (ia->second.is_node) attached[ia->second.index] = true;
    if (ib->second.is_node) attached[ib->second.index] = true;
    spec.links.emplace_back(std::move(link.a), std::move(link.b));
  }
  for (size_t v = 0; v < attached.size(); ++v) {
    if (!attached[v]) {
      const std::string& name = spec.node_names[v];
      return LineError(path, declared.at(name).line,
                       absl::StrCat("node '", name,
                                    "' is attached to no switch (no link joins it "
                                    "to a switch)"));
    }
  }
  absl::StatusOr<SwitchGraphMachine> machine = SwitchGraphMachine::Create(std::move(spec));
  if (!machine.ok()) return InFile(path, machine.status());
  return machine;
}

}  // namespace

absl::StatusOr<DistanceMatrixMachine> ReadDistanceMatrixFile(const std::string& path) {
  absl::StatusOr<std::vector<Line>> lines = ReadLines(path, /*continuations=*/false);
  if (!lines.ok()) return lines.status();
  absl::StatusOr<DistanceMatrixMachine> m = DistanceMatrixFromLines(*lines, path);
  if (m.ok()) m->set_source(path);
  return m;
}

absl::StatusOr<DistanceMatrixMachine> ParseDistanceMatrixFile(const std::string& text,
                                                              const std::string& source) {
  absl::StatusOr<std::vector<Line>> lines = SplitLines(text, /*continuations=*/false);
  if (!lines.ok()) return lines.status();
  return DistanceMatrixFromLines(*lines, source);
}

namespace {

absl::StatusOr<DistanceMatrixMachine> DistanceMatrixFromLines(const std::vector<Line>& file_lines,
                                                              const std::string& path) {
  const std::vector<Line>* lines = &file_lines;
  const auto separators = absl::ByAnyChar(" \t\r\f\v,");

  std::vector<std::string> names;
  int names_line = 0;
  size_t first = 0;
  if (!lines->empty() &&
      absl::StartsWithIgnoreCase((*lines)[0].text, absl::string_view("names:"))) {
    names_line = (*lines)[0].number;
    const absl::string_view rest = absl::string_view((*lines)[0].text).substr(6);
    for (absl::string_view name : absl::StrSplit(rest, separators, absl::SkipEmpty())) {
      names.emplace_back(name);
    }
    if (names.empty()) return LineError(path, names_line, "'names:' gives no names");
    first = 1;
  }
  std::vector<int32_t> hops;
  std::vector<int> row_line;
  size_t width = 0;
  for (size_t l = first; l < lines->size(); ++l) {
    const Line& line = (*lines)[l];
    const size_t row = row_line.size();
    size_t count = 0;
    for (absl::string_view token : absl::StrSplit(line.text, separators, absl::SkipEmpty())) {
      ++count;
      int64_t value = 0;
      auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
      if (ec == std::errc::result_out_of_range ||
          (ec == std::errc() && ptr == token.data() + token.size() &&
           (value > DistanceMatrixMachine::kMaxHops || value < -DistanceMatrixMachine::kMaxHops))) {
        return LineError(path, line.number,
                         absl::StrCat("entry ", count, " '", token, "' is out of range (0..",
                                      DistanceMatrixMachine::kMaxHops, ")"));
      }
      if (ec != std::errc() || ptr != token.data() + token.size()) {
        return LineError(path, line.number,
                         absl::StrCat("entry ", count, " '", token, "' is not an integer"));
      }
      hops.push_back(static_cast<int32_t>(value));
    }
    if (row == 0) {
      width = count;
      if (width > static_cast<size_t>(DistanceMatrixMachine::kMaxNodes)) {
        return LineError(path, line.number,
                         absl::StrCat("row 1 has ", width, " entries; at most ",
                                      DistanceMatrixMachine::kMaxNodes, " nodes are supported"));
      }
    } else if (count != width) {
      return LineError(
          path, line.number,
          absl::StrCat("row ", row + 1, " has ", count, " entries but row 1 has ", width));
    }
    if (row + 1 > width) {
      return LineError(path, line.number,
                       absl::StrCat("row ", row + 1, " is one row too many: a matrix with ", width,
                                    " columns must have ", width, " rows"));
    }
    row_line.push_back(line.number);
  }
  if (row_line.empty()) return SourceError(path, "no matrix rows");
  if (row_line.size() != width) {
    return LineError(path, row_line.back(),
                     absl::StrCat("the matrix has ", row_line.size(), " rows of ", width,
                                  " entries; it must be square"));
  }
  const int32_t n = static_cast<int32_t>(width);
  if (!names.empty() && names.size() != width) {
    return LineError(
        path, names_line,
        absl::StrCat("'names:' gives ", names.size(), " names but the matrix has ", n, " rows"));
  }
  if (std::optional<HopMatrixProblem> problem = FindHopMatrixProblem(n, hops)) {
    return LineError(path, row_line[problem->row], problem->message);
  }
  absl::StatusOr<DistanceMatrixMachine> machine =
      DistanceMatrixMachine::Create(n, std::move(hops), std::move(names));
  if (!machine.ok()) {
    return names_line > 0 ? LineError(path, names_line, machine.status().message())
                          : InFile(path, machine.status());
  }
  return machine;
}

}  // namespace

}  // namespace hopmap
