// Keeping blocks of consecutive tasks on one node (SolveRequest::keep_blocks): the
// launchers that number a node's processes with consecutive ranks (torchrun's
// node_rank x nproc_per_node + local_rank, a Kubernetes pod per host) can start only
// placements in which each node holds whole blocks. The request layer contracts the
// graph into blocks, maps that quotient onto an allocation of cores_per_node / K
// slots per node, and expands the answer.
#ifndef HOPMAP_CORE_SOLVE_KEEP_BLOCKS_H_
#define HOPMAP_CORE_SOLVE_KEEP_BLOCKS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "core/solve/report.h"
#include "core/solve/solve.h"

namespace hopmap {

// What keep_blocks asks of the request: >= 1; above 1, not with balance, and
// (when the graph and the allocation are given) a divisor of the cores per node
// and of the task count. Field "keep_blocks" (or "initial" for an initial mapping
// that splits a block). Part of CheckSolveOptions / CheckSolveInputs.
std::optional<RequestError> CheckKeepBlocksOption(const SolveRequest& request);
std::optional<RequestError> CheckKeepBlocksInputs(const SolveRequest& request);

// Solves request (checked, keep_blocks > 1) block-wise: block b (tasks K*b ..
// K*b+K-1) goes on quotient slot q = p * (cores/K) + c (position p, core c), and
// task K*b+j on slot K*q + j = p*cores + c*K + j. The report measures the expanded
// mapping on the request's graph and allocation; its algorithm, candidates and
// statistics are the quotient solve's (whose hop-bytes equal the expanded ones:
// the bytes inside a block stay inside a node).
absl::StatusOr<MappingReport> SolveKeepingBlocks(const SolveRequest& request,
                                                 const SolveControl& control);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_KEEP_BLOCKS_H_
