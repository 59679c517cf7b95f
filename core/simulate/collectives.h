// NCCL's collectives as phases of task-to-task flows: the ring and the double binary
// tree all-reduce. docs/simulate.md, "Collectives of GPU jobs".
#ifndef HOPMAP_CORE_SIMULATE_COLLECTIVES_H_
#define HOPMAP_CORE_SIMULATE_COLLECTIVES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/simulate/network_model.h"
#include "core/types.h"

namespace hopmap {

enum class AllReduceAlgorithm { kRing, kTree };

// The parent of `rank` in NCCL's binary tree over n ranks (ncclGetBtree: the parent
// of r clears r's lowest set bit and sets the next one up, or only clears it when
// that leaves the range); -1 for rank 0, the root.
int64_t NcclTreeParent(int64_t n, int64_t rank);
// The parent of `rank` in NCCL's second tree: the first tree mirrored (n even,
// root n-1) or shifted by one rank (n odd, root 1); -1 at the root.
int64_t NcclSecondTreeParent(int64_t n, int64_t rank);

// An all-reduce of `payload` bytes over `ranks` (group order):
//  ring: one phase, each rank sends 2(n-1)/n x payload to the next (NCCL's
//    2(n-1) ring steps folded into one bandwidth phase: the step latencies after
//    the first are not modelled);
//  tree: NCCL's double binary tree, each tree carrying half the payload: the
//    reduce goes up level by level (deepest senders first), then the broadcast
//    down, one phase per level: 2 x depth phases, both trees in the same phases.
// No phases for fewer than 2 ranks.
std::vector<std::vector<TaskFlow>> AllReducePhases(std::span<const TaskId> ranks, uint64_t payload,
                                                   AllReduceAlgorithm algorithm);

// One phase: ranks[i] sends `bytes` to ranks[(i + 1) mod n], i in group order.
std::vector<TaskFlow> RingPhase(std::span<const TaskId> ranks, uint64_t bytes);
// Pairwise exchange (an all-to-all): n - 1 phases; in phase k, ranks[i] sends `bytes` to
// ranks[(i + k) mod n].
std::vector<std::vector<TaskFlow>> PairwiseAllToAllPhases(std::span<const TaskId> ranks,
                                                          uint64_t bytes);

// Appends `more` to `phases` phase by phase (phase i of `more` joins phase i), so
// that groups that run at once share phases.
void MergePhases(std::vector<std::vector<TaskFlow>> more,
                 std::vector<std::vector<TaskFlow>>& phases);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SIMULATE_COLLECTIVES_H_
