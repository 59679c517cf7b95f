// What `hopmap draw` and `hopmap map --draw` share: the drawing flags and the
// allocation built either here or with the daemon's help.
#ifndef HOPMAP_CLIENT_DRAW_COMMAND_H_
#define HOPMAP_CLIENT_DRAW_COMMAND_H_

#include <span>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "client/cli_common.h"
#include "client/draw/canvas.h"
#include "client/draw/picture.h"

namespace hopmap::cli {

struct DrawFlags {
  std::string what = "placement";
  std::string routing = "dimension-order";
  int64_t max_cells = 4096;
  int edges = 200;
  int busiest_links = 10;
};

// --what (with `what_name`, "--what" or "--draw-what"), --max-cells, --edges and
// --busiest-links; `prefix` ("" or "draw-") keeps map's own flags apart.
void AddDrawOptionFlags(CLI::App& app, DrawFlags& flags, const std::string& prefix);

// The flags as options (ParseWhat, ParseRouting, Validate).
absl::StatusOr<draw::DrawOptions> DrawOptionsFromFlags(const DrawFlags& flags);

// The job's name in a picture's title: the graph file's name without its folder.
std::string JobName(const std::string& graph_path);

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_DRAW_COMMAND_H_
