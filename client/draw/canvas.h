// A page to draw on with Cairo, written as SVG, PNG or PDF (chosen by the file's
// extension) from the same drawing calls.
#ifndef HOPMAP_CLIENT_DRAW_CANVAS_H_
#define HOPMAP_CLIENT_DRAW_CANVAS_H_

#include <cairo.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/draw/palette.h"

namespace hopmap::draw {

enum class FileFormat { kSvg, kPng, kPdf };

// From the extension of `path` (case-insensitive): .svg, .png or .pdf; anything
// else is an InvalidArgument error that names the extensions.
absl::StatusOr<FileFormat> FileFormatOfPath(absl::string_view path);

enum class Align { kLeft, kCentre, kRight };

class Canvas {
 public:
  // Opens a temporary file next to `path` (so the final rename is atomic) and a
  // width x height page (in points for PDF, pixels for PNG and SVG). Fails with
  // the path and the system's reason when the file cannot be created.
  static absl::StatusOr<std::unique_ptr<Canvas>> Open(const std::string& path, double width,
                                                      double height);
  // Draws into an existing Cairo context it does not own (a raster layer).
  explicit Canvas(cairo_t* cr, double width, double height)
      : cr_(cr), width_(width), height_(height), borrowed_(true) {}
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;

  [[nodiscard]] cairo_t* cr() const { return cr_; }
  [[nodiscard]] double width() const { return width_; }
  [[nodiscard]] double height() const { return height_; }

  void SetColour(const Rgb& c) const { cairo_set_source_rgb(cr_, c.r, c.g, c.b); }
  void FillRect(double x, double y, double w, double h, const Rgb& c) const;
  void StrokeRect(double x, double y, double w, double h, const Rgb& c, double line) const;
  void Line(double x1, double y1, double x2, double y2, const Rgb& c, double width) const;
  // Text with its baseline at y; returns its width.
  double Text(double x, double y, absl::string_view text, double size, const Rgb& colour = kText,
              Align align = Align::kLeft, bool bold = false) const;
  [[nodiscard]] double TextWidth(absl::string_view text, double size, bool bold = false) const;

  // Flushes the page, closes the file and renames it to the path; the first
  // error of Cairo or of the file system, naming the path.
  absl::Status Finish();

 private:
  Canvas() = default;
  void SetFont(double size, bool bold) const;

  std::string path_, temp_path_;
  FileFormat format_ = FileFormat::kSvg;
  FILE* file_ = nullptr;
  cairo_surface_t* surface_ = nullptr;
  cairo_t* cr_ = nullptr;
  double width_ = 0, height_ = 0;
  bool finished_ = false;
  bool borrowed_ = false;
};

// The width of `text` as a page's TextWidth gives it, measured without a page (on
// a scratch Cairo context): for sizing a page before it is opened.
double MeasureText(absl::string_view text, double size, bool bold = false);

// `text` broken into lines no wider than `width`: at spaces, and a word wider than
// `width` after a ':', ',', '/', '=' or '+' (anywhere as a last resort). Never
// empty: "" is one empty line.
std::vector<std::string> WrapText(absl::string_view text, double size, double width,
                                  bool bold = false);

// `text` when it fits `width`, else "..." and as much of its end as fits (a path
// keeps its file name, a spec its last fields).
std::string FitText(absl::string_view text, double size, double width, bool bold = false);

// Calls `draw` on a raster layer covering the page box (x, y, w, h) at 2 pixels
// per page unit, with the page's coordinates, and paints the layer onto the page.
// A layer of many thousand marks then costs an image in an SVG or PDF file,
// not a path per mark (the 5 MB bound on pictures of large jobs).
void DrawAsRaster(const Canvas& page, double x, double y, double w, double h,
                  const std::function<void(const Canvas&)>& draw);

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_CANVAS_H_
