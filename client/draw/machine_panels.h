// The machine drawn as its layout: where the tasks are (placement) and how loaded
// each link is (links), and the dragonfly's matrix of global links.
#ifndef HOPMAP_CLIENT_DRAW_MACHINE_PANELS_H_
#define HOPMAP_CLIENT_DRAW_MACHINE_PANELS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "client/draw/canvas.h"
#include "client/draw/layout.h"
#include "client/draw/palette.h"

namespace hopmap::draw {

// Layout units to page coordinates: the layout scaled to fit a box, top-left.
struct View {
  double x0 = 0, y0 = 0, scale = 1;
  [[nodiscard]] double X(double x) const { return x0 + x * scale; }
  [[nodiscard]] double Y(double y) const { return y0 + y * scale; }
};
View FitLayout(const MachineLayout& layout, double x, double y, double w, double h);

// The colour (in [0, 1]) of each of `num_positions` allocation positions: the
// positions that hold a task, in allocation order, spread evenly from 0 (the first)
// to 1 (the last), however many nodes the allocation has beside them; -1 for a
// position without tasks. A small job on a large machine gets the whole scale.
std::vector<double> JobNodeColours(int32_t num_positions,
                                   std::span<const int32_t> position_of_task);

// What the placement panel shows of each cell.
struct CellState {
  bool allocated = false;
  int64_t tasks = 0;
  double colour = 0;  // in [0, 1]: the JobNodeColours of the cell's first node with tasks
};

// One of the heaviest edges, between the cells of its two tasks.
struct DrawnEdge {
  int32_t cell_a = 0, cell_b = 0;
  double weight = 0;
  int32_t hops = 0;
};

void DrawPlacementPanel(const Canvas& canvas, const MachineLayout& layout, const View& view,
                        const std::vector<CellState>& cells, const std::vector<DrawnEdge>& edges,
                        const HopClasses& hop_classes);

// Per mark, the largest load of the links drawn there; -1 where no link is.
struct LinkMarkLoads {
  std::vector<double> cell_fill, cell_left, cell_right;
  std::vector<double> bar_left, bar_right, bar_full;
  std::vector<double> matrix;  // row-major, layout.matrix.size squared
  struct Segment {
    LinkMark mark;
    double load = 0;
  };
  std::vector<Segment> segments;
  double max_load = 0;
};
LinkMarkLoads CollectLinkMarks(const MachineLayout& layout,
                               const std::vector<double>& bytes_on_link);

// Loads coloured on viridis from 0 to `scale_max` bytes.
void DrawLinkPanel(const Canvas& canvas, const MachineLayout& layout, const View& view,
                   const std::vector<bool>& cell_allocated, const LinkMarkLoads& loads,
                   double scale_max);
void DrawLinkMatrix(const Canvas& canvas, double x, double y, double size, const LinkMatrix& matrix,
                    const LinkMarkLoads& loads, double scale_max);

// Viridis colour of a load (kNoTraffic for zero).
Rgb LoadColour(double load, double scale_max);

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_MACHINE_PANELS_H_
