// hopmap draw: pictures of a mapping on its machine (placement, link loads, hops
// histogram, in-order against the answer), as SVG, PNG or PDF.
#ifndef HOPMAP_CLIENT_DRAW_PICTURE_H_
#define HOPMAP_CLIENT_DRAW_PICTURE_H_

#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap::draw {

enum class What { kPlacement, kLinks, kHops, kCompare };
// "placement", "links", "hops", "compare"; anything else names the known values.
absl::StatusOr<What> ParseWhat(absl::string_view name);
absl::string_view WhatName(What what);

struct DrawOptions {
  What what = What::kPlacement;
  Routing routing = Routing::kDimensionOrder;
  // Above this many machine nodes (or task-grid tasks), cells stand for blocks.
  int64_t max_cells = 4096;
  int heaviest_edges = 200;  // placement: the heaviest edges between nodes drawn
  int busiest_links = 10;    // links: the busiest links named
  // Names the bad field: max_cells in [16, 65536], the counts in [0, 10000].
  absl::Status Validate() const;
};

struct DrawJob {
  const TaskGraph* graph = nullptr;
  const Allocation* allocation = nullptr;
  std::span<const SlotId> slot_of_task;  // the answer; checked against the allocation
  std::string job_name;                  // in the title, e.g. the graph file's name
};

// Draws `options.what` to `path` (the format from its extension), written to a
// temporary file beside it and renamed, so a failed draw leaves no partial file.
// Errors name what is wrong: the extension, a mapping of the wrong size or with a
// slot outside the allocation, a machine without links for --what links, a path
// that cannot be written.
absl::Status DrawPicture(const DrawJob& job, const DrawOptions& options, const std::string& path);

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_PICTURE_H_
