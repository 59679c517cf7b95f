// Colour-blind safe colours for hopmap's pictures: viridis (a perceptually uniform
// sequential map, readable with every common colour-vision deficiency) for
// quantities, and the Okabe-Ito qualitative palette for classes.
#ifndef HOPMAP_CLIENT_DRAW_PALETTE_H_
#define HOPMAP_CLIENT_DRAW_PALETTE_H_

#include <string>
#include <utility>
#include <vector>

namespace hopmap::draw {

struct Rgb {
  double r = 0, g = 0, b = 0;  // each in [0, 1]
};

// Viridis at t in [0, 1] (clamped): dark purple at 0, yellow at 1.
Rgb Viridis(double t);

// Okabe-Ito colours (black left out: it is the text colour), in an order that
// runs from "good" (green, blues) to "bad" (orange, vermillion, purple).
inline constexpr int kNumClassColours = 6;
Rgb ClassColour(int index);

// Fixed colours shared by the pictures.
inline constexpr Rgb kText{0.1, 0.1, 0.1};
inline constexpr Rgb kFrame{0.55, 0.55, 0.55};
inline constexpr Rgb kNotAllocated{1, 1, 1};
inline constexpr Rgb kAllocatedEmpty{0.86, 0.86, 0.86};
inline constexpr Rgb kNoTraffic{0.9, 0.9, 0.9};
// The two mappings of a comparison: in-order (orange) and the answer (blue).
inline constexpr Rgb kInOrderColour{0.902, 0.624, 0.0};
inline constexpr Rgb kAnswerColour{0.0, 0.447, 0.698};

// Hop counts 1..max_hops grouped into at most kNumClassColours classes of
// consecutive values (one class per value when max_hops is small).
class HopClasses {
 public:
  explicit HopClasses(int max_hops);
  // The hop counts that occur (e.g. of the edges a picture draws): one class per
  // value when there are at most kNumClassColours of them (a fat tree's 2 and 4,
  // a hierarchy's 1, 10 and 100), else HopClasses(max_hops).
  static HopClasses OfValues(std::vector<int> hops, int max_hops);
  [[nodiscard]] int size() const { return static_cast<int>(first_.size()); }
  [[nodiscard]] int ClassOf(int hops) const;
  // "1 hop", "3 hops", "4-6 hops".
  [[nodiscard]] std::string Label(int cls) const;

 private:
  std::vector<int> first_;  // the first hop count of each class
  std::vector<int> last_;   // the last hop count of each class
  int max_hops_ = 1;
};

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_PALETTE_H_
