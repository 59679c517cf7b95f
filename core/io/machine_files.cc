#include "core/io/machine_files.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/io/line_reader.h"
#include "core/io/machine_file_lines.h"
#include "core/io/slurm_topology_conf.h"
#include "core/io/slurm_topology_machine.h"

namespace hopmap {
namespace {

using io_internal::ExpandWithinBudget;
using io_internal::kMaxNamesPerFile;
using io_internal::Line;
using io_internal::ReadLines;
using io_internal::SplitLines;
using io_internal::Words;

// Prefixes a Create() error with the file.
absl::Status InFile(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::StatusOr<SwitchGraphMachine> SwitchGraphFromLines(const std::vector<Line>& file_lines,
                                                        const std::string& path,
                                                        std::string spec_string);
absl::StatusOr<DistanceMatrixMachine> DistanceMatrixFromLines(const std::vector<Line>& file_lines,
                                                              const std::string& path);

// slurm:FILE: a topology.conf of the tree plugin.
absl::StatusOr<SwitchGraphMachine> TreeOfConf(absl::StatusOr<SlurmTopologyFile> file,
                                              std::string spec) {
  if (!file.ok()) return file.status();
  if (file->topologies.empty()) return SourceError(file->source, "no SwitchName lines");
  const SlurmTopology& topo = file->topologies[0];
  if (topo.kind != SlurmTopologyKind::kTree) {
    return LineError(file->source, topo.line,
                     absl::StrCat("a ", SlurmTopologyKindName(topo.kind),
                                  " topology.conf: slurm: reads the tree plugin's (SwitchName= "
                                  "lines); read this one with slurm-topology:",
                                  file->source));
  }
  return SlurmTreeSwitchGraph(*file, topo, std::move(spec));
}

}  // namespace

absl::StatusOr<SwitchGraphMachine> ReadSlurmTopology(const std::string& path) {
  return TreeOfConf(ReadSlurmTopologyConf(path), absl::StrCat("slurm:", path));
}

absl::StatusOr<SwitchGraphMachine> ParseSlurmTopology(const std::string& text,
                                                      const std::string& source) {
  return TreeOfConf(ParseSlurmTopologyConf(text, source), "");
}

absl::StatusOr<SwitchGraphMachine> ReadSwitchGraphFile(const std::string& path) {
  absl::StatusOr<std::vector<Line>> lines = ReadLines(path, /*continuations=*/false);
  if (!lines.ok()) return lines.status();
  return SwitchGraphFromLines(*lines, path, absl::StrCat("graph:", path));
}

absl::StatusOr<SwitchGraphMachine> ParseSwitchGraphFile(const std::string& text,
                                                        const std::string& source) {
  return SwitchGraphFromLines(SplitLines(text, /*continuations=*/false), source, "");
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
  return DistanceMatrixFromLines(SplitLines(text, /*continuations=*/false), source);
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
