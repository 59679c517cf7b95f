#include "core/io/mapping_writers.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/io/gpu_launch_writers.h"

namespace hopmap {
namespace {

struct FormatEntry {
  MappingFormat format;
  const char* name;
  // Its host names go unquoted into a whitespace-separated file (CheckPlainName).
  bool plain_names = false;
};

constexpr std::array<FormatEntry, 13> kFormats = {{
    {MappingFormat::kJson, "json"},
    {MappingFormat::kPerm, "perm"},
    {MappingFormat::kRankfile, "rankfile", true},
    {MappingFormat::kRankNodeCore, "rank-node-core", true},
    {MappingFormat::kHostfile, "hostfile", true},
    {MappingFormat::kMapCpu, "map-cpu", true},
    {MappingFormat::kHydra, "hydra", true},
    {MappingFormat::kMpichRankOrder, "mpich-rank-order"},
    {MappingFormat::kBgMapfile, "bg-mapfile"},
    {MappingFormat::kCsv, "csv"},
    {MappingFormat::kTorchrun, "torchrun", true},
    {MappingFormat::kSlurmGpu, "slurm-gpu", true},
    {MappingFormat::kK8sPods, "k8s-pods"},
}};

// Hostnames go into whitespace-separated files unquoted (and hydra's "HOST:COUNT"
// lines, where ':' and '#' separate).
absl::Status CheckPlainName(const Allocation& allocation, NodeId node, const std::string& name,
                            MappingFormat format) {
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          MappingFormatName(format), ": node ", node, " of ", allocation.machine().Spec(),
          " is named '", name, "', which has whitespace or a control character"));
    }
    if (format == MappingFormat::kHydra && (c == ':' || c == '#')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hydra: node ", node, " of ", allocation.machine().Spec(), " is named '", name,
          "', which holds '", std::string(1, c), "' (a separator in hydra's machinefile)"));
    }
  }
  return absl::OkStatus();
}

// The host name of every allocation position, checked for `format` once.
absl::StatusOr<std::vector<std::string>> PositionNames(const Allocation& allocation,
                                                       MappingFormat format) {
  const bool plain_names = std::any_of(kFormats.begin(), kFormats.end(), [&](const FormatEntry& e) {
    return e.format == format && e.plain_names;
  });
  std::vector<std::string> names(allocation.num_nodes());
  for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
    names[p] = allocation.machine().NodeName(allocation.node_at(p));
    if (plain_names) {
      if (absl::Status s = CheckPlainName(allocation, allocation.node_at(p), names[p], format);
          !s.ok()) {
        return s;
      }
    }
  }
  return names;
}

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

absl::StatusOr<std::string> MpichRankOrder(const Allocation& allocation,
                                           std::span<const SlotId> slot_of_task) {
  const int32_t cores = allocation.cores_per_node();
  std::vector<TaskId> task_on_slot(allocation.num_slots(), kInvalidTask);
  std::vector<int32_t> count(allocation.num_nodes(), 0);
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    task_on_slot[slot_of_task[t]] = static_cast<TaskId>(t);
    ++count[allocation.PositionOfSlot(slot_of_task[t])];
  }
  int32_t last_used = -1;
  for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
    if (count[p] > 0) last_used = p;
  }
  for (int32_t p = 0; p < last_used; ++p) {
    if (count[p] < cores) {
      return absl::FailedPreconditionError(absl::StrCat(
          "mpich-rank-order: node ", allocation.machine().NodeName(allocation.node_at(p)),
          " (allocation position ", p, ") holds ", count[p], " tasks on ", cores,
          " cores, but a later node (",
          allocation.machine().NodeName(allocation.node_at(last_used)), ", position ", last_used,
          ") holds tasks: Cray fills each node's PEs with the next ranks of MPICH_RANK_ORDER, "
          "so only the last used node may be partly empty; use a rankfile or hostfile, or "
          "launch with fewer PEs per node"));
    }
  }
  // Tokens in placement order, runs of consecutive ranks compressed to "a-b".
  std::vector<std::string> tokens;
  TaskId run_start = kInvalidTask, run_end = kInvalidTask;
  auto flush = [&]() {
    if (run_start == kInvalidTask) return;
    tokens.push_back(run_start == run_end ? absl::StrCat(run_start)
                                          : absl::StrCat(run_start, "-", run_end));
  };
  for (TaskId t : task_on_slot) {
    if (t == kInvalidTask) continue;
    if (run_start != kInvalidTask && t == run_end + 1) {
      run_end = t;
      continue;
    }
    flush();
    run_start = run_end = t;
  }
  flush();
  std::string out =
      absl::StrCat("# hopmap rank order for MPICH_RANK_REORDER_METHOD=3: ", slot_of_task.size(),
                   " ranks, ", cores, " PEs per node\n");
  constexpr size_t kMaxLine = 80;
  size_t line = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (line > 0 && line + 1 + tokens[i].size() > kMaxLine) {
      out += '\n';
      line = 0;
    }
    if (line > 0) {
      out += ',';
      ++line;
    }
    out += tokens[i];
    line += tokens[i].size();
  }
  if (line > 0) out += '\n';
  return out;
}

std::string HydraMachinefile(const Allocation& allocation, std::span<const SlotId> slot_of_task,
                             const std::vector<std::string>& names) {
  struct Line {
    int32_t position;
    std::vector<int32_t> cores;  // of the line's ranks, in rank order
  };
  std::vector<Line> lines;
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    const int32_t position = allocation.PositionOfSlot(slot_of_task[t]);
    if (lines.empty() || names[lines.back().position] != names[position]) {
      lines.push_back({position, {}});
    }
    lines.back().cores.push_back(allocation.CoreOfSlot(slot_of_task[t]));
  }
  // One list binds every line: the i-th process of each line gets bind[i].
  std::vector<int32_t> bind;
  bool fits = true;
  for (const Line& line : lines) {
    for (size_t i = 0; i < line.cores.size() && fits; ++i) {
      if (i == bind.size()) bind.push_back(line.cores[i]);
      fits = bind[i] == line.cores[i];
    }
  }
  std::string out = absl::StrCat("# hopmap machinefile for MPICH's hydra, ", slot_of_task.size(),
                                 " ranks: mpiexec -f FILE");
  if (fits) {
    absl::StrAppend(&out, " -bind-to user:", absl::StrJoin(bind, ","), " -n ", slot_of_task.size(),
                    " PROGRAM\n");
  } else {
    absl::StrAppend(&out, " -n ", slot_of_task.size(),
                    " PROGRAM (no -bind-to user: list fits every line: hydra binds each "
                    "line's processes with one list; the hosts are exact, the cores unbound)\n");
  }
  for (const Line& line : lines) {
    absl::StrAppend(&out, names[line.position], ":", line.cores.size(), "\n");
  }
  return out;
}

std::string MapCpuLists(const Allocation& allocation, std::span<const SlotId> slot_of_task,
                        const std::vector<std::string>& names) {
  // Slurm binds to the CPUs as the OS numbers them (the node's cpus=, or hwloc's).
  const NodeInterior* interior = allocation.machine().node_interior().get();
  std::vector<std::vector<int32_t>> cores_of(allocation.num_nodes());
  for (SlotId slot : slot_of_task) {
    const int32_t core = allocation.CoreOfSlot(slot);
    cores_of[allocation.PositionOfSlot(slot)].push_back(
        interior != nullptr ? interior->OsCpuOf(core) : core);
  }
  // Tasks are visited in rank order, so each list is in srun's local task order.
  std::vector<int32_t> shared;
  bool fits = true;
  for (const std::vector<int32_t>& cores : cores_of) {
    for (size_t i = 0; i < cores.size() && fits; ++i) {
      if (i == shared.size()) shared.push_back(cores[i]);
      fits = shared[i] == cores[i];
    }
  }
  std::string out = absl::StrCat("# hopmap map_cpu lists, ", slot_of_task.size(),
                                 " ranks (SLURM_HOSTFILE from --format hostfile, "
                                 "srun --distribution=arbitrary): ");
  absl::StrAppend(&out, fits ? absl::StrCat("srun --cpu-bind=map_cpu:", absl::StrJoin(shared, ","),
                                            " fits every node\n")
                             : "no one list fits every node (srun takes one list for all "
                               "of them)\n");
  for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
    if (cores_of[p].empty()) continue;
    absl::StrAppend(&out, names[p], " map_cpu:", absl::StrJoin(cores_of[p], ","), "\n");
  }
  return out;
}

}  // namespace

absl::StatusOr<MappingFormat> ParseMappingFormat(absl::string_view name) {
  std::vector<std::string> names;
  for (const FormatEntry& e : kFormats) {
    if (name == e.name) return e.format;
    names.emplace_back(e.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown mapping format '", name, "'; known: ", absl::StrJoin(names, ", ")));
}

std::string MappingFormatName(MappingFormat format) {
  for (const FormatEntry& e : kFormats) {
    if (e.format == format) return e.name;
  }
  return absl::StrCat("MappingFormat(", static_cast<int>(format), ")");
}

absl::StatusOr<std::string> FormatMapping(const Allocation& allocation,
                                          std::span<const SlotId> slot_of_task,
                                          MappingFormat format, bool many_per_slot) {
  if (format == MappingFormat::kJson) {
    return absl::InvalidArgumentError(
        "json: the JSON report is written by the report writer, not FormatMapping");
  }
  if (many_per_slot) {
    if (format != MappingFormat::kPerm && format != MappingFormat::kCsv) {
      return absl::InvalidArgumentError(absl::StrCat(
          MappingFormatName(format),
          " places one process per core; objects placed many per slot are written as json, "
          "perm or csv"));
    }
    if (absl::Status s =
            ValidatePlacement(allocation, static_cast<int64_t>(slot_of_task.size()), slot_of_task);
        !s.ok()) {
      return s;
    }
  } else if (absl::Status s = ValidateMapping(allocation, static_cast<int64_t>(slot_of_task.size()),
                                              slot_of_task);
             !s.ok()) {
    return s;
  }
  if (format == MappingFormat::kMpichRankOrder) return MpichRankOrder(allocation, slot_of_task);

  const Machine& machine = allocation.machine();
  const std::vector<int32_t> dims = machine.dims();
  if (format == MappingFormat::kBgMapfile && dims.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("bg-mapfile: machine ", machine.Spec(),
                     " has no node coordinates; a Blue Gene mapfile needs a torus or mesh"));
  }
  absl::StatusOr<std::vector<std::string>> names = PositionNames(allocation, format);
  if (!names.ok()) return names.status();

  if (format == MappingFormat::kHydra) return HydraMachinefile(allocation, slot_of_task, *names);
  if (format == MappingFormat::kMapCpu) return MapCpuLists(allocation, slot_of_task, *names);
  if (format == MappingFormat::kTorchrun)
    return TorchrunPlacement(allocation, slot_of_task, *names);
  if (format == MappingFormat::kSlurmGpu) return SlurmGpuHostfile(allocation, slot_of_task, *names);
  if (format == MappingFormat::kK8sPods) return KubernetesPods(allocation, slot_of_task, *names);
  const NodeInterior* interior = machine.node_interior().get();

  std::string out;
  if (format == MappingFormat::kCsv) out = "task,slot,node,hostname,core\n";
  std::vector<int32_t> coords(dims.size());
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    const SlotId slot = slot_of_task[t];
    const int32_t position = allocation.PositionOfSlot(slot);
    const int32_t core = allocation.CoreOfSlot(slot);
    const std::string& host = (*names)[position];
    switch (format) {
      case MappingFormat::kPerm:
        absl::StrAppend(&out, slot, "\n");
        break;
      case MappingFormat::kRankfile:
        if (interior != nullptr) {
          absl::StrAppend(&out, "rank ", t, "=", host, " slot=", interior->PackageOf(core), ":",
                          interior->CoreInPackage(core), "\n");
        } else {
          absl::StrAppend(&out, "rank ", t, "=", host, " slot=", core, "\n");
        }
        break;
      case MappingFormat::kRankNodeCore:
        absl::StrAppend(&out, t, " ", host, " ", core, "\n");
        break;
      case MappingFormat::kHostfile:
        absl::StrAppend(&out, host, "\n");
        break;
      case MappingFormat::kBgMapfile:
        machine.Coordinates(allocation.node_at(position), coords);
        absl::StrAppend(&out, absl::StrJoin(coords, " "), " ", core, "\n");
        break;
      case MappingFormat::kCsv:
        absl::StrAppend(&out, t, ",", slot, ",", allocation.node_at(position), ",", CsvField(host),
                        ",", core, "\n");
        break;
      case MappingFormat::kJson:
      case MappingFormat::kHydra:
      case MappingFormat::kMapCpu:
      case MappingFormat::kMpichRankOrder:
      case MappingFormat::kTorchrun:
      case MappingFormat::kSlurmGpu:
      case MappingFormat::kK8sPods:
        break;  // handled above
    }
  }
  return out;
}

}  // namespace hopmap
