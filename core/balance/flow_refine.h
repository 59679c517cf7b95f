// Max-flow min-cut refinement of a k-way partition (KaFFPa's flow refinement,
// Sanders and Schulz 2011, "Engineering Multilevel Graph Partitioning
// Algorithms", section 4; what KaFFPa strong, and so SharedMap strong, add to FM).
// For two parts A and B that share edges, a corridor around their boundary
// (breadth-first from it, inside each part, only as much as the other part could
// take in) becomes a flow network: the rest of A is the source, the rest of B the
// sink. Every cut of that network is a partition of A and B, the current one
// among them, so a minimum cut is the best split of the corridor any moves could
// find, not only the ones FM's single moves reach one at a time.
#ifndef HOPMAP_CORE_BALANCE_FLOW_REFINE_H_
#define HOPMAP_CORE_BALANCE_FLOW_REFINE_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "core/balance/kway_fm.h"

namespace hopmap {

struct FlowRefineOptions {
  // The corridor on A's side holds at most B's room (its limit less its weight)
  // plus (alpha - 1) x B's tolerance (its limit less its share of the parts'
  // total weight); the same for B's side. alpha = 1 keeps every cut within the
  // limits; larger corridors find more but their minimum cuts may not fit, so a
  // pair starts at max_alpha and halves it until a cut fits (KaFFPa's adaptive
  // flow iterations). A pair whose cut fell is tried again at the same alpha.
  double max_alpha = 16;
  // Rounds over the pairs of parts that share edges, heaviest shared cut first;
  // a round that lowers nothing ends them.
  int32_t max_rounds = 2;
  absl::Status Validate() const;
};

// Refines `part` (values in [0, max_weight.size())) in place. Of all minimum
// cuts of a corridor, the one taken is the most balanced among those its
// residual graph's strongly connected components give in one sweep (the
// "most balanced minimum cut" of KaFFPa, after Picard and Queyranne): a part
// never goes above max(its limit, its weight before). A cut is taken only when it
// is lower than the pair's cut before. Deterministic. Returns how much the cut
// (KwayCut) fell.
int64_t RefineKwayCutByFlows(const CsrGraph& graph, std::span<const int64_t> max_weight,
                             std::span<int32_t> part, const FlowRefineOptions& options = {});

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_FLOW_REFINE_H_
