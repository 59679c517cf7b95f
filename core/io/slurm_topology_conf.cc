#include "core/io/slurm_topology_conf.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/io/line_reader.h"
#include "core/io/machine_file_lines.h"

namespace hopmap {
namespace {

using io_internal::Line;

// What one plugin's lines may hold: the key that names an entry (in lower case and
// as Slurm writes it), the other keys, and how errors name them.
struct PluginKeys {
  SlurmTopologyKind kind;
  const char* entry;          // "switchname"
  const char* entry_written;  // "SwitchName"
  const char* others[3];      // the other keys, in lower case; null after the last
  const char* expected;       // "SwitchName, Switches, Nodes or LinkSpeed"
  const char* noun;           // "switch"
};
constexpr PluginKeys kTreeKeys = {.kind = SlurmTopologyKind::kTree,
                                  .entry = "switchname",
                                  .entry_written = "SwitchName",
                                  .others = {"switches", "nodes", "linkspeed"},
                                  .expected = "SwitchName, Switches, Nodes or LinkSpeed",
                                  .noun = "switch"};
constexpr PluginKeys kBlockKeys = {.kind = SlurmTopologyKind::kBlock,
                                   .entry = "blockname",
                                   .entry_written = "BlockName",
                                   .others = {"nodes", "blocksizes"},
                                   .expected = "BlockName, Nodes or BlockSizes",
                                   .noun = "block"};
constexpr PluginKeys kRingKeys = {.kind = SlurmTopologyKind::kRing,
                                  .entry = "ringname",
                                  .entry_written = "RingName",
                                  .others = {"nodes"},
                                  .expected = "RingName or Nodes",
                                  .noun = "ring"};

// A line's KEY=VALUE words in order: the key in lower case and as written, the value.
struct Word {
  std::string key;
  std::string written_key;
  std::string value;
};

absl::StatusOr<std::vector<Word>> ReadWords(const Line& line, const std::string& path) {
  std::vector<Word> words;
  for (absl::string_view word : io_internal::Words(line.text)) {
    const size_t eq = word.find('=');
    if (eq == absl::string_view::npos) {
      return LineError(path, line.number, absl::StrCat("'", word, "' is not KEY=VALUE"));
    }
    Word w{absl::AsciiStrToLower(word.substr(0, eq)), std::string(word.substr(0, eq)),
           std::string(word.substr(eq + 1))};
    for (const Word& earlier : words) {
      if (earlier.key == w.key) {
        return LineError(path, line.number, absl::StrCat("key '", w.written_key, "' given twice"));
      }
    }
    words.push_back(std::move(w));
  }
  return words;
}

const Word* Find(const std::vector<Word>& words, absl::string_view key) {
  for (const Word& w : words) {
    if (w.key == key) return &w;
  }
  return nullptr;
}

// The plugin a line is written for and the word that says so (its entry's name, or
// BlockSizes=); null for a line without one.
std::pair<const PluginKeys*, const Word*> PluginOf(const std::vector<Word>& words) {
  for (const PluginKeys* keys : {&kTreeKeys, &kBlockKeys, &kRingKeys}) {
    if (const Word* w = Find(words, keys->entry)) return {keys, w};
  }
  if (const Word* w = Find(words, "blocksizes")) return {&kBlockKeys, w};
  return {nullptr, nullptr};
}

// Reads the lines of one file into its topology.
class ConfReader {
 public:
  ConfReader(std::string path, SlurmTopology& topo) : path_(std::move(path)), topo_(topo) {}

  absl::Status ReadLine(const Line& line) {
    absl::StatusOr<std::vector<Word>> words = ReadWords(line, path_);
    if (!words.ok()) return words.status();
    const auto [plugin, said_by] = PluginOf(*words);
    if (keys_ == nullptr) {
      keys_ = plugin != nullptr ? plugin : &kTreeKeys;
      topo_.kind = keys_->kind;
      topo_.line = line.number;
    }
    if (plugin != nullptr && plugin != keys_) {
      return Error(
          line, absl::StrCat(said_by->written_key, "= in a topology.conf of ", keys_->entry_written,
                             "= lines (the ", SlurmTopologyKindName(keys_->kind),
                             " plugin's): one plugin per file"));
    }
    for (const Word& word : *words) {
      bool known = word.key == keys_->entry;
      for (const char* k : keys_->others) known = known || (k != nullptr && word.key == k);
      if (!known) {
        return Error(line, absl::StrCat("unknown key '", word.written_key, "' (expected ",
                                        keys_->expected, ")"));
      }
    }
    if (Find(*words, "blocksizes") != nullptr) return ReadBlockSizes(line, *words);
    const Word* entry = Find(*words, keys_->entry);
    if (entry == nullptr) {
      return Error(line, absl::StrCat("the line has no ", keys_->entry_written, "=",
                                      keys_ == &kBlockKeys ? " or BlockSizes=" : ""));
    }
    if (entry->value.empty()) {
      return Error(line, absl::StrCat("'", entry->written_key, "=' has no value"));
    }
    if (entry->value.find_first_of("[],") != std::string::npos) {
      return Error(line,
                   absl::StrCat(entry->written_key, " '", entry->value, "' must be a single name"));
    }
    auto [it, inserted] = defined_.emplace(entry->value, line.number);
    if (!inserted) {
      return Error(line, absl::StrCat(keys_->noun, " '", entry->value,
                                      "' is already defined on line ", it->second));
    }
    absl::StatusOr<std::vector<std::string>> nodes = Hostlist(line, *words, "nodes");
    if (!nodes.ok()) return nodes.status();
    if (keys_ == &kTreeKeys) return AddSwitch(line, *words, *entry, *std::move(nodes));
    if (nodes->empty()) {
      return Error(line, absl::StrCat(keys_->noun, " '", entry->value, "' has no Nodes="));
    }
    SlurmNodeGroup group{entry->value, *std::move(nodes), line.number, line.number};
    if (keys_ == &kBlockKeys) {
      topo_.blocks.push_back(std::move(group));
      return absl::OkStatus();
    }
    if (group.nodes.size() > static_cast<size_t>(kSlurmMaxRingSize)) {
      return Error(line, absl::StrCat("ring '", group.name, "': ", group.nodes.size(),
                                      " nodes, Slurm's limit is ", kSlurmMaxRingSize));
    }
    topo_.rings.push_back(std::move(group));
    return absl::OkStatus();
  }

  // What is checked once every line is read.
  absl::Status Finish() const {
    if (keys_ == nullptr) return absl::OkStatus();
    for (const SlurmSwitch& sw : topo_.switches) {
      for (const std::string& child : sw.children) {
        if (!defined_.contains(child)) {
          return LineError(path_, sw.line,
                           absl::StrCat("switch '", child, "' in Switches= of '", sw.name,
                                        "' is never defined by a SwitchName line"));
        }
      }
    }
    if (keys_->kind == SlurmTopologyKind::kTree && !has_nodes_) {
      return SourceError(path_, "no Nodes= under any switch");
    }
    if (keys_->kind == SlurmTopologyKind::kBlock && topo_.blocks.empty()) {
      return SourceError(path_, "BlockSizes= but no BlockName= lines");
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const Line& line, absl::string_view message) const {
    return LineError(path_, line.number, message);
  }

  // The hostlist of `key` (empty when the line has none), within the file's budget.
  absl::StatusOr<std::vector<std::string>> Hostlist(const Line& line,
                                                    const std::vector<Word>& words,
                                                    const char* key) {
    const Word* word = Find(words, key);
    if (word == nullptr) return std::vector<std::string>{};
    if (word->value.empty()) {
      return Error(line, absl::StrCat("'", word->written_key, "=' has no value"));
    }
    absl::StatusOr<std::vector<std::string>> names =
        io_internal::ExpandWithinBudget(word->value, names_left_);
    if (!names.ok()) {
      return Error(line, absl::StrCat(word->written_key, "=: ", names.status().message()));
    }
    return names;
  }

  absl::Status AddSwitch(const Line& line, const std::vector<Word>& words, const Word& name,
                         std::vector<std::string> nodes) {
    if (const Word* speed_word = Find(words, "linkspeed")) {
      const std::string& value = speed_word->value;
      int64_t speed = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), speed);
      if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || speed < 0) {
        return Error(line, absl::StrCat("LinkSpeed '", value, "' is not a non-negative integer"));
      }
    }
    absl::StatusOr<std::vector<std::string>> children = Hostlist(line, words, "switches");
    if (!children.ok()) return children.status();
    has_nodes_ = has_nodes_ || !nodes.empty();
    topo_.switches.push_back(
        {name.value, *std::move(children), std::move(nodes), line.number, line.number});
    return absl::OkStatus();
  }

  absl::Status ReadBlockSizes(const Line& line, const std::vector<Word>& words) {
    if (words.size() > 1) return Error(line, "BlockSizes= stands on a line of its own");
    if (topo_.block_sizes_line != 0) {
      return Error(line,
                   absl::StrCat("BlockSizes= is already given on line ", topo_.block_sizes_line));
    }
    const Word& word = words.front();
    for (absl::string_view part : absl::StrSplit(word.value, ',')) {
      int32_t size = 0;
      auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), size);
      if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || size < 1) {
        return Error(line, absl::StrCat("BlockSizes '", word.value,
                                        "' is not a list of positive integers (4,16)"));
      }
      topo_.block_sizes.push_back(size);
    }
    topo_.block_sizes_line = line.number;
    return absl::OkStatus();
  }

  std::string path_;
  SlurmTopology& topo_;
  const PluginKeys* keys_ = nullptr;               // the file's plugin, once a line says
  absl::flat_hash_map<std::string, int> defined_;  // entry name -> its line
  size_t names_left_ = io_internal::kMaxNamesPerFile;
  bool has_nodes_ = false;
};

absl::StatusOr<SlurmTopologyFile> FromLines(const std::vector<Line>& lines,
                                            const std::string& source) {
  SlurmTopologyFile file;
  file.source = source;
  file.conf = true;
  if (lines.empty()) return file;
  SlurmTopology topo;
  topo.name = kSlurmConfTopologyName;
  topo.cluster_default = true;
  ConfReader reader(source, topo);
  for (const Line& line : lines) {
    if (absl::Status s = reader.ReadLine(line); !s.ok()) return s;
  }
  if (absl::Status s = reader.Finish(); !s.ok()) return s;
  file.topologies.push_back(std::move(topo));
  return file;
}

}  // namespace

absl::StatusOr<SlurmTopologyFile> ReadSlurmTopologyConf(const std::string& path) {
  absl::StatusOr<std::vector<Line>> lines = io_internal::ReadLines(path, /*continuations=*/true);
  if (!lines.ok()) return lines.status();
  return FromLines(*lines, path);
}

absl::StatusOr<SlurmTopologyFile> ParseSlurmTopologyConf(const std::string& text,
                                                         const std::string& source) {
  return FromLines(io_internal::SplitLines(text, /*continuations=*/true), source);
}

}  // namespace hopmap
