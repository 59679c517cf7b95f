#include "core/solve/keep_blocks.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/mappers/portfolio/registry.h"
#include "core/solve/measure.h"
#include "core/solve/solve_mapping.h"

namespace hopmap {
namespace {

std::optional<RequestError> Problem(std::string field, std::string message) {
  return RequestError{std::move(field), absl::InvalidArgumentError(message)};
}

// The graph of the blocks: the bytes between two blocks summed, the bytes inside
// one become self traffic (they stay inside a node whatever the mapping).
absl::StatusOr<TaskGraph> ContractBlocks(const TaskGraph& graph, int32_t block) {
  TaskGraphBuilder builder(graph.num_tasks() / block);
  builder.Reserve(graph.adjncy().size() / 2);
  absl::Status added = absl::OkStatus();
  for (TaskId u = 0; u < graph.num_tasks() && added.ok(); ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v && added.ok()) added = builder.AddTraffic(u / block, v / block, w);
    });
  }
  if (!added.ok()) return added;
  return std::move(builder).Build();
}

// The initial mapping of the blocks: each block's tasks on consecutive slots from
// one that is a multiple of the block size, or which task breaks that.
absl::StatusOr<std::vector<SlotId>> ContractInitial(std::span<const SlotId> initial,
                                                    int32_t block) {
  std::vector<SlotId> blocks(initial.size() / block);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const SlotId first = initial[b * block];
    for (int32_t j = 0; j < block; ++j) {
      if (first % block != 0 || initial[b * block + j] != first + j) {
        return absl::InvalidArgumentError(absl::StrCat(
            "initial mapping: task ", b * block + j, " is on slot ", initial[b * block + j],
            ", which splits its block of ", block, " tasks (block ", b,
            " must be on slots K*q .. K*q+K-1 in task order, K = keep_blocks)"));
      }
    }
    blocks[b] = first / block;
  }
  return blocks;
}

}  // namespace

std::optional<RequestError> CheckKeepBlocksOption(const SolveRequest& request) {
  if (request.keep_blocks < 1) {
    return Problem("keep_blocks", absl::StrCat("must be >= 1, got ", request.keep_blocks));
  }
  if (request.keep_blocks > 1 && request.balance.has_value()) {
    return Problem(
        "keep_blocks",
        absl::StrCat("must be 1 with balance (objects many per slot), got ", request.keep_blocks));
  }
  return std::nullopt;
}

std::optional<RequestError> CheckKeepBlocksInputs(const SolveRequest& request) {
  const int32_t block = request.keep_blocks;
  if (block <= 1) return std::nullopt;
  const int32_t cores = request.allocation->cores_per_node();
  if (cores % block != 0) {
    return Problem("keep_blocks", absl::StrCat("blocks of ", block, " tasks must divide the ",
                                               cores, " slots per node"));
  }
  if (const TaskId tasks = request.graph->num_tasks(); tasks % block != 0) {
    return Problem("keep_blocks", absl::StrCat("blocks of ", block, " tasks must divide the ",
                                               tasks, " tasks of the graph"));
  }
  if (!request.initial.empty() &&
      std::ssize(request.initial) == static_cast<int64_t>(request.graph->num_tasks())) {
    if (absl::StatusOr<std::vector<SlotId>> c = ContractInitial(request.initial, block); !c.ok()) {
      return RequestError{"initial", c.status()};
    }
  }
  return std::nullopt;
}

absl::StatusOr<MappingReport> SolveKeepingBlocks(const SolveRequest& request,
                                                 const SolveControl& control) {
  const int32_t block = request.keep_blocks;
  const Allocation& allocation = *request.allocation;
  absl::StatusOr<TaskGraph> quotient = ContractBlocks(*request.graph, block);
  if (!quotient.ok()) return quotient.status();
  absl::StatusOr<Allocation> blocks_allocation = Allocation::Create(
      allocation.shared_machine(), allocation.nodes(), allocation.cores_per_node() / block);
  if (!blocks_allocation.ok()) return blocks_allocation.status();
  std::vector<SlotId> initial;
  SolveControl blocks_control = control;
  blocks_control.initial = nullptr;
  if (!request.initial.empty()) {
    absl::StatusOr<std::vector<SlotId>> contracted =
        std::ssize(request.initial) == static_cast<int64_t>(request.graph->num_tasks())
            ? ContractInitial(request.initial, block)
            : absl::InvalidArgumentError(absl::StrCat(
                  "initial mapping: has ", request.initial.size(), " entries but the graph has ",
                  request.graph->num_tasks(), " tasks"));
    if (!contracted.ok()) return contracted.status();
    initial = *std::move(contracted);
    blocks_control.initial = &initial;
  }
  // The budget of the whole job, as the edges size it (local == server).
  MapperOptions options = request.options;
  if (options.time_limit_seconds == 0) {
    options.time_limit_seconds = DefaultSolveTimeLimitSeconds(request);
  }
  absl::StatusOr<MappingReport> solved = SolveMapping(
      *quotient, *blocks_allocation, request.algorithm, options, BuiltinMappers(), blocks_control);
  if (!solved.ok()) return solved.status();
  MappingReport report;
  report.slot_of_task.resize(request.graph->num_tasks());
  for (size_t b = 0; b < solved->slot_of_task.size(); ++b) {
    for (int32_t j = 0; j < block; ++j) {
      report.slot_of_task[b * block + j] = solved->slot_of_task[b] * block + j;
    }
  }
  MeasureMapping(*request.graph, allocation, options.routing, report, std::nullopt);
  report.algorithm = std::move(solved->algorithm);
  report.candidates = std::move(solved->candidates);
  report.stats = std::move(solved->stats);
  report.solve_seconds = solved->solve_seconds;
  report.time_limit_seconds = solved->time_limit_seconds;
  return report;
}

}  // namespace hopmap
