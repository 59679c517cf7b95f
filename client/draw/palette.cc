#include "client/draw/palette.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace hopmap::draw {
namespace {

// Viridis (matplotlib's) at t = 0, 1/8, ..., 1; between them linear in RGB, which
// stays within a small fraction of the published 256-entry table.
constexpr std::array<Rgb, 9> kViridis = {{
    {0x44 / 255.0, 0x01 / 255.0, 0x54 / 255.0},
    {0x47 / 255.0, 0x2d / 255.0, 0x7b / 255.0},
    {0x3b / 255.0, 0x52 / 255.0, 0x8b / 255.0},
    {0x2c / 255.0, 0x72 / 255.0, 0x8e / 255.0},
    {0x21 / 255.0, 0x91 / 255.0, 0x8c / 255.0},
    {0x28 / 255.0, 0xae / 255.0, 0x80 / 255.0},
    {0x5e / 255.0, 0xc9 / 255.0, 0x62 / 255.0},
    {0xad / 255.0, 0xdc / 255.0, 0x30 / 255.0},
    {0xfd / 255.0, 0xe7 / 255.0, 0x25 / 255.0},
}};

constexpr std::array<Rgb, kNumClassColours> kOkabeIto = {{
    {0.0, 0.620, 0.451},    // bluish green
    {0.337, 0.706, 0.914},  // sky blue
    {0.0, 0.447, 0.698},    // blue
    {0.902, 0.624, 0.0},    // orange
    {0.835, 0.369, 0.0},    // vermillion
    {0.800, 0.475, 0.655},  // reddish purple
}};

}  // namespace

Rgb Viridis(double t) {
  if (!(t > 0)) return kViridis.front();  // also NaN
  if (t >= 1) return kViridis.back();
  const double x = t * (kViridis.size() - 1);
  const size_t i = static_cast<size_t>(x);
  const double f = x - static_cast<double>(i);
  const Rgb& a = kViridis[i];
  const Rgb& b = kViridis[i + 1];
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

Rgb ClassColour(int index) {
  return kOkabeIto[static_cast<size_t>(std::clamp(index, 0, kNumClassColours - 1))];
}

HopClasses::HopClasses(int max_hops) : max_hops_(std::max(1, max_hops)) {
  const int classes = std::min(kNumClassColours, max_hops_);
  // Class c starts at 1 + floor(c * max_hops / classes): sizes differ by at most one.
  for (int c = 0; c < classes; ++c) first_.push_back(1 + c * max_hops_ / classes);
  for (int c = 0; c < classes; ++c) {
    last_.push_back(c + 1 < classes ? first_[static_cast<size_t>(c) + 1] - 1 : max_hops_);
  }
}

HopClasses HopClasses::OfValues(std::vector<int> hops, int max_hops) {
  std::sort(hops.begin(), hops.end());
  hops.erase(std::unique(hops.begin(), hops.end()), hops.end());
  HopClasses classes(max_hops);
  if (hops.empty() || hops.size() > static_cast<size_t>(kNumClassColours)) return classes;
  classes.first_ = hops;
  classes.last_ = std::move(hops);
  return classes;
}

int HopClasses::ClassOf(int hops) const {
  const auto it = std::upper_bound(first_.begin(), first_.end(), hops);
  return std::max(0, static_cast<int>(it - first_.begin()) - 1);
}

std::string HopClasses::Label(int cls) const {
  const int first = first_[static_cast<size_t>(cls)];
  const int last = last_[static_cast<size_t>(cls)];
  if (first == last) return absl::StrCat(first, first == 1 ? " hop" : " hops");
  return absl::StrCat(first, "-", last, " hops");
}

}  // namespace hopmap::draw
